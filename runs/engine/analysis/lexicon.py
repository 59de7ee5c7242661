"""The words whose meaning a reword cannot change without changing the claim: number words,
units (with their dimension), and polarity words (with their opposites).

The noise rule (:mod:`.facts`, :mod:`.texts`) reads a text lexically. A lexical reading
misses what ordinary words carry — "rose" and "fell" share no letter, "three cups" quotes no
digit, "km" and "miles" are both just words — unless it knows those words. This module is what
it knows: small, explicit, and the same on every machine (no model, no download).

- **number words** (two … ninety-nine, hundred, thousand, dozen) are read as figures, so
  "three cups" and "3 cups" quote the same figure and "two cups" another;
- **units** map each spelling to one unit and the unit to its dimension (``km``, ``kilometres``
  and ``kilometers`` are the unit ``km`` of ``length``; ``$``, ``USD`` and ``dollars`` the unit
  ``usd`` of ``currency``; ``million`` and ``bn`` are scales), so a text that gives miles where
  the references give km is told from one that writes "kilometres" for "km";
- **polarity words** come in pairs of sides (rise, climb, increase ↔ fall, drop, decline;
  permit ↔ forbid; safe ↔ unsafe; above ↔ below; ouvert ↔ fermé …), the words of a side
  synonyms, each word with its inflections; a word whose
  opposite every reference uses is a reversal, however few letters differ. A word made from
  another by a negating prefix (un-, in-, im-, il-, ir-, dis-, non-) is its opposite too.

A word the lexicon does not know is not taken for anything: the rule says ``uncertain`` when
it cannot show a text carries only what the references carry.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "FACTORS",
    "NUMBER_WORDS",
    "UNITS",
    "number_words_as_digits",
    "opposites",
    "polarity_word",
    "prefixed_opposite",
    "unit_of",
]

# ------------------------------------------------------------------------------ number words

_ONES = "zero one two three four five six seven eight nine".split()
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS: dict[str, int] = {
    **{w: i for i, w in enumerate(_ONES)},
    **{w: 10 + i for i, w in enumerate(_TEENS)},
    **{w: 20 + 10 * i for i, w in enumerate(_TENS)},
    "dozen": 12,
}
# French, Spanish and German small numbers: texts in those languages count too.
NUMBER_WORDS.update(
    dict(zip("deux trois quatre cinq six sept huit neuf dix".split(), range(2, 11), strict=True))
)
NUMBER_WORDS.update(
    dict(zip("dos tres cuatro cinco seis siete ocho nueve diez".split(), range(2, 11), strict=True))
)
NUMBER_WORDS.update(
    dict(zip("zwei drei vier fünf sechs sieben acht neun zehn".split(), range(2, 11), strict=True))
)

_NUMBER_WORD_RE = re.compile(
    r"\b(?:(?P<tens>" + "|".join(_TENS) + r")[-\s](?P<unit>" + "|".join(_ONES[1:]) + r"))\b"
    r"|\b(?P<word>" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
# "one" is a number only before a word it counts ("one cup", "one of the four"), not as a
# pronoun ("the one to adopt", "no one", "one should"): it is read only after a figure-like
# context or before "of"/a plural.
_ONE_AS_PRONOUN = re.compile(r"(?:the|no|any|every|each|this|that|which|some)\s+$", re.IGNORECASE)


_FRACTIONS = (
    (r"\bhalf an?\b", "0.5"),
    (r"\b(?:a|one) quarter of an?\b", "0.25"),
    (r"\b(?:a|one) quarter\b", "0.25"),
    (r"\bthree[- ]quarters of an?\b", "0.75"),
    (r"\bthree[- ]quarters\b", "0.75"),
    (r"\b(?:a|one) third\b", "0.333"),
    (r"\btwo[- ]thirds\b", "0.667"),
    (r"\b(?:a|one) fifth\b", "0.2"),
    (r"\bfour[- ]fifths\b", "0.8"),
    (r"\b(?:a|one) tenth\b", "0.1"),
    (r"\btwice\b", "2 times"),
    (r"\bthrice\b", "3 times"),
    (r"\bfortnight(?:ly)?\b", "14 days"),
)
_FRACTION_RES = [(re.compile(pattern, re.IGNORECASE), digits) for pattern, digits in _FRACTIONS]
_ONE_IN_RE = re.compile(r"\b(?:1|one) in (\d+)\b", re.IGNORECASE)


def number_words_as_digits(text: str) -> str:
    """``text`` with its number words written as digits ("three of the four" → "3 of the
    4"; "twenty-five" → "25"; "a quarter" → 0.25, "half a year" → "0.5 year", "one in
    twenty" → 0.05, "twice" → "2 times"). "one" stays a word where it is a pronoun."""
    for pattern, digits in _FRACTION_RES:
        text = pattern.sub(digits, text)
    text = _number_words(text)
    return _ONE_IN_RE.sub(
        lambda m: f"{1 / int(m.group(1)):.4g}" if int(m.group(1)) else m.group(), text
    )


def _number_words(text: str) -> str:

    def digits(match: re.Match[str]) -> str:
        if match.group("tens"):
            return str(
                NUMBER_WORDS[match.group("tens").lower()] + NUMBER_WORDS[match["unit"].lower()]
            )
        word = match.group("word").lower()
        if word in {"one", "zero"} and (
            _ONE_AS_PRONOUN.search(text, 0, match.start())
            or not re.match(r"\s+(?:of\b|[a-z]+s\b)", text[match.end() :], re.IGNORECASE)
        ):
            return match.group()
        return str(NUMBER_WORDS[word])

    return _NUMBER_WORD_RE.sub(digits, text)


# ------------------------------------------------------------------------------------ units

# unit: (dimension, spellings). Spellings are matched as whole words, lowercased; symbols as
# themselves.
_UNIT_TABLE: dict[str, tuple[str, str]] = {
    # length
    "km": ("length", "km kms kilometre kilometres kilometer kilometers"),
    "mile": ("length", "mi mile miles"),
    "m": ("length", "metre metres meter meters"),
    "cm": ("length", "cm centimetre centimetres centimeter centimeters"),
    "mm": ("length", "mm millimetre millimetres millimeter millimeters"),
    "ft": ("length", "ft foot feet"),
    "in": ("length", "inch inches"),
    "yd": ("length", "yd yard yards"),
    # mass
    "kg": ("mass", "kg kgs kilogram kilograms kilo kilos"),
    "g": ("mass", "gram grams gramme grammes"),
    "mg": ("mass", "mg milligram milligrams"),
    "mcg": ("mass", "mcg µg microgram micrograms"),
    "lb": ("mass", "lb lbs"),
    "oz": ("mass", "oz ounce ounces"),
    "t": ("mass", "tonne tonnes ton tons"),
    # volume
    "l": ("volume", "litre litres liter liters"),
    "ml": ("volume", "ml millilitre millilitres milliliter milliliters"),
    "cup": ("volume", "cup cups"),
    "tbsp": ("volume", "tbsp tablespoon tablespoons"),
    "tsp": ("volume", "tsp teaspoon teaspoons"),
    "gal": ("volume", "gal gallon gallons"),
    "pint": ("volume", "pint pints"),
    # time
    "s": ("time", "sec secs second seconds"),
    "ms": ("time", "ms millisecond milliseconds"),
    "min": ("time", "min mins minute minutes"),
    "h": ("time", "hr hrs hour hours"),
    "day": ("time", "day days"),
    "week": ("time", "week weeks"),
    "month": ("time", "month months"),
    "year": ("time", "year years yr yrs"),
    # speed, temperature, data, energy, area
    "km/h": ("speed", "kph km/h kmh"),
    "mph": ("speed", "mph"),
    "°c": ("temperature", "°c celsius centigrade"),
    "°f": ("temperature", "°f fahrenheit"),
    "kb": ("data", "kb kib kilobyte kilobytes"),
    "mb": ("data", "mb mib megabyte megabytes"),
    "gb": ("data", "gb gib gigabyte gigabytes"),
    "tb": ("data", "tb tib terabyte terabytes"),
    "kwh": ("energy", "kwh"),
    "mwh": ("energy", "mwh"),
    "sqm": ("area", "m² m2 sqm"),
    "sqft": ("area", "sqft ft²"),
    "acre": ("area", "acre acres"),
    "ha": ("area", "ha hectare hectares"),
    # currency
    "usd": ("currency", "$ usd dollar dollars us$"),
    "eur": ("currency", "€ eur euro euros"),
    "gbp": ("currency", "£ gbp sterling"),
    "jpy": ("currency", "¥ jpy yen"),
    "chf": ("currency", "chf franc francs"),
    "inr": ("currency", "₹ inr rupee rupees"),
    "cad": ("currency", "cad c$"),
    "aud": ("currency", "aud a$"),
    # scale
    "hundred": ("scale", "hundred hundreds"),
    "thousand": ("scale", "thousand thousands"),
    "million": ("scale", "million millions mn mln"),
    "billion": ("scale", "billion billions bn"),
    "trillion": ("scale", "trillion trillions tn"),
    # share
    "%": ("share", "% percent per cent pct"),
    "pp": ("share", "pp percentage-point percentage-points"),
    "bps": ("share", "bp bps basis-point basis-points"),
}
# Each unit in its dimension's base unit (a dimension without factors converts nothing):
# "0.25 kg" and "250 g", "180 seconds" and "3 minutes" are one quantity.
FACTORS: dict[str, float] = {
    "km": 1000, "mile": 1609.344, "m": 1, "cm": 0.01, "mm": 0.001, "ft": 0.3048,
    "in": 0.0254, "yd": 0.9144,
    "kg": 1000, "g": 1, "mg": 0.001, "mcg": 1e-6, "lb": 453.592, "oz": 28.3495, "t": 1e6,
    "l": 1000, "ml": 1, "cup": 240, "tbsp": 15, "tsp": 5, "gal": 3785.41, "pint": 473.2,
    "s": 1, "ms": 0.001, "min": 60, "h": 3600, "day": 86400, "week": 604800,
    "month": 2629800, "year": 31557600,
    "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kwh": 1, "mwh": 1000,
    "km/h": 1, "mph": 1.609344,
    "hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
}  # fmt: skip
UNITS: dict[str, tuple[str, str]] = {
    spelling: (unit, dimension)
    for unit, (dimension, spellings) in _UNIT_TABLE.items()
    for spelling in spellings.split()
}
# Spellings that are ordinary words too: read as units only right after a figure ("5 in",
# "12 m", "3 s", "10 g", "2 t", "1 l", "4 k").
_AFTER_FIGURE_ONLY = frozenset(
    """
    in m s g t l k h min mi mn yd ha sec secs second seconds mins minute minutes hr hrs hour
    hours day days week weeks month months year years yr yrs
    """.split()
)


def unit_of(token: str, after_figure: bool) -> tuple[str, str] | None:
    """The (unit, dimension) a token spells, or None."""
    found = UNITS.get(token.lower())
    if found is None or (token.lower() in _AFTER_FIGURE_ONLY and not after_figure):
        return None
    return found


# ---------------------------------------------------------------------------------- polarity

# Pairs of opposite sides, "a b | c d": a and b say the same, c and d the opposite. A word
# given bare gets its regular inflections (-s, -es, -ed, -ing, -er, -est, -ly); irregular
# forms are listed with commas: "rise,rises,rose,risen,rising".
_OPPOSITES = """
rise,rises,rose,risen,rising climb jump surge soar increase grow,grows,grew,grown,growing gain up | fall,falls,fell,fallen,falling drop decline dip slip sink,sinks,sank,sunk,sinking decrease shrink,shrinks,shrank,shrunk,shrinking down
increase raise,raises,raised,raising bump extend | decrease reduce lower cut,cuts,cutting shorten
gain profit,profits profitable | loss,losses lose,loses,lost,losing unprofitable
high higher highest | low lower lowest
above over | below under beneath
more | less fewer
most | least fewest
before earlier prior | after later
early | late
open,opens,opened,opening reopen | close,closes,closed,closing shut
start begin,begins,began,begun,beginning | stop end finish
enable activate | disable deactivate
allow permit,permits,permitted,permitting authorise authorize | deny forbid,forbids,forbade,forbidden,forbidding prohibit block ban,bans,banned,banning disallow
accept approve grant | reject decline refuse deny revoke
include | exclude omit,omits,omitted,omitting
add | remove delete
keep,keeps,kept,keeping retain | discard remove
pass,passes,passed,passing succeed success successful | fail failure failed unsuccessful
safe,safely,safer,safest | unsafe dangerous hazardous
valid | invalid
true | false
positive | negative
good | bad
better | worse
best | worst
strong | weak
fast quick | slow
hot warm | cold cool
wet | dry
buy,buys,bought,buying | sell,sells,sold,selling
bullish | bearish
inbound | outbound
import | export
win,wins,won,winning winner,winners victory,victories | lose,loses,lost,losing loser,losers defeat
home | away
north | south
east | west
inside indoors | outside outdoors
internal | external
public | private
present | absent
available | unavailable
online | offline
active | inactive
required mandatory compulsory | optional
always | never
likely | unlikely
possible | impossible
legal lawful | illegal unlawful
compliant | noncompliant non-compliant
eligible | ineligible
guilty | innocent
expand | contract
heavy | light
large big,bigger,biggest | small
maximum max | minimum min
upper | lower
first | last
oldest | newest latest
old | new
cheap inexpensive | expensive costly
overvalued | undervalued
overweight | underweight
outperform | underperform
surplus,surpluses | deficit,deficits
credit | debit
asset | liability,liabilities
income revenue | expense
deposit | withdraw,withdraws,withdrew,withdrawn,withdrawing withdrawal
upgrade | downgrade
hire | fire dismiss
arrive | depart leave,leaves,left,leaving
arrival | departure
send,sends,sent,sending | receive
sender | recipient receiver
lock | unlock
connect | disconnect
encrypt | decrypt
maximize maximise | minimize minimise
support | oppose
agree | disagree
favorable favourable | unfavorable unfavourable
confirm | refute
ascending asc | descending desc
day | night
morning | evening
am | pm
weekday | weekend
healthy | unhealthy
benign | malignant
normal | abnormal
ahead | behind
paid | unpaid overdue
visible | hidden
show,shows,showed,shown,showing | hide,hides,hid,hidden,hiding
recommend encourage advise advisable | discourage inadvisable against
appropriate | inappropriate
sufficient adequate enough | insufficient inadequate
complete | incomplete
correct right accurate | incorrect wrong inaccurate
secure | insecure vulnerable
stable | unstable
clean | dirty
full | empty
improve | worsen deteriorate
improvement | deterioration
strengthen | weaken
tighten | loosen ease
hawkish | dovish
inflow,inflows | outflow,outflows
uptrend | downtrend
upside | downside
bull | bear
alive | dead
on | off
mutual two-way bilateral | one-way unilateral
quarantine,quarantines,quarantined isolate block | release,releases,released allow
rest | walk exercise
covered | excluded uncovered
ouvert,ouverte,ouverts,ouvertes | fermé,fermée,fermés,fermées
autorisé,autorisée,autorisés,autorisées | interdit,interdite,interdits,interdites
hausse,hausses augmente,augmenté,augmentent | baisse,baisses diminue,diminué,diminuent
abierto,abierta,abiertos,abiertas | cerrado,cerrada,cerrados,cerradas
permitido,permitida | prohibido,prohibida
sube,subió,suben aumento,aumenta,aumentó | baja,bajó,bajan disminución,disminuye,disminuyó
offen geöffnet öffnet,öffnen | geschlossen schließt,schließen
erlaubt | verboten
steigt,stieg,gestiegen | fällt,fiel,gefallen sinkt,sank,gesunken
aperto,aperta,aperti,aperte | chiuso,chiusa,chiusi,chiuse
aberto,aberta,abertos,abertas | fechado,fechada,fechados,fechadas
""".strip()

_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non-", "non", "anti")


def _inflections(word: str) -> set[str]:
    forms = {word, word + "s", word + "es", word + "ly"}
    stem = word[:-1] if word.endswith("e") else word
    forms |= {stem + "ed", stem + "ing", stem + "er", stem + "est"}
    if word.endswith("y") and len(word) > 2:
        forms |= {word[:-1] + "ies", word[:-1] + "ied", word[:-1] + "ier", word[:-1] + "iest"}
    if (
        len(word) >= 3
        and word[-1] not in "aeiouwxy"
        and word[-2] in "aeiou"
        and word[-3] not in "aeiou"
    ):
        forms |= {word + word[-1] + "ed", word + word[-1] + "ing", word + word[-1] + "er"}
    return forms


def _groups() -> tuple[dict[str, frozenset[int]], list[list[frozenset[str]]]]:
    """Each form → the groups it belongs to, and each group as its members' form sets."""
    member: dict[str, set[int]] = {}
    groups: list[list[frozenset[str]]] = []
    for line in _OPPOSITES.splitlines():
        sides = []
        for side in line.split("|"):
            forms: set[str] = set()
            for entry in side.split():
                listed = entry.split(",")
                forms |= set(listed) if len(listed) > 1 else _inflections(listed[0])
            sides.append(frozenset(forms))
        index = len(groups)
        groups.append(sides)
        for forms in sides:
            for form in forms:
                member.setdefault(form, set()).add(index)
    return {form: frozenset(ids) for form, ids in member.items()}, groups


_MEMBER, _GROUPS = _groups()


def polarity_word(word: str) -> bool:
    """Whether the lexicon knows ``word`` (lowercased) as one side of a pair of opposites."""
    return word in _MEMBER


@lru_cache(maxsize=65536)
def opposites(word: str) -> frozenset[str]:
    """Every form of every opposite of ``word`` (lowercased): "rose" → fall, fell, drop, …"""
    out: set[str] = set()
    for index in _MEMBER.get(word, ()):
        for forms in _GROUPS[index]:
            if word not in forms:
                out |= forms
    return frozenset(out)


def prefixed_opposite(word: str, other: str) -> bool:
    """Whether one of the two words is the other with a negating prefix ("safe" and "unsafe",
    "compliant" and "noncompliant", "able" and "disable")."""
    longer, shorter = (word, other) if len(word) > len(other) else (other, word)
    return len(shorter) >= 3 and any(longer == prefix + shorter for prefix in _NEGATING_PREFIXES)
