"""The noise rule, measured: its false-alarm and miss rates on simulated cases whose answer is
known (issue 17, item 4; reported by ``rewind_bench``).

Each case is the demo ``research`` pipeline answered by the offline simulator at a temperature
above 0, with every random draw seeded so the figures are the same on every machine:

- a **source** run and its ``k`` **samples** (live, unchanged: every step from the first
  re-drawn), the references the rule judges against;
- an **unchanged replay** (one more live draw from the first step): the known answer is "no
  change", so each of its leaves that differs from the source and that the rule calls
  ``beyond-noise`` is a **false alarm**;
- a **fork at** ``analyse`` with a deterministic tool change (``args.region=east`` or ``west``,
  which changes the winning group, or ``args.cost_scale=3``, which changes every cost): the
  steps before it are the source's, the steps after it live draws. A leaf the change **really
  caused** differs from the source, is a value no reference holds, and differs from the
  *coupled* draw — the same fork with the same random draws but without the change — so a
  difference the draws alone made is not counted. Each such leaf the rule calls
  ``within-noise`` is a **miss**.

Rates are per leaf (what a verdict labels), pooled over the cases. The simulator answers from
``compose_text`` — what its chat endpoint answers these prompts with — given a seeded
``random.Random`` where the endpoint seeds from ``os.urandom`` above temperature 0; its jitter
does not depend on how far above 0 the temperature is, so the cases stand for "0.9".

Pure: no database, no HTTP; the tool steps compute over ``REWIND_DATA_DIR`` as in a run.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from runs.bench.measure import figure
from runs.engine.analysis.leaves import flatten
from runs.engine.analysis.noise import _ABSENT, BEYOND, WITHIN, judge
from runs.engine.apps.registry import get_pipeline
from runs.engine.apps.specs import LLMNode, Pipeline
from runs.engine.providers.simulator import compose_text
from runs.lib.hashing import canonical_json

__all__ = ["CASES", "CHANGES", "SAMPLES", "NoiseRates", "measure"]

PIPELINE = "research"
FORK_NODE = "analyse"
# The tool changes, taken in turn by the cases: two flip the winning group, one scales costs.
CHANGES: tuple[tuple[str, Any], ...] = (("region", "east"), ("region", "west"), ("cost_scale", 3.0))
CASES = 30
SAMPLES = 5  # the stability page's default k
SEED = 17

Judge = Callable[[Any, list[Any]], str]


@dataclass(frozen=True)
class NoiseRates:
    """What the rule said on the simulated cases, per leaf."""

    cases: int
    samples: int
    unchanged_leaves: int  # leaves an unchanged replay changed (the answer: no change)
    false_alarms: int  # of those, called beyond-noise
    caused_leaves: int  # leaves a real change caused
    misses: int  # of those, called within-noise

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.unchanged_leaves if self.unchanged_leaves else 0.0

    @property
    def miss_rate(self) -> float:
        return self.misses / self.caused_leaves if self.caused_leaves else 0.0


class _Simulation:
    """Runs a declared, linear pipeline in memory: tool steps for real (each distinct call
    once: they are deterministic), llm steps answered by the simulator from a seeded RNG."""

    def __init__(self, pipeline: Pipeline, data_dir: Path) -> None:
        self.pipeline = pipeline
        self.data_dir = data_dir
        self._tool_results: dict[str, Any] = {}

    def run(
        self,
        rng: random.Random,
        *,
        change: tuple[str, str, Any] | None = None,
        inherit: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Each step's output. ``change``: ``(node, arg, value)``, a tool argument override;
        ``inherit``: outputs taken as they are (the steps before a fork point). Every llm
        step takes one seed from ``rng`` whether it runs or is inherited, so two runs from
        equal RNGs make the same draws at the same steps."""
        state: dict[str, Any] = dict(self.pipeline.inputs)
        outputs: dict[str, Any] = {}
        for node in self.pipeline.nodes:
            view = {key: state[key] for key in node.reads}
            seed = rng.getrandbits(64) if isinstance(node, LLMNode) else None
            if inherit is not None and node.name in inherit:
                output = inherit[node.name]
            elif isinstance(node, LLMNode):
                messages = [
                    {"role": "system", "content": node.system},
                    {"role": "user", "content": node.prompt(view)},
                ]
                output = node.parse(compose_text(messages, random.Random(seed)))
            else:
                args = node.args(view)
                if change is not None and change[0] == node.name:
                    args = {**args, change[1]: change[2]}
                key = canonical_json([node.name, args])
                if key not in self._tool_results:
                    self._tool_results[key] = node.run(args, self.data_dir)
                # a copy: a later step must not be able to edit a shared result
                output = json.loads(json.dumps(self._tool_results[key]))
            state[node.name] = outputs[node.name] = output
        return outputs


def _leaves(outputs: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {
        (step, path): value for step, out in outputs.items() for path, value in flatten(out).items()
    }


def measure(
    rule: Judge = judge, *, cases: int = CASES, samples: int = SAMPLES, seed: int = SEED
) -> NoiseRates:
    """The false-alarm and miss rates of ``rule`` (``noise.judge`` by default) over ``cases``
    simulated cases with ``samples`` samples each; the same arguments give the same rates."""
    pipeline = get_pipeline(PIPELINE)
    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"the noise cases simulate the declared {PIPELINE!r} pipeline")
    sim = _Simulation(pipeline, Path(settings.REWIND_DATA_DIR))
    fork_at = [n.name for n in pipeline.nodes].index(FORK_NODE)
    before_fork = {n.name for n in pipeline.nodes[:fork_at]}
    master = random.Random(seed)
    unchanged = false_alarms = caused = misses = 0
    for case in range(cases):
        source = sim.run(random.Random(master.getrandbits(64)))
        references = [_leaves(source)] + [
            _leaves(sim.run(random.Random(master.getrandbits(64)))) for _ in range(samples)
        ]
        replay = _leaves(sim.run(random.Random(master.getrandbits(64))))
        arg, value = CHANGES[case % len(CHANGES)]
        inherit = {name: source[name] for name in before_fork}
        fork_seed = master.getrandbits(64)
        fork = _leaves(
            sim.run(random.Random(fork_seed), change=(FORK_NODE, arg, value), inherit=inherit)
        )
        coupled = _leaves(sim.run(random.Random(fork_seed), inherit=inherit))
        paths = set().union(*references, replay, fork)
        for path in paths:
            observed = [leaves.get(path, _ABSENT) for leaves in references]
            seen = {canonical_json(v) for v in observed}
            mine = replay.get(path, _ABSENT)
            if canonical_json(mine) != canonical_json(observed[0]):
                unchanged += 1
                false_alarms += rule(mine, observed) == BEYOND
            theirs = fork.get(path, _ABSENT)
            if canonical_json(theirs) not in seen and canonical_json(theirs) != canonical_json(
                coupled.get(path, _ABSENT)
            ):
                caused += 1
                misses += rule(theirs, observed) == WITHIN
    return NoiseRates(cases, samples, unchanged, false_alarms, caused, misses)


# -- the figure ----------------------------------------------------------------------------------

NOISE_FALSE_ALARM_GOAL = 0.05  # a false alarm sends someone chasing a change that is not there


NOISE_MISS_GOAL = 0.25  # a miss still shows in the diff as a changed field, only unlabelled


def noise_figures() -> list[dict]:
    """The noise rule's false-alarm and miss rates on the simulated cases above
    (rates, not times: the same on every machine)."""
    rates = measure()
    cases = f"{rates.cases} cases, k = {rates.samples} samples at temperature > 0"
    changes = ", ".join(f"args.{arg}={value:g}" if isinstance(value, float) else f"args.{arg}={value}"
                        for arg, value in CHANGES)  # fmt: skip
    return [
        {
            **figure(
                "noise rule: false alarms (beyond-noise on an unchanged replay's changed leaves)",
                rates.false_alarm_rate,
                None,
                NOISE_FALSE_ALARM_GOAL,
                unit="",
            ),
            "note": f"{rates.false_alarms} of {rates.unchanged_leaves} leaves; {cases}",
        },
        {
            **figure(
                "noise rule: misses (within-noise on leaves a real tool change caused)",
                rates.miss_rate,
                None,
                NOISE_MISS_GOAL,
                unit="",
            ),
            "note": f"{rates.misses} of {rates.caused_leaves} leaves; forks at analyse with "
            f"{changes}; {cases}",
        },
    ]
