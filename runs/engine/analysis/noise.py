"""Noise: how much a run's outputs vary on their own, and whether a fork's difference is more.

A fork's diff says what changed; it cannot say *why*. At temperature > 0 an LLM step answers
differently every time, so a changed leaf may be the fork's change or the model's jitter. To
tell them apart Rewind measures the jitter: a run is **sampled** k times — k live, unchanged
forks (cache reads skipped, DESIGN.md "Live mode"; made by ``run_sets.samples``), recorded on
the run (``Run.sample_of``, counted in ``Run.sample_count``) — and each changed leaf of a fork
is judged against the values the parent produced there, itself and its samples (the
*references*: k + 1 of them), by the leaf's type (:func:`decide`, which also says why; :func:`judge`, the verdict alone):

- a value one of the references holds is ``within-noise``; any other value of a leaf every
  reference had the same (a deterministic tool's output) is ``beyond-noise``.
- a **number** is ``within-noise`` inside the references' range widened by ``NUMBER_MARGIN``
  of its width on each side, ``beyond-noise`` outside it.
- a **text** (two or more words) is judged by what it states (:mod:`.facts`), not by how many
  words it shares with a sample. It is ``beyond-noise``, however few words differ, when it

  - quotes a **figure** no reference quotes (nor the same figure rounded, nor a rate as its
    percentage; a count below 10 inside the range of the references' counts is not new),
    gives a **name** none of them gives (a capitalised word inside a sentence, an acronym, a
    group letter, a word with a digit), or **ranks or recommends** a name none of them ranks
    ("B is cheapest" where every reference said C was, although each named B) — a figure,
    name or ranking is looked for in each reference's whole step (every leaf of it), so a
    list item that states what another item stated is not new;
  - **negates** where no reference negates, or drops the negation every reference has (not,
    no, never, none, nothing, without, instead, …n't);
  - or **says something else**: more of its words (function words aside) are used by no
    reference than ``TEXT_MARGIN`` × what the references show against one another (the upper
    quartile of each reference's share of words no other reference uses — a quantile, so one
    odd sample does not widen it for every fork) and more than ``TEXT_FLOOR``.

  A rewording — the same figures, names, ranking and polarity, in words the references use —
  is ``within-noise``.
- a **category** (a one-word string, a boolean, null, a leaf the parent did or did not have)
  the references never took is ``beyond-noise``.

``uncertain`` — k is too small to tell — when what is new is of a kind the references show
among themselves too often. For a **category**: when more than ``RARE_SHARE`` of the
references hold a value no other reference holds (the Good–Turing estimate of the chance that
one more draw gives a value never seen: 1 such reference in 9 is 11 %), a value never seen is
what the step does now and then, not necessarily the change. For a **text**: when more than
``RARE_SHARE`` of the references carry a figure (name, ranking) no other reference has, a new
one is ``uncertain`` — unless it takes the place of one every reference has ("48231 instead of
48213") or the text carries more new ones than any reference does, which stays
``beyond-noise``. With ``RARE_SHARE`` = 5 %, the false-alarm goal, a single such reference
makes a new value uncertain up to k = 18 and not from k = 19 on. A text judged against a single
reference text that states nothing new is ``uncertain`` too (no spread to compare its words
with). More samples settle it.

``no-samples``: no finished sample re-executed that step (the parent was sampled from a later
step, or its samples are still running).

Every verdict carries its reason (``Judgement.why``, ``Verdict.why``; shown on the compare
page and in ``rewind_diff --json``): the figures, names, rankings or negation that made it
beyond (and what they replaced), the range or the share of new words it was measured against,
or the values that make it uncertain. The rule's false-alarm, miss and uncertain rates are
measured by leaf type on a labelled set of cases kept with the tests
(``runs/tests/engine/analysis/noise_cases.py``) and on simulated cases of the demo pipeline
(:mod:`runs.bench.noise`, reported by ``rewind_bench``).

A step is covered by a sample when the sample re-executed it (its fork point is at or before
the step); the steps before a sample's fork point are copies of the parent, not draws.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db.models import F

from runs.engine.analysis.facts import COUNTS, Facts, Pool, facts, figure_matches, is_number
from runs.engine.analysis.leaves import flatten
from runs.lib.hashing import canonical_json

if TYPE_CHECKING:
    from runs.models import Node, Run

__all__ = [
    "BEYOND",
    "MAX_SAMPLES",
    "NO_SAMPLES",
    "NUMBER_MARGIN",
    "RARE_SHARE",
    "TEXT_FLOOR",
    "TEXT_MARGIN",
    "UNCERTAIN",
    "WITHIN",
    "Judgement",
    "LeafValues",
    "StepStability",
    "Verdict",
    "decide",
    "is_text",
    "judge",
    "leaf_kind",
    "stability",
    "step_keys",
    "verdicts",
]

BEYOND, WITHIN, NO_SAMPLES = "beyond-noise", "within-noise", "no-samples"
UNCERTAIN = "uncertain"
MAX_SAMPLES = 50

# A leaf a run's step did not have: a value of its own, so "the parent sometimes wrote no
# sections[3]" and "the fork wrote none" agree. Not valid JSON, so it never equals a leaf.
_ABSENT = "<absent>"


# --------------------------------------------------------------------------- the rule

# A number is within noise inside the references' [min, max] widened by this share of the
# width on each side. With k = 5 samples (6 references) a fresh draw of a varying number falls
# outside the bare range about 2 times in 7 (the chance a 7th draw is the smallest or the
# largest); half the width each side brings that down to a few per cent on the measured cases,
# while a deterministic number (width 0) still flips to beyond-noise at any change.
NUMBER_MARGIN = 0.5
# A text says something else when more of its words are in no reference (nor in the rest of
# the reference's step) than TEXT_MARGIN × what the references show against one another —
# their upper quartile, so one odd sample does not widen it for every fork — and more than
# TEXT_FLOOR (on templated prose the references may share every word: any fresh phrasing
# would be "more" than 0). Measured (runs.bench.noise): a margin of 1 to 1.5 and a floor of
# 0.5 to 0.6 give the same rates on both sets of cases; a margin of 2 misses the labelled
# routing text about another topic at k = 5 (2.5: at k = 8 too), a floor of 0.4 adds a false
# alarm at k = 3. A distance to the nearest reference instead (1 − Jaccard of the words,
# against 2 × the upper quartile of the references' nearest-neighbour distances) caught
# nothing this does not and raised the false alarms on the simulated texts at k = 5 from
# 3.9 % to 4.7 %.
TEXT_MARGIN = 1.5
TEXT_FLOOR = 0.5
# The share of references showing something no other reference shows — a value never seen
# elsewhere, a figure or a name no other reference has — estimates the chance that one more
# draw does (Good–Turing: singletons / draws). Above this share, a new value is what the step
# does on its own often enough that k samples cannot tell it from a change: uncertain. 5 %, the
# false-alarm goal: simulated, a label the step gives 10 % of the time (others 60/20/10 %) is
# a false alarm 4.6 % of the time at k = 8 with it, 9.3 % with a 15 % share (one singleton in 9
# tolerated) and 10.4 % under the rule before (any label never seen was beyond-noise).
RARE_SHARE = 0.05


@dataclass(frozen=True)
class Judgement:
    """A verdict and why: the figures, names, rankings, negation, words, range or values
    that made it."""

    verdict: str  # BEYOND | WITHIN | UNCERTAIN | NO_SAMPLES
    why: str


def leaf_kind(value: Any) -> str:
    """How the rule judges a leaf's value: ``number``, ``text`` or ``category``."""
    if is_number(value):
        return "number"
    return "text" if is_text(value) else "category"


def is_text(value: Any) -> bool:
    """A string of two or more words is text (judged by what it states); a one-word string —
    a label, an id, a group name — is a category (judged by the set of values seen)."""
    return isinstance(value, str) and len(value.split()) > 1


def _show(value: Any, limit: int = 40) -> str:
    if value == _ABSENT:
        return "(absent)"
    if is_number(value):
        return _num(value)
    text = value if isinstance(value, str) else canonical_json(value)
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def _num(value: float) -> str:
    return f"{value:.6g}"


def _listed(items: Iterable[str], limit: int = 5) -> str:
    items = sorted(items, key=lambda s: (len(s), s))
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def _judge_number(value: float, references: list[Any]) -> Judgement:
    numbers = [v for v in references if is_number(v)]
    if not numbers:
        return Judgement(BEYOND, "the references never gave a number here")
    low, high = min(numbers), max(numbers)
    slack = NUMBER_MARGIN * (high - low)
    span = f"the references' range {_num(low)} to {_num(high)}"
    if low <= value <= high:
        return Judgement(WITHIN, f"inside {span}")
    widened = f"widened by half its width ({_num(low - slack)} to {_num(high + slack)})"
    if low - slack <= value <= high + slack:
        return Judgement(WITHIN, f"outside {span} but inside it {widened}")
    return Judgement(BEYOND, f"outside {span} {widened}")


def _category_key(value: Any) -> str:
    """What a reference counts as when a category is judged: its own value, or its kind when
    it is a text or a number (``<absent>`` against texts asks "did the step write one?")."""
    if is_text(value) and value != _ABSENT:
        return "(a text)"
    return "(a number)" if is_number(value) else canonical_json(value)


def _judge_category(value: Any, references: list[Any]) -> Judgement:
    counts = Counter(_category_key(v) for v in references)
    readable = {_category_key(v): _show(v) for v in references}
    readable.update({"(a text)": "a text", "(a number)": "a number"})
    given = ", ".join(f"{readable[key]} ×{count}" for key, count in counts.most_common())
    singletons = [key for key, count in counts.items() if count == 1]
    share = len(singletons) / len(references)
    if share > RARE_SHARE:
        return Judgement(
            UNCERTAIN,
            f"{_show(value)} was never given, but {len(singletons)} of {len(references)} "
            f"references gave a value no other did ({_listed(readable[k] for k in singletons)})"
            f": new values turn up that often, too few samples to tell",
        )
    return Judgement(BEYOND, f"{_show(value)} was never given; the references gave {given}")


def _pools(observed: list[Any], context: Sequence[Pool | Iterable[Any]] | None) -> list[Pool]:
    own = [[] if v == _ABSENT else [v] for v in observed]
    if context is None:
        return [Pool.of(values) for values in own]
    if len(context) != len(observed):
        raise ValueError("context: one pool of values per reference")
    return [
        c if isinstance(c, Pool) else Pool.of([*c, *values])
        for c, values in zip(context, own, strict=True)
    ]


def _new_figures(read: Facts, pools: list[Pool]) -> set[str]:
    """The figures of ``read`` no pool quotes. A count (a whole number below 10: "3 risks",
    "4/5") inside the range of the counts the pools quote is not new: counts move with the
    wording ("reviewing 3 figures", "reviewing 4 figures")."""
    counts = [c for p in pools for c in p.counts]
    low, high = (min(counts), max(counts)) if counts else (1, 0)
    return {
        f
        for f in read.figures
        if not any(p.has_figure(f) for p in pools) and not (f in COUNTS and low <= int(f) <= high)
    }


def _new_names(read: Facts, pools: list[Pool]) -> set[str]:
    return {n for n in read.names if not any(p.has_name(n) for p in pools)}


def _new_rankings(read: Facts, pools: list[Pool]) -> set[str]:
    return {n for n in read.ranked if not any(n in p.ranked for p in pools)}


def _dropped(mark: str, read: Facts, references: list[Facts]) -> set[str]:
    """The marks every reference text has that ``read`` lacks: with a new mark, a substitution
    ("62.46 where every reference quotes 20.82") rather than a figure added in passing."""
    if len(references) < 2:
        return set()
    if mark == "figure":

        def quoted(figure: str, text: Facts) -> bool:
            return any(figure_matches(figure, other) for other in text.figures)

        common = {f for f in references[0].figures if all(quoted(f, r) for r in references)}
        return {f for f in common if not quoted(f, read)}
    marks = (lambda f: f.names) if mark == "name" else (lambda f: f.ranked)
    return set(frozenset.intersection(*(marks(r) for r in references))) - marks(read)


# The marks a text can carry that no reference has: (mark, what the text does with it, its
# new marks against the references' pools).
_MARKS: tuple[tuple[str, str, Callable[[Facts, list[Pool]], set[str]]], ...] = (
    ("figure", "quotes", _new_figures),
    ("name", "names", _new_names),
    ("ranking", "ranks or recommends", _new_rankings),
)


def _judge_text(value: str, observed: list[Any], pools: list[Pool]) -> Judgement:
    texts = [i for i, v in enumerate(observed) if is_text(v) and v != _ABSENT]
    if not texts:
        return Judgement(BEYOND, "no reference wrote a text here")
    own = facts(value)
    beyond: list[str] = []
    unsure: list[str] = []
    reported: set[str] = set()  # a name new to every reference is not also a new ranking
    for mark, verb, new_marks in _MARKS:
        new = new_marks(own, pools) - reported
        if not new:
            continue
        reported |= new
        # What the references do themselves: the marks each has that no *other* one has.
        # (A single reference text has no other to be compared with: nothing to discount.)
        theirs = [len(new_marks(facts(observed[i]), pools[:i] + pools[i + 1 :])) for i in texts]
        showing, most = (sum(1 for n in theirs if n), max(theirs)) if len(texts) > 1 else (0, 0)
        what = f"{verb} {_listed(new)}, which no reference {'ranks' if mark == 'ranking' else verb}"
        instead = _dropped(mark, own, [facts(observed[i]) for i in texts])
        if instead:
            every = "ranks" if mark == "ranking" else verb
            what += f", instead of {_listed(instead)}, which every reference {every}"
        if showing / len(texts) <= RARE_SHARE or instead:
            beyond.append(what)
        elif len(new) > most:
            beyond.append(f"{what} (a reference has at most {most} {mark}(s) no other has)")
        else:
            unsure.append(
                f"{what}, but {showing} of {len(texts)} references carry a {mark} no other "
                f"has: too few samples to tell"
            )
    if len(texts) >= 2:
        negating = [bool(facts(observed[i]).negations) for i in texts]
        if own.negations and not any(negating):
            beyond.append(f"negates ({_listed(set(own.negations))}) where no reference does")
        elif not own.negations and all(negating):
            said = {n for i in texts for n in facts(observed[i]).negations}
            beyond.append(f"drops the negation every reference has ({_listed(said)})")
    if beyond:
        return Judgement(BEYOND, "; ".join(beyond))
    if len(texts) < 2:
        why = "only one reference wrote a text here: no spread to compare its words with"
        return Judgement(UNCERTAIN, "; ".join([*unsure, why]))
    fresh = _new_words(own, pools)
    usual = _quantile(
        [_new_words(facts(observed[i]), pools[:i] + pools[i + 1 :]) for i in texts], 0.75
    )
    limit = max(TEXT_MARGIN * usual, TEXT_FLOOR)
    words = (
        f"{fresh:.0%} of its words are used by no reference (between references: "
        f"{usual:.0%}, upper quartile)"
    )
    if fresh > limit:
        return Judgement(BEYOND, f"{words}: it says something else")
    if unsure:
        return Judgement(UNCERTAIN, "; ".join(unsure))
    return Judgement(
        WITHIN, f"no figure, name or ranking the references lack, the same polarity; {words}"
    )


# Words that carry no subject: a text about something else is told by the others.
_FUNCTION_WORDS = frozenset(
    """
    a an the and or but if of to in on at by for with from as is are was were be been being it
    its this that these those there here we you they he she i our your their his her them us me
    my so than then too very can could should would will may might must do does did done has
    have had having not no into over under about after before up down out off again once more
    most such only own same just also each every any all both few other some what which who
    whom whose when where why how because while per via s
    """.split()
)


def _new_words(read: Facts, pools: list[Pool]) -> float:
    """The share of a text's words (function words aside) that no pool uses."""
    content = read.words - _FUNCTION_WORDS
    if not content:
        return 0.0
    return sum(1 for w in content if not any(w in p.words for p in pools)) / len(content)


def decide(
    fork_value: Any,
    observed: list[Any],
    context: Sequence[Pool | Iterable[Any]] | None = None,
) -> Judgement:
    """The verdict on ``fork_value`` given the values the parent produced (``_ABSENT`` for a
    leaf it did not have), and why. ``observed`` holds the parent's value first, then each
    sample's; ``context``, when given, holds per reference every leaf value of its step (or
    its :class:`Pool`): what a text may quote without quoting anything new."""
    if len(observed) < 2:
        return Judgement(NO_SAMPLES, "no finished sample re-ran this step")
    seen = Counter(canonical_json(v) for v in observed)
    mine = canonical_json(fork_value)
    if mine in seen:
        return Judgement(WITHIN, f"a value the references gave ({seen[mine]} of {len(observed)})")
    if len(seen) == 1:
        only = "the same text" if is_text(observed[0]) else _show(observed[0])
        return Judgement(
            BEYOND, f"every reference gave {only}: the step never varied here, so any other "
            "value is the change",
        )  # fmt: skip
    if is_number(fork_value):
        return _judge_number(fork_value, observed)
    if is_text(fork_value):
        return _judge_text(fork_value, observed, _pools(observed, context))
    return _judge_category(fork_value, observed)


def judge(
    fork_value: Any,
    observed: list[Any],
    context: Sequence[Pool | Iterable[Any]] | None = None,
) -> str:
    """:func:`decide`'s verdict alone."""
    return decide(fork_value, observed, context).verdict


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Verdict:
    """Whether one changed leaf of a fork is beyond the noise of the run it was forked from."""

    node: str
    sequence_id: int
    path: str
    verdict: str  # BEYOND | WITHIN | UNCERTAIN | NO_SAMPLES
    samples: int  # finished samples that re-executed the step
    distinct: int  # distinct values the parent produced there (itself and its samples)
    why: str  # what made the verdict (Judgement.why)

    def as_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "sequence_id": self.sequence_id,
            "path": self.path,
            "verdict": self.verdict,
            "samples": self.samples,
            "distinct": self.distinct,
            "why": self.why,
        }


def step_keys(names: list[str]) -> list[tuple[str, int]]:
    """A step's identity across runs: its name and how many times that name ran before it
    (``diff.align`` pairs steps the same way)."""
    seen: Counter = Counter()
    keys = []
    for name in names:
        keys.append((name, seen[name]))
        seen[name] += 1
    return keys


def verdicts(
    run_a: Run, nodes_a: list[Node], nodes_b: list[Node], changes: list[dict[str, Any]]
) -> list[Verdict]:
    """A verdict for every changed leaf of ``changes`` (``diff_runs``' aligned steps of A
    against B), judged against ``run_a``'s finished samples. One query: the samples' steps."""
    from runs.models import Node, Run

    rows = (
        Node.objects.filter(run__sample_of=run_a, run__status=Run.Status.COMPLETED)
        .annotate(sample_start=F("run__fork_sequence_id"))
        .only("run_id", "sequence_id", "name", "output")
        .order_by("run_id", "sequence_id")
    )
    samples: dict[int, tuple[int, list[Node]]] = {}
    for node in rows:
        start = node.sample_start if node.sample_start is not None else 0
        samples.setdefault(node.run_id, (start, []))[1].append(node)
    # Each sample's steps by (name, occurrence), flattened once, lazily.
    by_key = [(start, dict(zip(step_keys([n.name for n in ns]), ns, strict=True)))
              for start, ns in samples.values()]  # fmt: skip
    flat_cache: dict[int, dict[str, Any]] = {}
    pool_cache: dict[int, Pool] = {}

    def leaves(node: Node | None) -> dict[str, Any]:
        if node is None:
            return {}
        if id(node) not in flat_cache:
            flat_cache[id(node)] = flatten(node.output)
        return flat_cache[id(node)]

    def pool(node: Node | None) -> Pool:
        """Every figure, word and ranked name of a reference's step: what a text leaf of the
        fork may quote without quoting anything new."""
        if node is None:
            return Pool.of([])
        if id(node) not in pool_cache:
            pool_cache[id(node)] = Pool.of(leaves(node).values())
        return pool_cache[id(node)]

    keys_a = dict(
        zip(
            (n.sequence_id for n in nodes_a),
            step_keys([n.name for n in nodes_a]),
            strict=True,
        )
    )
    keys_b = dict(
        zip(
            (n.sequence_id for n in nodes_b),
            step_keys([n.name for n in nodes_b]),
            strict=True,
        )
    )
    node_a = {n.sequence_id: n for n in nodes_a}
    node_b = {n.sequence_id: n for n in nodes_b}

    out: list[Verdict] = []
    for change in changes:
        if not change["fields"]:
            continue
        a_seq, b_seq = change["a_sequence_id"], change["b_sequence_id"]
        key = keys_a[a_seq] if a_seq is not None else keys_b[b_seq]
        step = a_seq if a_seq is not None else b_seq
        covering = [steps for start, steps in by_key if start <= step]
        parent_node = node_a.get(a_seq) if a_seq is not None else None
        parent = leaves(parent_node)
        fork = leaves(node_b.get(b_seq)) if b_seq is not None else {}
        context = [pool(parent_node)] + [pool(steps.get(key)) for steps in covering]
        for item in change["fields"]:
            path = item["path"]
            observed = [parent.get(path, _ABSENT)]
            observed += [leaves(steps.get(key)).get(path, _ABSENT) for steps in covering]
            judged = (
                decide(fork.get(path, _ABSENT), observed, context)
                if covering
                else Judgement(NO_SAMPLES, "no finished sample re-ran this step")
            )
            out.append(
                Verdict(
                    node=change["name"],
                    sequence_id=change["sequence_id"],
                    path=path,
                    verdict=judged.verdict,
                    samples=len(covering),
                    distinct=len({canonical_json(v) for v in observed}),
                    why=judged.why,
                )
            )
    return out


# --------------------------------------------------------------------------- stability


@dataclass
class LeafValues:
    """One leaf of a step across the samples: each value seen (canonical JSON) and how many
    samples gave it, most frequent first; ``source`` is the sampled run's own value."""

    path: str
    counts: list[tuple[str, int]]
    source: str

    @property
    def seen(self) -> list[tuple[str, int, bool]]:
        """``(text, count, is the sampled run's own value)`` for reading: a text as itself, any
        other value as JSON, a missing leaf as ``(absent)``; the run's own value is listed
        even when no sample gave it."""
        rows = [(_readable(value), count, value == self.source) for value, count in self.counts]
        if not self.source_count:
            rows.append((_readable(self.source), 0, True))
        return rows

    @property
    def source_count(self) -> int:
        """How many samples gave the sampled run's own value."""
        return dict(self.counts).get(self.source, 0)

    @property
    def varies(self) -> bool:
        return len(self.counts) > 1 or (bool(self.counts) and self.counts[0][0] != self.source)


@dataclass
class StepStability:
    """One step of the sampled run: the output hashes its samples gave, with counts."""

    name: str
    sequence_id: int | None  # the sampled run's; None for a step only samples reached
    kind: str
    source_sha256: str
    hashes: list[tuple[str, int]] = field(default_factory=list)  # most frequent first
    leaves: list[LeafValues] = field(default_factory=list)

    @property
    def samples(self) -> int:
        return sum(count for _, count in self.hashes)

    @property
    def same_as_source(self) -> int:
        return dict(self.hashes).get(self.source_sha256, 0)

    @property
    def distinct(self) -> int:
        return len(self.hashes)

    @property
    def varying_leaves(self) -> list[LeafValues]:
        return [leaf for leaf in self.leaves if leaf.varies]

    @property
    def steady_leaves(self) -> int:
        return sum(1 for leaf in self.leaves if not leaf.varies)


FAILED = "(failed)"


def _readable(canonical: str) -> str:
    if canonical == _ABSENT:
        return "(absent)"
    value = json.loads(canonical)
    return value if isinstance(value, str) else canonical


def _value_text(value: Any) -> str:
    return _ABSENT if value is _ABSENT else canonical_json(value)


def stability(source_nodes: list[Node], sample_nodes: list[Node]) -> list[StepStability]:
    """Per step of the sampled run, the hashes and leaf values its samples produced.

    ``sample_nodes``: the steps of the samples, ordered by run and sequence id. Only steps a
    sample executed count (inherited ones are copies of the source, not draws), so a sample
    still running contributes the steps it has finished. Pure: no query."""
    by_sample: dict[int, list[Node]] = {}
    for node in sample_nodes:
        by_sample.setdefault(node.run_id, []).append(node)

    steps: dict[tuple[str, int], StepStability] = {}
    source_leaves: dict[tuple[str, int], dict[str, Any]] = {}
    for key, node in zip(step_keys([n.name for n in source_nodes]), source_nodes, strict=True):
        steps[key] = StepStability(node.name, node.sequence_id, node.kind, node.output_sha256)
        source_leaves[key] = flatten(node.output) if node.output_sha256 else {}

    hashes: dict[tuple[str, int], Counter] = {}
    values: dict[tuple[str, int], dict[str, Counter]] = {}
    for nodes in by_sample.values():
        for key, node in zip(step_keys([n.name for n in nodes]), nodes, strict=True):
            if node.cache_source == "inherited":
                continue
            if key not in steps:  # a branch or loop turn only a sample took
                steps[key] = StepStability(node.name, None, node.kind, "")
                source_leaves[key] = {}
            hashes.setdefault(key, Counter())[node.output_sha256 or FAILED] += 1
            if node.output_sha256:
                per_path = values.setdefault(key, {})
                flat = flatten(node.output)
                for path in {*flat, *source_leaves[key]}:
                    per_path.setdefault(path, Counter())[_value_text(flat.get(path, _ABSENT))] += 1

    for key, step in steps.items():
        step.hashes = hashes.get(key, Counter()).most_common()
        source = source_leaves[key]
        per_path = values.get(key, {})
        ordered = list(source) + [p for p in per_path if p not in source]
        step.leaves = [
            LeafValues(
                path=path,
                counts=per_path.get(path, Counter()).most_common(),
                source=_value_text(source.get(path, _ABSENT)),
            )
            for path in ordered
            if path in per_path
        ]
    return list(steps.values())
