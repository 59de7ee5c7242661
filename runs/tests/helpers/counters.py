"""Side-effect servers for the hermetic-replay tests: each counts what reaches it (a TCP
connection, a Unix-domain connection, a UDP datagram), on loopback or in a temporary folder.

Counting happens on the server's own thread, after the client's call has returned: read the
count with :meth:`Counter.reached`, which waits for it, never the attribute straight after.
"""

from __future__ import annotations

import socket
import threading


class Counter:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.count = 0
        self._changed = threading.Condition()
        threading.Thread(target=self._serve, daemon=True).start()

    def reached(self, expected: int, timeout: float = 5.0) -> int:
        """The count once it reaches ``expected`` (or after ``timeout``: what it is then).
        ``reached(n + 1, 0.3) == n`` says nothing more arrived."""
        with self._changed:
            self._changed.wait_for(lambda: self.count >= expected, timeout)
            return self.count

    def _counted(self) -> None:
        with self._changed:
            self.count += 1
            self._changed.notify_all()

    def _serve(self) -> None:
        while True:
            try:
                self._take()
            except OSError:
                return

    def _take(self) -> None:
        conn, _ = self.sock.accept()
        self._counted()
        conn.settimeout(1)
        try:
            conn.recv(64)  # what the client sent, if anything, before it is closed
        except OSError:
            pass
        conn.close()

    def close(self) -> None:
        self.sock.close()


class Listener(Counter):
    """A TCP service on loopback that counts the connections it accepts."""

    def __init__(self) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        self.port = sock.getsockname()[1]
        super().__init__(sock)


class UnixCounter(Counter):
    """A Unix-domain stream service that counts the connections it accepts."""

    def __init__(self, path: str) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        sock.listen(4)
        self.path = path
        super().__init__(sock)


class DatagramCounter(Counter):
    """A UDP service on loopback that counts the datagrams it receives."""

    def __init__(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        super().__init__(sock)

    def _take(self) -> None:
        self.sock.recvfrom(2048)
        self._counted()
