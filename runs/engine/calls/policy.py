"""How a run answers its calls: one validated value, built once where the run is set up and
read by the capture and the guard alike (DESIGN.md, "Hermetic replays") — as vcrpy's
``RecordMode`` is one value rather than flags each stub combines again.

Two questions, two fields, and a third that lifts the guard:

- ``mode`` (:class:`Answering`): where a call's answer comes from — the recording only
  (``REPLAY``), the recording where the request is unchanged and the provider otherwise
  (``FORK``), the provider always (``LIVE``), or the recording with nothing written and a stop
  at the first miss (``PREVIEW``);
- ``regression``: whether the run re-runs its source with the code as it is now
  (``Run.regression_code``): a declared tool whose source changed since the recorded step is
  keyed by that source, so it executes again rather than the cache answering with the old
  code's result. It is a field, not a mode, because a regression run is answered like a fork
  while its stability samples and full re-runs are live: the new code's results must be kept
  under the new code's keys in both;
- ``allow_network`` (``--allow-network``, ``Run.allow_network`` or
  ``REWIND_ALLOW_NETWORK``): the guard's refusals are lifted, and a replay's miss goes to the
  provider instead of failing the step.

Combinations that say something the run would not do are refused (:class:`ValueError`):
``allow_network`` with ``LIVE`` or ``PREVIEW`` (the first lets everything out, the second
nothing: neither has a refusal to lift; ``of_run`` does not set it on a live run) and
``regression`` with ``REPLAY`` (a regression run is never an unchanged replay:
``Run.replays_parent``) or ``PREVIEW`` (a preview plans a fork).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Answering(enum.Enum):
    """Where a run's calls get their answers."""

    # An unchanged replay: every call from the cache; a miss fails the step naming the
    # recorded call it most resembles, and nothing else leaves (the guard).
    REPLAY = "replay"
    # A fork, a regression run, a new run in cache mode: from the cache where the request is
    # unchanged, from the provider otherwise. A step whose inputs are its source's is guarded.
    FORK = "fork"
    # Every call to the provider, the cache not read; no guard: what escapes the capture is
    # let through and listed on the run as a warning.
    LIVE = "live"
    # A fork's plan: the cache walked the way the fork will, nothing written, the first miss
    # ends the walk (the fork would call out there).
    PREVIEW = "preview"


@dataclass(frozen=True)
class CallPolicy:
    """How a run answers its calls (see the module's docstring); its decisions are its
    properties and :meth:`guards`."""

    mode: Answering
    allow_network: bool = False
    regression: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.mode, Answering):
            raise TypeError(f"a call policy's mode is an Answering, not {self.mode!r}")
        if self.allow_network and self.mode in (Answering.LIVE, Answering.PREVIEW):
            raise ValueError(
                f"allow_network means nothing to a {self.mode.value} run: it lifts the "
                "refusals of a run that reads the cache, and a live run lets everything out, "
                "a preview nothing"
            )
        if self.regression and self.mode in (Answering.REPLAY, Answering.PREVIEW):
            raise ValueError(
                f"a regression run is never a {self.mode.value}: it re-runs its source with "
                "the code as it is now, answered like a fork (or live)"
            )

    @classmethod
    def of_run(cls, run: Any) -> CallPolicy:
        """The policy of an executed ``run`` (a ``runs.models.Run``), from its mode, whether it
        replays its parent unchanged (not a sample: a sample measures jitter, it is never held
        to the recording), its regression code and whether it may reach the network (its own
        ``allow_network`` or ``REWIND_ALLOW_NETWORK``)."""
        from django.conf import settings

        from runs.models import Run

        regression = bool(run.regression_code)
        if run.mode == Run.Mode.LIVE:
            return cls(Answering.LIVE, regression=regression)
        allow_network = bool(run.allow_network or settings.REWIND_ALLOW_NETWORK)
        if run.sample_of_id is None and run.replays_parent:
            return cls(Answering.REPLAY, allow_network=allow_network)
        return cls(Answering.FORK, allow_network=allow_network, regression=regression)

    @property
    def kind(self) -> str:
        """The run's kind as the design names it: replay, fork, regression, live, preview."""
        if self.regression and self.mode is Answering.FORK:
            return "regression"
        return self.mode.value

    @property
    def reads_cache(self) -> bool:
        """Whether a call is looked up in the cache (and a step re-executing its source's is
        given back the clock and randomness that step read): every run but a live one. A run
        that reads it holds the steps the cache answered whole and writes them together."""
        return self.mode is not Answering.LIVE

    @property
    def refuses_misses(self) -> bool:
        """Whether a call the cache cannot answer fails the step, naming the recorded call it
        most resembles, instead of going out: an unchanged replay, unless the network is
        allowed."""
        return self.mode is Answering.REPLAY and not self.allow_network

    @property
    def stops_at_miss(self) -> bool:
        """Whether a call the cache cannot answer ends the walk (a preview): nothing goes out."""
        return self.mode is Answering.PREVIEW

    @property
    def writes(self) -> bool:
        """Whether answers and artifacts are written: not by a preview."""
        return self.mode is not Answering.PREVIEW

    @property
    def every_step_unchanged(self) -> bool:
        """Whether every step is known to re-execute its source's unchanged (an unchanged
        replay): no step needs comparing its inputs with its source's."""
        return self.mode is Answering.REPLAY

    @property
    def rekeys_changed_tools(self) -> bool:
        """Whether a declared tool whose source changed since the recorded step is keyed by
        that source (and so executes again): a regression run, cached or live."""
        return self.regression

    def guards(self, unchanged: bool) -> bool:
        """Whether a step may let nothing leave that the capture did not answer — a
        connection, a datagram, a process: every step of an unchanged replay or a preview,
        a fork's step whose inputs are its source's (``unchanged``); never a live one, nor
        any when the network is allowed."""
        if self.allow_network:
            return False
        if self.mode in (Answering.REPLAY, Answering.PREVIEW):
            return True
        return self.mode is Answering.FORK and unchanged


# What a step's capture answers by when it is given no policy (a capture used on its own:
# tests, benches): the cache first, the provider on a miss, nothing guarded.
DEFAULT = CallPolicy(Answering.FORK)
LIVE = CallPolicy(Answering.LIVE)
PREVIEW = CallPolicy(Answering.PREVIEW)
