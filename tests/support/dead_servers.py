"""LLM endpoints that fail the way real ones do: a port nobody listens on, and a server
on 127.0.0.1 that accepts connections and never answers.

Shared by the tests of what the user sees while acecode waits on an LLM.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago and has no listener now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def silent_server() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a server that accepts every connection, reads what it
    is sent and never replies, until the block ends."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)  # kept open, never answered

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        listener.close()
        for connection in held:
            connection.close()
