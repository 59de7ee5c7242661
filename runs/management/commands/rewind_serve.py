from __future__ import annotations

import errno
import socket
from typing import Any

from django.core.management.base import CommandError, CommandParser

from rewind_site.env import env_int
from runs.management.base import RewindCommand


def port_is_free(host: str, port: int) -> bool:
    """True if ``host:port`` can be bound now. A host that cannot be bound at all is a
    CommandError naming it, not a traceback."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except socket.gaierror:
        raise CommandError(f"--host {host!r} is not an address this machine can resolve") from None
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise CommandError(f"cannot bind --host {host!r}: {exc.strerror}") from None
    return True


class Command(RewindCommand):
    help = "Serve the dashboard (ASGI, uvicorn) on 127.0.0.1."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)"
        )
        parser.add_argument(
            "--port",
            type=int,
            default=None,
            help="port to bind (default: REWIND_PORT or 8000)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        import warnings

        import uvicorn

        # Static files are small synchronous file responses; Django's note that it adapts
        # them for ASGI is expected here, not a problem to report on every request.
        warnings.filterwarnings("ignore", message="StreamingHttpResponse must consume synchronous")

        host = options["host"]
        port = options["port"]
        if port is None:
            port = env_int("REWIND_PORT", 8000, minimum=1, maximum=65535)
        if not 0 < port < 65536:
            raise CommandError(f"--port must be between 1 and 65535, got {port}")
        if not port_is_free(host, port):
            raise CommandError(
                f"port {port} on {host} is already in use; pick another with --port N "
                "(or REWIND_PORT=N)"
            )
        self.stdout.write(f"Rewind dashboard on http://{host}:{port}/runs/  (Ctrl-C stops it)")
        uvicorn.run("rewind_site.asgi:application", host=host, port=port, log_level="warning")
