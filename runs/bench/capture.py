"""``rewind_bench``'s capture figures (issue 15; issue 29 for the other transports,
``transports``): per HTTP library, what capturing a live call
adds to the same call made without Rewind, and what a replayed call costs against it — each
measured beside its anchor, on the simulator served on loopback by a process of its own (in
this process its answers would compete with the calls for the interpreter).

- overhead: (a live call inside a step, recorded: key, redaction, the cache entry stored) −
  (the same call outside any step), per call; goal ≤ 1 ms;
- replay: (the same call inside a replayed step, answered from the entry its source pinned)
  ÷ (the call made live without Rewind); goal ≤ 0.5×.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from runs.bench.measure import best_time, figure
from runs.engine.calls import capture
from runs.engine.calls.capture.core import StepCalls
from runs.models import LLMCacheEntry, ToolCacheEntry

CALLS = 40  # calls per timed round
OVERHEAD_GOAL_S = 0.001


def _body(tag: str) -> bytes:
    return json.dumps(
        {
            "model": "rewind-sim-1",
            "temperature": 0,
            "messages": [{"role": "user", "content": f"bench call {tag}"}],
        }  # fmt: skip
    ).encode()


def _senders(base: str) -> dict[str, Callable[[list[str]], None]]:
    """Per library: send one chat call per tag, the way an app would."""
    import httpx
    import httpx2
    import requests

    url = base + "/chat/completions"
    headers = {"content-type": "application/json", "authorization": "Bearer sk-bench"}

    def with_httpx(module: Any) -> Callable[[list[str]], None]:
        def send(tags: list[str]) -> None:
            with module.Client(timeout=10) as client:
                for tag in tags:
                    client.post(url, content=_body(tag), headers=headers).raise_for_status()

        return send

    def with_requests(tags: list[str]) -> None:
        with requests.Session() as session:
            for tag in tags:
                session.post(url, data=_body(tag), headers=headers, timeout=10).raise_for_status()

    def with_urllib(tags: list[str]) -> None:
        for tag in tags:
            request = urllib.request.Request(url, data=_body(tag), headers=headers)
            with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 — loopback
                answer.read()

    def with_aiohttp(tags: list[str]) -> None:
        import aiohttp

        async def send() -> None:
            async with aiohttp.ClientSession() as session:
                for tag in tags:
                    async with session.post(url, data=_body(tag), headers=headers) as answer:
                        await answer.read()

        asyncio.run(send())

    return {
        "httpx": with_httpx(httpx),
        "httpx2": with_httpx(httpx2),
        "requests": with_requests,
        "urllib": with_urllib,
        "aiohttp": with_aiohttp,
    }


def round_tags(library: str, tag: int, calls: int = CALLS) -> list[str]:
    """A round's requests, new to the cache however often the bench ran on this database."""
    nonce = uuid.uuid4().hex[:12]
    return [f"{library}-{tag}-{nonce}-{i}" for i in range(calls)]


def library_figures(
    library: str, send: Callable[[list[str]], None], repeat: int, per_round: int = CALLS
) -> list[dict]:
    """The two figures of one library (see the module docstring), ``per_round`` calls a round."""
    rounds = itertools.count()
    bare_s, _ = best_time(lambda: send(round_tags(library, next(rounds), per_round)), repeat)

    def live() -> tuple[StepCalls, list[str]]:
        tags = round_tags(library, next(rounds), per_round)  # new each round: each is stored
        with StepCalls(sequence_id=0, action="bench", live=True) as calls:
            send(tags)
        calls.store_pending()  # async calls' answers, stored when the step ends
        return calls, tags

    live_s, (recorded, tags) = best_time(live, repeat)
    if len(recorded.calls) != per_round or not all(c.entry for c in recorded.calls):
        return [{"figure": f"capture, {library}", "value": None, "pass": None,
                 "note": f"not measured: {len(recorded.calls)} of {per_round} calls captured"}]  # fmt: skip
    pins = replay_pins(recorded.calls)

    def replay() -> None:
        with StepCalls(sequence_id=0, action="bench", pins=pins) as calls:
            send(tags)
        if {c.cache_source for c in calls.calls} - {"cache", "tool-cache"}:
            raise AssertionError(f"{library}: a replayed call was not answered from the cache")

    replay_s, _ = best_time(replay, repeat)
    bare, captured, replayed = (seconds / per_round for seconds in (bare_s, live_s, replay_s))
    added = captured - bare
    overhead = {
        "figure": f"live captured call − bare call, {library} (s per call, loopback)",
        "value": round(added, 6),
        "anchor": round(bare, 6),  # the bare call's own time, beside it
        "ratio": round(added / bare, 3) if bare else None,
        "goal": f"≤ {OVERHEAD_GOAL_S} s",
        "pass": added <= OVERHEAD_GOAL_S,
        "note": f"bare {bare * 1000:.3f} ms, captured and stored {captured * 1000:.3f} ms a call",
    }
    return [overhead, figure(f"replayed call ÷ bare live call, {library}", replayed, bare, 0.5)]


def replay_pins(calls: list) -> dict:
    """What a replay of these recorded calls reads back: each call's entry, by its key."""
    kinds = {"llm": LLMCacheEntry, "tool": ToolCacheEntry}
    entries = {}
    for kind, model in kinds.items():
        ids = [int(c.entry.partition(":")[2]) for c in calls if c.entry.startswith(kind + ":")]
        entries.update({f"{kind}:{pk}": e for pk, e in model.objects.in_bulk(ids).items()})
    return {(0, c.key, c.occurrence): entries[c.entry] for c in calls}


@contextmanager
def _served_apart(latency: float = 0.0) -> Iterator[str]:
    """The simulator on loopback, in a process of its own (answering each call ``latency``
    seconds after it arrived); its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "runs.engine.providers.simulator", "--port", "0"]
        + ["--latency", str(latency)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        base = process.stdout.readline().strip() if process.stdout else ""
        if not base.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the simulator did not start (it printed {base!r})")
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def capture_figures(repeat: int) -> list[dict]:
    capture.install()
    with _served_apart() as base:
        return [
            row
            for library, send in _senders(base).items()
            for row in library_figures(library, send, repeat)
        ]
