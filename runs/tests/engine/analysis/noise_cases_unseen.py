"""A second labelled set for the noise rule: text cases the rule was never tuned on.

Written before the rule was changed for issue 43, by someone who had not read the rule, its
helpers or its tests, and labelled by meaning alone — as a careful human labeller would, who
knows what the step's references say and asks of a candidate "does this conclude or claim
something different?" (``beyond-noise``) or "is this the same answer reworded?"
(``within-noise``). It is only ever used to *measure* the rule; tuning the rule on it would
make its rates meaningless, so a change that fails here is fixed by a better rule, never by
editing these cases.

The semantics are ``noise_cases``': each case's *references* are the parent's value at a text
leaf first, then its eight samples' (k = 8; k = 5 uses the first six) — nine independent
draws of the same step at a temperature near 0.9 with nothing changed, so they say the same
thing in different words — a *candidate*, and the *truth*:

- ``beyond-noise``: the candidate is what a deliberate change to an input made — it states
  other facts, another conclusion, other roles;
- ``within-noise``: the candidate is one more draw of the same step — the same facts, roles
  and polarity in fresh phrasing.

Every value is a text leaf of two or more words; the topics are none of ``noise_cases``'. The
families are what agent steps write: a flight itinerary, recipe quantities, dosage
instructions, a packing list, market commentary, a lease clause summary, an access decision,
an SQL query, a JSON tool call and a JSON object held in a string, Python and JavaScript
snippets from a coding agent, a config recommendation, an incident postmortem, a match report,
contract roles, an HR policy answer, a refund decision, a product comparison, translations
into French, Spanish and German, a shipping quote, a currency conversion, a lab result, a road
closure advisory, a school timetable, an API rate limit, a security finding, a drafted email,
a calendar booking, an exam comment, a ride's distance and speed, a solution recipe, a release
go/no-go, a commit message, an insurance claim decision, a warranty answer, a grocery
substitution note, a gym schedule, a tenant's repair question, a cloud cost recommendation and
oven instructions.

The candidates are of these kinds (the name of each says which):

- ``within-noise``: rewordings — new vocabulary, reordered clauses or list items, figures as
  words where the references wrote digits or the reverse, contractions, abbreviations, a
  shorter or longer draw, the same JSON with keys reordered or other whitespace, the same code
  reformatted or written another equivalent way;
- ``beyond-noise``: a reversal by antonym with no negation word (rose → fell, open → closed,
  permits → prohibits, mild → severe, northbound → southbound), an item or a field replaced or
  dropped (a packing item, a JSON value, a tool name, a city, a day), a number written as a
  word changed, a unit, scale or currency changed (kg → lb, g → mg, $ → €), the same words in
  another order that swaps roles (origin and destination, home and away, sender and recipient,
  buyer and seller), a code operator changed (``>=`` → ``>``, ``or`` → ``and``), and ordinary
  ones (another figure, another name, an added negation, another conclusion).
"""

from __future__ import annotations

from typing import Any

from runs.tests.engine.analysis.noise_cases import ABSENT, BEYOND, WITHIN, Case

__all__ = ["ABSENT", "CASES", "Case"]

CASES: list[Case] = []


def family(name: str, references: list[Any], *candidates: tuple[str, Any, str]) -> None:
    """Adds one case per ``(name, candidate, truth)`` judged against ``references``."""
    assert len(references) == 9, name
    for label, candidate, truth in candidates:
        CASES.append(Case(name, label, tuple(references), candidate, truth))


# ============================================================================ travel, food, health

family(
    "flight itinerary with a connection",
    [
        "Your flight leaves Lisbon at 07:40 on Friday, connects in Amsterdam, and lands in Oslo at 14:05.",
        "Depart Lisbon 07:40 Friday, change planes in Amsterdam, arrive Oslo 14:05.",
        "On Friday you fly from Lisbon to Oslo with one stop in Amsterdam, departing at 7:40 and arriving at 14:05.",
        "The itinerary: Lisbon → Amsterdam → Oslo on Friday; wheels up at 07:40, touchdown in Oslo at 14:05.",
        "You'll leave Lisbon on Friday morning at 7:40, connect through Amsterdam, and reach Oslo at 2:05 pm.",
        "Friday's trip starts in Lisbon at 07:40 and ends in Oslo at 14:05, via a connection in Amsterdam.",
        "Flying Lisbon to Oslo on Friday: departure 07:40, layover in Amsterdam, arrival 14:05.",
        "Your outbound flight from Lisbon departs at 07:40 Friday and, after a stop in Amsterdam, gets into Oslo at 14:05.",
        "Lisbon (dep. 07:40, Friday) to Oslo (arr. 14:05), connecting in Amsterdam.",
    ],
    (
        "rewording, 12-hour clock",
        "You depart Lisbon at 7:40 am on Friday and, after changing aircraft in Amsterdam, land in Oslo at 2:05 pm.",
        WITHIN,
    ),
    (
        "rewording, terse",
        "Fri: Lisbon 07:40 → Oslo 14:05, one connection (Amsterdam).",
        WITHIN,
    ),
    (
        "role swap: origin ↔ destination",
        "Your flight leaves Oslo at 07:40 on Friday, connects in Amsterdam, and lands in Lisbon at 14:05.",
        BEYOND,
    ),
    (
        "item replaced: connecting city",
        "Depart Lisbon 07:40 Friday, change planes in Frankfurt, arrive Oslo 14:05.",
        BEYOND,
    ),
    (
        "other conclusion: nonstop",
        "On Friday you fly nonstop from Lisbon to Oslo, departing at 7:40 and arriving at 14:05.",
        BEYOND,
    ),
)

family(
    "pancake batter quantities",
    [
        "Whisk 2 cups of flour with 2 tablespoons of sugar, beat in 3 eggs and 1½ cups of milk, then let the batter rest for 10 minutes.",
        "Mix two cups flour, two tablespoons sugar, three eggs and one and a half cups milk; rest the batter 10 minutes before cooking.",
        "Combine the dry ingredients (2 cups flour, 2 tbsp sugar), add 3 eggs and 1.5 cups milk, and leave the batter for ten minutes.",
        "For the batter: 3 eggs, 1 1/2 cups milk, 2 cups flour, 2 tbsp sugar. Stir until smooth and let it sit 10 minutes.",
        "Beat three eggs into one and a half cups of milk, fold in two cups of flour and two tablespoons of sugar, then rest for 10 min.",
        "Start with 2 cups of flour and 2 tablespoons of sugar; whisk in 3 eggs and 1.5 cups of milk. Let it stand ten minutes.",
        "You need 2 cups flour, 3 eggs, 1½ cups milk and 2 tablespoons sugar — mix and rest the batter for 10 minutes.",
        "Sift 2 cups of flour with 2 tbsp of sugar, make a well, add 3 eggs and 1.5 cups of milk, whisk, and rest ten minutes.",
        "Whisk together two cups of flour, 2 tablespoons sugar, 3 eggs and 1.5 cups milk, then allow the batter to rest 10 minutes.",
    ],
    (
        "rewording, all number words",
        "Stir three eggs and one and a half cups of milk into two cups of flour with two tablespoons of sugar, and rest the batter ten minutes.",
        WITHIN,
    ),
    (
        "rewording, list reordered",
        "Ingredients: 2 tbsp sugar, 1.5 cups milk, 3 eggs, 2 cups flour. Whisk everything smooth and give it 10 minutes to rest.",
        WITHIN,
    ),
    (
        "number word: three → two eggs",
        "Mix two cups flour, two tablespoons sugar, two eggs and one and a half cups milk; rest the batter 10 minutes before cooking.",
        BEYOND,
    ),
    (
        "unit: tablespoons → cups of sugar",
        "Whisk 2 cups of flour with 2 cups of sugar, beat in 3 eggs and 1½ cups of milk, then let the batter rest for 10 minutes.",
        BEYOND,
    ),
    (
        "item replaced: milk → buttermilk",
        "Start with 2 cups of flour and 2 tablespoons of sugar; whisk in 3 eggs and 1.5 cups of buttermilk. Let it stand ten minutes.",
        BEYOND,
    ),
)

family(
    "ibuprofen dosage instructions",
    [
        "Adults can take 400 mg of ibuprofen every 6 to 8 hours with food; don't exceed 1,200 mg in 24 hours unless a doctor says so.",
        "Take one 400 mg tablet every six to eight hours, with food. Maximum 1200 mg per day without medical advice.",
        "Dose: 400 mg every 6–8 hours, taken with a meal. Do not go above 1,200 mg in any 24-hour period without consulting a doctor.",
        "The usual adult dose is 400 milligrams every 6 to 8 hours with food, up to a maximum of 1,200 mg a day unless directed by a physician.",
        "Take 400 mg with food, spacing doses 6 to 8 hours apart, and keep the daily total at or below 1200 mg unless your doctor advises otherwise.",
        "400 mg every 6-8 h with food; daily limit 1,200 mg without a doctor's guidance.",
        "For adults: 400 mg ibuprofen, every six to eight hours, always with food. Never more than 1,200 mg in 24 hours without a doctor's OK.",
        "With food, take 400 mg every 6 to 8 hours. Without medical supervision, the 24-hour maximum is 1,200 mg.",
        "Adults should take 400 mg every 6 to 8 hours alongside food and should not take more than 1200 mg per day unless advised by a doctor.",
    ],
    (
        "rewording, new vocabulary, grams",
        "Grown-ups may have a 400-milligram dose at six-to-eight-hour intervals after eating, capping intake at 1.2 g daily unless a physician directs otherwise.",
        WITHIN,
    ),
    (
        "rewording, limit first",
        "Don't take more than 1,200 mg in a day without a doctor's advice; the adult dose is 400 mg with food every 6 to 8 hours.",
        WITHIN,
    ),
    (
        "antonym: with food → on an empty stomach",
        "Take 400 mg on an empty stomach, spacing doses 6 to 8 hours apart, and keep the daily total at or below 1200 mg unless your doctor advises otherwise.",
        BEYOND,
    ),
    (
        "other figure: daily maximum",
        "Adults can take 400 mg of ibuprofen every 6 to 8 hours with food; don't exceed 3,200 mg in 24 hours unless a doctor says so.",
        BEYOND,
    ),
    (
        "number word: six to eight → four to six hours",
        "Take one 400 mg tablet every four to six hours, with food. Maximum 1200 mg per day without medical advice.",
        BEYOND,
    ),
)

family(
    "hiking packing list",
    [
        "Pack a rain jacket, a headlamp, a water filter, a first-aid kit and sunscreen.",
        "For the hike, bring: rain jacket, headlamp, water filter, first-aid kit, sunscreen.",
        "Essentials for this trail: sunscreen, a first-aid kit, a headlamp, a water filter, and a waterproof rain jacket.",
        "Make sure your bag has a headlamp, sunscreen, a rain jacket, a first-aid kit and a filter for drinking water.",
        "You'll want a rain jacket and sunscreen for the weather, a headlamp for the early start, plus a water filter and a first-aid kit.",
        "Packing list: 1) rain jacket 2) headlamp 3) water filter 4) first-aid kit 5) sunscreen.",
        "Bring a first-aid kit, a water filter, a headlamp, sunscreen and a rain jacket.",
        "Don't forget the rain jacket, headlamp, water filter, sunscreen and first-aid kit.",
        "Take along a headlamp, a rain jacket, sunscreen, a first-aid kit and a water filter for the streams.",
    ],
    (
        "rewording, British synonyms",
        "Carry a waterproof shell, a head torch, a water filter, a first-aid kit and some sun cream.",
        WITHIN,
    ),
    (
        "rewording, items reordered",
        "Sunscreen, a water filter, a first-aid kit, a rain jacket and a headlamp should all go in your pack.",
        WITHIN,
    ),
    (
        "item replaced: headlamp → bear spray",
        "Pack a rain jacket, bear spray, a water filter, a first-aid kit and sunscreen.",
        BEYOND,
    ),
    (
        "item dropped: water filter",
        "For the hike, bring: rain jacket, headlamp, first-aid kit, sunscreen.",
        BEYOND,
    ),
    (
        "antonym: rain jacket left at home",
        "Bring a headlamp, a water filter, a first-aid kit and sunscreen, and leave the rain jacket at home.",
        BEYOND,
    ),
)

family(
    "museum hours translated into French",
    [
        "Le musée est ouvert du mardi au dimanche, de 9 h à 18 h ; l'entrée est gratuite le premier dimanche du mois.",
        "Le musée est ouvert du mardi au dimanche de 9 h à 18 h, et l'entrée est gratuite chaque premier dimanche du mois.",
        "Ouvert du mardi au dimanche, de 9 heures à 18 heures, le musée propose l'entrée gratuite le premier dimanche de chaque mois.",
        "Le musée ouvre ses portes du mardi au dimanche, de 9 h à 18 h. L'accès est gratuit le premier dimanche du mois.",
        "Horaires du musée : du mardi au dimanche, 9 h – 18 h. Entrée libre le premier dimanche du mois.",
        "Le musée accueille le public du mardi au dimanche de 9 h à 18 h ; le premier dimanche du mois, l'entrée est gratuite.",
        "Du mardi au dimanche, le musée est ouvert de 9 h à 18 h, et l'entrée y est gratuite le premier dimanche du mois.",
        "Le musée est ouvert de 9 h à 18 h, du mardi au dimanche ; entrée gratuite tous les premiers dimanches du mois.",
        "Le musée est accessible du mardi au dimanche, entre 9 h et 18 h, et l'entrée est offerte le premier dimanche du mois.",
    ],
    (
        "rewording in French, reordered",
        "Le premier dimanche du mois, la visite du musée est gratuite ; il est ouvert de 9 h à 18 h du mardi au dimanche.",
        WITHIN,
    ),
    (
        "rewording in French, every day but Monday",
        "Le musée ouvre tous les jours sauf le lundi, de 9 h à 18 h, et l'entrée est gratuite le premier dimanche du mois.",
        WITHIN,
    ),
    (
        "antonym: ouvert → fermé",
        "Le musée est fermé du mardi au dimanche, de 9 h à 18 h ; l'entrée est gratuite le premier dimanche du mois.",
        BEYOND,
    ),
    (
        "antonym: gratuite → payante",
        "Le musée est ouvert du mardi au dimanche de 9 h à 18 h, et l'entrée est payante chaque premier dimanche du mois.",
        BEYOND,
    ),
    (
        "item replaced: premier → dernier dimanche",
        "Du mardi au dimanche, le musée est ouvert de 9 h à 18 h, et l'entrée y est gratuite le dernier dimanche du mois.",
        BEYOND,
    ),
)

family(
    "train announcement translated into Spanish",
    [
        "El tren con destino a Sevilla sale a las 8:30 del andén 4 y llega a las 11:15.",
        "El tren a Sevilla sale del andén 4 a las ocho y media y llega a las once y cuarto.",
        "El tren hacia Sevilla parte a las 8:30 desde el andén número 4; la llegada está prevista a las 11:15.",
        "Salida del tren a Sevilla: 8:30, andén 4. Llegada: 11:15.",
        "A las 8:30 sale del andén 4 el tren con destino Sevilla, que llega a las 11:15.",
        "El tren para Sevilla sale a las 8.30 por el andén 4 y llega a su destino a las 11.15.",
        "El tren de las 8:30 a Sevilla sale del andén cuatro y llega a las 11:15.",
        "Desde el andén 4 sale a las 8:30 el tren a Sevilla; llegará a las 11:15.",
        "El tren con destino Sevilla saldrá del andén 4 a las 8:30 y llegará a las 11:15.",
    ],
    (
        "rewording in Spanish, times as words",
        "El tren a Sevilla, con salida a las ocho y media por el andén cuatro, llega a las once y cuarto.",
        WITHIN,
    ),
    (
        "rewording in Spanish, timetable style",
        "Tren a Sevilla — andén 4 — sale 8:30, llega 11:15.",
        WITHIN,
    ),
    (
        "rewording in Spanish, new verbs",
        "El tren que va a Sevilla arranca del andén 4 a las 8:30 y tiene prevista su llegada a las 11:15.",
        WITHIN,
    ),
    (
        "item replaced: Sevilla → Córdoba",
        "El tren con destino a Córdoba sale a las 8:30 del andén 4 y llega a las 11:15.",
        BEYOND,
    ),
    (
        "number word: cuatro → cinco",
        "El tren de las 8:30 a Sevilla sale del andén cinco y llega a las 11:15.",
        BEYOND,
    ),
)

family(
    "library notice translated into German",
    [
        "Die Bibliothek bleibt am Montag wegen Renovierung geschlossen; Bücher können online verlängert werden, und die Rückgabefrist wird bis Freitag verlängert.",
        "Am Montag ist die Bibliothek wegen Renovierungsarbeiten geschlossen. Bücher lassen sich online verlängern, die Rückgabefrist läuft bis Freitag.",
        "Wegen Renovierung ist die Bibliothek am Montag geschlossen; eine Verlängerung der Bücher ist online möglich, und die Rückgabe kann bis Freitag erfolgen.",
        "Die Bibliothek ist am Montag aufgrund von Renovierungsarbeiten geschlossen. Sie können Bücher online verlängern; die Rückgabefrist wurde bis Freitag verlängert.",
        "Montag: Bibliothek wegen Renovierung geschlossen. Verlängerungen online möglich, Rückgabe bis Freitag.",
        "Am Montag bleibt die Bibliothek renovierungsbedingt geschlossen; Bücher können Sie online verlängern, und die Rückgabefrist verschiebt sich auf Freitag.",
        "Die Bibliothek schließt am Montag wegen einer Renovierung. Bücher sind online verlängerbar, und Rückgaben werden bis Freitag angenommen.",
        "Aufgrund von Renovierungsarbeiten hat die Bibliothek am Montag geschlossen; die Rückgabefrist wird bis Freitag verlängert, und Bücher können online verlängert werden.",
        "Die Bibliothek ist am Montag wegen Renovierung nicht geöffnet. Verlängern Sie Ihre Bücher online; die Rückgabefrist gilt bis Freitag.",
    ],
    (
        "rewording in German, new vocabulary",
        "Wegen Umbauarbeiten öffnet die Bibliothek am Montag nicht; Ausleihen lassen sich im Internet verlängern, zurückgeben kann man sie bis Freitag.",
        WITHIN,
    ),
    (
        "rewording in German, terse",
        "Montag geschlossen (Renovierung). Bücher online verlängern; Rückgabe bis Freitag möglich.",
        WITHIN,
    ),
    (
        "antonym: geschlossen → geöffnet",
        "Am Montag ist die Bibliothek trotz Renovierungsarbeiten geöffnet. Bücher lassen sich online verlängern, die Rückgabefrist läuft bis Freitag.",
        BEYOND,
    ),
    (
        "item replaced: Montag → Mittwoch",
        "Die Bibliothek bleibt am Mittwoch wegen Renovierung geschlossen; Bücher können online verlängert werden, und die Rückgabefrist wird bis Freitag verlängert.",
        BEYOND,
    ),
    (
        "other conclusion: renewal only at the desk",
        "Die Bibliothek ist am Montag wegen Renovierung nicht geöffnet. Bücher können nur vor Ort verlängert werden; die Rückgabefrist gilt bis Freitag.",
        BEYOND,
    ),
)

# ============================================================================ markets, law, access

family(
    "stock move after earnings",
    [
        "Nordvik Energy shares rose 4.2% on Tuesday after second-quarter earnings beat analyst estimates.",
        "Nordvik Energy climbed 4.2 percent Tuesday as its Q2 profit came in ahead of expectations.",
        "Shares in Nordvik Energy gained 4.2% on Tuesday following a better-than-expected second quarter.",
        "Tuesday: Nordvik Energy +4.2% after Q2 earnings topped forecasts.",
        "A stronger-than-forecast Q2 sent Nordvik Energy stock up 4.2% on Tuesday.",
        "Nordvik Energy's stock advanced 4.2 per cent on Tuesday, lifted by second-quarter results that beat estimates.",
        "Investors pushed Nordvik Energy up 4.2% Tuesday after the company's Q2 earnings surpassed consensus.",
        "On Tuesday Nordvik Energy rose 4.2% — its second-quarter earnings were above what analysts expected.",
        "Nordvik Energy gained 4.2% in Tuesday trading after reporting Q2 earnings that exceeded estimates.",
    ],
    (
        "rewording, new verb",
        "Nordvik Energy rallied 4.2% on Tuesday on the back of a Q2 earnings beat.",
        WITHIN,
    ),
    (
        "rewording, figure in words",
        "Nordvik Energy stock finished Tuesday up four point two percent after its second-quarter earnings came in above forecasts.",
        WITHIN,
    ),
    (
        "antonym: rose → fell",
        "Nordvik Energy shares fell 4.2% on Tuesday after second-quarter earnings beat analyst estimates.",
        BEYOND,
    ),
    (
        "antonym: gained, better → lost, worse",
        "Shares in Nordvik Energy lost 4.2% on Tuesday following a worse-than-expected second quarter.",
        BEYOND,
    ),
    (
        "other figure: digits swapped",
        "Nordvik Energy gained 2.4% in Tuesday trading after reporting Q2 earnings that exceeded estimates.",
        BEYOND,
    ),
)

family(
    "lease clause on subletting",
    [
        "The tenant may sublet only with the landlord's prior written consent, must give 30 days' notice, and stays liable for the rent.",
        "Subletting is allowed if the landlord agrees in writing beforehand; 30 days' notice is required and the tenant remains responsible for rent.",
        "Clause 12 lets the tenant sublet, provided the landlord gives written consent in advance and receives thirty days' notice; the tenant is still liable for rent.",
        "Summary: subletting permitted with prior written landlord approval, 30-day notice, original tenant keeps rent liability.",
        "The tenant can sublease the flat with the landlord's written permission obtained in advance, after giving 30 days' notice, but remains on the hook for the rent.",
        "Under this clause, a sublet needs the landlord's written consent first and 30 days' notice, and the tenant continues to owe the rent.",
        "Written, advance consent from the landlord is required before any sublet, along with 30 days' notice; liability for rent stays with the tenant.",
        "You may sublet with prior written consent from the landlord; give thirty days' notice. You remain liable for rent throughout.",
        "The clause permits subletting subject to the landlord's prior written consent and 30 days' notice, with the tenant remaining liable for rent.",
    ],
    (
        "rewording",
        "Before subletting, the tenant must get the landlord's written approval and give 30 days' notice; the rent obligation stays with the tenant.",
        WITHIN,
    ),
    (
        "rewording, abbreviated",
        "Sublet OK w/ landlord's prior written consent + 30 days' notice; tenant still liable for rent.",
        WITHIN,
    ),
    (
        "antonym: permits → prohibits",
        "The clause prohibits subletting outright, whatever the landlord's consent or notice, with the tenant remaining liable for rent.",
        BEYOND,
    ),
    (
        "role swap: tenant ↔ landlord",
        "The landlord may sublet only with the tenant's prior written consent, must give 30 days' notice, and stays liable for the rent.",
        BEYOND,
    ),
    (
        "antonym: liable → released",
        "Subletting is allowed if the landlord agrees in writing beforehand; 30 days' notice is required and the tenant is released from responsibility for rent.",
        BEYOND,
    ),
)

family(
    "contractor access decision",
    [
        "Grant j.okafor read-only access to the billing dashboard for 14 days; write access is denied.",
        "Decision: j.okafor (contractor) gets read-only access to the billing dashboard, expiring in 14 days. Write access: denied.",
        "Approve read access for contractor j.okafor on the billing dashboard for two weeks, but reject the request for write permissions.",
        "j.okafor may view the billing dashboard (read-only) for 14 days; editing rights are not granted.",
        "Read-only billing dashboard access granted to j.okafor, valid 14 days. The write access part of the request is declined.",
        "We will give contractor j.okafor view-only access to the billing dashboard for fourteen days and deny write access.",
        "Access for j.okafor: billing dashboard, read-only, 14-day expiry. Write permission denied.",
        "The request is partly approved: j.okafor can read the billing dashboard for 14 days, but cannot write to it.",
        "Grant read-only (no write) access on the billing dashboard to contractor j.okafor for a period of 14 days.",
    ],
    (
        "rewording, new vocabulary",
        "Contractor j.okafor is allowed to look at, but not modify, the billing dashboard over the next fourteen days.",
        WITHIN,
    ),
    (
        "rewording, terse",
        "j.okafor: view access to billing dashboard approved for 2 weeks; write rejected.",
        WITHIN,
    ),
    (
        "antonym: read-only → read-write",
        "Grant j.okafor read-write access to the billing dashboard for 14 days.",
        BEYOND,
    ),
    (
        "antonym: grant → refuse",
        "Refuse j.okafor read-only access to the billing dashboard; write access is denied as well.",
        BEYOND,
    ),
    (
        "item replaced: billing → payroll dashboard",
        "Grant j.okafor read-only access to the payroll dashboard for 14 days; write access is denied.",
        BEYOND,
    ),
)

family(
    "contract terms between buyer and seller",
    [
        "Halvorsen Ltd, the buyer, pays Kestrel Foods, the seller, a 10% deposit on signing; Kestrel delivers within 45 days.",
        "Buyer Halvorsen Ltd will pay seller Kestrel Foods a 10 percent deposit at signing, and Kestrel must deliver within 45 days.",
        "On signing, Halvorsen (buying) pays a 10% deposit to Kestrel Foods (selling); delivery by Kestrel is due within 45 days.",
        "Terms: Halvorsen Ltd buys from Kestrel Foods; 10% deposit paid by Halvorsen at signature; Kestrel to deliver within forty-five days.",
        "Kestrel Foods, as seller, receives a 10% deposit from the buyer, Halvorsen Ltd, when the contract is signed and has 45 days to deliver.",
        "The agreement has Halvorsen Ltd paying a ten percent deposit to Kestrel Foods upon signing, with Kestrel delivering the goods within 45 days.",
        "Halvorsen Ltd is the purchaser and Kestrel Foods the supplier: a 10% deposit is due from Halvorsen at signing, and Kestrel delivers in no more than 45 days.",
        "A 10% deposit goes from Halvorsen Ltd (buyer) to Kestrel Foods (seller) at signing; Kestrel commits to delivery within 45 days.",
        "Halvorsen pays Kestrel a 10% deposit when signing, and Kestrel Foods must complete delivery within 45 days of the contract.",
    ],
    (
        "rewording, seller first",
        "Kestrel Foods, the vendor, gets a ten per cent down payment from Halvorsen Ltd at signing and must ship within 45 days.",
        WITHIN,
    ),
    (
        "rewording, contractions",
        "Halvorsen Ltd's buying from Kestrel Foods: it'll put down a 10% deposit when the deal's signed, and Kestrel's got 45 days to deliver.",
        WITHIN,
    ),
    (
        "role swap: buyer ↔ seller",
        "Kestrel Foods, the buyer, pays Halvorsen Ltd, the seller, a 10% deposit on signing; Halvorsen delivers within 45 days.",
        BEYOND,
    ),
    (
        "other figure: deposit",
        "Buyer Halvorsen Ltd will pay seller Kestrel Foods a 25 percent deposit at signing, and Kestrel must deliver within 45 days.",
        BEYOND,
    ),
    (
        "antonym: within → no earlier than",
        "Halvorsen pays Kestrel a 10% deposit when signing, and Kestrel Foods may not deliver earlier than 45 days after the contract.",
        BEYOND,
    ),
)

family(
    "annual leave policy answer",
    [
        "Full-time employees accrue 1.5 days of paid leave per month, and up to 5 unused days carry over into the next year.",
        "If you work full time you earn 1.5 paid leave days each month; you can carry up to five unused days into next year.",
        "Paid leave for full-time staff builds up at 1.5 days a month, with a carry-over limit of 5 days into the following year.",
        "Full-time staff get 1.5 days of paid leave per month (18 a year). A maximum of 5 unused days rolls over to next year.",
        "You accrue one and a half days of paid leave monthly as a full-time employee, and you may carry over at most 5 days.",
        "Policy: full-time employees earn 1.5 days/month of paid leave; unused leave up to 5 days can be carried forward to the next year.",
        "As a full-time employee, your paid leave grows by 1.5 days every month, and up to five days you don't use can move into next year.",
        "Full-time employees accumulate 1.5 paid days off per month; no more than 5 unused days carry into the new year.",
        "Leave accrual for full-time employees is 1.5 days per month, and unused days (max 5) are carried over to the next year.",
    ],
    (
        "rewording, contraction",
        "Full-timers build up a day and a half of paid time off every month, and up to five days they haven't used roll into next year.",
        WITHIN,
    ),
    (
        "rewording, yearly figure first",
        "Full-time staff earn 18 days of paid leave a year, at 1.5 per month; as many as 5 leftover days carry forward.",
        WITHIN,
    ),
    (
        "item replaced: full-time → part-time",
        "Part-time employees accrue 1.5 days of paid leave per month, and up to 5 unused days carry over into the next year.",
        BEYOND,
    ),
    (
        "number word: five → ten days",
        "As a full-time employee, your paid leave grows by 1.5 days every month, and up to ten days you don't use can move into next year.",
        BEYOND,
    ),
    (
        "antonym: carry over → forfeited",
        "Full-time employees accumulate 1.5 paid days off per month; any unused days are forfeited at the end of the year.",
        BEYOND,
    ),
)

family(
    "refund decision for a damaged item",
    [
        "Approve a full refund of $84.50 to the original card, since the item arrived damaged; the customer does not need to return it.",
        "Refund approved: $84.50 back to the customer's original payment card because the product was damaged in transit. No return required.",
        "The blender arrived broken, so issue the full $84.50 refund to the card used for purchase; the customer can keep the item.",
        "Decision: full refund ($84.50) to the original card. Reason: item delivered damaged. Return of the item is not required.",
        "Because the order arrived damaged, we'll refund the full $84.50 to the original card and won't ask for the item back.",
        "Grant the customer a full $84.50 refund on their original card; the item was damaged on arrival and need not be sent back.",
        "Approve the refund in full — $84.50 to the original payment method — as the item came damaged; no return shipment needed.",
        "Full refund of 84.50 USD to the original card is approved for the damaged delivery, and the customer doesn't have to return the item.",
        "The damaged item qualifies for a full refund: send $84.50 back to the original card, with no need for the customer to return it.",
    ],
    (
        "rewording, amount in words",
        "Since the product showed up damaged, refund all eighty-four dollars and fifty cents to the card they paid with; they can keep it.",
        WITHIN,
    ),
    (
        "rewording, reordered",
        "No return needed: the item was damaged when delivered, so the whole $84.50 goes back to the original card.",
        WITHIN,
    ),
    (
        "antonym: approve → reject",
        "Reject the full refund of $84.50 to the original card, even though the item arrived damaged; the customer does not need to return it.",
        BEYOND,
    ),
    (
        "currency: $ → €",
        "Refund approved: €84.50 back to the customer's original payment card because the product was damaged in transit. No return required.",
        BEYOND,
    ),
    (
        "item replaced: original card → store credit",
        "Decision: full refund ($84.50) as store credit. Reason: item delivered damaged. Return of the item is not required.",
        BEYOND,
    ),
)

family(
    "laptop comparison for travel",
    [
        "The Aero 14 is lighter (1.2 kg vs 1.6 kg), but the Vanta 15's battery lasts longer (14 h vs 10 h); for long days away from outlets, pick the Vanta 15.",
        "Aero 14 weighs 1.2 kg against the Vanta 15's 1.6 kg, yet the Vanta runs 14 hours on battery to the Aero's 10. Recommend the Vanta 15 for all-day unplugged use.",
        "If you work away from power all day, choose the Vanta 15: its 14-hour battery beats the Aero 14's 10 hours, even though the Aero is lighter at 1.2 kg versus 1.6 kg.",
        "Weight favours the Aero 14 (1.2 kg to 1.6 kg); battery favours the Vanta 15 (14 h to 10 h). For long unplugged days, the Vanta 15 is the better buy.",
        "The Vanta 15 is heavier at 1.6 kg compared with 1.2 kg for the Aero 14, but it lasts 14 hours on a charge instead of 10, so it's our pick for days without outlets.",
        "Pick the Vanta 15 for long days off the charger — 14 hours of battery versus 10 on the Aero 14 — accepting 1.6 kg instead of the Aero's 1.2 kg.",
        "Aero 14: 1.2 kg, 10 h battery. Vanta 15: 1.6 kg, 14 h battery. Recommendation: Vanta 15 when you're away from outlets all day.",
        "Although the Aero 14 is the lighter machine at 1.2 kg (the Vanta 15 is 1.6 kg), the Vanta 15's fourteen-hour battery outlasts the Aero's ten, so go with the Vanta 15.",
        "For long days away from a socket we recommend the Vanta 15; its battery lasts 14 h versus 10 h, though at 1.6 kg it is heavier than the 1.2 kg Aero 14.",
    ],
    (
        "rewording, new vocabulary",
        "The Vanta 15 is the pick for marathon sessions unplugged: fourteen hours of runtime to the Aero 14's ten, at the cost of 400 g more (1.6 kg vs 1.2 kg).",
        WITHIN,
    ),
    (
        "rewording, table style",
        "Vanta 15 recommended for all-day use off the charger. Battery: Vanta 15 14 h, Aero 14 10 h. Weight: Aero 14 1.2 kg, Vanta 15 1.6 kg.",
        WITHIN,
    ),
    (
        "role swap: products",
        "The Vanta 15 is lighter (1.2 kg vs 1.6 kg), but the Aero 14's battery lasts longer (14 h vs 10 h); for long days away from outlets, pick the Aero 14.",
        BEYOND,
    ),
    (
        "unit: kg → lb",
        "Aero 14 weighs 1.2 lb against the Vanta 15's 1.6 lb, yet the Vanta runs 14 hours on battery to the Aero's 10. Recommend the Vanta 15 for all-day unplugged use.",
        BEYOND,
    ),
    (
        "other conclusion: recommends the lighter one",
        "Weight favours the Aero 14 (1.2 kg to 1.6 kg); battery favours the Vanta 15 (14 h to 10 h). For long unplugged days, the Aero 14 is the better buy.",
        BEYOND,
    ),
)

# ============================================================================ code and structured text

family(
    "SQL query for big spenders",
    [
        "SELECT customer_id, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' GROUP BY customer_id HAVING SUM(amount) > 500 ORDER BY total DESC;",
        "select customer_id, sum(amount) as total\nfrom orders\nwhere created_at >= '2024-01-01'\ngroup by customer_id\nhaving sum(amount) > 500\norder by total desc;",
        "SELECT o.customer_id, SUM(o.amount) AS total FROM orders o WHERE o.created_at >= '2024-01-01' GROUP BY o.customer_id HAVING SUM(o.amount) > 500 ORDER BY total DESC",
        "SELECT customer_id, SUM(amount) AS total_spent FROM orders WHERE created_at >= DATE '2024-01-01' GROUP BY customer_id HAVING SUM(amount) > 500 ORDER BY total_spent DESC;",
        "SELECT\n  customer_id,\n  SUM(amount) AS total\nFROM orders\nWHERE created_at >= '2024-01-01'\nGROUP BY customer_id\nHAVING SUM(amount) > 500\nORDER BY total DESC;",
        "SELECT customer_id, SUM(amount) total FROM orders WHERE created_at >= '2024-01-01' GROUP BY 1 HAVING SUM(amount) > 500 ORDER BY 2 DESC;",
        "SELECT orders.customer_id, SUM(orders.amount) AS total FROM orders WHERE orders.created_at >= '2024-01-01' GROUP BY orders.customer_id HAVING SUM(orders.amount) > 500 ORDER BY total DESC;",
        "-- customers who spent more than 500 since 2024\nSELECT customer_id, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' GROUP BY customer_id HAVING SUM(amount) > 500 ORDER BY total DESC;",
        "select customer_id, sum(amount) as total from orders where created_at >= '2024-01-01' group by customer_id having sum(amount) > 500 order by total desc",
    ],
    (
        "reformatted, other alias",
        "SELECT customer_id,\n       SUM(amount) AS spend\n  FROM orders\n WHERE created_at >= '2024-01-01'\n GROUP BY customer_id\nHAVING SUM(amount) > 500\n ORDER BY spend DESC;",
        WITHIN,
    ),
    (
        "equivalent query with a CTE",
        "WITH totals AS (SELECT customer_id, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' GROUP BY customer_id) SELECT customer_id, total FROM totals WHERE total > 500 ORDER BY total DESC;",
        WITHIN,
    ),
    (
        "same query, lowercase with alias",
        "select o.customer_id, sum(o.amount) as total\nfrom orders as o\nwhere o.created_at >= '2024-01-01'\ngroup by o.customer_id\nhaving sum(o.amount) > 500\norder by total desc;",
        WITHIN,
    ),
    (
        "operator: >= → < on the date",
        "SELECT customer_id, SUM(amount) AS total FROM orders WHERE created_at < '2024-01-01' GROUP BY customer_id HAVING SUM(amount) > 500 ORDER BY total DESC;",
        BEYOND,
    ),
    (
        "other figure: threshold",
        "SELECT customer_id, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' GROUP BY customer_id HAVING SUM(amount) > 5000 ORDER BY total DESC;",
        BEYOND,
    ),
    (
        "antonym: DESC → ASC",
        "select customer_id, sum(amount) as total from orders where created_at >= '2024-01-01' group by customer_id having sum(amount) > 500 order by total asc",
        BEYOND,
    ),
)

family(
    "JSON tool call to search flights",
    [
        '{"tool": "search_flights", "args": {"origin": "SFO", "destination": "BOS", "date": "2024-05-14", "passengers": 2}}',
        '{"tool":"search_flights", "args":{"origin":"SFO", "destination":"BOS", "date":"2024-05-14", "passengers":2}}',
        '{\n  "tool": "search_flights",\n  "args": {\n    "origin": "SFO",\n    "destination": "BOS",\n    "date": "2024-05-14",\n    "passengers": 2\n  }\n}',
        '{"args": {"origin": "SFO", "destination": "BOS", "date": "2024-05-14", "passengers": 2}, "tool": "search_flights"}',
        '{"tool": "search_flights", "args": {"date": "2024-05-14", "origin": "SFO", "destination": "BOS", "passengers": 2}}',
        '{"tool": "search_flights", "args": {"origin": "SFO", "destination": "BOS", "passengers": 2, "date": "2024-05-14"}}',
        '```json\n{"tool": "search_flights", "args": {"origin": "SFO", "destination": "BOS", "date": "2024-05-14", "passengers": 2}}\n```',
        '{ "tool": "search_flights", "args": { "origin": "SFO", "destination": "BOS", "date": "2024-05-14", "passengers": 2 } }',
        '{"tool": "search_flights",\n "args": {"passengers": 2, "origin": "SFO", "destination": "BOS", "date": "2024-05-14"}}',
    ],
    (
        "same JSON, keys reordered and indented",
        '{\n  "args": {\n    "passengers": 2,\n    "date": "2024-05-14",\n    "destination": "BOS",\n    "origin": "SFO"\n  },\n  "tool": "search_flights"\n}',
        WITHIN,
    ),
    (
        "same JSON, tighter whitespace",
        '{"tool": "search_flights", "args": {"origin":"SFO","destination":"BOS","date":"2024-05-14","passengers":2}}',
        WITHIN,
    ),
    (
        "role swap: origin ↔ destination",
        '{"tool": "search_flights", "args": {"origin": "BOS", "destination": "SFO", "date": "2024-05-14", "passengers": 2}}',
        BEYOND,
    ),
    (
        "same JSON, fenced and indented",
        '```json\n{\n    "tool": "search_flights",\n    "args": {"origin": "SFO", "passengers": 2, "destination": "BOS", "date": "2024-05-14"}\n}\n```',
        WITHIN,
    ),
    (
        "tool name replaced: search → book",
        '{"tool": "book_flight", "args": {"origin": "SFO", "destination": "BOS", "date": "2024-05-14", "passengers": 2}}',
        BEYOND,
    ),
    (
        "json field: passengers 2 → 1",
        '{"tool": "search_flights", "args": {"date": "2024-05-14", "origin": "SFO", "destination": "BOS", "passengers": 1}}',
        BEYOND,
    ),
)

family(
    "weather extraction as a JSON string",
    [
        '{"city": "Denver", "rain": true, "high_c": 18, "low_c": 6, "wind": "strong"}',
        '{"city": "Denver", "high_c": 18, "low_c": 6, "rain": true, "wind": "strong"}',
        '{\n  "city": "Denver",\n  "rain": true,\n  "high_c": 18,\n  "low_c": 6,\n  "wind": "strong"\n}',
        '{"city":"Denver", "rain":true, "high_c":18, "low_c":6, "wind":"strong"}',
        '{"wind": "strong", "rain": true, "city": "Denver", "high_c": 18, "low_c": 6}',
        '```json\n{"city": "Denver", "rain": true, "high_c": 18, "low_c": 6, "wind": "strong"}\n```',
        '{ "city": "Denver", "high_c": 18, "low_c": 6, "wind": "strong", "rain": true }',
        '{"city": "Denver", "rain": true, "wind": "strong", "high_c": 18, "low_c": 6}',
        '{\n    "city": "Denver",\n    "high_c": 18,\n    "low_c": 6,\n    "rain": true,\n    "wind": "strong"\n}',
    ],
    (
        "same JSON, keys reordered",
        '{"low_c": 6, "high_c": 18, "city": "Denver", "wind": "strong", "rain": true}',
        WITHIN,
    ),
    (
        "same JSON, two-space indent",
        '{\n  "rain": true,\n  "wind": "strong",\n  "city": "Denver",\n  "low_c": 6,\n  "high_c": 18\n}',
        WITHIN,
    ),
    (
        "same JSON, fenced and compact",
        '```json\n{"rain":true, "wind":"strong", "city":"Denver", "high_c":18, "low_c":6}\n```',
        WITHIN,
    ),
    (
        "json field: rain true → false",
        '{"city": "Denver", "rain": false, "high_c": 18, "low_c": 6, "wind": "strong"}',
        BEYOND,
    ),
    (
        "json field: wind strong → calm",
        '{"city": "Denver", "high_c": 18, "low_c": 6, "rain": true, "wind": "calm"}',
        BEYOND,
    ),
    (
        "json field: low 6 → -6",
        '{"wind": "strong", "rain": true, "city": "Denver", "high_c": 18, "low_c": -6}',
        BEYOND,
    ),
)

family(
    "Python eligibility check from a coding agent",
    [
        "def is_eligible(age, has_consent):\n    return age >= 18 or has_consent",
        "def is_eligible(age: int, has_consent: bool) -> bool:\n    return age >= 18 or has_consent",
        'def is_eligible(age, has_consent):\n    """Adults, or minors with consent, are eligible."""\n    return has_consent or age >= 18',
        "def is_eligible(age, has_consent):\n    if age >= 18:\n        return True\n    return has_consent",
        "def is_eligible(age: int, has_consent: bool) -> bool:\n    # eligible at 18 or older, or with consent\n    return age >= 18 or has_consent",
        "def is_eligible(age, has_consent):\n    is_adult = age >= 18\n    return is_adult or has_consent",
        "def is_eligible(age, has_consent):\n    return bool(age >= 18 or has_consent)",
        "def is_eligible(age: int, has_consent: bool) -> bool:\n    if has_consent:\n        return True\n    return age >= 18",
        "def is_eligible(age, has_consent):\n    return (age >= 18) or has_consent",
    ],
    (
        "same code, other local name",
        "def is_eligible(age: int, has_consent: bool) -> bool:\n    adult = age >= 18\n    return adult or has_consent",
        WITHIN,
    ),
    (
        "same code, comparison flipped",
        "def is_eligible(age, has_consent):\n    return 18 <= age or has_consent",
        WITHIN,
    ),
    (
        "same code, if/else",
        "def is_eligible(age, has_consent):\n    if age >= 18 or has_consent:\n        return True\n    else:\n        return False",
        WITHIN,
    ),
    (
        "operator: >= → >",
        "def is_eligible(age, has_consent):\n    return age > 18 or has_consent",
        BEYOND,
    ),
    (
        "operator: or → and",
        "def is_eligible(age: int, has_consent: bool) -> bool:\n    return age >= 18 and has_consent",
        BEYOND,
    ),
    (
        "other figure: 18 → 16",
        "def is_eligible(age, has_consent):\n    is_adult = age >= 16\n    return is_adult or has_consent",
        BEYOND,
    ),
)

family(
    "JavaScript active users sorted by name",
    [
        "const activeUsers = users.filter(u => u.active).sort((a, b) => a.name.localeCompare(b.name));",
        "const activeUsers = users\n  .filter((u) => u.active)\n  .sort((a, b) => a.name.localeCompare(b.name));",
        "function activeUsers(users) {\n  return users.filter(u => u.active).sort((a, b) => a.name.localeCompare(b.name));\n}",
        "const activeUsers = users.filter(user => user.active).sort((x, y) => x.name.localeCompare(y.name));",
        "// active users, alphabetical by name\nconst activeUsers = users.filter(u => u.active).sort((a, b) => a.name.localeCompare(b.name));",
        "const activeUsers = [...users].filter(({ active }) => active).sort((a, b) => a.name.localeCompare(b.name));",
        "const activeUsers = users.filter(u => u.active === true).sort((a, b) => a.name.localeCompare(b.name));",
        "const byName = (a, b) => a.name.localeCompare(b.name);\nconst activeUsers = users.filter(u => u.active).sort(byName);",
        "let activeUsers = users.filter((u) => u.active);\nactiveUsers.sort((a, b) => a.name.localeCompare(b.name));",
    ],
    (
        "same code, reformatted with other names",
        "const activeUsers = users\n  .filter((person) => person.active)\n  .sort((left, right) => left.name.localeCompare(right.name));",
        WITHIN,
    ),
    (
        "same code as an arrow function",
        "const getActiveUsers = (users) =>\n  users.filter((u) => u.active).sort((a, b) => a.name.localeCompare(b.name));",
        WITHIN,
    ),
    (
        "negation: inactive users",
        "const activeUsers = users.filter(u => !u.active).sort((a, b) => a.name.localeCompare(b.name));",
        BEYOND,
    ),
    (
        "role swap: sort reversed",
        "const activeUsers = users.filter(u => u.active).sort((a, b) => b.name.localeCompare(a.name));",
        BEYOND,
    ),
    (
        "field replaced: name → email",
        "const activeUsers = users.filter(user => user.active).sort((x, y) => x.email.localeCompare(y.email));",
        BEYOND,
    ),
)

family(
    "Postgres memory settings recommendation",
    [
        "Set shared_buffers = 4GB and work_mem = 64MB in postgresql.conf, then restart the server.",
        "In postgresql.conf, change shared_buffers to 4GB and work_mem to 64MB, and restart Postgres for them to take effect.",
        "Recommended: shared_buffers = 4GB, work_mem = 64MB (postgresql.conf); a server restart is required.",
        "Raise shared_buffers to 4 GB and work_mem to 64 MB in postgresql.conf, then restart the database server.",
        "Edit postgresql.conf:\nshared_buffers = 4GB\nwork_mem = 64MB\nThen restart PostgreSQL.",
        "Configure work_mem = 64MB and shared_buffers = 4GB in postgresql.conf and restart the server afterwards.",
        "Update postgresql.conf so that shared_buffers is 4GB and work_mem is 64MB, and restart the instance.",
        "Use shared_buffers = 4GB and work_mem = 64MB; put both in postgresql.conf and restart Postgres.",
        "Tune postgresql.conf with shared_buffers set to 4GB and work_mem set to 64MB, followed by a restart of the server.",
    ],
    (
        "rewording, config-block style",
        "# postgresql.conf\nwork_mem = 64MB\nshared_buffers = 4GB\n# restart required",
        WITHIN,
    ),
    (
        "rewording, spelled units",
        "Give shared_buffers four gigabytes and work_mem 64 megabytes in postgresql.conf, then bounce the Postgres server.",
        WITHIN,
    ),
    (
        "rewording, restart first",
        "Restart the server after setting work_mem to 64MB and shared_buffers to 4GB in postgresql.conf.",
        WITHIN,
    ),
    (
        "unit: MB → GB",
        "Set shared_buffers = 4GB and work_mem = 64GB in postgresql.conf, then restart the server.",
        BEYOND,
    ),
    (
        "role swap: values swapped",
        "In postgresql.conf, change shared_buffers to 64MB and work_mem to 4GB, and restart Postgres for them to take effect.",
        BEYOND,
    ),
)

family(
    "commit message from a coding agent",
    [
        "Fix off-by-one in pagination: the last page was skipped when the total count is a multiple of the page size.",
        "Fix pagination off-by-one that dropped the final page whenever the item count divided evenly by the page size.",
        "pagination: fix off-by-one so the last page is no longer skipped when total is an exact multiple of page_size",
        "Fix off-by-one error in page count; the last page went missing if the total was divisible by the page size.",
        "Correct pagination off-by-one: when the number of items is a multiple of the page size, the last page is now returned.",
        "Fix skipped last page in pagination (off-by-one when total % page_size == 0).",
        "Fix an off-by-one in the paginator that left out the last page for totals that are multiples of the page size.",
        "Pagination: stop skipping the final page when the total is a multiple of the page size (off-by-one).",
        "Fix off-by-one bug: pagination omitted the last page whenever total items was a multiple of the page size.",
    ],
    (
        "rewording, new vocabulary",
        "Paginator: handle totals that divide evenly by the page size, which previously lost the trailing page to an off-by-one.",
        WITHIN,
    ),
    (
        "rewording, conventional-commit style",
        "fix(pagination): include the last page when total is a multiple of page size (off-by-one)",
        WITHIN,
    ),
    (
        "antonym: last → first page",
        "Fix off-by-one in pagination: the first page was skipped when the total count is a multiple of the page size.",
        BEYOND,
    ),
    (
        "other conclusion: duplicated page",
        "Fix pagination off-by-one that repeated the final page whenever the item count divided evenly by the page size.",
        BEYOND,
    ),
    (
        "operator: == → !=",
        "Fix skipped last page in pagination (off-by-one when total % page_size != 0).",
        BEYOND,
    ),
)

# ============================================================================ operations and reports

family(
    "incident postmortem summary",
    [
        "Checkout returned errors for 37 minutes after the primary database failed over to a replica whose TLS certificate had expired.",
        "For 37 minutes, checkout failed: the database failover promoted a replica with an expired TLS certificate, and the app could not connect.",
        "Root cause: an expired TLS certificate on the replica that took over during failover. Impact: checkout errors lasting 37 minutes.",
        "A failover to a replica with an expired TLS cert broke checkout for thirty-seven minutes.",
        "Checkout was down for 37 minutes. The primary database failed over, and the new primary's TLS certificate had expired, so connections were refused.",
        "The outage lasted 37 minutes: after failover, the promoted replica presented an expired TLS certificate and checkout requests errored.",
        "Impact: 37 minutes of checkout errors. Cause: failover to a database replica whose TLS certificate was out of date (expired).",
        "When the primary DB failed over, the replica it switched to had an expired TLS certificate, leaving checkout erroring for 37 minutes.",
        "Checkout errors for 37 min, caused by a failover onto a replica carrying an expired TLS certificate.",
    ],
    (
        "rewording, new vocabulary",
        "Purchases could not complete for just over half an hour (37 minutes) because the standby database promoted during failover served a lapsed TLS certificate.",
        WITHIN,
    ),
    (
        "rewording, cause first",
        "An expired TLS certificate on the failover replica is why checkout kept erroring for thirty-seven minutes.",
        WITHIN,
    ),
    (
        "other figure: minutes",
        "Checkout returned errors for 73 minutes after the primary database failed over to a replica whose TLS certificate had expired.",
        BEYOND,
    ),
    (
        "unit: minutes → hours",
        "For 37 hours, checkout failed: the database failover promoted a replica with an expired TLS certificate, and the app could not connect.",
        BEYOND,
    ),
    (
        "item replaced: root cause",
        "Root cause: a full disk on the replica that took over during failover. Impact: checkout errors lasting 37 minutes.",
        BEYOND,
    ),
)

family(
    "football match report",
    [
        "Harbor City Rovers beat Eastfield United 2–1 at home, with Silva scoring the winner in the 88th minute after Okoro had equalised for United.",
        "Rovers edged Eastfield United 2-1 at Harbor City; Okoro's equaliser for United was cancelled out by Silva's 88th-minute winner.",
        "A late goal from Silva in the 88th minute gave Harbor City Rovers a 2–1 home win over Eastfield United, for whom Okoro had levelled.",
        "Harbor City Rovers 2, Eastfield United 1: Okoro equalised for the visitors before Silva struck the home side's winner on 88 minutes.",
        "Silva's 88th-minute strike sealed a 2–1 home victory for Harbor City Rovers against Eastfield United, after Okoro had drawn United level.",
        "Home side Harbor City Rovers won 2–1 against Eastfield United; Okoro scored United's equaliser and Silva netted the winner in the 88th minute.",
        "Rovers took a 2-1 win over Eastfield United at home thanks to Silva's goal in the 88th minute, after United's Okoro had made it 1-1.",
        "Harbor City Rovers defeated Eastfield United 2–1 at their ground; United levelled through Okoro, but Silva won it in the 88th minute.",
        "Eastfield United were beaten 2–1 away at Harbor City Rovers, Silva scoring an 88th-minute winner after Okoro's equaliser for United.",
    ],
    (
        "rewording, from the losers' side",
        "Eastfield United lost 2–1 on the road at Harbor City Rovers; Okoro had pulled them level, but Silva's 88th-minute goal decided it.",
        WITHIN,
    ),
    (
        "rewording, score in words",
        "Rovers won two-one at home against Eastfield United, Silva grabbing the 88th-minute winner after Okoro's leveller for United.",
        WITHIN,
    ),
    (
        "role swap: teams",
        "Eastfield United beat Harbor City Rovers 2–1 at home, with Silva scoring the winner in the 88th minute after Okoro had equalised for Rovers.",
        BEYOND,
    ),
    (
        "role swap: scorers",
        "Rovers edged Eastfield United 2-1 at Harbor City; Silva's equaliser for United was cancelled out by Okoro's 88th-minute winner.",
        BEYOND,
    ),
    (
        "other conclusion: win → draw",
        "Harbor City Rovers drew 1–1 at home with Eastfield United, Silva scoring for Rovers in the 88th minute after Okoro had scored for United.",
        BEYOND,
    ),
)

family(
    "shipping quote with weights",
    [
        "Shipping 3 boxes (12 kg total) from Montreal to Toronto by ground costs CAD 148 and takes 5 business days.",
        "Ground shipping for three boxes weighing 12 kg in total, Montreal to Toronto: CAD 148, delivered in 5 business days.",
        "Your quote: 3 parcels, 12 kg combined, Montreal → Toronto, ground service, C$148, five business days.",
        "To send the 3 boxes (12 kg altogether) from Montreal to Toronto by ground, the price is 148 Canadian dollars with delivery in 5 business days.",
        "Montreal to Toronto, ground: 3 boxes at 12 kg total will cost CAD 148 and arrive in 5 working days.",
        "The ground rate from Montreal to Toronto for three boxes (total weight 12 kg) is CAD 148; transit time is 5 business days.",
        "It will cost CAD 148 to ship 3 boxes totalling 12 kg from Montreal to Toronto by ground, arriving in 5 business days.",
        "Quote for 3 boxes, 12 kg in all, shipped by ground from Montreal to Toronto: 148 CAD, 5 business days in transit.",
        "Ground delivery of your 3 boxes (12 kg) from Montreal to Toronto: CAD 148, estimated 5 business days.",
    ],
    (
        "rewording, number words",
        "Sending three boxes of twelve kilograms in total by road from Montreal to Toronto comes to CAD 148, with delivery in five business days.",
        WITHIN,
    ),
    (
        "rewording, terse",
        "3 boxes / 12 kg / Montreal→Toronto / ground / CAD 148 / 5 business days",
        WITHIN,
    ),
    (
        "unit: kg → lb",
        "Shipping 3 boxes (12 lb total) from Montreal to Toronto by ground costs CAD 148 and takes 5 business days.",
        BEYOND,
    ),
    (
        "currency: CAD → USD",
        "It will cost USD 148 to ship 3 boxes totalling 12 kg from Montreal to Toronto by ground, arriving in 5 business days.",
        BEYOND,
    ),
    (
        "role swap: origin ↔ destination",
        "Ground shipping for three boxes weighing 12 kg in total, Toronto to Montreal: CAD 148, delivered in 5 business days.",
        BEYOND,
    ),
)

family(
    "currency conversion answer",
    [
        "€250 converts to about $271 at today's rate of 1.084 US dollars per euro.",
        "At 1.084 USD per EUR, 250 euros is roughly 271 US dollars.",
        "250 EUR ≈ 271 USD (rate: 1 EUR = 1.084 USD).",
        "Using today's exchange rate of 1.084, your 250 euros come to approximately $271.",
        "You'd get about 271 US dollars for 250 euros at the current rate of 1.084 dollars to the euro.",
        "Converting €250 to dollars at 1.084 gives approximately $271.",
        "250 euros is worth roughly $271 today, based on an exchange rate of 1.084 USD/EUR.",
        "At the current rate (1 euro = 1.084 dollars), €250 equals about 271 dollars.",
        "Two hundred fifty euros converts to about $271 at a rate of 1.084.",
    ],
    (
        "rewording, amounts in words",
        "With the euro at 1.084 dollars, two hundred and fifty euros buys you roughly two hundred seventy-one US dollars.",
        WITHIN,
    ),
    (
        "rewording, symbols",
        "Today 1 EUR trades at 1.084 USD, so €250 ≈ US$271.",
        WITHIN,
    ),
    (
        "role swap: direction of conversion",
        "At 1.084 EUR per USD, 250 US dollars is roughly 271 euros.",
        BEYOND,
    ),
    (
        "scale: euros → thousands of euros",
        "€250,000 converts to about $271,000 at today's rate of 1.084 US dollars per euro.",
        BEYOND,
    ),
    (
        "currency: dollars → pounds",
        "You'd get about 271 British pounds for 250 euros at the current rate of 1.084 pounds to the euro.",
        BEYOND,
    ),
)

family(
    "hemoglobin lab result interpretation",
    [
        "Hemoglobin is 10.2 g/dL, below the normal range of 12–15.5 g/dL, consistent with mild anemia; repeat the test in 4 weeks with iron studies.",
        "Your hemoglobin of 10.2 g/dL is low (normal 12 to 15.5), suggesting mild anemia. Recheck in four weeks along with iron tests.",
        "At 10.2 g/dL, hemoglobin falls below the reference range (12–15.5 g/dL). This points to mild anemia; a repeat test plus iron studies in 4 weeks is advised.",
        "Result: Hb 10.2 g/dL (ref 12–15.5) — low, in keeping with mild anemia. Plan: repeat in 4 weeks with iron panel.",
        "The hemoglobin level, 10.2 g/dL, is under the normal 12–15.5 g/dL range and indicates mild anemia; it should be retested in 4 weeks together with iron studies.",
        "A hemoglobin of 10.2 g/dL is lower than normal (12–15.5 g/dL) and fits mild anemia. Repeat bloodwork, including iron studies, in four weeks.",
        "Mild anemia is likely: hemoglobin is 10.2 g/dL against a normal range of 12–15.5 g/dL. Repeat it with iron studies in 4 weeks.",
        "Hemoglobin measured 10.2 g/dL, which is below the 12–15.5 g/dL reference interval — mild anemia. Retest in 4 weeks and add iron studies.",
        "Your result (10.2 g/dL) is below normal for hemoglobin and consistent with mild anemia; we'll repeat it in 4 weeks along with iron studies.",
    ],
    (
        "rewording, new vocabulary",
        "Haemoglobin came back at 10.2 g/dL, short of the 12–15.5 g/dL reference band, which fits a mild anaemia; redo it in four weeks together with ferritin and iron levels.",
        WITHIN,
    ),
    (
        "rewording, terse",
        "Hb 10.2 g/dL, low vs 12–15.5: mild anemia. Repeat + iron studies in 4 wk.",
        WITHIN,
    ),
    (
        "antonym: mild → severe",
        "Your hemoglobin of 10.2 g/dL is low (normal 12 to 15.5), suggesting severe anemia. Recheck in four weeks along with iron tests.",
        BEYOND,
    ),
    (
        "unit: g/dL → mg/dL",
        "Hemoglobin is 10.2 mg/dL, below the normal range of 12–15.5 mg/dL, consistent with mild anemia; repeat the test in 4 weeks with iron studies.",
        BEYOND,
    ),
    (
        "other conclusion: normal, no follow-up",
        "Hemoglobin is 13.2 g/dL, within the normal range of 12–15.5 g/dL; no anemia and no repeat test is needed.",
        BEYOND,
    ),
)

family(
    "road closure advisory",
    [
        "Route 9 northbound is closed between Exit 12 and Exit 14 until 6 pm Saturday for bridge repairs; use the Route 2 detour.",
        "Bridge repairs have closed the northbound lanes of Route 9 from Exit 12 to Exit 14 until 6 p.m. Saturday. Detour via Route 2.",
        "Northbound Route 9 is shut between exits 12 and 14 through 6 pm on Saturday while the bridge is repaired; drivers should follow Route 2 instead.",
        "Closure: Route 9 NB, Exits 12–14, until Saturday 18:00 (bridge repairs). Detour: Route 2.",
        "Expect Route 9 northbound to be closed from Exit 12 to Exit 14 until Saturday at 6 pm due to bridge work; take Route 2 as the detour.",
        "Until 6 pm Saturday, the northbound side of Route 9 between Exit 12 and Exit 14 is closed for bridge repairs. Please use Route 2.",
        "Bridge repair work closes Route 9 northbound between Exits 12 and 14 until 6 pm Saturday; traffic is detoured onto Route 2.",
        "Route 9 (northbound) will remain closed from Exit 12 to Exit 14 until 6 pm on Saturday for repairs to the bridge. Use Route 2.",
        "Drivers heading north on Route 9 will find it closed between Exit 12 and Exit 14 until Saturday 6 pm for bridge repairs — detour by Route 2.",
    ],
    (
        "rewording, 24-hour clock",
        "Until 18:00 on Saturday, Route 9 is closed to northbound traffic from Exit 12 to Exit 14 so crews can fix the bridge; Route 2 is the signed diversion.",
        WITHIN,
    ),
    (
        "rewording, exits reordered",
        "Use Route 2: repairs to a bridge keep northbound Route 9 closed between Exit 14 and Exit 12 until Saturday at 6 pm.",
        WITHIN,
    ),
    (
        "antonym: northbound → southbound",
        "Route 9 southbound is closed between Exit 12 and Exit 14 until 6 pm Saturday for bridge repairs; use the Route 2 detour.",
        BEYOND,
    ),
    (
        "antonym: closed → reopened",
        "Northbound Route 9 has reopened between exits 12 and 14 ahead of 6 pm on Saturday now the bridge is repaired; drivers no longer need Route 2.",
        BEYOND,
    ),
    (
        "item replaced: Saturday → Sunday",
        "Closure: Route 9 NB, Exits 12–14, until Sunday 18:00 (bridge repairs). Detour: Route 2.",
        BEYOND,
    ),
)

family(
    "school timetable for Monday",
    [
        "Year 8 on Monday: Maths at 9:00 in Room 14, Science at 11:00 in Lab 2, and PE after lunch at 13:30.",
        "Monday for Year 8 starts with Maths at 9:00 (Room 14), then Science at 11:00 in Lab 2; PE is at 13:30 after lunch.",
        "Year 8 Monday timetable — 9:00 Maths, Room 14; 11:00 Science, Lab 2; 13:30 PE (after lunch).",
        "On Mondays, Year 8 has Maths in Room 14 at 9 am, Science in Lab 2 at 11 am, and PE after lunch at 1:30 pm.",
        "Year 8's Monday: Maths 9:00 in Room 14, Science 11:00 in Lab 2, PE 13:30 following lunch.",
        "Maths opens Monday for Year 8 at 9:00 in Room 14; Science follows at 11:00 in Lab 2, and after lunch there is PE at 13:30.",
        "For Year 8, Monday's lessons are Maths (9:00, Room 14), Science (11:00, Lab 2) and PE (13:30, after lunch).",
        "Year 8 students have Maths at 9 o'clock in Room 14 on Monday, Science at 11 in Lab 2, and PE at half past one after lunch.",
        "Monday, Year 8: 9:00 Maths in Room 14 → 11:00 Science in Lab 2 → lunch → 13:30 PE.",
    ],
    (
        "rewording, 12-hour clock",
        "Year 8 kicks off Monday with Maths at 9 am in Room 14, has Science in Lab 2 at 11 am, then PE at 1:30 pm once lunch is over.",
        WITHIN,
    ),
    (
        "rewording, afternoon first",
        "PE is at 13:30 after lunch on Monday for Year 8; in the morning they have Maths at 9:00 in Room 14 and Science at 11:00 in Lab 2.",
        WITHIN,
    ),
    (
        "role swap: Maths ↔ Science times",
        "Year 8 on Monday: Science at 9:00 in Room 14, Maths at 11:00 in Lab 2, and PE after lunch at 13:30.",
        BEYOND,
    ),
    (
        "antonym: after → before lunch",
        "Monday for Year 8 starts with Maths at 9:00 (Room 14), then Science at 11:00 in Lab 2; PE is at 12:00 before lunch.",
        BEYOND,
    ),
    (
        "other figure: room number",
        "For Year 8, Monday's lessons are Maths (9:00, Room 41), Science (11:00, Lab 2) and PE (13:30, after lunch).",
        BEYOND,
    ),
)

family(
    "API rate limit explanation",
    [
        "Each API key may make 100 requests per minute; beyond that the API returns HTTP 429 with a Retry-After header telling you how many seconds to wait.",
        "The limit is 100 requests per minute per API key. Exceed it and you get a 429 Too Many Requests response with a Retry-After header.",
        "You can send up to 100 requests a minute on each API key; extra requests are rejected with status 429, and the Retry-After header says when to retry.",
        "Rate limit: 100 req/min per key. Over the limit → HTTP 429 plus Retry-After (seconds to wait).",
        "Requests are limited to 100 per minute for each API key. Once you hit that, responses come back as 429s carrying a Retry-After header.",
        "Per API key, the API allows 100 requests every minute; any more receive a 429 error, and you should wait the number of seconds in Retry-After before retrying.",
        "Every API key gets a budget of 100 requests per minute. If you go over, you'll receive HTTP 429, and the Retry-After header tells you how long to back off.",
        "The API enforces a limit of one hundred requests per minute per key and answers excess requests with 429 Too Many Requests and a Retry-After header.",
        "Up to 100 calls per minute are allowed per API key; further calls fail with HTTP status 429 and include Retry-After so clients know when to try again.",
    ],
    (
        "rewording, new vocabulary",
        "Each key's quota is a hundred calls a minute; surplus calls are throttled with a 429 status, and clients should pause for the Retry-After interval before resending.",
        WITHIN,
    ),
    (
        "rewording, error first",
        "You'll see HTTP 429 (with a Retry-After header) once an API key passes 100 requests in a minute.",
        WITHIN,
    ),
    (
        "unit: per minute → per hour",
        "The limit is 100 requests per hour per API key. Exceed it and you get a 429 Too Many Requests response with a Retry-After header.",
        BEYOND,
    ),
    (
        "item replaced: per key → per IP address",
        "Each IP address may make 100 requests per minute; beyond that the API returns HTTP 429 with a Retry-After header telling you how many seconds to wait.",
        BEYOND,
    ),
    (
        "other figure: status code",
        "Rate limit: 100 req/min per key. Over the limit → HTTP 503 plus Retry-After (seconds to wait).",
        BEYOND,
    ),
)

family(
    "security scan finding",
    [
        "Critical: SQL injection in the q parameter of the /search endpoint, where user input is concatenated into the query. Fix: use parameterized queries.",
        "Severity critical — the /search endpoint builds its SQL by concatenating the q parameter, allowing SQL injection. Switch to parameterized queries.",
        "The scan found a critical SQL injection: /search concatenates the user-supplied q parameter directly into SQL. Remediate with parameterized queries.",
        "Finding (critical): SQL injection via parameter q on /search; input is string-concatenated into the SQL statement. Recommended fix: parameterized queries.",
        "A critical SQL injection vulnerability exists in /search because the q parameter is concatenated into the query string; parameterize the query to fix it.",
        "/search is vulnerable to SQL injection (critical severity): the q parameter is concatenated into the SQL. Use parameterized queries instead.",
        "Critical SQLi in /search (param q). Cause: string concatenation of user input into SQL. Fix: parameterized queries.",
        "The q parameter of the /search endpoint is injectable — user input is concatenated into SQL. This is a critical finding; fix it with parameterized queries.",
        "We flagged a critical SQL injection in /search: q is concatenated into the query without escaping. Parameterized queries will resolve it.",
    ],
    (
        "rewording, bound parameters",
        "Top-severity issue: the search route splices the q argument straight into its SQL text, so it's injectable; bind it as a query parameter (prepared statement) instead.",
        WITHIN,
    ),
    (
        "rewording, fix first",
        "Use parameterized queries on /search: its q parameter is concatenated into SQL, a critical SQL injection.",
        WITHIN,
    ),
    (
        "antonym: critical → low severity",
        "Severity low — the /search endpoint builds its SQL by concatenating the q parameter, allowing SQL injection. Switch to parameterized queries.",
        BEYOND,
    ),
    (
        "item replaced: SQL injection → XSS",
        "Critical: cross-site scripting in the q parameter of the /search endpoint, where user input is echoed into the page unescaped. Fix: encode output.",
        BEYOND,
    ),
    (
        "item replaced: endpoint",
        "/login is vulnerable to SQL injection (critical severity): the q parameter is concatenated into the SQL. Use parameterized queries instead.",
        BEYOND,
    ),
)

# ============================================================================ people and schedules

family(
    "email drafted to reschedule a review",
    [
        "Hi Daniel, I need to move our design review from Tuesday to Thursday at 10:00. Sorry for the short notice — could you confirm Thursday works? Best, Priya",
        "Hi Daniel,\n\nApologies for the late change: can we shift the design review from Tuesday to Thursday, 10 am? Please let me know if that suits you.\n\nThanks,\nPriya",
        "Dear Daniel, unfortunately I have to reschedule our design review from Tuesday to Thursday at 10:00. Sorry for the inconvenience; please confirm. Regards, Priya",
        "Hi Daniel — quick one: I'd like to push Tuesday's design review to Thursday at 10. Sorry for the late notice. Does that work for you? Priya",
        "Hello Daniel,\nI'm sorry, but I need to move the design review from Tuesday to Thursday at 10:00 am. Could you confirm you're available?\nBest regards,\nPriya",
        "Hi Daniel, our design review on Tuesday needs to move to Thursday, 10:00. Apologies for the short notice. Can you confirm? Thanks, Priya",
        "Daniel, sorry to do this at short notice: can we hold the design review on Thursday at 10 instead of Tuesday? Let me know. — Priya",
        "Hi Daniel,\nWould Thursday at 10:00 work for the design review instead of Tuesday? Sorry for changing it so late. Please confirm when you can.\nPriya",
        "Dear Daniel,\nI must move our Tuesday design review to Thursday at 10 am, and I apologise for the short notice. Please confirm that Thursday works.\nKind regards,\nPriya",
    ],
    (
        "rewording, new vocabulary",
        "Hey Daniel, something's come up on Tuesday, so I'm hoping we can bump the design review to Thursday morning at ten. Sorry it's last-minute — will that suit? Cheers, Priya",
        WITHIN,
    ),
    (
        "rewording, shorter",
        "Hi Daniel, can the design review move from Tue to Thu 10:00? Sorry for the late notice. Please confirm. Priya",
        WITHIN,
    ),
    (
        "rewording, formal",
        "Dear Daniel,\nPlease accept my apologies for the short notice, but I need to reschedule our design review, originally planned for Tuesday, to Thursday at 10:00. Would you kindly confirm your availability?\nSincerely,\nPriya",
        WITHIN,
    ),
    (
        "role swap: sender ↔ recipient",
        "Hi Priya, I need to move our design review from Tuesday to Thursday at 10:00. Sorry for the short notice — could you confirm Thursday works? Best, Daniel",
        BEYOND,
    ),
    (
        "role swap: from Thursday to Tuesday",
        "Hi Daniel, our design review on Thursday needs to move to Tuesday, 10:00. Apologies for the short notice. Can you confirm? Thanks, Priya",
        BEYOND,
    ),
    (
        "other conclusion: cancelled",
        "Hi Daniel, I'm sorry, but I have to cancel Tuesday's design review altogether; we won't reschedule for now. Best, Priya",
        BEYOND,
    ),
)

family(
    "calendar booking for a budget review",
    [
        "Booked: Marco and Aisha meet on Wednesday from 15:00 to 15:30 in Room B to review the Q3 budget; Aisha presents.",
        "I've scheduled a 30-minute Q3 budget review for Marco and Aisha on Wednesday at 3 pm in Room B, with Aisha presenting.",
        "Wednesday 15:00–15:30, Room B: Q3 budget review (Marco, Aisha). Presenter: Aisha.",
        "Marco and Aisha are set to meet Wednesday at 3:00 pm for half an hour in Room B; Aisha will walk through the Q3 budget.",
        "The Q3 budget review is on Wednesday, 15:00–15:30 in Room B. Attendees: Marco and Aisha; Aisha is presenting.",
        "Done — Aisha will present the Q3 budget to Marco on Wednesday at 15:00 in Room B (30 min).",
        "Calendar invite sent: Q3 budget review, Wednesday 3–3:30 pm, Room B. Aisha presents; Marco attends.",
        "A half-hour meeting between Marco and Aisha is booked for Wednesday at 15:00 in Room B to go over the Q3 budget, which Aisha will present.",
        "Scheduled Marco and Aisha for Wednesday, 3:00–3:30 pm, Room B — agenda: Q3 budget review, presented by Aisha.",
    ],
    (
        "rewording, new vocabulary",
        "All set: Aisha takes Marco through the third-quarter budget in Room B this Wednesday, 3 to 3:30 in the afternoon.",
        WITHIN,
    ),
    (
        "rewording, names reordered",
        "Booked Aisha and Marco into Room B on Wednesday, 15:00–15:30, for the Q3 budget review; Aisha's presenting.",
        WITHIN,
    ),
    (
        "role swap: presenter",
        "Done — Marco will present the Q3 budget to Aisha on Wednesday at 15:00 in Room B (30 min).",
        BEYOND,
    ),
    (
        "item replaced: Room B → Room D",
        "Booked: Marco and Aisha meet on Wednesday from 15:00 to 15:30 in Room D to review the Q3 budget; Aisha presents.",
        BEYOND,
    ),
    (
        "item replaced: Q3 → Q4 budget",
        "Wednesday 15:00–15:30, Room B: Q4 budget review (Marco, Aisha). Presenter: Aisha.",
        BEYOND,
    ),
)

family(
    "essay grading comment",
    [
        "14/20. Strong, well-structured argument, but the citations are weak: only two sources, neither peer-reviewed. Add scholarly sources.",
        "Grade: 14 out of 20. Your argument is clear and well organised; the main weakness is sourcing — just two citations and no peer-reviewed work.",
        "A solid, well-structured argument earns 14/20; marks were lost for thin citations (two sources, none peer-reviewed). Please use academic sources next time.",
        "Score 14/20 — excellent structure and a convincing argument, let down by weak referencing: only 2 sources, and neither is peer-reviewed.",
        "14 of 20 points. The argument is strong and logically structured. Citations need work: you cite only two sources and neither is peer reviewed.",
        "Well-argued and well-structured essay (14/20). To improve, support it with peer-reviewed sources; at present there are only two citations, both non-academic.",
        "You scored 14/20. Strengths: a strong, coherent argument. Weaknesses: only two sources cited, neither of them peer-reviewed — add scholarly references.",
        "14/20: persuasive, well-organised argument; weak evidence base with just two non-peer-reviewed sources. Include scholarly literature.",
        "This essay receives 14 out of 20. The reasoning is strong and well structured, but the two sources cited are not peer-reviewed, which weakens it.",
    ],
    (
        "rewording, number words",
        "Fourteen out of twenty: the case you make is compelling and tidily organised, but you lean on a couple of sources, neither of them peer-reviewed — bring in scholarly work.",
        WITHIN,
    ),
    (
        "rewording, weakness first",
        "Citations are the weak spot (two sources, no peer-reviewed ones); the argument itself is strong and well structured. 14/20.",
        WITHIN,
    ),
    (
        "role swap: strong citations, weak argument",
        "14/20. Strong, well-chosen citations, but the argument is weak: poorly structured and unconvincing. Tighten the reasoning.",
        BEYOND,
    ),
    (
        "other figure: grade",
        "Grade: 17 out of 20. Your argument is clear and well organised; the main weakness is sourcing — just two citations and no peer-reviewed work.",
        BEYOND,
    ),
    (
        "number word: two → one source",
        "14 of 20 points. The argument is strong and logically structured. Citations need work: you cite only one source and it is not peer reviewed.",
        BEYOND,
    ),
)

# ============================================================================ measures and units

family(
    "cycling ride summary",
    [
        "You rode 42 km in 1 h 45 min at an average of 24 km/h, climbing 610 m.",
        "Ride summary: 42 kilometres, 1 hour 45 minutes, average speed 24 km/h, 610 m of elevation gain.",
        "Today's ride covered 42 km in 1:45 with 610 metres of climbing, averaging 24 km/h.",
        "Distance 42 km · time 1h45 · avg 24 km/h · elevation +610 m.",
        "You covered forty-two kilometres in an hour and forty-five minutes, averaging 24 km/h and gaining 610 m.",
        "Great ride: 42 km at 24 km/h on average, 1 h 45 min moving time and 610 m climbed.",
        "In 1 hour 45 minutes you cycled 42 km (average 24 km/h) and climbed 610 metres.",
        "Your 42 km ride took 1:45 at an average speed of 24 km/h, with a total ascent of 610 m.",
        "42 km ridden, 610 m of climbing, 1 h 45 min, 24 km/h average.",
    ],
    (
        "rewording, decimal hours",
        "You spent 1.75 hours on the bike for 42 kilometres — a 24 km/h average — with 610 metres of ascent.",
        WITHIN,
    ),
    (
        "rewording, reordered",
        "Climbed 610 m over 42 km; averaged 24 km/h across 1 h 45 min.",
        WITHIN,
    ),
    (
        "unit: km → miles",
        "You rode 42 miles in 1 h 45 min at an average of 24 mph, climbing 610 m.",
        BEYOND,
    ),
    (
        "other figure: elevation",
        "Today's ride covered 42 km in 1:45 with 1,610 metres of climbing, averaging 24 km/h.",
        BEYOND,
    ),
    (
        "antonym: climbing → descending",
        "In 1 hour 45 minutes you cycled 42 km (average 24 km/h) and descended 610 metres.",
        BEYOND,
    ),
)

family(
    "saline solution preparation",
    [
        "Dissolve 5 g of NaCl in water and make up to 250 mL to get a 2% w/v saline solution; stir until clear.",
        "To make 250 mL of 2% (w/v) saline, dissolve 5 grams of sodium chloride and top up with water to 250 mL, stirring until fully dissolved.",
        "Weigh 5 g NaCl, dissolve it, and bring the volume to 250 mL with water: that's a 2% w/v solution. Stir until clear.",
        "For a 2% w/v NaCl solution, add 5 g of salt to a flask and fill with water to the 250 mL mark; mix until no crystals remain.",
        "Take 5 g of sodium chloride, dissolve in water, and dilute to a final volume of 250 mL (2% w/v). Stir until the solution is clear.",
        "5 g NaCl + water to 250 mL total = 2% w/v saline. Stir until dissolved.",
        "Prepare 2% w/v saline by dissolving five grams of NaCl in water and making the volume up to 250 mL; stir until clear.",
        "Dissolve 5 g sodium chloride in some water, then add water up to 250 mL total to obtain 2% (w/v) saline, stirring until it's clear.",
        "Make up 250 mL of 2% w/v saline: 5 g of NaCl dissolved and brought to volume with water, stirred until clear.",
    ],
    (
        "rewording, litres",
        "Bring 5 g of table salt (NaCl) to a final volume of 0.25 L with water, stirring until clear — that gives 2% w/v.",
        WITHIN,
    ),
    (
        "rewording, order",
        "Stir until clear: 250 mL of 2% (w/v) saline needs 5 g of NaCl dissolved in water and made up to volume.",
        WITHIN,
    ),
    (
        "unit: g → mg",
        "Dissolve 5 mg of NaCl in water and make up to 250 mL to get a 2% w/v saline solution; stir until clear.",
        BEYOND,
    ),
    (
        "unit: mL → L",
        "Take 5 g of sodium chloride, dissolve in water, and dilute to a final volume of 250 L (2% w/v). Stir until the solution is clear.",
        BEYOND,
    ),
    (
        "item replaced: NaCl → KCl",
        "Weigh 5 g KCl, dissolve it, and bring the volume to 250 mL with water: that's a 2% w/v solution. Stir until clear.",
        BEYOND,
    ),
)

# ============================================================================ decisions

family(
    "release go/no-go",
    [
        "Go: all 214 tests pass and p95 latency is 180 ms, under the 250 ms budget; deploy to production on Thursday.",
        "Decision: GO. 214/214 tests green, p95 latency 180 ms vs a 250 ms budget. Ship to production Thursday.",
        "The release is cleared for Thursday's production deploy — every one of the 214 tests passes and p95 latency (180 ms) is within the 250 ms budget.",
        "Go for production on Thursday: tests 214 of 214 passing, p95 at 180 ms, comfortably below the 250 ms limit.",
        "All 214 tests pass and p95 latency sits at 180 ms, inside the 250 ms budget, so we are a go for the Thursday production release.",
        "Verdict: go. p95 latency 180 ms (budget 250 ms), 214 tests passing. Deploy Thursday.",
        "We recommend deploying to production on Thursday: the full suite of 214 tests passes and p95 latency is 180 ms, below the 250 ms target.",
        "Green light for Thursday — 214 passing tests, and a p95 latency of 180 ms keeps us under the 250 ms budget.",
        "Go/no-go: GO. With all 214 tests passing and p95 at 180 ms against a 250 ms budget, release to production Thursday.",
    ],
    (
        "rewording, new vocabulary",
        "Cleared to ship Thursday: the suite's 214 checks are all green and tail latency (p95) of 180 ms leaves 70 ms of headroom on the 250 ms budget.",
        WITHIN,
    ),
    (
        "rewording, terse",
        "GO for Thu prod deploy (214/214 tests, p95 180 ms < 250 ms).",
        WITHIN,
    ),
    (
        "antonym: under → over budget, no-go",
        "No-go: all 214 tests pass but p95 latency is 280 ms, over the 250 ms budget; hold the production deploy planned for Thursday.",
        BEYOND,
    ),
    (
        "negation: tests do not all pass",
        "Decision: NO-GO. 3 of 214 tests failing, p95 latency 180 ms vs a 250 ms budget. Do not ship to production Thursday.",
        BEYOND,
    ),
    (
        "item replaced: production → staging",
        "Go: all 214 tests pass and p95 latency is 180 ms, under the 250 ms budget; deploy to staging on Thursday.",
        BEYOND,
    ),
)

family(
    "insurance claim decision",
    [
        "Approve the claim: the water damage was caused by a burst pipe, which the policy covers; pay $3,400 minus the $500 deductible, so $2,900.",
        "Claim approved. A burst pipe caused the water damage and is a covered peril; payout is $3,400 less the $500 deductible = $2,900.",
        "The burst pipe that caused the water damage is covered under the policy, so we approve the claim and pay $2,900 ($3,400 minus a $500 deductible).",
        "Decision: approve. Cause: burst pipe (covered). Amount: $3,400 − $500 deductible = $2,900.",
        "We'll approve this claim since burst pipes are covered; after the $500 deductible, the $3,400 loss results in a $2,900 payment.",
        "Covered loss — the water damage came from a burst pipe. Approve and pay $2,900, i.e. the $3,400 assessed damage net of the $500 deductible.",
        "This claim should be approved: the policy covers water damage from a burst pipe. Pay $2,900 after applying the $500 deductible to $3,400.",
        "Approve: burst-pipe water damage falls within coverage. Settlement is $2,900 ($3,400 damage, $500 deductible).",
        "The water damage resulted from a burst pipe, a covered event, so the claim is approved for $2,900 — the $3,400 loss minus the $500 deductible.",
    ],
    (
        "rewording, new vocabulary",
        "Accept the claim — a ruptured pipe is an insured cause — and settle for two thousand nine hundred dollars once the $500 excess comes off the $3,400 damage.",
        WITHIN,
    ),
    (
        "rewording, amount first",
        "Pay $2,900: the $3,400 of water damage stems from a burst pipe, which is covered, less the $500 deductible. Claim approved.",
        WITHIN,
    ),
    (
        "other conclusion: denied, another cause",
        "Deny the claim: the water damage was caused by gradual seepage, which the policy excludes; no payment is due.",
        BEYOND,
    ),
    (
        "antonym: covers → excludes",
        "The burst pipe that caused the water damage is excluded under the policy, so we deny the claim and pay nothing on the $3,400 loss.",
        BEYOND,
    ),
    (
        "other figure: deductible",
        "Claim approved. A burst pipe caused the water damage and is a covered peril; payout is $3,400 less the $1,000 deductible = $2,400.",
        BEYOND,
    ),
)

family(
    "warranty coverage answer",
    [
        "Your headphones are still under warranty until 12 March 2026, so the broken hinge will be repaired free of charge; ship them to our Leeds service centre.",
        "The warranty on your headphones runs until 12 March 2026, which means the broken hinge is covered — we'll repair it for free at our Leeds service centre.",
        "Good news: the hinge repair is covered, as your headphones' warranty lasts until 12 March 2026. Please send them to the Leeds service centre.",
        "Covered under warranty (valid to 12/03/2026): free repair of the broken hinge. Send the headphones to our service centre in Leeds.",
        "Since your warranty doesn't expire until 12 March 2026, we'll fix the broken hinge at no cost; please post the headphones to our Leeds service centre.",
        "Your headphones remain under warranty through 12 March 2026, so repairing the hinge costs you nothing. Ship them to the Leeds service centre.",
        "The broken hinge will be repaired free of charge because the headphones are under warranty until 12 March 2026; the repair is done at our Leeds centre.",
        "Warranty active until 12 March 2026 — the hinge repair is free. Please mail the headphones to our service centre in Leeds.",
        "We can repair the broken hinge free, as your headphones are covered by warranty until 12 March 2026. Send them to our Leeds service centre.",
    ],
    (
        "rewording, contraction",
        "You're covered until 12 March 2026, so the snapped hinge won't cost you anything to fix; just post the headphones to our Leeds repair centre.",
        WITHIN,
    ),
    (
        "rewording, date format",
        "Hinge repair: free, warranty valid through 2026-03-12. Ship the headphones to the Leeds service centre.",
        WITHIN,
    ),
    (
        "antonym: under warranty → expired",
        "Your headphones' warranty expired on 12 March 2025, so the broken hinge repair will be charged; ship them to our Leeds service centre.",
        BEYOND,
    ),
    (
        "item replaced: Leeds → Bristol",
        "The warranty on your headphones runs until 12 March 2026, which means the broken hinge is covered — we'll repair it for free at our Bristol service centre.",
        BEYOND,
    ),
    (
        "other conclusion: replacement instead of repair",
        "Good news: your headphones' warranty lasts until 12 March 2026, so instead of repairing the broken hinge we'll send you a new pair; no need to ship anything.",
        BEYOND,
    ),
)

family(
    "grocery order substitution note",
    [
        "Two items were substituted: semi-skimmed milk replaced the whole milk, and a 500 g bag of brown rice replaced the basmati; the eggs were out of stock and refunded.",
        "We swapped your whole milk for semi-skimmed and your basmati rice for a 500 g bag of brown rice. Eggs were unavailable, so you've been refunded for them.",
        "Substitutions: whole milk → semi-skimmed milk; basmati → brown rice (500 g). Eggs: out of stock, refunded.",
        "Your order had two substitutions — semi-skimmed instead of whole milk, and 500 g of brown rice instead of basmati — and the eggs, which were out of stock, were refunded.",
        "The whole milk was replaced with semi-skimmed, the basmati rice with a 500 g pack of brown rice, and the out-of-stock eggs were refunded.",
        "Please note: we sent semi-skimmed milk in place of whole milk and brown rice (500 g) in place of basmati. We couldn't supply eggs and have refunded them.",
        "Eggs were out of stock and refunded; whole milk was substituted with semi-skimmed, and basmati rice with 500 g of brown rice.",
        "Two substitutions in your delivery: semi-skimmed milk for whole, and a 500 g bag of brown rice for basmati. The eggs were refunded as they were out of stock.",
        "Instead of whole milk you'll get semi-skimmed, and instead of basmati a 500 g bag of brown rice; eggs weren't in stock, so we refunded them.",
    ],
    (
        "rewording, new vocabulary",
        "Heads up: your basmati became a half-kilo bag of brown rice and your full-fat milk became semi-skimmed; we had no eggs, so that line has been refunded.",
        WITHIN,
    ),
    (
        "rewording, eggs last",
        "Semi-skimmed milk stands in for the whole milk and 500 g of brown rice for the basmati; eggs were out of stock and you were refunded.",
        WITHIN,
    ),
    (
        "role swap: whole ↔ semi-skimmed",
        "We swapped your semi-skimmed milk for whole and your basmati rice for a 500 g bag of brown rice. Eggs were unavailable, so you've been refunded for them.",
        BEYOND,
    ),
    (
        "item replaced: eggs → butter",
        "Substitutions: whole milk → semi-skimmed milk; basmati → brown rice (500 g). Butter: out of stock, refunded.",
        BEYOND,
    ),
    (
        "unit: 500 g → 5 kg",
        "The whole milk was replaced with semi-skimmed, the basmati rice with a 5 kg pack of brown rice, and the out-of-stock eggs were refunded.",
        BEYOND,
    ),
)

family(
    "gym class schedule answer",
    [
        "Spin classes run on Mondays and Wednesdays at 6:30 am with Jordan, and on Saturdays at 9 am with Keiko; book up to 48 hours ahead in the app.",
        "You can take spin with Jordan on Monday and Wednesday at 6:30 am, or with Keiko on Saturday at 9:00. Bookings open 48 hours in advance in the app.",
        "Spin: Mon & Wed 6:30 am (Jordan), Sat 9 am (Keiko). Reserve in the app up to 48 h before.",
        "Jordan teaches spin at 6:30 am every Monday and Wednesday, and Keiko leads the Saturday 9 am class; you can book through the app up to 48 hours beforehand.",
        "There are three spin classes a week: Monday and Wednesday at 6:30 in the morning with Jordan, and Saturday at 9 with Keiko. Book via the app, up to 48 hours ahead.",
        "Our spin sessions are at 6:30 am on Mondays and Wednesdays (instructor: Jordan) and 9:00 am on Saturdays (instructor: Keiko); the app lets you book 48 hours in advance.",
        "For spin, come Monday or Wednesday at 6:30 am for Jordan's class, or Saturday at 9 am for Keiko's. Booking in the app opens 48 hours before each class.",
        "Spin classes: Jordan on Mon/Wed at 06:30, Keiko on Sat at 09:00. Book in the app no more than 48 hours ahead.",
        "Keiko runs spin on Saturdays at 9 am, and Jordan runs it Mondays and Wednesdays at 6:30 am; reserve your bike in the app up to 48 hours ahead.",
    ],
    (
        "rewording, 24-hour clock and contraction",
        "Jordan's spin is Mon and Wed at 06:30; Keiko's is Sat at 09:00. You can't book more than two days (48 h) out — use the app.",
        WITHIN,
    ),
    (
        "rewording, Saturday first",
        "Saturday spin is at 9 am with Keiko; on Mondays and Wednesdays Jordan takes the 6:30 am class. Book in the app, up to 48 hours ahead.",
        WITHIN,
    ),
    (
        "role swap: instructors",
        "Spin classes run on Mondays and Wednesdays at 6:30 am with Keiko, and on Saturdays at 9 am with Jordan; book up to 48 hours ahead in the app.",
        BEYOND,
    ),
    (
        "antonym: am → pm",
        "You can take spin with Jordan on Monday and Wednesday at 6:30 pm, or with Keiko on Saturday at 9:00. Bookings open 48 hours in advance in the app.",
        BEYOND,
    ),
    (
        "item dropped: Wednesday",
        "Spin: Mon 6:30 am (Jordan), Sat 9 am (Keiko). Reserve in the app up to 48 h before.",
        BEYOND,
    ),
)

family(
    "tenant heating repair reply",
    [
        "The landlord must fix the broken boiler within 24 hours because it leaves the flat without heating; if they don't, you may contact the council's housing team.",
        "A broken boiler with no heating counts as an emergency repair, so your landlord has 24 hours to fix it; otherwise you can report it to the council's housing team.",
        "Your landlord is required to repair the boiler within 24 hours, since you have no heating. If the repair isn't done, get in touch with the council's housing team.",
        "No heating because of a broken boiler means the landlord must act within 24 hours. If they fail to, you're entitled to contact the council housing team.",
        "Because the boiler failure leaves you without heat, the landlord has to fix it within twenty-four hours; if nothing happens, contact your council's housing team.",
        "Boiler broken, no heating: landlord must repair within 24 h. Not fixed in time? Contact the council's housing team.",
        "Loss of heating from a broken boiler is an emergency, and the landlord should repair it within 24 hours — if they don't, you can escalate to the council's housing team.",
        "The landlord has 24 hours to repair a broken boiler that leaves the flat unheated. If they miss that, you can contact the housing team at the council.",
        "You should expect your landlord to fix the boiler within 24 hours as the flat has no heating; failing that, raise it with the council's housing team.",
    ],
    (
        "rewording, new vocabulary",
        "With the heating out, a dead boiler is an urgent job: it's on the landlord to sort it within a day (24 hours), and if they don't you can escalate to the local authority's housing officers.",
        WITHIN,
    ),
    (
        "rewording, terse, number words",
        "No heating from a broken boiler: your landlord has twenty-four hours to repair it, or you can go to the council's housing team.",
        WITHIN,
    ),
    (
        "role swap: landlord ↔ tenant",
        "The tenant must fix the broken boiler within 24 hours because it leaves the flat without heating; if they don't, the landlord may contact the council's housing team.",
        BEYOND,
    ),
    (
        "unit: hours → days",
        "Your landlord is required to repair the boiler within 24 days, since you have no heating. If the repair isn't done, get in touch with the council's housing team.",
        BEYOND,
    ),
    (
        "item replaced: council → police",
        "Boiler broken, no heating: landlord must repair within 24 h. Not fixed in time? Contact the police.",
        BEYOND,
    ),
)

family(
    "cloud cost recommendation",
    [
        "Downsize the three idle m5.2xlarge instances in eu-west-1 to m5.large; they average 6% CPU, and the change saves about $1,050 a month.",
        "The 3 m5.2xlarge instances in eu-west-1 sit at roughly 6% CPU. Moving them to m5.large would save around $1,050 per month.",
        "Recommendation: resize three underused m5.2xlarge instances (eu-west-1, ~6% average CPU) down to m5.large, for savings of about $1,050/month.",
        "Three m5.2xlarge machines in eu-west-1 average only 6% CPU; switching them to m5.large cuts roughly $1,050 off the monthly bill.",
        "You can save approximately $1,050 a month by downsizing the 3 idle m5.2xlarge instances in eu-west-1 to m5.large — their average CPU is 6%.",
        "Rightsize: 3 × m5.2xlarge (eu-west-1, avg CPU 6%) → m5.large. Estimated saving $1,050/mo.",
        "With average CPU at 6%, the three m5.2xlarge instances in eu-west-1 are oversized; downsizing to m5.large saves about 1,050 dollars per month.",
        "Downsize three m5.2xlarge instances in eu-west-1 to m5.large; at about 6% average CPU they are mostly idle, and the saving is roughly $1,050 monthly.",
        "The eu-west-1 region has three m5.2xlarge instances averaging 6% CPU. Downsizing them to m5.large should save about $1,050 each month.",
    ],
    (
        "rewording, number words",
        "Those three mostly idle m5.2xlarge boxes in eu-west-1 (six per cent CPU on average) can drop to m5.large and trim roughly $1,050 a month.",
        WITHIN,
    ),
    (
        "rewording, saving first",
        "About $1,050/month is available by rightsizing eu-west-1's three m5.2xlarge instances, which average 6% CPU, to m5.large.",
        WITHIN,
    ),
    (
        "antonym: downsize → upsize",
        "Upsize the three busy m5.2xlarge instances in eu-west-1 to m5.4xlarge; they average 96% CPU, and the change adds about $1,050 a month.",
        BEYOND,
    ),
    (
        "item replaced: region",
        "The 3 m5.2xlarge instances in us-east-1 sit at roughly 6% CPU. Moving them to m5.large would save around $1,050 per month.",
        BEYOND,
    ),
    (
        "scale: a month → a year",
        "Three m5.2xlarge machines in eu-west-1 average only 6% CPU; switching them to m5.large cuts roughly $1,050 off the yearly bill.",
        BEYOND,
    ),
)

family(
    "recipe oven instructions",
    [
        "Bake the loaf at 220 °C for 35 minutes, then lower the oven to 200 °C for the last 10 minutes; cool on a rack for an hour before slicing.",
        "Put the bread in at 220 °C for 35 minutes and finish it at 200 °C for 10 more; let it cool on a wire rack for 1 hour before cutting.",
        "Oven: 35 min at 220 °C, then 10 min at 200 °C. Cool the loaf on a rack for an hour, then slice.",
        "Start baking at 220 degrees Celsius for 35 minutes, reduce to 200 degrees for the final 10 minutes, and leave the loaf to cool on a rack for one hour before slicing.",
        "Bake for 35 minutes at 220 °C, turn the heat down to 200 °C for another 10 minutes, and cool on a rack for 60 minutes before you slice it.",
        "Give the loaf 35 minutes at 220 °C and a further 10 minutes at 200 °C, then let it rest on a cooling rack for an hour before slicing.",
        "Bake at 220 °C (35 min), then at 200 °C (10 min). Slice only after an hour cooling on a rack.",
        "Heat the oven to 220 °C and bake for 35 minutes; drop to 200 °C for the last ten minutes. Cool the loaf on a rack for an hour before cutting.",
        "The loaf bakes for 35 minutes at 220 °C and then 10 minutes at 200 °C; cool it on a rack for one hour before slicing.",
    ],
    (
        "rewording, number words",
        "Thirty-five minutes at 220 °C, then ten at 200 °C; after that, an hour on a cooling rack before you cut the loaf.",
        WITHIN,
    ),
    (
        "rewording, new vocabulary",
        "Bake hot — 220 °C — for 35 minutes, ease the oven back to 200 °C for the closing 10, then rest the bread on a wire rack for 60 minutes before carving it.",
        WITHIN,
    ),
    (
        "unit: °C → °F",
        "Bake the loaf at 220 °F for 35 minutes, then lower the oven to 200 °F for the last 10 minutes; cool on a rack for an hour before slicing.",
        BEYOND,
    ),
    (
        "role swap: temperatures swapped",
        "Put the bread in at 200 °C for 35 minutes and finish it at 220 °C for 10 more; let it cool on a wire rack for 1 hour before cutting.",
        BEYOND,
    ),
    (
        "antonym: lower → raise",
        "Heat the oven to 220 °C and bake for 35 minutes; raise it to 240 °C for the last ten minutes. Cool the loaf on a rack for an hour before cutting.",
        BEYOND,
    ),
)
