"""Limits on the files acecode reads, checked before they are parsed.

Any file acecode reads may be hostile, above all one that arrives with a clone: a
committed playbook, a project's ``.claude/acecode.toml``, a prompt template. A file
of 100,000 entries made every hook wait for Claude Code's timeout; a 20 MB string
took 510 MB to show; 100,000 nested brackets ended in a traceback. So each file is
read through :func:`read_bounded` (a regular file, at most so many bytes, never
blocking on a pipe) and, for JSON, :func:`loads_bounded` (nesting and object count
bounded before the parser recurses: the playbook, which is written back whole) or
:func:`parse_json` (the parser's own recursion limit turned into one line: acecode's
state files), and its reader checks the counts its format has (entries, text
length). The limits are far above real use (README, "Limits"); a file over
one is refused whole in one line naming the file and the limit.

Only ``os`` and ``stat`` are imported: the hooks read through this module.
"""

from __future__ import annotations

import os
import stat
from typing import Any

from acecode.errors import AcecodeError

MB = 1024 * 1024
# The playbook: a healthy one holds 50-150 entries of at most max_rule_chars (600)
# characters, about 50 KB; the largest seen in real use is under 1 MB.
MAX_PLAYBOOK_BYTES = 8 * MB
MAX_PLAYBOOK_ENTRIES = 10_000
MAX_ENTRY_CHARS = 10_000
# Settings files (.claude/acecode.toml, ~/.claude/acecode.toml, the local switch): a
# few hundred bytes in real use.
MAX_SETTINGS_BYTES = 64 * 1024
# A prompt template override: the packaged ones are 2-10 KB.
MAX_TEMPLATE_BYTES = 256 * 1024
# acecode's own JSON state files (caches, queue, judgements, provenance...).
MAX_STATE_BYTES = 64 * MB
# Brackets within brackets: acecode's JSON files nest 5 deep at most.
MAX_NESTING = 64


class FileLimitError(AcecodeError, ValueError):
    """A file over one of the limits above, or not a regular file; one line naming it."""


def _size(count: int) -> str:
    return f"{count / MB:.1f} MB" if count >= MB else f"{count / 1024:.0f} KB"


def read_bounded(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path`` (``what`` names it in messages: "playbook").

    Raises ``FileNotFoundError`` when it is missing, ``OSError`` when it cannot be
    read, and :class:`FileLimitError` when it is not a regular file (a folder, a pipe
    that would block the reader) or holds more than ``limit`` bytes (checked before
    reading, and again while reading a file that grows)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a pipe or device"
            raise FileLimitError(f"cannot read {path}: the {what} is {kind}, not a file")
        if info.st_size > limit:
            raise FileLimitError(over_limit(path, what, f"{_size(info.st_size)}", _size(limit)))
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(limit + 1 - total, 1 << 20))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileLimitError(over_limit(path, what, f"over {_size(limit)}", _size(limit)))
    finally:
        os.close(fd)


def over_limit(path: str | os.PathLike[str], what: str, found: str, limit: str) -> str:
    """The line for a file over a limit: ``<file>: the <what> holds <found>, over the
    limit of <limit>``."""
    return f"{path}: the {what} holds {found}, over acecode's limit of {limit}"


def json_shape(raw: bytes, stop: int = MAX_NESTING) -> tuple[int, int]:
    """How deeply the JSON ``raw`` nests brackets outside strings (counted up to ``stop``
    + 1), and how many objects it holds: a few passes of bytes operations, then a loop
    over the brackets only."""
    data = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(data.split(b'"')[::2])
    brackets = outside.translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for byte in brackets:
        depth += 1 if byte in (0x5B, 0x7B) else -1
        if depth > deepest:
            deepest = depth
            if deepest > stop:
                break
    return deepest, brackets.count(b"{")


_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))


# Objects of a playbook file besides its entries: the file itself, its sections, a few
# more a hand edit may add.
_OTHER_OBJECTS = 16


def loads_bounded(
    raw: bytes, path: str | os.PathLike[str], what: str, max_entries: int | None = None
) -> Any:
    """``json.loads`` of the UTF-8 (or UTF-8 with BOM) ``raw`` read from ``path``, after
    checking its shape: nesting up to :data:`MAX_NESTING` and, when ``max_entries`` is
    given (a playbook), about that many objects, so that a huge file is refused before
    it is parsed. Raises :class:`FileLimitError`, and ``UnicodeDecodeError``/``ValueError``
    as ``json`` does."""
    depth, objects = json_shape(raw)
    if depth > MAX_NESTING:
        raise FileLimitError(
            f"{path}: the {what} nests brackets more than {MAX_NESTING} deep, over acecode's limit"
        )
    if max_entries is not None and objects > max_entries + _OTHER_OBJECTS:
        found = f"about {objects - 2:,} entries"
        raise FileLimitError(over_limit(path, what, found, f"{max_entries:,} entries"))
    return parse_json(raw, path, what)


def parse_json(raw: bytes, path: str | os.PathLike[str], what: str) -> Any:
    """``json.loads`` of the UTF-8 (or UTF-8 with BOM) ``raw``, with nesting too deep for
    the parser a :class:`FileLimitError` instead of a ``RecursionError``. For files read
    back whole by their owner, whose shape checks reject what nests deeper than their
    format: cheaper than :func:`loads_bounded`'s count (the hooks read caches this way)."""
    import json

    try:
        return json.loads(raw.decode("utf-8-sig"))
    except RecursionError:
        raise FileLimitError(f"{path}: the {what} nests too deeply to read") from None


def read_json(
    path: str | os.PathLike[str], what: str = "state file", limit: int = MAX_STATE_BYTES
) -> Any:
    """The JSON in the file ``path``, read within ``limit`` bytes (:func:`parse_json`).

    Raises ``FileNotFoundError``/``OSError`` as ``open`` does, and ``ValueError`` for
    anything else: :class:`FileLimitError`, ``UnicodeDecodeError``, ``JSONDecodeError``.
    So a reader that treated ``(OSError, ValueError)`` as "unreadable" still does."""
    return parse_json(read_bounded(path, limit, what), path, what)
