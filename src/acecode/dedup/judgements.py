"""The judge's verdicts, kept between cycles, and the conflicts they reveal.

Lives in ``<playbook dir>/acecode/judgements.json`` (``.claude/acecode/`` for
the default playbook)::

    {"version": 1,
     "pairs": {"<pair key>": {"a", "b", "verdict", "specific", "reason",
                              "judged_at", "cycle_id", "dismissed_at"}}}

``specific`` is ``"a"`` or ``"b"`` for a ``more_specific`` verdict. A pair is
judged once: later cycles reuse the verdict while both texts are unchanged,
so the judge is only asked about pairs it has not seen.

A *conflict* is a stored ``conflicting`` pair whose two texts are both in the
playbook, or stand for an entry of it, and that nobody dismissed. A text
stands for the entry it was folded into (judged the same rule as it, or less
specific than it, and no longer in the playbook itself): "never X" found
conflicting with "always X", which was folded into "always X in tests",
is shown as a conflict with "always X in tests". ``acecode review`` lists conflicts and
can dismiss one (keep both rules, stop showing it) or resolve it (keep one
entry, delete the other, journaled like any review change); the curator sees
the open ones in its next call.

Every change is a read-modify-write under the file's own lock with an atomic
replace. A file that is not valid JSON is never overwritten: the cycle goes on
without stored verdicts (one warning) and the review commands say which file
is broken.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.dedup.verdicts import VERDICTS, PairVerdict, Verdicts
from acecode.errors import AcecodeError
from acecode.playbook.schema import iter_entries
from acecode.project.layer import Layer, Where
from acecode.store import DEFAULT_LOCK_TIMEOUT
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookError
from acecode.store.lock import exclusive_lock

JUDGEMENTS_FILE = "judgements.json"
JUDGEMENTS_VERSION = 1
CONFLICT_PREFIX = "c-"
ID_LENGTH = 8
MIN_ID_PREFIX = 4
# Past this many pairs the oldest ones whose texts left the playbook are forgotten.
MAX_PAIRS = 5000


class JudgementsError(AcecodeError):
    """The verdict file could not be read, locked or written, or an ID is unknown; one line."""


@dataclass(frozen=True)
class Conflict:
    """Two entries of the playbook the judge called conflicting."""

    id: str
    first_name: str
    first_section: str
    first_text: str
    second_name: str
    second_section: str
    second_text: str
    reason: str
    judged_at: str
    # The text the conflict was found against, when it was folded into an entry.
    folded: str = ""

    @property
    def names(self) -> tuple[str, str]:
        return self.first_name, self.second_name


def judgements_path(playbook: Where = None) -> Path:
    """``judgements.json`` beside a playbook (default: ``.claude/acecode/judgements.json``)."""
    return Layer.of(playbook).file(JUDGEMENTS_FILE)


def conflict_id(key: str) -> str:
    """The ID review shows for the pair with this key: ``c-`` and 8 hex digits."""
    return CONFLICT_PREFIX + key[:ID_LENGTH]


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _read(path: Path) -> dict[str, dict[str, Any]]:
    """The stored pair records by key; raises JudgementsError when the file is unusable."""
    from acecode.project.bounds import FileLimitError, read_json

    try:
        data = read_json(path, "judgements file")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise JudgementsError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except FileLimitError as exc:
        raise JudgementsError(f"{exc}; file left untouched") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JudgementsError(f"{path}: not valid JSON ({exc}); file left untouched") from exc
    pairs = data.get("pairs") if isinstance(data, dict) else None
    if not isinstance(pairs, dict):
        raise JudgementsError(f"{path}: not a verdict file (no 'pairs'); file left untouched")
    return {key: record for key, record in pairs.items() if _valid(record)}


def _valid(record: Any) -> bool:
    """A record the code can use; anything else is ignored (and kept out of later writes)."""
    return (
        isinstance(record, dict)
        and isinstance(record.get("a"), str)
        and isinstance(record.get("b"), str)
        and record.get("verdict") in VERDICTS
        and (record.get("verdict") != "more_specific" or record.get("specific") in ("a", "b"))
    )


def _serialize(pairs: dict[str, dict[str, Any]]) -> str:
    body = {"version": JUDGEMENTS_VERSION, "pairs": pairs}
    return json.dumps(body, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


@contextmanager
def _locked(path: Path, timeout: float) -> Iterator[dict[str, dict[str, Any]]]:
    """Lock the file, yield its records for editing, save them on a clean exit if changed."""
    try:
        with exclusive_lock(path, timeout):
            pairs = _read(path)
            before = _serialize(pairs)
            yield pairs
            if _serialize(pairs) != before:
                atomic_write_text(path, _serialize(pairs))
    except PlaybookError as exc:
        raise JudgementsError(str(exc)) from exc


def _verdict(record: dict[str, Any]) -> PairVerdict:
    specific = {"a": record["a"], "b": record["b"]}.get(str(record.get("specific")))
    return PairVerdict(
        first=record["a"],
        second=record["b"],
        verdict=record["verdict"],
        specific=specific if record["verdict"] == "more_specific" else None,
        reason=str(record.get("reason") or ""),
    )


def load_verdicts(playbook: Where = None) -> Verdicts:
    """Every stored verdict (reads without locking: writes are atomic).

    Raises JudgementsError when the file is unusable; the cycle then goes on
    without stored verdicts.
    """
    return Verdicts(_verdict(record) for record in _read(judgements_path(playbook)).values())


def record_verdicts(
    verdicts: Iterable[PairVerdict],
    *,
    cycle_id: str,
    current_texts: Iterable[str],
    playbook: Where = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> None:
    """Store this cycle's verdicts (a re-judged pair keeps its dismissal).

    ``current_texts`` are the texts the cycle knows to be in use; when the file
    holds more than :data:`MAX_PAIRS` pairs, the oldest ones touching any other
    text are forgotten (they would only be judged again if they came back).
    """
    path = judgements_path(playbook)
    stamp = _now()
    with _locked(path, lock_timeout) as pairs:
        for verdict in verdicts:
            previous = pairs.get(verdict.key, {})
            specific = None
            if verdict.verdict == "more_specific":
                specific = "a" if verdict.specific == verdict.first else "b"
            pairs[verdict.key] = {
                "a": verdict.first,
                "b": verdict.second,
                "verdict": verdict.verdict,
                "specific": specific,
                "reason": verdict.reason,
                "judged_at": stamp,
                "cycle_id": cycle_id,
                "dismissed_at": previous.get("dismissed_at"),
            }
        if len(pairs) > MAX_PAIRS:
            live = set(current_texts)
            stale = sorted(
                (key for key, r in pairs.items() if not {r["a"], r["b"]} <= live),
                key=lambda key: str(pairs[key].get("judged_at")),
            )
            for key in stale[: len(pairs) - MAX_PAIRS]:
                del pairs[key]


def _located(playbook: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Entry text -> (section, name), first occurrence."""
    found: dict[str, tuple[str, str]] = {}
    for section, entry in iter_entries(playbook):
        found.setdefault(str(entry.get("text", "")), (section, str(entry.get("name", ""))))
    return found


def _folds(pairs: dict[str, dict[str, Any]], where: dict[str, Any]) -> dict[str, str]:
    """Folded text -> the entry text it was folded into (both known to the file)."""
    folds: dict[str, str] = {}
    for record in pairs.values():
        verdict = _verdict(record)
        for kept in (verdict.first, verdict.second):
            gone = verdict.other(kept)
            into = verdict.verdict == "same" or verdict.specific == kept
            if into and kept in where and gone not in where:
                folds.setdefault(gone, kept)
    return folds


def _conflicts(
    pairs: dict[str, dict[str, Any]], playbook: dict[str, Any], keys: Iterable[str] | None = None
) -> list[Conflict]:
    where = _located(playbook)
    folds = _folds(pairs, where)
    conflicts = []
    for key in pairs if keys is None else keys:
        record = pairs[key]
        if record["verdict"] != "conflicting" or record.get("dismissed_at"):
            continue
        first, second = (folds.get(text, text) for text in (record["a"], record["b"]))
        if first not in where or second not in where or first == second:
            continue
        folded = next((text for text in (record["a"], record["b"]) if text in folds), "")
        (first_section, first_name), (second_section, second_name) = where[first], where[second]
        conflicts.append(
            Conflict(
                id=conflict_id(key),
                first_name=first_name,
                first_section=first_section,
                first_text=first,
                second_name=second_name,
                second_section=second_section,
                second_text=second,
                reason=str(record.get("reason") or ""),
                judged_at=str(record.get("judged_at") or ""),
                folded=folded,
            )
        )
    return sorted(conflicts, key=lambda c: (c.judged_at, c.first_name, c.second_name))


def open_conflicts(playbook: dict[str, Any], playbook_path: Where = None) -> list[Conflict]:
    """Conflicts between entries of ``playbook`` that nobody dismissed, oldest first."""
    return _conflicts(_read(judgements_path(playbook_path)), playbook)


def _find_key(pairs: dict[str, dict[str, Any]], wanted: str, path: Path) -> str:
    """The key of the conflict with this ID (or unique prefix of at least 4 hex digits)."""
    prefix = wanted.strip().lower().removeprefix(CONFLICT_PREFIX)
    conflicting = [k for k, r in pairs.items() if r["verdict"] == "conflicting"]
    exact = [k for k in conflicting if k[:ID_LENGTH] == prefix]
    matches = exact or (
        [k for k in conflicting if k.startswith(prefix)] if len(prefix) >= MIN_ID_PREFIX else []
    )
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise JudgementsError(f"conflict ID {wanted!r} is ambiguous in {path}; give more of it")
    raise JudgementsError(f"no conflict with ID {wanted!r} in {path}")


def dismiss_conflict(
    identifier: str,
    *,
    playbook: Where = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> str:
    """Keep both rules and stop listing the conflict (review and curator); returns its ID."""
    path = judgements_path(playbook)
    with _locked(path, lock_timeout) as pairs:
        key = _find_key(pairs, identifier, path)
        pairs[key]["dismissed_at"] = _now()
    return conflict_id(key)


def find_conflict(
    identifier: str, playbook: dict[str, Any], playbook_path: Where = None
) -> Conflict:
    """The open conflict with this ID between entries of ``playbook``."""
    path = judgements_path(playbook_path)
    pairs = _read(path)
    key = _find_key(pairs, identifier, path)
    for conflict in _conflicts(pairs, playbook, keys=[key]):
        return conflict
    raise JudgementsError(
        f"conflict {conflict_id(key)} is not open: it was dismissed, or one of its rules "
        "is no longer in the playbook"
    )


@dataclass(frozen=True)
class Resolution:
    """What resolving a conflict did: the entry kept and the entry deleted."""

    conflict: Conflict
    kept: str
    deleted: dict[str, Any]


def resolve_conflict(
    identifier: str,
    keep: str,
    *,
    playbook: Where = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> Resolution:
    """Keep entry ``keep`` of a conflict and delete the other one from the playbook.

    The deletion is a playbook transaction like any review change: journaled
    (``kind: "review"``), so ``acecode undo`` and ``acecode restore`` can bring
    the deleted rule back.
    """
    from acecode.playbook.operations import apply_operations_with_outcomes
    from acecode.store import update_playbook

    with update_playbook(playbook, lock_timeout=lock_timeout) as txn:
        conflict = find_conflict(identifier, txn.playbook, playbook)
        if keep not in conflict.names:
            raise JudgementsError(
                f"{keep!r} is not one of the entries of conflict {conflict.id} "
                f"({conflict.first_name}, {conflict.second_name})"
            )
        gone = conflict.second_name if keep == conflict.first_name else conflict.first_name
        why = conflict.reason or "judged conflicting"
        reason = f"conflicts with {keep} ({why}); resolved in review"
        operation = {"type": "DELETE", "target_id": gone, "reason": reason}
        updated, outcomes = apply_operations_with_outcomes(txn.playbook, [operation])
        if not outcomes or not outcomes[0].applied:
            why = outcomes[0].reason if outcomes else "no outcome"
            raise JudgementsError(f"could not delete {gone}: {why}")
        txn.playbook = updated
        txn.meta.update(
            {
                "kind": "review",
                "source": f"acecode review resolve {conflict.id} --keep {keep}",
                "operations": [record.as_dict() for record in outcomes],
                "review": {"conflict": conflict.id, "kept": keep, "deleted": gone},
            }
        )
    return Resolution(conflict=conflict, kept=keep, deleted=outcomes[0].removed[0][1])
