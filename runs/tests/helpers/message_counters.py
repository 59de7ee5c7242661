"""A side-effect server that counts messages, not connections: a TCP service on loopback that
counts each newline-ended line it receives, on any connection, however long the connection
has been open — what a client connected at import and written to later sends.

Counting happens on the server's own threads: read the count with :meth:`reached`, which
waits for it.
"""

from __future__ import annotations

import socket
import threading


class LineCounter:
    """Counts the lines received on loopback, over every connection accepted."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.count = 0
        self.connections = 0
        self._changed = threading.Condition()
        threading.Thread(target=self._accept, daemon=True).start()

    def reached(self, expected: int, timeout: float = 5.0) -> int:
        """The count once it reaches ``expected`` (or after ``timeout``: what it is then).
        ``reached(n + 1, 0.3) == n`` says nothing more arrived."""
        with self._changed:
            self._changed.wait_for(lambda: self.count >= expected, timeout)
            return self.count

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._changed:
                self.connections += 1
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        with conn:
            while True:
                try:
                    data = conn.recv(4096)
                except OSError:
                    return
                if not data:
                    return
                with self._changed:
                    self.count += data.count(b"\n")
                    self._changed.notify_all()

    def close(self) -> None:
        self.sock.close()
