"""The record of what this machine decided about texts: ``<state folder>/arrivals.tsv``.

One line per decision, appended, never rewritten::

    # acecode arrivals 1
    <fingerprint>\tknown
    <fingerprint>\trejected
    <fingerprint>\tflag\t<the LLM review's reason>
    <fingerprint>\tsafe

- ``known``: this machine wrote the text (a learning cycle, ``acecode add`` or
  ``edit``, an approval in review, a move from the user layer...; see
  :mod:`acecode.arrivals.written`) or the user approved it as an arrival. A
  known text is injected without the arrival screen.
- ``rejected``: the user rejected it as an arrival; it is never injected here.
  A later ``known`` (or ``rejected``) line for the same text wins.
- ``flag`` / ``safe``: what the learning cycle's LLM safety review said of the
  arrival (:mod:`acecode.arrivals.safety`); the last verdict counts.

Texts are named by :func:`acecode.arrivals.fingerprint.fingerprint` under this
machine's key, so lines written elsewhere name nothing. Appending whole lines
with ``O_APPEND`` lets any number of writers add at once without a lock, and a
line torn by a crash is skipped by the reader. The file is created whole
(header and the first known texts, :mod:`acecode.arrivals.upgrade`) by
linking a complete temporary file into place, so its existence says that the
upgrade rule has been applied.

Only ``os`` is imported: the injection hook reads this file on a cache miss.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable

from acecode.arrivals.fingerprint import TAG_CHARS
from acecode.project.state_folder import ensure_state_folder

MARKS_NAME = "arrivals.tsv"
HEADER = "# acecode arrivals 1\n"
KNOWN = "known"
REJECTED = "rejected"
FLAG = "flag"
SAFE = "safe"
MARKS = (KNOWN, REJECTED, FLAG, SAFE)
REASON_CHARS = 300

_HEX = frozenset("0123456789abcdef")


class Marks:
    """What the record says: the known and rejected fingerprints, and the review's
    verdicts (fingerprint -> the reason of a flag, or None for safe).

    A plain class: the hook builds one on every cache miss.
    """

    __slots__ = ("exists", "known", "rejected", "reviewed")

    def __init__(self, exists: bool = False) -> None:
        self.exists = exists
        self.known: set[str] = set()
        self.rejected: set[str] = set()
        self.reviewed: dict[str, str | None] = {}

    def add(self, tag: str, mark: str, reason: str = "") -> None:
        """Apply one decision, in file order."""
        if mark == KNOWN:
            self.known.add(tag)
            self.rejected.discard(tag)
        elif mark == REJECTED:
            self.rejected.add(tag)
            self.known.discard(tag)
        elif mark == FLAG:
            self.reviewed[tag] = reason or "flagged by the safety review"
        elif mark == SAFE:
            self.reviewed[tag] = None


def marks_file(state_dir: str) -> str:
    """``<state folder>/arrivals.tsv``."""
    return os.path.join(state_dir, MARKS_NAME)


def _is_tag(text: str) -> bool:
    return len(text) == TAG_CHARS and set(text) <= _HEX


def read_marks(state_dir: str) -> Marks:
    """The record as it stands; an unreadable file reads as empty (nothing known), a
    torn or foreign line is skipped."""
    from acecode.project.bounds import MAX_STATE_BYTES, read_bounded

    try:
        raw = read_bounded(marks_file(state_dir), MAX_STATE_BYTES, "arrival record")
    except FileNotFoundError:
        return Marks(exists=False)
    except (OSError, ValueError):  # unreadable, or over the limit: nothing known
        return Marks(exists=True)
    lines = raw.decode("utf-8", "replace").splitlines()
    marks = Marks(exists=True)
    for line in lines:
        parts = line.split("\t")
        if len(parts) >= 2 and _is_tag(parts[0]) and parts[1] in MARKS:
            marks.add(parts[0], parts[1], parts[2] if len(parts) > 2 else "")
    return marks


def format_line(tag: str, mark: str, reason: str = "") -> str:
    """One record line; the reason on one line, without tabs, cut to a readable length."""
    reason = " ".join(reason.split())[:REASON_CHARS]
    return f"{tag}\t{mark}\t{reason}\n" if reason else f"{tag}\t{mark}\n"


def create_marks(state_dir: str, first: Iterable[str]) -> bool:
    """Create the record with the header and ``first`` known fingerprints, unless it
    exists; True when this call created it. Raises ``OSError``."""
    import secrets

    path = marks_file(state_dir)
    if os.path.exists(path):
        return False
    ensure_state_folder(state_dir)
    temp = os.path.join(state_dir, f".{MARKS_NAME}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temp, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(HEADER + "".join(format_line(tag, KNOWN) for tag in first))
        try:
            os.link(temp, path)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    return True


def append_marks(state_dir: str, lines: Iterable[tuple[str, str, str]]) -> None:
    """Append ``(fingerprint, mark, reason)`` decisions to an existing record in one write.
    Raises ``OSError``."""
    text = "".join(format_line(tag, mark, reason) for tag, mark, reason in lines)
    if not text:
        return
    data = text.encode("utf-8")
    fd = os.open(marks_file(state_dir), os.O_WRONLY | os.O_APPEND)
    try:
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)


def ensure_marks(state_dir: str, key: bytes) -> None:
    """Create the record when it is missing, starting from what the history journal says
    this machine wrote (:mod:`acecode.arrivals.upgrade`). Raises ``OSError``."""
    if os.path.exists(marks_file(state_dir)):
        return
    from acecode.arrivals.upgrade import first_known

    create_marks(state_dir, first_known(state_dir, key))


def load_marks(state_dir: str, key: bytes, create: bool = True) -> Marks:
    """The record, created first when missing; when it cannot be created, what can be
    read (nothing known). ``create=False`` writes nothing: a missing record reads as
    what it would be created with."""
    if not create and not os.path.exists(marks_file(state_dir)):
        from acecode.arrivals.upgrade import first_known

        marks = Marks()
        marks.known.update(first_known(state_dir, key))
        return marks
    with contextlib.suppress(OSError):
        ensure_marks(state_dir, key)
    return read_marks(state_dir)


def add_marks(state_dir: str, key: bytes, lines: Iterable[tuple[str, str, str]]) -> None:
    """Append decisions, creating the record first when it is missing. Raises ``OSError``."""
    ensure_marks(state_dir, key)
    append_marks(state_dir, lines)
