"""What recurred in each experiment session: its failed calls and the user's corrections.

Each experiment session's transcript (the path its hooks recorded, else
``<session>.jsonl`` in the project's Claude Code folder), with its subagent
transcripts, is read once by :func:`acecode.impact.scan.scan_transcripts`,
the same pass as ``acecode impact``. What the estimate needs from it, the
failure signatures and the topic words of the corrections, is kept in
``experiments/outcomes.jsonl``, one line per scan, keyed by the transcript's
size and modification time: the learner refreshes the figures after every
session by reading one new transcript, not all of them. A session whose
transcript grew (resumed later) is read again. A session whose transcript
is gone keeps its last outcome; one never read is left out. A session whose
recorded transcript is gone is looked for in the folder given
(``--transcripts``: a copy kept after Claude Code deleted the original).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acecode.experiments.files import OUTCOMES, experiments_path
from acecode.impact.scan import SessionScan, scan_transcripts
from acecode.impact.signature import FailureSignature


@dataclass(frozen=True)
class Outcome:
    """The failures and corrections of one session."""

    failures: tuple[FailureSignature, ...] = ()
    corrections: tuple[frozenset[str], ...] = ()

    @functools.cached_property
    def errors(self) -> frozenset[str]:
        """The error lines of the failures: a signature whose errors are not here cannot
        match (a quick test before the full one)."""
        return frozenset(failure.error for failure in self.failures)

    @classmethod
    def of(cls, scan: SessionScan) -> Outcome:
        return cls(tuple(scan.failures), tuple(scan.corrections))


def outcomes_file(state: Path) -> Path:
    return Path(experiments_path(state, OUTCOMES))


def _stat(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _session_files(main: Path) -> list[Path]:
    """The main transcript and its subagents' (``<id>/subagents/*.jsonl``)."""
    subagents = main.with_suffix("") / "subagents"
    return [main, *sorted(subagents.glob("*.jsonl"))] if subagents.is_dir() else [main]


def _read_cache(path: Path) -> dict[str, dict[str, Any]]:
    cache: dict[str, dict[str, Any]] = {}
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return cache
    with handle:
        for line in handle:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and isinstance(item.get("session"), str):
                cache[item["session"]] = item
    return cache


def _from_cache(item: Mapping[str, Any]) -> Outcome:
    failures = tuple(
        FailureSignature(*map(str, failure))
        for failure in item.get("failures") or ()
        if isinstance(failure, list) and len(failure) == 3
    )
    corrections = tuple(
        frozenset(str(word) for word in words)
        for words in item.get("corrections") or ()
        if isinstance(words, list)
    )
    return Outcome(failures, corrections)


def _cache_line(session: str, transcript: Path, stat: list[int], outcome: Outcome) -> str:
    item = {
        "session": session,
        "transcript": str(transcript),
        "stat": stat,
        "failures": [list(failure) for failure in outcome.failures],
        "corrections": [sorted(words) for words in outcome.corrections],
    }
    return json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n"


def transcript_for(session: str, recorded: str | None, folder: Path | None) -> Path | None:
    """Where ``session``'s transcript is: the path its hooks recorded while that file
    exists, else ``<folder>/<session>.jsonl`` (a copy kept elsewhere, ``--transcripts``),
    else the recorded path (gone: its cached outcome is used)."""
    if recorded and Path(recorded).exists():
        return Path(recorded)
    if folder is not None and (folder / f"{session}.jsonl").exists():
        return folder / f"{session}.jsonl"
    if recorded:
        return Path(recorded)
    return folder / f"{session}.jsonl" if folder is not None else None


def collect(
    state: Path, sessions: Mapping[str, str | None], folder: Path | None
) -> dict[str, Outcome]:
    """The outcome of every session in ``sessions`` (session ID -> recorded transcript) that
    could be read now or was read before; new scans are added to the cache."""
    cache_path = outcomes_file(state)
    cache = _read_cache(cache_path)
    found: dict[str, Outcome] = {}
    new_lines: list[str] = []
    for session, recorded in sessions.items():
        transcript = transcript_for(session, recorded, folder)
        stat = _stat(transcript) if transcript is not None else None
        cached = cache.get(session)
        if cached is not None and (stat is None or cached.get("stat") == stat):
            found[session] = _from_cache(cached)
            continue
        if transcript is None or stat is None:
            continue
        outcome = _scan(transcript)
        found[session] = outcome
        new_lines.append(_cache_line(session, transcript, stat, outcome))
    if new_lines:
        _append(cache_path, new_lines)
    return found


def _scan(transcript: Path) -> Outcome:
    scans = scan_transcripts(_session_files(transcript))
    return Outcome(
        tuple(failure for scan in scans for failure in scan.failures),
        tuple(words for scan in scans for words in scan.corrections),
    )


def _append(path: Path, lines: Iterable[str]) -> None:
    from acecode.project.state_folder import ensure_state_folder

    ensure_state_folder(path.parent.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(lines))


def prune(state: Path, keep: Iterable[str]) -> None:
    """Rewrite the cache with one line per session of ``keep`` (the sessions still logged)."""
    path = outcomes_file(state)
    cache = _read_cache(path)
    wanted = set(keep)
    kept = {session: item for session, item in cache.items() if session in wanted}
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            lines_now = sum(1 for _ in handle)
    except OSError:
        return
    if lines_now == len(kept):
        return
    from acecode.store.atomic import atomic_write_text

    text = "".join(
        json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n" for item in kept.values()
    )
    atomic_write_text(path, text)
