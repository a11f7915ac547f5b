"""The floor's verdicts on arrived texts, cached by text: ``<state folder>/arrival-verdicts.json``.

Screening costs about half a millisecond of CPU per text, and loading the
floor several times the injection hook's whole budget, so a verdict is
computed once per text and kept::

    {"version": 1, "verdicts": {"<fingerprint>": [held, "rule", "detail"]}}

The fingerprint (:mod:`acecode.arrivals.fingerprint`) covers the text and what
the verdict depends on besides it: acecode's version, the ``stat`` of the
floor's source files and the two settings the floor reads (``max_rule_chars``
and ``languages``). A new floor or other settings thus simply miss, and a file
written anywhere else (or with another key) is never believed.

The floor is called only through its public entry,
``acecode.quarantine.screen_text``, and only for texts the cache does not
answer. The file keeps the verdicts of the texts just asked about first, then
older ones up to :data:`KEEP`, so switching between branches does not screen
their texts again.
"""

from __future__ import annotations

import os
from typing import Any

import acecode
from acecode.arrivals.fingerprint import fingerprint

VERDICTS_NAME = "arrival-verdicts.json"
VERSION = 1
KEEP = 20_000

# A verdict: whether the floor holds the text, its rule and detail.
Verdict = tuple[bool, str, str]


def floor_scope(max_chars: int, languages: str) -> str:
    """What a verdict depends on besides the text (see the module docstring)."""
    folder = os.path.join(os.path.dirname(acecode.__file__), "quarantine")
    stats = []
    try:
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.name.endswith(".py"):
                st = entry.stat()
                stats.append(f"{entry.name}:{st.st_mtime_ns}:{st.st_size}")
    except OSError:
        pass
    return "|".join([acecode.__version__, str(max_chars), languages, *stats])


def screen(text: str, max_chars: int, languages: str) -> Verdict:
    """The floor's verdict on one text, under the project's settings."""
    from acecode.quarantine import screen_text
    from acecode.quarantine.language import parse_languages

    verdict = screen_text(text, max_chars=max_chars, languages=parse_languages(languages))
    return bool(verdict.flagged), verdict.rule, verdict.detail


def _read(path: str) -> dict[str, Any]:
    from acecode.hooks.rendered import read_cache_file

    data = read_cache_file(path) or {}
    verdicts = data.get("verdicts") if data.get("version") == VERSION else None
    return verdicts if isinstance(verdicts, dict) else {}


def _usable(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], bool)
        and all(isinstance(part, str) for part in value[1:])
    )


def floor_verdicts(
    state_dir: str,
    key: bytes | None,
    texts: list[str],
    max_chars: int,
    languages: str,
    write: bool = True,
) -> dict[str, Verdict]:
    """The floor's verdict on each of ``texts``: from the cache, else screened now and
    cached (``key`` None or ``write=False``: screened, not cached)."""
    if key is None:
        return {text: screen(text, max_chars, languages) for text in texts}
    scope = floor_scope(max_chars, languages)
    path = os.path.join(state_dir, VERDICTS_NAME)
    cached = _read(path)
    found: dict[str, Verdict] = {}
    current: dict[str, list[Any]] = {}
    for text in texts:
        tag = fingerprint(key, text, scope)
        value = cached.get(tag)
        if not _usable(value):
            value = list(screen(text, max_chars, languages))
        current[tag] = value
        found[text] = (value[0], value[1], value[2])
    if write and any(tag not in cached for tag in current):
        _write(path, current, cached)
    return found


def _write(path: str, current: dict[str, list[Any]], cached: dict[str, Any]) -> None:
    from acecode.hooks.rendered import write_cache_file

    kept = dict(current)
    for tag, value in cached.items():
        if len(kept) >= KEEP:
            break
        kept.setdefault(tag, value)
    write_cache_file(path, {"version": VERSION, "verdicts": kept})
