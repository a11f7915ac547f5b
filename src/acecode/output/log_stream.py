"""The background learner's stderr as stamped learn.log lines.

A hook starts ``acecode learn`` (or ``catch-up``) detached, with its stderr
appended to learn.log, so that nothing it says is lost. Raw, that mixed
unstamped lines (warnings, progress, a traceback) into a log whose every
other line starts with a time. The hook therefore also sets
:data:`STDERR_TO_LOG_ENV` to the state folder, and the learner replaces
``sys.stderr`` with a :class:`LogLines` stream at start-up: each line it
writes becomes one line of learn.log in the log's own format
(:func:`acecode.project.outcomes.append_log`). Only output that bypasses Python
(a crash of the interpreter itself) still reaches the file raw.
"""

from __future__ import annotations

import atexit
import io
import os
import sys
import threading

from acecode.project import outcomes

STDERR_TO_LOG_ENV = "ACECODE_STDERR_TO_LOG"
SPEAKER = "acecode: "


class LogLines(io.TextIOBase):
    """A text stream whose every complete line is appended to learn.log, stamped.

    A partial line waits for its end (or for :meth:`close`); blank lines are
    dropped, and so is the ``acecode: `` that tells a terminal's reader who speaks
    (the log is acecode's own). Safe to write from several threads (progress
    lines come from a timer thread).
    """

    encoding = "utf-8"

    def __init__(self, state_dir: str) -> None:
        super().__init__()
        self.state_dir = state_dir
        self._partial = ""
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        with self._lock:
            *lines, self._partial = (self._partial + text).split("\n")
        for line in lines:
            self._append(line)
        return len(text)

    def close(self) -> None:
        with self._lock:
            rest, self._partial = self._partial, ""
        self._append(rest)
        super().close()

    def _append(self, line: str) -> None:
        if line.strip():
            outcomes.append_log(self.state_dir, line.removeprefix(SPEAKER))


def stamp_stderr_into_log() -> None:
    """When the hook asked for it (:data:`STDERR_TO_LOG_ENV`), send this process's
    ``sys.stderr`` to learn.log as stamped lines. The variable is removed, so the
    processes this one starts (a nested ``claude -p``) do not inherit it."""
    state_dir = os.environ.pop(STDERR_TO_LOG_ENV, "").strip()
    if not state_dir:
        return
    stream = LogLines(state_dir)
    sys.stderr = stream
    atexit.register(stream.close)
