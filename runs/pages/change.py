"""What a run is relative to its parent, as the runs list, the compare picker and a run's header
say it: a new run, a fork (its one change, a long value by its first changed words), an
unchanged replay or a stability sample; and how two compared runs are related. Values are shown
masked (``runs.pages.masking``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from runs.engine.apps.registry import get_pipeline
from runs.engine.errors import PipelineError
from runs.engine.forking.overrides import current_fields
from runs.lib.words import FirstChange, WordDiff, first_change, is_long, shown, word_diff
from runs.models import Node, Run, same_override
from runs.pages.masking import masked

# ``Change.was`` when the value an override replaced is not known (the source step was not
# read, or its pipeline is not registered here): None is a value a field can have.
UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()


# The runs list shows an overridden value this long or shorter whole; a longer one by the
# words that changed.
LIST_VALUE_CHARS = 40


def source_value(run: Run, source: Node) -> Any:
    """What ``run``'s overridden field held in ``source``, the step it forked (what the fork
    editor pre-filled: ``current_fields``), or ``UNKNOWN``."""
    field = (run.override or {}).get("field")
    try:
        spec = get_pipeline(run.pipeline).node(source.name)
        return current_fields(spec, source).get(field, UNKNOWN)
    except (PipelineError, AttributeError, KeyError, TypeError):
        return UNKNOWN  # a pipeline no longer registered, a step recorded in another shape


@dataclass(frozen=True)
class Change:
    """What a run is relative to its parent, as the runs list and a run's header say it.

    ``kind``: ``root`` (a new run), ``fork`` (one field changed), ``replay`` (an unchanged
    replay: no override, or — a replay of a fork — the very override its parent ran under,
    at its parent's fork point), ``sample`` (a stability sample: a live replay) or
    ``regression`` (its parent re-run with the app's code of a regression replay)."""

    kind: str
    parent: int | None = None
    node: str = ""
    sequence_id: int | None = None
    field: str = ""
    value: Any = None
    was: Any = UNKNOWN  # a fork's overridden field in its source step

    @property
    def is_fork(self) -> bool:
        return self.kind == "fork"

    @property
    def is_replay(self) -> bool:
        return self.kind == "replay"

    @property
    def is_sample(self) -> bool:
        return self.kind == "sample"

    @property
    def is_regression(self) -> bool:
        return self.kind == "regression"

    @cached_property
    def value_text(self) -> str:
        """The override's value as shown: masked (``value`` is the run's own)."""
        return shown(masked(self.value))

    @property
    def value_is_long(self) -> bool:
        return is_long(self.value_text)

    @property
    def was_known(self) -> bool:
        return self.was is not UNKNOWN

    @cached_property
    def was_text(self) -> str:
        return shown(masked(self.was)) if self.was_known else ""

    @cached_property
    def first_change(self) -> FirstChange | None:
        """For the runs list: where a value too long for a cell first differs from what the
        source step had (None when short, unknown or equal)."""
        if not self.was_known or len(self.value_text) <= LIST_VALUE_CHARS:
            return None
        return first_change(self.was_text, self.value_text)

    @cached_property
    def value_diff(self) -> WordDiff | None:
        """For the compare page: the override against the value it replaced, word by word."""
        return word_diff(self.was_text, self.value_text) if self.was_known else None


def describe_change(run: Run, source: Node | None = None) -> Change:
    """A fork, an unchanged replay, a stability sample, a regression run or a root run — told apart from the
    run's own columns and its parent's (load runs with ``select_related("parent")``: no
    query then). With ``source``, the parent's step the run forked, a fork's ``was`` is the
    value its override replaced.

    A replay of a fork carries the fork's override (``create_replay``, so it re-executes
    what the fork executed under the same change); it is still a replay, not a fork "with
    args.cost_scale = 2.5": its override and fork point are its parent's own."""
    if run.parent_id is None:
        return Change("root")
    common = {"parent": run.parent_id, "node": run.fork_node, "sequence_id": run.fork_sequence_id}
    if run.sample_of_id is not None:
        return Change("sample", **common)
    if run.regression_code:
        return Change("regression", **common)
    override = run.override
    if not override:
        return Change("replay", **common)
    parent = run.parent
    if (
        parent.override
        and same_override(parent.override, override)
        and parent.fork_sequence_id == run.fork_sequence_id
    ):
        return Change("replay", **common)
    return Change(
        "fork",
        **common,
        field=str(override.get("field", "")),
        value=override.get("value"),
        was=UNKNOWN if source is None else source_value(run, source),
    )


def relation(a: Run, b: Run) -> str:
    """How two compared runs are related: ``b-of-a`` (B forked or replayed A), ``a-of-b``,
    ``lineage`` (one root), ``pipelines`` (different pipelines) or ``unrelated``."""
    if b.parent_id == a.pk:
        return "b-of-a"
    if a.parent_id == b.pk:
        return "a-of-b"
    if a.pipeline != b.pipeline:
        return "pipelines"
    if a.root_id and a.root_id == b.root_id:
        return "lineage"
    return "unrelated"
