"""The quarantine's verdicts on arrived texts, cached by text in the state folder.

The file is ``<state folder>/arrival-verdicts.json``.

An arrived text is judged as a learned one would be when no LLM review has
passed it yet (``acecode.quarantine``):

- a *finding* of the floor (``screen_text``): held, and no review releases it;
- a *wait* (``unreviewed_reason``): the text touches a class whose danger
  depends on intent, or is in a language the user does not write in; it is
  held as "not reviewed" until the learning cycle's safety review passes it;
- otherwise it passes.

Screening costs about half a millisecond of CPU per text, and loading the
floor several times the injection hook's whole budget, so a verdict is
computed once per text and kept::

    {"version": 2,
     "languages": {"stamp": [...], "trusted": ["en", ...], "tag": "<fingerprint>"},
     "verdicts": {"<fingerprint>": ["finding" | "waits" | "", "rule", "detail"]}}

The first screen of a large arrival is incremental (:func:`floor_verdicts`): a
hook screens until its deadline and saves the verdicts as it reaches them, the
next hook (or the background review, :mod:`acecode.pipeline.arrival_review`)
goes on from there, and the texts not screened yet are held meanwhile.

The fingerprint (:mod:`acecode.arrivals.fingerprint`) covers the text and what
the verdict depends on besides it: acecode's version, the ``stat`` of the
quarantine's source and data files (the floor's package and the learned
screen's weights included), ``max_rule_chars`` and the languages the user
writes in (``user_languages.trusted_languages``). A new floor or other
settings thus simply miss, and a file written anywhere else (or with another
key) is never believed. The file keeps the verdicts of the texts just asked
about first, then older ones up to :data:`KEEP`, so switching between
branches does not screen their texts again. The trusted languages themselves
are kept too, under the machine's key, so that a warm cache loads neither the
settings nor the floor.
"""

from __future__ import annotations

import os
import time
from typing import Any

import acecode
from acecode.arrivals.fingerprint import fingerprint

VERDICTS_NAME = "arrival-verdicts.json"
# acecode.quarantine.user_languages.LANGUAGES_FILE (a test keeps them equal)
LANGUAGES_FILE = "languages.json"
VERSION = 2
KEEP = 20_000
# Seconds of screening between two saves of the verdicts reached (see floor_verdicts).
SAVE_EVERY = 0.25
# Texts a call screens whatever its deadline: an ordinary playbook (a few dozen entries,
# a tenth of a second) is screened whole by its first hook, however loaded the machine;
# only a large arrival is spread over hooks.
MIN_SCREENED = 64
FINDING = "finding"
WAITS = "waits"
# The floor found nothing, and the waits were not asked: with an LLM provider every
# arrival waits for the review anyway, so the hook screens with the floor alone (a
# third of the cost); without one, such a verdict is screened again in full.
FLOOR_PASS = "floor-pass"
KINDS = (FINDING, WAITS, "", FLOOR_PASS)

# A verdict: its kind (FINDING, WAITS, FLOOR_PASS or "" for a pass), the rule and its detail.
Verdict = tuple[str, str, str]


def trusted_languages(languages: str, state_dir: str) -> tuple[str, ...]:
    """The languages an arrived text may be in without a review: the ``languages``
    setting, else English and the languages of the user's own requests."""
    from pathlib import Path

    from acecode.project.config import Settings
    from acecode.quarantine.user_languages import trusted_languages as trusted

    return trusted(Settings(languages=languages), Path(state_dir))


def floor_scope(max_chars: int, languages: tuple[str, ...]) -> str:
    """What a verdict depends on besides the text (see the module docstring)."""
    folder = os.path.join(os.path.dirname(acecode.__file__), "quarantine")
    stats = []
    for top, dirs, files in os.walk(folder):  # the floor is a package of its own
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".json")):  # the learned screen's weights too
                path = os.path.join(top, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                stats.append(f"{os.path.relpath(path, folder)}:{st.st_mtime_ns}:{st.st_size}")
    return "|".join([acecode.__version__, str(max_chars), ",".join(languages), *stats])


def screen(text: str, max_chars: int, languages: tuple[str, ...], waits: bool = True) -> Verdict:
    """The quarantine's verdict on one text nobody reviewed, under the project's settings
    (``waits=False``: the floor alone, see :data:`FLOOR_PASS`)."""
    from acecode.quarantine import screen_text

    found = screen_text(text, max_chars=max_chars)
    if found.flagged:
        return FINDING, found.rule, found.detail
    if not waits:
        return FLOOR_PASS, "", ""
    from acecode.quarantine import unreviewed_reason

    waits = unreviewed_reason(text, languages)
    if waits is not None:
        return WAITS, waits.rule, waits.detail
    return "", "", ""


def _read(path: str) -> dict[str, Any]:
    from acecode.hooks.cache_files import read_cache_file

    data = read_cache_file(path) or {}
    return data if data.get("version") == VERSION else {}


def _usable(value: Any, waits: bool = False) -> bool:
    """A well-formed verdict, and a full one when ``waits`` are needed."""
    return (
        isinstance(value, list)
        and len(value) == 3
        and value[0] in KINDS
        and not (waits and value[0] == FLOOR_PASS)
        and all(isinstance(part, str) for part in value[1:])
    )


def _languages(
    data: dict[str, Any], key: bytes, setting: str, state_dir: str
) -> tuple[tuple[str, ...], dict[str, Any] | None]:
    """The trusted languages, and the record to cache when they had to be worked out.

    Working them out loads the settings and ``user_languages``, several times a
    cache hit's cost, so the answer is kept in the file under what it depends on
    (the setting and the ``stat`` of ``languages.json``) and the machine's key.
    """
    from acecode.project.file_stat import stat_key

    stamp = [setting, stat_key(os.path.join(state_dir, LANGUAGES_FILE))]
    kept = data.get("languages")
    if isinstance(kept, dict) and kept.get("stamp") == stamp:
        trusted = kept.get("trusted")
        if isinstance(trusted, list) and kept.get("tag") == _languages_tag(key, stamp, trusted):
            return tuple(trusted), None
    trusted = list(trusted_languages(setting, state_dir))
    return tuple(trusted), {
        "stamp": stamp,
        "trusted": trusted,
        "tag": _languages_tag(key, stamp, trusted),
    }


def _languages_tag(key: bytes, stamp: list[Any], trusted: list[Any]) -> str:
    import json

    return fingerprint(key, json.dumps([stamp, trusted]), "trusted languages")


def floor_verdicts(
    state_dir: str,
    key: bytes | None,
    texts: list[str],
    max_chars: int,
    languages: str,
    write: bool = True,
    deadline: float | None = None,
    waits: bool = True,
) -> dict[str, Verdict | None]:
    """The verdict on each of ``texts`` (``languages``: the setting, "" for the user's
    own): from the cache, else screened now and cached (``key`` None or ``write=False``:
    screened, not cached). ``waits=False``: the floor alone suffices (an LLM review will
    decide the rest, :data:`FLOOR_PASS`).

    The first screen of a large arrival costs seconds, more than a hook may take, so it
    is incremental: with a ``deadline`` (a ``time.monotonic()`` value) texts not
    screened by then (after the first :data:`MIN_SCREENED`) get ``None`` (not screened
    yet), and the verdicts reached are saved every :data:`SAVE_EVERY` seconds on the
    way, so a hook killed at its timeout
    keeps its work and the next one goes on from there. A later call (a later hook, the
    background review) screens the rest."""
    if key is None:
        trusted = trusted_languages(languages, state_dir)
        return _screen_all(texts, max_chars, trusted, deadline, waits)
    path = os.path.join(state_dir, VERDICTS_NAME)
    data = _read(path)
    trusted, worked_out = _languages(data, key, languages, state_dir)
    scope = floor_scope(max_chars, trusted)
    cached = data.get("verdicts") if isinstance(data.get("verdicts"), dict) else {}
    found: dict[str, Verdict | None] = {}
    current: dict[str, list[Any]] = {}
    todo: list[tuple[str, str]] = []
    for text in texts:
        tag = fingerprint(key, text, scope)
        value = cached.get(tag)
        if _usable(value, waits):
            current[tag] = value
            found[text] = (value[0], value[1], value[2])
        else:
            todo.append((tag, text))
    languages_record = worked_out or data.get("languages")
    if not todo:
        if write and worked_out:
            _write(path, current, cached, languages_record)
        return found
    saved_at = time.monotonic()
    fresh: dict[str, list[Any]] = {}
    for tag, text in todo:
        now = time.monotonic()
        if deadline is not None and now >= deadline and len(fresh) >= MIN_SCREENED:
            break
        if write and fresh and now - saved_at >= SAVE_EVERY:
            _save_progress(path, fresh, languages_record)
            saved_at = time.monotonic()
        value = list(screen(text, max_chars, trusted, waits))
        current[tag] = fresh[tag] = value
        found[text] = (value[0], value[1], value[2])
    for _tag, text in todo:
        found.setdefault(text, None)
    if write:
        on_disk = _read(path).get("verdicts")
        _write(path, current, on_disk if isinstance(on_disk, dict) else cached, languages_record)
    return found


def _screen_all(
    texts: list[str],
    max_chars: int,
    trusted: tuple[str, ...],
    deadline: float | None,
    waits: bool,
) -> dict[str, Verdict | None]:
    """Every text screened, without a cache, until ``deadline``; the rest ``None``."""
    found: dict[str, Verdict | None] = {}
    for number, text in enumerate(texts):
        if deadline is not None and time.monotonic() >= deadline and number >= MIN_SCREENED:
            found.setdefault(text, None)
        else:
            found[text] = screen(text, max_chars, trusted, waits)
    return found


def _save_progress(path: str, fresh: dict[str, list[Any]], languages: Any) -> None:
    """Add the verdicts reached so far to the file as it is now (another process, a hook
    or the background review, may be screening the same arrival)."""
    on_disk = _read(path).get("verdicts")
    _write(path, fresh, on_disk if isinstance(on_disk, dict) else {}, languages)


def _write(
    path: str, current: dict[str, list[Any]], cached: dict[str, Any], languages: Any
) -> None:
    """``current`` first, then the older verdicts of ``cached`` up to :data:`KEEP`."""
    from acecode.hooks.cache_files import write_cache_file

    kept = dict(current)
    for tag, value in cached.items():
        if len(kept) >= KEEP:
            break
        if _usable(value):
            kept.setdefault(tag, value)
    write_cache_file(path, {"version": VERSION, "languages": languages, "verdicts": kept})
