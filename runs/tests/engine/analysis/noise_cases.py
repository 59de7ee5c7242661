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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BEYOND, WITHIN = "beyond-noise", "within-noise"
ABSENT = "<absent>"  # a leaf the step did not write (noise._ABSENT)

__all__ = ["ABSENT", "CASES", "Case", "families"]


@dataclass(frozen=True)
class Case:
    family: str  # the references' story, shared by the candidates judged against them
    name: str  # what this candidate is
    references: tuple[Any, ...]  # the parent's value, then 8 samples'
    candidate: Any
    truth: str  # BEYOND or WITHIN


CASES: list[Case] = []


def families(cases: list[Case]) -> Callable[..., None]:
    """``family(name, references, *candidates)`` adding to ``cases`` one case per ``(name,
    candidate, truth)`` judged against ``references`` (the parent's value and 8 samples')."""

    def family(name: str, references: list[Any], *candidates: tuple[str, Any, str]) -> None:
        assert len(references) == 9, name
        for label, candidate, truth in candidates:
            cases.append(Case(name, label, tuple(references), candidate, truth))

    return family


family = families(CASES)


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

# --- issue 43: what ordinary words carry (tuning cases)
# Antonyms with no negation word, a list item replaced or dropped, a lower-case field, a value
# inside a JSON string, another tool name, an operator in code, number words, units, scale and
# currency, swapped roles, other languages; and hard rewordings that change none of it.

family(
    "monthly churn report",
    [
        "Monthly churn increased from 3.1 % in April to 4.4 % in May, above our 3.5 % target, "
        "mostly because of annual-plan cancellations.",
        "Churn rose to 4.4 % in May (April: 3.1 %), putting us above the 3.5 % target; most of "
        "the rise came from annual-plan cancellations.",
        "May churn was 4.4 %, up from 3.1 % in April and above the 3.5 % goal. Cancellations of "
        "annual plans drove most of it.",
        "Customer churn climbed from 3.1 % to 4.4 % between April and May, exceeding the 3.5 % "
        "target, largely due to annual plan cancellations.",
        "Churn went up in May to 4.4 % from 3.1 %, which is above target (3.5 %). The main "
        "driver: customers cancelling annual plans.",
        "At 4.4 %, May's churn is higher than April's 3.1 % and above the 3.5 % target; "
        "annual-plan cancellations account for most of the increase.",
        "Churn increased month over month, 3.1 % → 4.4 %, and is now above the 3.5 % target, "
        "mainly from annual subscribers cancelling.",
        "We lost more customers in May: churn rose from 3.1 % to 4.4 %, above the 3.5 % target, "
        "driven by annual-plan cancellations (about two thirds of the total).",
        "Churn grew from 3.1 % (April) to 4.4 % (May), above the 3.5 % target, with annual-plan "
        "cancellations the biggest factor.",
    ],
    (
        "rewording, words no reference uses",
        "Attrition worsened in May, reaching 4.4 % against April's 3.1 % and overshooting the "
        "3.5 % goal; departures from yearly plans were the chief cause.",
        WITHIN,
    ),
    (
        "rewording, passive, target first",
        "The 3.5 % target was exceeded in May, when churn reached 4.4 %, up from 3.1 % in April; "
        "annual-plan cancellations were behind most of it.",
        WITHIN,
    ),
    (
        "rewording, terse, no share",
        "Churn: 3.1 % → 4.4 % (April → May), over the 3.5 % target, mainly annual-plan "
        "cancellations.",
        WITHIN,
    ),
    (
        "antonyms, no negation word (hard)",
        "Monthly churn decreased from 4.4 % in April to 3.1 % in May, below our 3.5 % target, "
        "mostly because of fewer annual-plan cancellations.",
        BEYOND,
    ),
    (
        "another plan, one word",
        "Churn rose to 4.4 % in May (April: 3.1 %), putting us above the 3.5 % target; most of "
        "the rise came from monthly-plan cancellations.",
        BEYOND,
    ),
)

family(
    "conference talk proposal review",
    [
        "Accept the talk 'Feature flags without tears': the outline is concrete, the speaker has "
        "given it at two meetups, and it fits the delivery track.",
        "Accept. The proposal on feature flags has a concrete outline, the speaker has presented "
        "it at two meetups, and it suits the delivery track.",
        "I recommend accepting 'Feature flags without tears' — a concrete outline, already "
        "tested at two meetups, and a good fit for the delivery track.",
        "Recommendation: accept. Concrete outline, a speaker who has given the talk twice at "
        "meetups, and a natural fit for delivery.",
        "This talk should be accepted for the delivery track; the outline is specific and the "
        "speaker has delivered it at 2 meetups.",
        "Strong accept for the feature flags talk: clear, concrete outline; proven at two "
        "meetups; fits the delivery track well.",
        "We recommend accepting the 'Feature flags without tears' talk. Its outline is concrete, "
        "it has been given at two meetups, and it belongs in the delivery track.",
        "The feature flags proposal is a good fit for the delivery track, with a concrete outline "
        "and a speaker who has given it at two local meetups. Accept.",
        "Accept: concrete outline, delivered twice before at meetups, fits delivery.",
    ],
    (
        "rewording, words no reference uses",
        "Take this one: the speaker has already run the feature-flag session at a pair of "
        "meetups, the plan is specific, and delivery is the right track for it.",
        WITHIN,
    ),
    (
        "rewording, passive",
        "The talk on feature flags should be approved for the delivery track; it has been "
        "presented at two meetups and its outline is concrete.",
        WITHIN,
    ),
    (
        "reject, antonyms, no negation word (hard)",
        "Recommendation: reject. Vague outline, a speaker who has given the talk twice at "
        "meetups, and a poor fit for delivery.",
        BEYOND,
    ),
    (
        "advise against instead of recommend",
        "We advise against accepting the 'Feature flags without tears' talk. Its outline is "
        "concrete, but it has been given at two meetups already.",
        BEYOND,
    ),
    (
        "another track",
        "Accept the talk 'Feature flags without tears': the outline is concrete, the speaker has "
        "given it at two meetups, and it fits the security track.",
        BEYOND,
    ),
)

family(
    "drone rules for a city park",
    [
        "Recreational drones are permitted in Riverside Park on weekdays before 9 am, below "
        "50 m and at least 30 m from people.",
        "Flying a recreational drone in Riverside Park is permitted on weekdays before 9 am, as "
        "long as you stay below 50 m and keep 30 m from people.",
        "Riverside Park allows hobby drones on weekday mornings until 9 am; keep under 50 m "
        "altitude and 30 m away from others.",
        "You may fly a drone for fun in Riverside Park before 9 am on weekdays, below 50 metres "
        "and at least 30 metres from anyone.",
        "Drones (recreational) are allowed in Riverside Park weekdays before 9:00, max height "
        "50 m, minimum 30 m from people.",
        "Yes — hobby drone flights are permitted in Riverside Park before 9 am Monday to Friday, "
        "under 50 m and 30 m clear of people.",
        "The park rules permit recreational drones in Riverside Park on weekdays until 9 am, "
        "provided they fly below 50 m and stay 30 m from people. No city registration is needed.",
        "Recreational drone use is allowed in Riverside Park before 9 am on weekdays, with a "
        "50 m height limit and a 30 m distance from people.",
        "Permitted: recreational drones in Riverside Park, weekdays before 9 am, below 50 m, "
        "30 m from people.",
    ],
    (
        "rewording, number words",
        "Hobbyists can fly drones in Riverside Park on Monday–Friday mornings up to nine "
        "o'clock, keeping beneath fifty metres and thirty metres from bystanders.",
        WITHIN,
    ),
    (
        "rewording, contraction",
        "It's fine to fly a leisure drone in Riverside Park on weekdays before 9 am if it stays "
        "under 50 m and 30 m from people.",
        WITHIN,
    ),
    (
        "prohibited, no negation word",
        "Recreational drones are prohibited in Riverside Park on weekdays before 9 am, whatever "
        "the height or the distance from people.",
        BEYOND,
    ),
    (
        "above instead of below",
        "Flying a recreational drone in Riverside Park is permitted on weekdays before 9 am, as "
        "long as you stay above 50 m and keep 30 m from people.",
        BEYOND,
    ),
)

family(
    "municipal pool notice in Spanish",
    [
        "La piscina municipal está abierta hoy de 10:00 a 20:00; el acceso cuesta 3 euros.",
        "Hoy la piscina municipal abre de 10:00 a 20:00 y la entrada cuesta 3 euros.",
        "La piscina municipal permanece abierta hoy, de 10 a 20 h. Entrada: 3 €.",
        "Abierta hoy: piscina municipal, horario de 10:00 a 20:00, entrada de 3 euros.",
        "Puedes ir hoy a la piscina municipal: está abierta de 10:00 a 20:00 y la entrada vale "
        "3 euros.",
        "La piscina municipal abre hoy entre las 10:00 y las 20:00; el precio de la entrada es "
        "de tres euros.",
        "Hoy la piscina municipal está abierta desde las 10 hasta las 20 horas, con entrada a "
        "3 euros.",
        "La piscina municipal estará abierta hoy de 10:00 a 20:00. La entrada cuesta 3 euros "
        "(gratis para menores de 6 años).",
        "Piscina municipal: abierta hoy de 10:00 a 20:00, entrada 3 euros.",
    ],
    (
        "rewording",
        "El horario de hoy de la piscina municipal va de las 10 a las 20 horas; se paga una "
        "entrada de 3 euros.",
        WITHIN,
    ),
    (
        "rewording, short, number word",
        "Piscina municipal abierta hoy, 10–20 h; entrada a tres euros.",
        WITHIN,
    ),
    (
        "closed today, no negation word",
        "La piscina municipal está cerrada hoy; mañana abre de 10:00 a 20:00 y la entrada cuesta "
        "3 euros.",
        BEYOND,
    ),
    (
        "another price, a number word",
        "La piscina municipal abre hoy entre las 10:00 y las 20:00; el precio de la entrada es "
        "de cinco euros.",
        BEYOND,
    ),
)

family(
    "holiday flat house rules in German",
    [
        "Rauchen ist auf dem Balkon erlaubt, Haustiere sind willkommen, und ab 22 Uhr gilt "
        "Nachtruhe.",
        "Auf dem Balkon darf geraucht werden. Haustiere sind erlaubt. Nachtruhe ab 22:00 Uhr.",
        "Hausregeln: Rauchen auf dem Balkon erlaubt, Haustiere gestattet, Ruhe ab 22 Uhr.",
        "Sie dürfen auf dem Balkon rauchen und Ihr Haustier mitbringen; ab 22 Uhr bitte "
        "Nachtruhe einhalten.",
        "Auf dem Balkon ist das Rauchen gestattet, Haustiere sind erlaubt, und die Nachtruhe "
        "beginnt um 22 Uhr.",
        "Balkon: Rauchen erlaubt. Haustiere: willkommen. Nachtruhe: ab 22 Uhr.",
        "Geraucht werden darf auf dem Balkon; Hunde und Katzen sind willkommen; ab zehn Uhr "
        "abends ist Nachtruhe.",
        "Rauchen ist nur auf dem Balkon erlaubt, Haustiere sind willkommen (bitte vorher "
        "anmelden), und ab 22 Uhr herrscht Nachtruhe.",
        "Das Rauchen auf dem Balkon ist erlaubt, Haustiere dürfen mit, Nachtruhe ab 22 Uhr.",
    ],
    (
        "rewording",
        "Auf dem Balkon können Gäste rauchen, Tiere dürfen mitgebracht werden, und von 22 Uhr "
        "an soll es ruhig sein.",
        WITHIN,
    ),
    (
        "rewording, reordered",
        "Ab 22 Uhr ist Nachtruhe; Haustiere sind willkommen, und geraucht werden darf auf dem "
        "Balkon.",
        WITHIN,
    ),
    (
        "verboten instead of erlaubt",
        "Rauchen ist auf dem Balkon verboten, Haustiere sind willkommen, und ab 22 Uhr gilt "
        "Nachtruhe.",
        BEYOND,
    ),
    (
        "another hour",
        "Auf dem Balkon darf geraucht werden. Haustiere sind erlaubt. Nachtruhe ab 23:00 Uhr.",
        BEYOND,
    ),
)

family(
    "campsite rules in French",
    [
        "Au camping, les chiens sont autorisés en laisse ; les feux de camp sont interdits, mais "
        "le barbecue à gaz est permis.",
        "Chiens acceptés s'ils sont tenus en laisse. Feux de camp interdits ; barbecues à gaz "
        "autorisés.",
        "Les chiens sont les bienvenus au camping à condition d'être en laisse. Les feux de camp "
        "sont interdits, les barbecues au gaz autorisés.",
        "Vous pouvez venir avec votre chien (en laisse). En revanche, les feux de camp sont "
        "interdits ; seuls les barbecues à gaz sont autorisés.",
        "Règlement du camping : chiens autorisés en laisse, feux de camp interdits, barbecue à "
        "gaz accepté.",
        "Les chiens tenus en laisse sont autorisés sur le camping ; il est interdit de faire des "
        "feux de camp, mais on peut utiliser un barbecue à gaz.",
        "Chiens admis en laisse ; pas de feux de camp ; barbecue à gaz permis.",
        "Au camping, les chiens sont autorisés s'ils restent en laisse, et les barbecues à gaz "
        "sont permis ; les feux de camp, eux, sont interdits à cause du risque d'incendie.",
        "Les feux de camp sont interdits sur le camping, mais les barbecues à gaz et les chiens "
        "en laisse sont autorisés.",
    ],
    (
        "rewording",
        "Votre chien peut vous accompagner au camping s'il reste attaché ; aucun feu de camp "
        "n'est toléré, le barbecue au gaz l'est.",
        WITHIN,
    ),
    (
        "rewording, reordered",
        "Barbecues à gaz autorisés, feux de camp interdits, et chiens acceptés à condition "
        "d'être en laisse.",
        WITHIN,
    ),
    (
        "dogs prohibited, both words in the references (hard)",
        "Règlement du camping : chiens interdits, feux de camp interdits, barbecue à gaz accepté.",
        BEYOND,
    ),
    (
        "campfires allowed",
        "Chiens acceptés s'ils sont tenus en laisse. Feux de camp autorisés ; barbecues à gaz "
        "autorisés.",
        BEYOND,
    ),
)

family(
    "passport renewal documents",
    [
        "To renew your passport, bring the old passport, two recent photos, and proof of "
        "address; the new one arrives in about three weeks.",
        "For a passport renewal you need your old passport, two recent photos and a proof of "
        "address. Expect the new passport in roughly three weeks.",
        "Bring three things: your current passport, 2 recent photos, and proof of address. "
        "Delivery takes about 3 weeks.",
        "Renewal checklist: old passport, two passport photos (recent), proof of address. "
        "Processing time: around three weeks.",
        "You'll need your current passport, two recent photographs and a document proving your "
        "address; the new passport usually comes within three weeks.",
        "Take your old passport, two up-to-date photos and proof of address to the appointment. "
        "The new passport should arrive in about three weeks.",
        "Documents required: the old passport, two recent photos, proof of address (a utility "
        "bill under three months old works). Wait time is about three weeks.",
        "Old passport + 2 recent photos + proof of address. Your new passport will be ready in "
        "approximately 3 weeks.",
        "Bring your old passport, two recent pictures, and proof of address. The renewed "
        "passport arrives in around three weeks.",
    ],
    (
        "rewording, digits, an example only one reference gave",
        "Needed at the counter: the passport you have now, 2 fresh photos and something showing "
        "where you live, such as a bank statement. Turnaround is about 3 weeks.",
        WITHIN,
    ),
    (
        "rewording, reordered, contraction",
        "It'll take about three weeks to get the new passport; bring proof of address, two "
        "recent photos and the old passport.",
        WITHIN,
    ),
    (
        "an item replaced",
        "To renew your passport, bring the old passport, two recent photos, and your birth "
        "certificate; the new one arrives in about three weeks.",
        BEYOND,
    ),
    (
        "an item dropped",
        "To renew your passport, bring the old passport and two recent photos; the new one "
        "arrives in about three weeks.",
        BEYOND,
    ),
    (
        "another number word",
        "For a passport renewal you need your old passport, two recent photos and a proof of "
        "address. Expect the new passport in roughly four weeks.",
        BEYOND,
    ),
)

family(
    "barbecue shopping list",
    [
        "Shopping list for the barbecue: 2 kg chicken wings, 12 burger buns, 1 kg halloumi, "
        "3 bags of charcoal, napkins.",
        "Buy 2 kg of chicken wings, a dozen burger buns, 1 kg of halloumi, three bags of "
        "charcoal and a pack of napkins.",
        "- chicken wings, 2 kg\n- burger buns x12\n- halloumi, 1 kg\n- charcoal, 3 bags\n- napkins",
        "For Saturday's barbecue: chicken wings (2 kg), burger buns (12), halloumi (1 kg), "
        "charcoal (3 bags) and napkins.",
        "We need two kilos of chicken wings, twelve buns, a kilo of halloumi, 3 bags of "
        "charcoal, and napkins.",
        "List: 2 kg wings, 12 buns, 1 kg halloumi, 3 charcoal bags, 1 pack napkins.",
        "Get 12 burger buns, 2 kg of chicken wings, 1 kg of halloumi for the vegetarians, 3 bags "
        "of charcoal and some napkins.",
        "Barbecue shopping: chicken wings 2 kg, halloumi 1 kg, burger buns 12, charcoal 3 bags, "
        "napkins 1 pack.",
        "Pick up 2 kg of chicken wings, 12 burger buns, 1 kg of halloumi, three bags of "
        "charcoal, and napkins.",
    ],
    (
        "rewording, other words, reordered",
        "Grab a pack of napkins, three sacks of charcoal, a dozen burger rolls, two kilograms "
        "of chicken wings and one kilogram of halloumi.",
        WITHIN,
    ),
    (
        "rewording, bullets",
        "* 2 kg chicken wings\n* 12 burger buns\n* 1 kg halloumi\n* 3 bags charcoal\n"
        "* napkins (1 pack)",
        WITHIN,
    ),
    (
        "an item replaced",
        "Shopping list for the barbecue: 2 kg chicken wings, 12 burger buns, 1 kg feta, 3 bags "
        "of charcoal, napkins.",
        BEYOND,
    ),
    (
        "an item dropped",
        "Buy 2 kg of chicken wings, a dozen burger buns, three bags of charcoal and a pack of "
        "napkins.",
        BEYOND,
    ),
    (
        "pounds instead of kilograms",
        "Pick up 2 lb of chicken wings, 12 burger buns, 1 lb of halloumi, three bags of "
        "charcoal, and napkins.",
        BEYOND,
    ),
)

family(
    "click-and-collect order note",
    [
        "Order 1182 for Dana Lee: pickup today at 18:30, payment: cash, 3 items.",
        "Order 1182 (Dana Lee) — pickup today 18:30, payment: cash, 3 items.",
        "Dana Lee's order 1182 will be picked up today at 6:30 pm; she pays in cash. 3 items.",
        "order 1182 · customer Dana Lee · pickup 18:30 today · payment cash · items: 3",
        "Pickup today at 18:30 for order 1182 (Dana Lee, 3 items), paying cash.",
        "Order 1182: Dana Lee collects 3 items today at 18:30 and will pay cash at the counter.",
        "Dana Lee — order #1182 — 3 items — pickup at 18:30 today — payment: cash.",
        "Order 1182 for Dana Lee is ready for pickup at 18:30 today; payment method cash; three "
        "items.",
        "Collect: order 1182, Dana Lee, today 18:30, cash payment, 3 items in one bag.",
    ],
    (
        "rewording, 12-hour clock",
        "Dana Lee is collecting order 1182 (three items) at 6:30 this evening and paying with "
        "cash.",
        WITHIN,
    ),
    ("rewording, terse lower case", "order 1182 dana lee pickup 18:30 today cash 3 items", WITHIN),
    (
        "card instead of cash, lower case",
        "Order 1182 (Dana Lee) — pickup today 18:30, payment: card, 3 items.",
        BEYOND,
    ),
    (
        "delivery instead of pickup",
        "Order 1182 for Dana Lee: delivery today at 18:30, payment: cash, 3 items.",
        BEYOND,
    ),
    (
        "another time, 12-hour clock",
        "Dana Lee's order 1182 will be picked up today at 8:30 pm; she pays in cash. 3 items.",
        BEYOND,
    ),
)

family(
    "subscription cancellation as a JSON string",
    [
        '{"action": "cancel", "refund": true, "amount": 14.99, "reason": "charged after '
        'cancelling during the free trial"}',
        '{"action": "cancel", "refund": true, "amount": 14.99, "reason": "customer cancelled in '
        'the trial but was still billed"}',
        '{"refund": true, "action": "cancel", "amount": 14.99, "reason": "billed despite '
        'cancelling within the trial period"}',
        '{\n  "action": "cancel",\n  "refund": true,\n  "amount": 14.99,\n  "reason": "trial '
        'cancelled before the first charge, charge went through anyway"\n}',
        '{"action": "cancel", "refund": true, "amount": 14.99, "currency": "USD", "reason": '
        '"charged after trial cancellation"}',
        '{"action": "cancel", "amount": 14.99, "refund": true, "reason": "user cancelled during '
        'trial and was charged"}',
        '{"action": "cancel", "refund": true, "amount": 14.99, "reason": "first monthly charge '
        'taken although the trial was cancelled"}',
        '{"reason": "charged after cancelling in the trial", "action": "cancel", "refund": true, '
        '"amount": 14.99}',
        '{"action": "cancel", "refund": true, "amount": 14.99, "reason": "cancelled during '
        'trial, still charged 14.99"}',
    ],
    (
        "keys reordered, another reason",
        '{"amount": 14.99, "refund": true, "reason": "still charged though the trial was '
        'cancelled", "action": "cancel"}',
        WITHIN,
    ),
    (
        "compact spacing",
        '{"action":"cancel","refund":true,"amount":14.99,"reason":"billed after trial '
        'cancellation"}',
        WITHIN,
    ),
    (
        "refund false",
        '{"action": "cancel", "refund": false, "amount": 14.99, "reason": "charged after '
        'cancelling during the free trial"}',
        BEYOND,
    ),
    (
        "another action",
        '{"action": "pause", "refund": true, "amount": 14.99, "reason": "customer cancelled in '
        'the trial but was still billed"}',
        BEYOND,
    ),
)

family(
    "JSON tool call to track a parcel",
    [
        '{"tool": "track_parcel", "arguments": {"tracking_number": "JD014600003SE", "carrier": '
        '"postnord"}}',
        '{"tool": "track_parcel", "arguments": {"carrier": "postnord", "tracking_number": '
        '"JD014600003SE"}}',
        '{"arguments": {"tracking_number": "JD014600003SE", "carrier": "postnord"}, "tool": '
        '"track_parcel"}',
        '{\n  "tool": "track_parcel",\n  "arguments": {\n    "tracking_number": '
        '"JD014600003SE",\n    "carrier": "postnord"\n  }\n}',
        '{"tool": "track_parcel", "arguments": {"tracking_number": "JD014600003SE", "carrier": '
        '"postnord"}}',
        '{ "tool": "track_parcel", "arguments": { "tracking_number": "JD014600003SE", '
        '"carrier": "postnord" } }',
        '{"tool":"track_parcel", "arguments":{"tracking_number":"JD014600003SE", '
        '"carrier":"postnord"}}',
        '{"tool": "track_parcel", "arguments": {"carrier": "postnord", "tracking_number": '
        '"JD014600003SE"}}',
        '{"tool": "track_parcel", "arguments": {"tracking_number": "JD014600003SE", "carrier": '
        '"postnord"}}',
    ],
    (
        "keys reordered",
        '{"arguments": {"carrier": "postnord", "tracking_number": "JD014600003SE"}, "tool": '
        '"track_parcel"}',
        WITHIN,
    ),
    (
        "tab indented",
        '{\n\t"tool": "track_parcel",\n\t"arguments": {"carrier": "postnord", '
        '"tracking_number": "JD014600003SE"}\n}',
        WITHIN,
    ),
    (
        "another tool",
        '{"tool": "cancel_parcel", "arguments": {"tracking_number": "JD014600003SE", "carrier": '
        '"postnord"}}',
        BEYOND,
    ),
    (
        "another carrier",
        '{"tool": "track_parcel", "arguments": {"tracking_number": "JD014600003SE", "carrier": '
        '"dhl"}}',
        BEYOND,
    ),
)

family(
    "SQL query for large unpaid invoices",
    [
        "SELECT id, customer_id, amount FROM invoices WHERE status = 'unpaid' AND amount >= 500 "
        "ORDER BY amount DESC;",
        "SELECT id, customer_id, amount\nFROM invoices\nWHERE status = 'unpaid' AND amount >= "
        "500\nORDER BY amount DESC;",
        "select id, customer_id, amount from invoices where status = 'unpaid' and amount >= 500 "
        "order by amount desc;",
        "SELECT i.id, i.customer_id, i.amount FROM invoices i WHERE i.status = 'unpaid' AND "
        "i.amount >= 500 ORDER BY i.amount DESC;",
        "SELECT id, customer_id, amount\nFROM invoices\nWHERE amount >= 500\n  AND status = "
        "'unpaid'\nORDER BY amount DESC",
        "SELECT id, customer_id, amount FROM invoices WHERE status = 'unpaid' AND amount >= 500 "
        "ORDER BY amount DESC",
        "SELECT\n    id,\n    customer_id,\n    amount\nFROM invoices\nWHERE status = 'unpaid'\n"
        "  AND amount >= 500\nORDER BY amount DESC;",
        "SELECT inv.id, inv.customer_id, inv.amount\nFROM invoices AS inv\nWHERE inv.status = "
        "'unpaid' AND inv.amount >= 500\nORDER BY inv.amount DESC;",
        "-- unpaid invoices of 500 or more, largest first\nSELECT id, customer_id, amount FROM "
        "invoices WHERE status = 'unpaid' AND amount >= 500 ORDER BY amount DESC;",
    ],
    (
        "reformatted, lower case, conditions swapped",
        "select id, customer_id, amount\nfrom invoices\nwhere amount >= 500 and status = "
        "'unpaid'\norder by amount desc;",
        WITHIN,
    ),
    (
        "the comparison mirrored (hard)",
        "SELECT id, customer_id, amount FROM invoices WHERE status = 'unpaid' AND 500 <= amount "
        "ORDER BY amount DESC;",
        WITHIN,
    ),
    (
        "another alias",
        "SELECT bill.id, bill.customer_id, bill.amount FROM invoices AS bill WHERE bill.status "
        "= 'unpaid' AND bill.amount >= 500 ORDER BY bill.amount DESC;",
        WITHIN,
    ),
    (
        "> instead of >=",
        "SELECT id, customer_id, amount FROM invoices WHERE status = 'unpaid' AND amount > 500 "
        "ORDER BY amount DESC;",
        BEYOND,
    ),
    (
        "OR instead of AND",
        "SELECT id, customer_id, amount FROM invoices WHERE status = 'unpaid' OR amount >= 500 "
        "ORDER BY amount DESC;",
        BEYOND,
    ),
)

family(
    "Python password rule from a coding agent",
    [
        "def is_strong(password):\n    return len(password) >= 12 and any(c.isdigit() for c in "
        "password)",
        "def is_strong(password: str) -> bool:\n    return len(password) >= 12 and "
        "any(ch.isdigit() for ch in password)",
        "def is_strong(password):\n    if len(password) < 12:\n        return False\n    return "
        "any(c.isdigit() for c in password)",
        "def is_strong(password):\n    long_enough = len(password) >= 12\n    has_digit = "
        "any(c.isdigit() for c in password)\n    return long_enough and has_digit",
        'def is_strong(password: str) -> bool:\n    """At least 12 characters and at least one '
        'digit."""\n    return len(password) >= 12 and any(char.isdigit() for char in password)',
        "def is_strong(password):\n    return any(c.isdigit() for c in password) and "
        "len(password) >= 12",
        "def is_strong(password):\n    return len(password) >= 12 and any(map(str.isdigit, "
        "password))",
        "def is_strong(password: str) -> bool:\n    has_digit = any(c.isdigit() for c in "
        "password)\n    return has_digit and len(password) >= 12",
        "def is_strong(password):\n    # 12+ characters, including a digit\n    return "
        "len(password) >= 12 and any(c.isdigit() for c in password)",
    ],
    (
        "a local renamed",
        "def is_strong(password):\n    return len(password) >= 12 and any(symbol.isdigit() for "
        "symbol in password)",
        WITHIN,
    ),
    (
        "reformatted as if/return",
        "def is_strong(password):\n    if len(password) >= 12 and any(c.isdigit() for c in "
        "password):\n        return True\n    return False",
        WITHIN,
    ),
    (
        "or instead of and",
        "def is_strong(password):\n    return len(password) >= 12 or any(c.isdigit() for c in "
        "password)",
        BEYOND,
    ),
    (
        "> instead of >=",
        "def is_strong(password: str) -> bool:\n    return len(password) > 12 and "
        "any(ch.isdigit() for ch in password)",
        BEYOND,
    ),
    (
        "another check, one word",
        "def is_strong(password):\n    return len(password) >= 12 and any(c.isupper() for c in "
        "password)",
        BEYOND,
    ),
)

family(
    "vaccine vial storage instructions",
    [
        "Keep the vials refrigerated at 2–8 °C and do not freeze them; after opening, use "
        "within 28 days. Up to 12 hours at room temperature is safe.",
        "Store the vials in a fridge at 2–8 °C, never frozen. Once opened, use them within 28 "
        "days; up to 12 hours at room temperature is safe.",
        "Refrigerate at 2 to 8 °C and don't freeze. Opened vials last 28 days. Leaving them out "
        "at room temperature for up to 12 hours is safe.",
        "Storage: 2–8 °C in the refrigerator, do not freeze; use opened vials within 28 days. "
        "Room temperature is fine for as long as 12 hours.",
        "Keep unopened vials between 2 °C and 8 °C (no freezing). After first use, they're good "
        "for 28 days, and a 12-hour spell at room temperature is safe.",
        "Vials belong in the fridge at 2–8 °C and must not be frozen; once opened, use within "
        "twenty-eight days. Up to 12 h at room temperature is safe.",
        "Refrigerate the vials (2–8 °C), never freeze, and use them within 28 days of opening. "
        "They're safe at room temperature for up to 12 hours, e.g. while travelling.",
        "Store at 2–8 °C, do not freeze. Use opened vials within 28 days. Up to 12 hours out of "
        "the fridge at room temperature is safe.",
        "Keep the vials cold at 2–8 °C but not frozen, use opened ones within 28 days, and note "
        "that room temperature for up to 12 hours is safe.",
    ],
    (
        "rewording, half a day, discard after (hard)",
        "Keep the vials in the refrigerator at 2–8 °C, never in the freezer; throw opened vials "
        "away after 28 days. Half a day at room temperature does no harm.",
        WITHIN,
    ),
    (
        "rewording, will not",
        "Vials kept at room temperature for up to 12 hours will not be harmed; otherwise store "
        "them at 2–8 °C without freezing and use opened ones within 28 days.",
        WITHIN,
    ),
    (
        "Fahrenheit instead of Celsius",
        "Store the vials in a fridge at 2–8 °F, never frozen. Once opened, use them within 28 "
        "days; up to 12 hours at room temperature is safe.",
        BEYOND,
    ),
    (
        "unsafe instead of safe",
        "Refrigerate at 2 to 8 °C and don't freeze. Opened vials last 28 days. Leaving them out "
        "at room temperature for up to 12 hours is unsafe.",
        BEYOND,
    ),
    (
        "another number word",
        "Vials belong in the fridge at 2–8 °C and must not be frozen; once opened, use within "
        "fourteen days. Up to 12 h at room temperature is safe.",
        BEYOND,
    ),
)

family(
    "transfer between company accounts",
    [
        "Transferred $12,000 from the Operations account to the Payroll account on 3 March; "
        "reference TR-5521.",
        "$12,000 was moved from Operations to Payroll on 3 March (ref. TR-5521).",
        "Transfer complete: 12,000 USD from the Operations account to the Payroll account, "
        "3 March, reference TR-5521.",
        "On March 3 we transferred twelve thousand dollars from Operations into Payroll; the "
        "reference is TR-5521.",
        "Payroll received $12,000 from the Operations account on 3 March. Reference: TR-5521.",
        "Done — $12k sent from Operations to Payroll on 3 March, ref TR-5521.",
        "A transfer of USD 12,000 from the Operations account to the Payroll account was made "
        "on 3 March (TR-5521).",
        "Moved 12 thousand dollars out of Operations and into Payroll on 3 March; reference "
        "TR-5521. It should clear within one business day.",
        "We sent $12,000 to the Payroll account from the Operations account on 3 March, "
        "reference TR-5521.",
    ],
    (
        "rewording, passive, receiver first",
        "The Payroll account was credited with $12,000 from Operations on 3 March (reference "
        "TR-5521).",
        WITHIN,
    ),
    (
        "rewording, number words",
        "Twelve thousand US dollars went out of the Operations account into Payroll on the 3rd "
        "of March, reference TR-5521.",
        WITHIN,
    ),
    ("rewording, terse", "Operations to Payroll, 12,000 USD, March 3, ref TR-5521.", WITHIN),
    (
        "from and to swapped",
        "Transferred $12,000 from the Payroll account to the Operations account on 3 March; "
        "reference TR-5521.",
        BEYOND,
    ),
    (
        "receiver and sender swapped, receiver first (hard)",
        "Operations received $12,000 from the Payroll account on 3 March. Reference: TR-5521.",
        BEYOND,
    ),
    (
        "million instead of thousand",
        "On March 3 we transferred twelve million dollars from Operations into Payroll; the "
        "reference is TR-5521.",
        BEYOND,
    ),
    (
        "euros instead of dollars",
        "Transfer complete: 12,000 EUR from the Operations account to the Payroll account, "
        "3 March, reference TR-5521.",
        BEYOND,
    ),
)

family(
    "club chess game result",
    [
        "Anna Keller, playing black, beat Tomas Brandt in 34 moves in round 5 of the club "
        "championship.",
        "Round 5 of the club championship: Anna Keller won with the black pieces against Tomas "
        "Brandt in 34 moves.",
        "Tomas Brandt (white) lost to Anna Keller (black) in 34 moves in the fifth round.",
        "With black, Anna Keller defeated Tomas Brandt after 34 moves in round five of the club "
        "championship.",
        "Anna Keller beat Tomas Brandt in round 5, winning as black in 34 moves.",
        "Club championship, round 5: Brandt–Keller 0–1 in 34 moves.",
        "In the fifth round Anna Keller took down Tomas Brandt with the black pieces; the game "
        "lasted 34 moves and ended when Brandt resigned facing mate.",
        "Tomas Brandt, with white, was beaten by Anna Keller in 34 moves (round 5, club "
        "championship).",
        "Keller (black) beat Brandt (white) in 34 moves in round 5.",
    ],
    (
        "rewording, resigned",
        "Tomas Brandt had the white pieces and resigned to Anna Keller on move 34 in the fifth "
        "round of the club championship.",
        WITHIN,
    ),
    (
        "rewording, number words",
        "Round five: Anna Keller, on the black side, won against Tomas Brandt in thirty-four "
        "moves.",
        WITHIN,
    ),
    (
        "colours swapped, same names (hard)",
        "Anna Keller, playing white, beat Tomas Brandt in 34 moves in round 5 of the club "
        "championship.",
        BEYOND,
    ),
    (
        "the score reversed in notation",
        "Club championship, round 5: Brandt–Keller 1–0 in 34 moves.",
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
