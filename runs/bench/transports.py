"""``rewind_bench``'s capture figures for the transports beyond HTTP (issue 29): gRPC, a
subprocess and MCP — each as ``capture`` measures an HTTP library: what capturing a live call
adds to the same call made without Rewind (goal ≤ 1 ms a call), and a replayed call ÷ the live
call without Rewind (goal ≤ 0.5×), measured beside each other.

- gRPC: a unary call to an echo service served by a process of its own on loopback;
- subprocess: ``subprocess.run`` of a Python that prints its argument (a process start each;
  fewer calls a round);
- MCP: ``tools/call`` of an ``echo`` tool through an ``mcp`` ``ClientSession`` over stdio, the
  session opened once before the rounds (as an app keeps one), so the server's start-up is not
  in any round.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from asgiref.sync import sync_to_async

from runs.bench.capture import library_figures, replay_pins, round_tags
from runs.bench.measure import figure
from runs.engine.calls import capture
from runs.engine.calls.capture.core import StepCalls

PROCESS_CALLS = 8  # a process start is tens of milliseconds: fewer a round
MCP_CALLS = 40
ECHO_METHOD = "/rewind.bench.Echo/Echo"
GRPC_SERVER = """
import sys, grpc
from concurrent import futures
def echo(request, context):
    return request
handler = grpc.method_handlers_generic_handler(
    "rewind.bench.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(echo)})
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
server.add_generic_rpc_handlers((handler,))
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(port, flush=True)
sys.stdin.read()
"""
MCP_SERVER = Path(__file__).with_name("mcp_echo.py")


@contextmanager
def _grpc_server() -> Iterator[str]:
    """An echo service in a process of its own; its target (host:port)."""
    process = subprocess.Popen(
        [sys.executable, "-c", GRPC_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        port = process.stdout.readline().strip() if process.stdout else ""
        if not port.isdigit():
            raise RuntimeError(f"the gRPC echo server did not start (it printed {port!r})")
        yield f"127.0.0.1:{port}"
    finally:
        if process.stdin:
            process.stdin.close()
        process.wait(timeout=10)


def _grpc_sender(target: str) -> tuple[Callable[[list[str]], None], Callable[[], None]]:
    import grpc

    channel = grpc.insecure_channel(target)
    echo = channel.unary_unary(ECHO_METHOD)
    echo(b"warm-up", timeout=10)  # the connection is made once, outside the rounds

    def send(tags: list[str]) -> None:
        for tag in tags:
            echo(tag.encode(), timeout=10)

    return send, channel.close


def _process_sender(tags: list[str]) -> None:
    for tag in tags:
        subprocess.run([sys.executable, "-S", "-c", "import sys; print(sys.argv[1])", tag],
                       check=True, capture_output=True)  # fmt: skip


def mcp_figures(repeat: int) -> list[dict]:
    """The two MCP figures, over one session kept open across the rounds."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    capture.install()  # the MCP adapter wraps the SDK once it is imported

    # -P: the script's folder (runs/bench, whose bisect.py would shadow the standard
    # library's) is not put on the path.
    params = StdioServerParameters(command=sys.executable, args=["-P", str(MCP_SERVER)])
    rounds = iter(range(10_000))

    async def timed(session: ClientSession, tags: list[str], calls: StepCalls | None) -> float:
        started = time.perf_counter()
        if calls is None:
            for tag in tags:
                await session.call_tool("echo", {"text": tag})
        else:
            with calls:
                for tag in tags:
                    await session.call_tool("echo", {"text": tag})
        return time.perf_counter() - started

    async def measure() -> tuple[float, float, float, int]:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                bare = min(
                    [await timed(session, round_tags("mcp", next(rounds), MCP_CALLS), None)
                     for _ in range(repeat)]
                )  # fmt: skip
                live, recorded, tags = float("inf"), None, []
                for _ in range(repeat):
                    tags = round_tags("mcp", next(rounds), MCP_CALLS)
                    calls = StepCalls(sequence_id=0, action="bench", live=True)
                    live = min(live, await timed(session, tags, calls))
                    await sync_to_async(calls.store_pending)()  # stored when the step ends
                    recorded = calls
                pins = await sync_to_async(replay_pins)(recorded.calls)
                replay = float("inf")
                for _ in range(repeat):
                    calls = StepCalls(sequence_id=0, action="bench", pins=pins)
                    replay = min(replay, await timed(session, tags, calls))
                    if {c.cache_source for c in calls.calls} != {"tool-cache"}:
                        raise AssertionError("mcp: a replayed call was not answered from the cache")
                return bare, live, replay, len(recorded.calls)

    bare_s, live_s, replay_s, captured = asyncio.run(measure())
    if captured != MCP_CALLS:
        return [{"figure": "capture, mcp", "value": None, "pass": None,
                 "note": f"not measured: {captured} of {MCP_CALLS} calls captured"}]  # fmt: skip
    bare, live, replayed = (seconds / MCP_CALLS for seconds in (bare_s, live_s, replay_s))
    added = live - bare
    return [
        {
            "figure": "live captured call − bare call, mcp (s per call, stdio)",
            "value": round(added, 6),
            "anchor": round(bare, 6),
            "ratio": round(added / bare, 3) if bare else None,
            "goal": "≤ 0.001 s",
            "pass": added <= 0.001,
            "note": f"bare {bare * 1000:.3f} ms, captured and stored {live * 1000:.3f} ms a call",
        },
        figure("replayed call ÷ bare live call, mcp", replayed, bare, 0.5),
    ]


def transport_figures(repeat: int) -> list[dict]:
    capture.install()
    rows: list[dict] = []
    with _grpc_server() as target:
        send, close = _grpc_sender(target)
        try:
            rows += library_figures("grpc", send, repeat)
        finally:
            close()
    rows += library_figures("subprocess", _process_sender, repeat, per_round=PROCESS_CALLS)
    rows += mcp_figures(repeat)
    return rows
