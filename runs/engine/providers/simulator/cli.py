"""The command line: serve the simulator on loopback until interrupted."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .server import Simulator, SimulatorOptions


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m runs.engine.providers.simulator --port N``: serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="python -m runs.engine.providers.simulator",
        description=(
            "Rewind's offline provider simulator (OpenAI-compatible; also Anthropic "
            "Messages, Gemini and Ollama), on loopback."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--reject-response-format", action="store_true")
    parser.add_argument("--substitute-model", metavar="M", default=None)
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--empty", action="store_true")
    parser.add_argument("--status", type=int, default=None, help="answer every call with it")
    parser.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="answer each call this long after it arrived, as a real provider would",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.latency <= 600:
        parser.error("--latency must be between 0 and 600 seconds")

    simulator = Simulator(
        SimulatorOptions(
            reject_response_format=args.reject_response_format,
            substitute_model=args.substitute_model,
            garbage=args.garbage,
            empty=args.empty,
            status=args.status,
            latency_s=args.latency,
        )
    )
    server = simulator._make_server(args.host, args.port)
    host, port = server.server_address[:2]
    print(f"http://{host}:{port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
