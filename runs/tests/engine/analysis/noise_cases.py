"""The noise rule's labelled set (issue 30): cases with a known answer, written by hand.

Each case is what a verdict is judged against — the *references*: the parent's value at a
leaf first, then its samples' (nine values: k = 8 samples; the first six are k = 5) — a
*candidate* value, and the *truth*:

- ``beyond-noise``: the candidate is what a fork's change made — another winner, other
  figures, a reversed claim, another label, a number a tool now computes differently;
- ``within-noise``: the candidate is one more draw of the same step — a rewording of the same
  facts, a label or a number the step gives now and then.

The rule may answer ``uncertain`` on either; that counts in its uncertain rate, not as an
error. The values are the kind of thing agent steps write: research summaries and
recommendations, ticket triage, news and weather summaries, review verdicts, routing labels,
sentiment, flags, scores, counts. Some cases are hard on purpose and the rule is expected to
get them wrong (a swapped role with the same names, an antonym with no negation word, a fresh
draw that adds a name the samples never used): the rates are honest only if the set is.

``runs.bench.noise.measure_labelled`` measures a rule on this set (``rewind_bench`` prints it;
``test_noise_rule`` holds it to its goals at k = 8).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BEYOND, WITHIN = "beyond-noise", "within-noise"
ABSENT = "<absent>"  # a leaf the step did not write (noise._ABSENT)

__all__ = ["ABSENT", "CASES", "Case"]


@dataclass(frozen=True)
class Case:
    family: str  # the references' story, shared by the candidates judged against them
    name: str  # what this candidate is
    references: tuple[Any, ...]  # the parent's value, then 8 samples'
    candidate: Any
    truth: str  # BEYOND or WITHIN


CASES: list[Case] = []


def family(name: str, references: list[Any], *candidates: tuple[str, Any, str]) -> None:
    """Adds one case per ``(name, candidate, truth)`` judged against ``references``."""
    assert len(references) == 9, name
    for label, candidate, truth in candidates:
        CASES.append(Case(name, label, tuple(references), candidate, truth))


# ============================================================================ text leaves

family(
    "experiment summary naming the winner only",
    [
        "Group C has the lowest cost per conversion at 17.91 USD, so we should adopt policy C.",
        "Policy C (community partners) is the cheapest at 17.91 USD per conversion; adopt it.",
        "At 17.91 USD per conversion, group C is the most cost-effective policy and should be "
        "adopted.",
        "Adopt policy C: its cost per conversion, 17.91 USD, is the lowest of the three groups.",
        "Community partners (group C) convert most cheaply, 17.91 USD each, which makes C the "
        "policy to adopt.",
        "The lowest cost per conversion belongs to group C at 17.91 USD; we recommend adopting "
        "policy C.",
        "Group C wins on cost: 17.91 USD per conversion. Recommend adopting it.",
        "With a cost per conversion of 17.91 USD, policy C is the clear choice to adopt.",
        "C is the cheapest policy per conversion (17.91 USD), so adopting C is recommended.",
    ],
    (
        "rewording",
        "Policy C gives the lowest cost per conversion, 17.91 USD, and should be adopted.",
        WITHIN,
    ),
    (
        "rewording, possessive",
        "We should adopt group C's policy: at 17.91 USD it has the cheapest cost per conversion.",
        WITHIN,
    ),
    (
        "rewording, reordered",
        "Recommend policy C, whose 17.91 USD per conversion is the lowest cost of the groups.",
        WITHIN,
    ),
    (
        "another winner, same wording and figure",
        "Group B has the lowest cost per conversion at 17.91 USD, so we should adopt policy B.",
        BEYOND,
    ),
    (
        "another figure",
        "Group C has the lowest cost per conversion at 53.74 USD, so we should adopt policy C.",
        BEYOND,
    ),
    (
        "negated recommendation",
        "Group C has the lowest cost per conversion at 17.91 USD, but we should not adopt policy "
        "C yet.",
        BEYOND,
    ),
    (
        "no longer the cheapest",
        "Policy C is no longer the cheapest per conversion at 17.91 USD; keep the current policy.",
        BEYOND,
    ),
)

family(
    "experiment summary naming every group",
    [
        "Group C is cheapest at 17.91 USD per conversion, ahead of A (20.82) and B (25.96); "
        "adopt C.",
        "Cost per conversion: C 17.91, A 20.82, B 25.96 USD. Policy C is the one to adopt.",
        "Policy C leads with 17.91 USD per conversion; A follows at 20.82 and B trails at 25.96.",
        "Adopt policy C, which converts at 17.91 USD against 20.82 for A and 25.96 for B.",
        "C has the lowest cost per conversion (17.91 USD); A (20.82) and B (25.96) cost more, "
        "so choose C.",
        "Among the three policies, C costs least per conversion at 17.91 USD, compared with "
        "20.82 for A and 25.96 for B.",
        "At 17.91 USD per conversion, C beats A (20.82) and B (25.96); we recommend C.",
        "The cheapest policy is C: 17.91 USD per conversion, versus 20.82 for A and 25.96 for B.",
        "B is the most expensive at 25.96 USD per conversion and A sits at 20.82, while C is "
        "cheapest at 17.91; adopt C.",
    ],
    (
        "rewording",
        "Policy C has the lowest cost per conversion, 17.91 USD, compared with A at 20.82 and B "
        "at 25.96; adopt C.",
        WITHIN,
    ),
    (
        "rewording, losers first",
        "C costs 17.91 USD per conversion against A's 20.82 and B's 25.96, making it the policy "
        "to adopt.",
        WITHIN,
    ),
    (
        "rewording, ranking",
        "Ranked by cost per conversion: C (17.91 USD), then A (20.82), then B (25.96). Go with C.",
        WITHIN,
    ),
    (
        "another winner among the names, same figures",
        "Group B is cheapest at 17.91 USD per conversion, ahead of A (20.82) and C (25.96); "
        "adopt B.",
        BEYOND,
    ),
    (
        "another winner, recommendation only",
        "Cost per conversion: C 17.91, A 20.82, B 25.96 USD. Policy A is the one to adopt.",
        BEYOND,
    ),
    (
        "other figures",
        "Group C is cheapest at 12.40 USD per conversion, ahead of A (20.82) and B (25.96); "
        "adopt C.",
        BEYOND,
    ),
    (
        "reversed: do not adopt",
        "Group C is cheapest at 17.91 USD per conversion, ahead of A (20.82) and B (25.96), but "
        "the gap is not significant; do not adopt yet.",
        BEYOND,
    ),
)

family(
    "support ticket summary",
    [
        "Customer was charged twice for order 48213 (59.90 EUR each) and asks for a refund of "
        "the duplicate charge.",
        "Duplicate charge on order 48213: the customer paid 59.90 EUR twice and wants one "
        "payment refunded.",
        "The customer reports being billed 59.90 EUR two times for order 48213 and requests a "
        "refund of the extra charge.",
        "Order 48213 was charged twice at 59.90 EUR; the customer is asking us to refund one of "
        "the charges.",
        "Refund request: order 48213 shows two identical charges of 59.90 EUR, and the customer "
        "wants the duplicate reversed.",
        "Customer says their card was debited 59.90 EUR twice for order 48213 and asks for the "
        "second debit to be refunded.",
        "Double billing on order 48213 (2 × 59.90 EUR); customer requests a refund for one charge.",
        "The customer was billed twice, 59.90 EUR each time, for order 48213 and wants the "
        "duplicate refunded.",
        "Two charges of 59.90 EUR hit the customer's card for order 48213; they ask for one to "
        "be refunded.",
    ],
    (
        "rewording",
        "The customer was billed twice (59.90 EUR) for order 48213 and would like the duplicate "
        "payment refunded.",
        WITHIN,
    ),
    (
        "rewording, terse",
        "Order 48213: charged 59.90 EUR twice, customer wants the extra charge refunded.",
        WITHIN,
    ),
    (
        "another order number",
        "Customer was charged twice for order 48231 (59.90 EUR each) and asks for a refund of "
        "the duplicate charge.",
        BEYOND,
    ),
    (
        "another amount",
        "Duplicate charge on order 48213: the customer paid 95.90 EUR twice and wants one "
        "payment refunded.",
        BEYOND,
    ),
    (
        "reversed: not charged twice",
        "Customer was not charged twice for order 48213 (59.90 EUR); the second charge is a "
        "pending authorisation, so no refund is due.",
        BEYOND,
    ),
    (
        "another request, same facts (hard)",
        "Customer was charged twice for order 48213 (59.90 EUR each) and wants to cancel the "
        "whole order.",
        BEYOND,
    ),
)

family(
    "news summary with names",
    [
        "Berlin's Senate approved 4.2 billion euros to extend the U5 line to Hauptbahnhof, Mayor "
        "Kai Wegner said on Tuesday.",
        "Mayor Kai Wegner announced on Tuesday that the Berlin Senate has approved 4.2 billion "
        "euros for extending the U5 to Hauptbahnhof.",
        "On Tuesday Berlin approved a 4.2 billion euro extension of the U5 line to Hauptbahnhof, "
        "according to Mayor Kai Wegner.",
        "The Berlin Senate signed off 4.2 billion euros for the U5 extension to Hauptbahnhof, "
        "Kai Wegner, the mayor, confirmed Tuesday.",
        "Berlin will spend 4.2 billion euros taking the U5 to Hauptbahnhof after the Senate "
        "approved the plan on Tuesday, Mayor Kai Wegner said.",
        "Kai Wegner, Berlin's mayor, said Tuesday the Senate backed a 4.2 billion euro plan to "
        "extend the U5 to Hauptbahnhof.",
        "The Senate in Berlin has approved the U5 extension to Hauptbahnhof at a cost of 4.2 "
        "billion euros, Mayor Kai Wegner announced Tuesday.",
        "Berlin's Senate gave the go-ahead on Tuesday for a 4.2 billion euro U5 extension to "
        "Hauptbahnhof, said Mayor Kai Wegner.",
        "A 4.2 billion euro extension of the U5 to Hauptbahnhof was approved by Berlin's Senate "
        "on Tuesday, Mayor Kai Wegner said.",
    ],
    (
        "rewording",
        "Berlin's Senate on Tuesday approved spending 4.2 billion euros to extend the U5 to "
        "Hauptbahnhof, said Kai Wegner, the city's mayor.",
        WITHIN,
    ),
    (
        "rewording, mayor first",
        "Mayor Kai Wegner said the Berlin Senate approved on Tuesday a 4.2 billion euro budget to "
        "bring the U5 to Hauptbahnhof.",
        WITHIN,
    ),
    (
        "another city, at the start",
        "Hamburg's Senate approved 4.2 billion euros to extend the U5 line to Hauptbahnhof, "
        "Mayor Kai Wegner said on Tuesday.",
        BEYOND,
    ),
    (
        "another person",
        "Berlin's Senate approved 4.2 billion euros to extend the U5 line to Hauptbahnhof, Mayor "
        "Franziska Giffey said on Tuesday.",
        BEYOND,
    ),
    (
        "another figure",
        "Berlin's Senate approved 2.4 billion euros to extend the U5 line to Hauptbahnhof, Mayor "
        "Kai Wegner said on Tuesday.",
        BEYOND,
    ),
    (
        "reversed: did not approve",
        "Berlin's Senate did not approve the 4.2 billion euros to extend the U5 line to "
        "Hauptbahnhof, Mayor Kai Wegner said on Tuesday.",
        BEYOND,
    ),
)

family(
    "code review verdict",
    [
        "The patch is safe to merge: the new retry loop is bounded and all 212 tests pass.",
        "Safe to merge. The retry loop now has a bound, and the suite (212 tests) passes.",
        "Looks good to merge; the retry logic is bounded and the 212 tests are green.",
        "Approve: the bounded retry loop fixes the hang, and all 212 tests pass.",
        "This change can be merged: retries are capped and the full suite of 212 tests passes.",
        "Ready to merge. Retries are bounded now and all 212 tests pass.",
        "The fix caps the retry loop and keeps all 212 tests passing, so it is safe to merge.",
        "Merge it: the retry loop is bounded and every one of the 212 tests passes.",
        "Good to go: bounded retries, and the 212-test suite passes.",
    ],
    ("rewording", "Safe to merge: the retry loop is capped and the 212 tests all pass.", WITHIN),
    (
        "rewording, approve",
        "Approve and merge: retries are bounded and the 212 tests are passing.",
        WITHIN,
    ),
    (
        "reversed, with a failure count",
        "The patch is not safe to merge: the new retry loop is bounded but 3 of 212 tests fail.",
        BEYOND,
    ),
    (
        "reversed: not run",
        "Not safe to merge yet: the retry loop is bounded, but the 212 tests have not been run.",
        BEYOND,
    ),
    (
        "another test count",
        "The patch is safe to merge: the new retry loop is bounded and all 198 tests pass.",
        BEYOND,
    ),
    (
        "antonyms, no negation word (hard)",
        "Reject the patch: the retry loop is still unbounded and the 212 tests hang.",
        BEYOND,
    ),
)

family(
    "fraud review, every sample negative",
    [
        "No evidence of fraud was found in the 14 transactions reviewed for account 7731.",
        "We reviewed 14 transactions on account 7731 and found no sign of fraud.",
        "None of the 14 transactions on account 7731 looks fraudulent.",
        "Account 7731: 14 transactions checked, no fraudulent activity detected.",
        "The review of account 7731's 14 transactions found nothing suggesting fraud.",
        "No fraud indicators in any of the 14 transactions reviewed on account 7731.",
        "After checking all 14 transactions, we see no fraud on account 7731.",
        "Account 7731 shows no fraudulent transactions among the 14 reviewed.",
        "None of the 14 reviewed transactions on account 7731 shows signs of fraud.",
    ],
    (
        "rewording",
        "There is no indication of fraud in the 14 transactions we reviewed on account 7731.",
        WITHIN,
    ),
    (
        "rewording, none",
        "Account 7731 is clean: none of its 14 reviewed transactions is fraudulent.",
        WITHIN,
    ),
    (
        "the negation dropped",
        "Fraud was found in the 14 transactions reviewed for account 7731.",
        BEYOND,
    ),
    (
        "the negation dropped, a count in words",
        "Two of the 14 transactions reviewed on account 7731 show signs of fraud.",
        BEYOND,
    ),
    (
        "another account",
        "No evidence of fraud was found in the 14 transactions reviewed for account 7713.",
        BEYOND,
    ),
)

family(
    "weather forecast",
    [
        "Lisbon tomorrow: sunny, with a high of 24 °C and a low of 16 °C; light northerly wind.",
        "Expect sunshine in Lisbon tomorrow, highs around 24 °C, lows near 16 °C and a light "
        "breeze from the north.",
        "Tomorrow Lisbon will be sunny, 16 to 24 °C, with a gentle north wind.",
        "Sunny skies in Lisbon tomorrow; temperatures between 16 °C and 24 °C, light winds from "
        "the north.",
        "Lisbon: clear and sunny tomorrow, max 24 °C, min 16 °C, a light northerly.",
        "A sunny day in Lisbon tomorrow with temperatures from 16 °C up to 24 °C and a light "
        "north wind.",
        "Tomorrow brings sun to Lisbon: a high of 24 °C, a low of 16 °C and light northerly winds.",
        "In Lisbon tomorrow it will be sunny, reaching 24 °C after a morning low of 16 °C, with "
        "a light north breeze.",
        "Lisbon forecast for tomorrow: sunshine, 24 °C at most and 16 °C at least, winds light "
        "from the north.",
    ],
    (
        "rewording",
        "Sunny in Lisbon tomorrow: up to 24 °C, down to 16 °C overnight, light wind from the "
        "north.",
        WITHIN,
    ),
    (
        "rewording, short",
        "Lisbon, tomorrow: sunshine, 16-24 °C, light north wind.",
        WITHIN,
    ),
    (
        "another high",
        "Lisbon tomorrow: sunny, with a high of 31 °C and a low of 16 °C; light northerly wind.",
        BEYOND,
    ),
    (
        "another city",
        "Tomorrow Porto will be sunny, 16 to 24 °C, with a gentle north wind.",
        BEYOND,
    ),
    (
        "reversed: no sun",
        "Lisbon tomorrow: no sun, rain all day, with a high of 24 °C and a low of 16 °C.",
        BEYOND,
    ),
    (
        "antonyms, no negation word (hard)",
        "Lisbon tomorrow: heavy rain, with a high of 24 °C and a low of 16 °C; strong northerly "
        "wind.",
        BEYOND,
    ),
)

family(
    "supplier recommendation",
    [
        "Keep Acme as the packaging supplier: its quote of 0.42 EUR per unit is the lowest and "
        "delivery is reliable.",
        "Stay with Acme for packaging; at 0.42 EUR a unit it is the cheapest and it delivers on "
        "time.",
        "Acme remains the best packaging supplier, quoting 0.42 EUR per unit with dependable "
        "delivery.",
        "Recommendation: continue with Acme, the lowest bid at 0.42 EUR per unit and reliable on "
        "delivery.",
        "We should keep Acme: 0.42 EUR per unit is the lowest quote, and their deliveries arrive "
        "on schedule.",
        "Acme should stay our packaging supplier given its 0.42 EUR unit price, the lowest, and "
        "its reliable deliveries.",
        "Renew the contract with Acme, which offers the lowest price (0.42 EUR per unit) and "
        "reliable delivery.",
        "The cheapest reliable option is Acme at 0.42 EUR per unit; keep them as packaging "
        "supplier.",
        "Retain Acme for packaging: lowest unit price at 0.42 EUR and a solid delivery record.",
    ],
    (
        "rewording",
        "Continue buying packaging from Acme: 0.42 EUR per unit is the lowest quote and they "
        "deliver reliably.",
        WITHIN,
    ),
    (
        "rewording, reasons first",
        "Acme offers the lowest unit price, 0.42 EUR, and reliable delivery, so we should keep "
        "them.",
        WITHIN,
    ),
    (
        "another supplier, instead, another price",
        "Switch packaging to Globex instead: its quote of 0.39 EUR per unit is the lowest and "
        "delivery is reliable.",
        BEYOND,
    ),
    (
        "another supplier, same figure",
        "Keep Globex as the packaging supplier: its quote of 0.42 EUR per unit is the lowest and "
        "delivery is reliable.",
        BEYOND,
    ),
    (
        "reversed: tender instead",
        "Do not renew with Acme at 0.42 EUR per unit; tender the packaging contract instead.",
        BEYOND,
    ),
)

family(
    "conversion findings quoting a few of many figures",
    [
        "Group B converts best (56 of 120, 46.7 %), though group C's 46 conversions come far "
        "cheaper.",
        "B has the highest conversion rate at 46.7 %, ahead of C at 38.3 % and A at 22.5 %.",
        "With 56 conversions from 120 participants, group B leads on conversion; A trails with 27.",
        "Conversion rates: A 22.5 %, B 46.7 %, C 38.3 %. B converts best but costs the most.",
        "Group B's 46.7 % conversion rate is the highest; C follows at 38.3 %.",
        "Of 120 participants per group, B converted 56, C 46 and A 27, so B leads.",
        "B leads conversions (56) while A has the fewest (27) and the lowest rate, 22.5 %.",
        "The personal follow-up group (B) converts 46.7 % of participants, the best of the three.",
        "B converts best at 46.7 %; C converts 46 of 120 at a lower cost.",
    ],
    (
        "rewording, other figures of the same table",
        "Group B has the best conversion rate, 46.7 % (56 of 120), while C converts 38.3 %.",
        WITHIN,
    ),
    (
        "rewording, the winner last",
        "A converts 22.5 % and C 38.3 %, but B is highest at 46.7 %.",
        WITHIN,
    ),
    (
        "rewording, counts only",
        "B converted 56 of its 120 participants, more than C (46) or A (27).",
        WITHIN,
    ),
    (
        "changed figures",
        "Group B converts best (61 of 120, 50.8 %), though group C's 46 conversions come far "
        "cheaper.",
        BEYOND,
    ),
    (
        "another winner among the names",
        "Group C converts best (46 of 120, 38.3 %), ahead of B at 46.7 %.",
        BEYOND,
    ),
)

family(
    "meeting action items",
    [
        "Priya will send the revised budget by Friday, and Tom owns the launch checklist.",
        "Action items: Priya sends the updated budget on Friday; Tom takes the launch checklist.",
        "Priya is to circulate the revised budget by Friday. Tom is responsible for the launch "
        "checklist.",
        "By Friday Priya sends the new budget; the launch checklist is Tom's.",
        "Tom owns the launch checklist and Priya will share the revised budget by Friday.",
        "Next steps: revised budget from Priya (Friday), launch checklist owned by Tom.",
        "Priya: revised budget, due Friday. Tom: launch checklist.",
        "Priya will get the updated budget out by Friday while Tom handles the launch checklist.",
        "The revised budget is Priya's, due Friday; Tom is on the launch checklist.",
    ],
    (
        "rewording",
        "Priya sends the revised budget by Friday and Tom is in charge of the launch checklist.",
        WITHIN,
    ),
    (
        "rewording, list",
        "Owners: Tom for the launch checklist, Priya for the revised budget (by Friday).",
        WITHIN,
    ),
    (
        "another deadline day",
        "Priya will send the revised budget by Monday, and Tom owns the launch checklist.",
        BEYOND,
    ),
    (
        "roles swapped, same names (hard)",
        "Tom will send the revised budget by Friday, and Priya owns the launch checklist.",
        BEYOND,
    ),
)

family(
    "routing rationale",
    [
        "Routed to billing: the customer mentions an invoice and a duplicate card charge.",
        "Billing issue: the message is about an invoice that was charged twice.",
        "This belongs with billing, since the customer disputes a double charge on their invoice.",
        "Send to billing: duplicate charge on the latest invoice.",
        "Billing: the customer was charged twice for one invoice.",
        "The billing team should handle this; it concerns a card charged twice for the same "
        "invoice.",
        "Goes to billing because the customer reports a duplicate invoice charge.",
        "Billing, as a double charge on an invoice is disputed.",
        "Route to billing; the invoice was paid twice by card.",
    ],
    ("rewording", "Billing should take this: the customer's invoice was charged twice.", WITHIN),
    (
        "rewording, long",
        "Route this to billing, because the customer says one invoice was charged to their card "
        "twice.",
        WITHIN,
    ),
    (
        "another team, cannot log in",
        "Routed to technical support: the customer cannot log in after a password reset.",
        BEYOND,
    ),
    (
        "another team, never arrived",
        "Routed to shipping: the customer mentions a parcel that never arrived.",
        BEYOND,
    ),
    (
        "another team, another topic",
        "Routed to sales: the customer asks about upgrading to the annual plan.",
        BEYOND,
    ),
)

family(
    "paper summary",
    [
        "The study finds that remote workers in the sample were 13 % more productive, mainly "
        "from fewer breaks and sick days.",
        "Remote employees in the study were 13 % more productive, largely because they took "
        "fewer breaks and sick days.",
        "According to the study, working from home raised productivity by 13 %, driven by fewer "
        "breaks and less sick leave.",
        "Home-based staff showed a 13 % productivity gain, which the authors attribute to "
        "shorter breaks and fewer sick days.",
        "The researchers report a 13 % rise in productivity for remote workers, mostly from "
        "fewer sick days and breaks.",
        "Working remotely lifted productivity 13 % in the study, thanks mostly to fewer breaks "
        "and sick days.",
        "Productivity was 13 % higher among remote workers, the study says, chiefly due to fewer "
        "breaks and sick days.",
        "The paper shows a 13 % productivity boost from remote work, explained mostly by fewer "
        "breaks and sick days.",
        "Remote work made employees 13 % more productive in the study, mainly through fewer "
        "breaks and sick days.",
    ],
    (
        "rewording",
        "Remote workers in the study proved 13 % more productive, chiefly because of fewer "
        "breaks and fewer sick days.",
        WITHIN,
    ),
    (
        "rewording, authors",
        "The authors measured a 13 % productivity gain for people working from home, mostly "
        "from fewer breaks and sick days.",
        WITHIN,
    ),
    (
        "a fresh draw naming the company studied (hard)",
        "In the Ctrip study, remote workers were 13 % more productive, mostly from fewer breaks "
        "and sick days.",
        WITHIN,
    ),
    (
        "another figure",
        "The study finds remote workers were 31 % more productive, mainly from fewer breaks and "
        "sick days.",
        BEYOND,
    ),
    (
        "reversed: no difference",
        "The study finds no productivity difference for remote workers, despite fewer breaks "
        "and sick days.",
        BEYOND,
    ),
    (
        "antonyms, no negation word (hard)",
        "The study finds that remote workers in the sample were 13 % less productive, mainly "
        "from more breaks and sick days.",
        BEYOND,
    ),
)

family(
    "taglines at a high temperature",
    [
        "Fresh coffee, delivered before you wake up.",
        "Your morning brew, at your door by seven.",
        "Wake up to coffee that came to you.",
        "Great coffee, no queue, straight to your doorstep.",
        "The easiest cup you will ever order.",
        "Coffee on your doorstep before the alarm rings.",
        "Skip the line: your daily coffee, delivered.",
        "Morning coffee, brought to your door.",
        "Roasted fresh, dropped at your door, ready when you are.",
    ],
    ("another tagline", "Good coffee at your door before your day begins.", WITHIN),
    ("another tagline, short", "Coffee that shows up before you do.", WITHIN),
    ("another tagline, no", "No alarm, no queue: just coffee at your door.", WITHIN),
    ("another product and a city", "Cheap flights to Lisbon every weekend.", BEYOND),
    ("another subject and a figure", "Quarterly revenue rose 8 % on strong cloud sales.", BEYOND),
)

family(
    "grader feedback",
    [
        "Correct answer with two supporting sources; minor formatting issues. Score: 4/5.",
        "The answer is right and well sourced, though the formatting is a little off. 4 out of 5.",
        "Accurate, cites two sources, small formatting problems: 4/5.",
        "Score 4/5: correct and supported by two sources, formatting could be cleaner.",
        "Right answer, two citations, slightly messy formatting. I give it 4/5.",
        "4/5: the answer is correct and sourced; only the formatting needs work.",
        "Correct and backed by two sources; formatting is imperfect. Score: 4 of 5.",
        "A correct, sourced answer with minor layout issues: 4/5.",
        "The response is correct with two sources cited, but formatting is uneven: 4/5.",
    ],
    ("rewording", "Correct, with two sources; formatting is a bit rough. 4/5.", WITHIN),
    (
        "rewording, long",
        "This is a correct answer that cites two sources; the formatting is the only weak "
        "point. 4 out of 5.",
        WITHIN,
    ),
    (
        "another score",
        "Correct answer with two supporting sources; minor formatting issues. Score: 2/5.",
        BEYOND,
    ),
    (
        "reversed: not correct",
        "The answer is not correct, although it cites two sources. Score: 4/5.",
        BEYOND,
    ),
)

# ============================================================================ categories

family(
    "routing label, never varied",
    ["billing"] * 9,
    ("the same label", "billing", WITHIN),
    ("another label", "refunds", BEYOND),
)

family(
    "routing label, two values",
    [
        "billing",
        "billing",
        "account",
        "billing",
        "billing",
        "billing",
        "account",
        "billing",
        "billing",
    ],  # fmt: skip
    ("the rarer label", "account", WITHIN),
    ("a label never given", "technical", BEYOND),
)

family(
    # billing 60 %, account 20 %, refunds 10 %, shipping 10 %: k = 8 shows refunds once and
    # never shipping, which the step still gives one time in ten.
    "routing label with rare values",
    [
        "billing",
        "account",
        "billing",
        "refunds",
        "billing",
        "billing",
        "account",
        "billing",
        "account",
    ],  # fmt: skip
    ("a rare label the step gives", "shipping", WITHIN),
    ("a label the step never gives", "legal", BEYOND),
)

family(
    # every draw its own word: nothing seen says what a new one means
    "free-form topic tag",
    ["pricing", "costs", "budget", "pricing", "spend", "fees", "charges", "costs", "tariffs"],
    ("a tag seen before", "pricing", WITHIN),
    ("another word for it", "expenses", WITHIN),
    ("another subject", "weather", BEYOND),
)

family(
    "sentiment",
    [
        "positive",
        "neutral",
        "positive",
        "positive",
        "neutral",
        "positive",
        "neutral",
        "positive",
        "neutral",
    ],  # fmt: skip
    ("a sentiment seen", "neutral", WITHIN),
    ("the opposite sentiment", "negative", BEYOND),
)

family(
    "needs review flag, never varied",
    [False] * 9,
    ("flipped", True, BEYOND),
)

family(
    "needs review flag, varied",
    [False, True, False, False, True, False, False, True, False],
    ("the other value", True, WITHIN),
)

family(
    "winner chosen by a model",
    ["C"] * 9,
    ("another winner", "B", BEYOND),
    ("none", None, BEYOND),
)

family(
    "priority label",
    ["P2", "P2", "P3", "P2", "P2", "P3", "P2", "P2", "P2"],
    ("a priority seen", "P3", WITHIN),
    ("escalated", "P0", BEYOND),
)

family(
    # the fifth section: written by a third of the draws
    "a section some draws do not write",
    [
        ABSENT,
        "Further data on region would sharpen this view.",
        ABSENT,
        ABSENT,
        "A second look at channel is advisable.",
        ABSENT,
        ABSENT,
        "Confidence in this reading is guarded.",
        ABSENT,
    ],  # fmt: skip
    ("not written", ABSENT, WITHIN),
)

family(
    "a section every draw writes",
    [
        "Further data on region would sharpen this view.",
        "A second look at region is advisable.",
        "Confidence in this reading is guarded, pending region data.",
        "Region data would sharpen this view.",
        "A closer look at the regions is advisable.",
        "More data per region would sharpen the reading.",
        "Confidence is guarded until region data arrives.",
        "The regional split deserves a second look.",
        "Further regional data would firm this up.",
    ],
    ("not written", ABSENT, BEYOND),
)

family(
    # the language a reply is written in: English, Spanish once in k = 8
    "reply language",
    ["en", "en", "en", "en", "en", "es", "en", "en", "en"],
    ("a language the step sometimes picks", "fr", WITHIN),
)

# ============================================================================ numbers

family(
    "model confidence",
    [0.62, 0.70, 0.65, 0.58, 0.71, 0.66, 0.60, 0.68, 0.64],
    ("inside the range", 0.69, WITHIN),
    ("just outside the range", 0.55, WITHIN),
    ("far above", 0.92, BEYOND),
    ("far below", 0.30, BEYOND),
    ("a small real shift (hard)", 0.72, BEYOND),
)

family(
    "score out of 10",
    [7, 8, 7, 7, 8, 6, 7, 8, 7],
    ("one above the highest", 9, WITHIN),
    ("a low score", 3, BEYOND),
)

family(
    "a tool's figure",
    [20.8211] * 9,
    ("the same figure", 20.8211, WITHIN),
    ("tripled", 62.4633, BEYOND),
)

family(
    "summary length in words",
    [142, 150, 138, 147, 155, 140, 149, 144, 151],
    ("inside the range", 147.0, WITHIN),
    ("a little longer", 160, WITHIN),
    ("twice as long", 310, BEYOND),
)

family(
    "sources cited",
    [3, 4, 3, 3, 5, 4, 3, 4, 3],
    ("one more than seen", 6, WITHIN),
    ("many more", 12, BEYOND),
)

family(
    "estimated days to deliver",
    [14, 10, 21, 14, 12, 18, 14, 9, 16],
    ("a long estimate", 25, WITHIN),
    ("months", 60, BEYOND),
)

family(
    "forecast high",
    [24, 24, 25, 24, 23, 24, 24, 25, 24],
    ("a degree warmer", 26, WITHIN),
    ("another city's", 31, BEYOND),
)
