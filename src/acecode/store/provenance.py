"""Provenance: where each playbook entry came from, kept beside the playbook.

``<state folder>/provenance.json`` (the state folder is ``.claude/acecode/``,
git-ignored) maps every entry name to its *origins*: the cycle that created,
updated, credited or merged it, the session and transcript it read, the
reflector's or curator's reason and a short redacted excerpt of the evidence
(the failing command and its error line, or the user's request). The format
is agreed with the readers of this file (``acecode impact``, the HTML
report)::

    {"version": 1,
     "entries": {"pat-001": {"origins": [{"cycle_id", "at", "how", "agent", "session",
                                           "transcript", "reason", "evidence": {...},
                                           "when": [{"tool", "field", "pattern"}]}]}},
     "retired": {"pat-004": [{"removed_in": "<cycle id>", "origins": [...]}]}}

An origin may also carry ``"when": [{"tool", "field", "pattern"}]``: input
patterns (:class:`acecode.recall.pattern.InputPattern`) of the tool calls the
entry is about, given by the curator or by ``acecode add/edit --when``. They
are the entry's pre-call triggers (:mod:`acecode.recall.triggers`): the last
origin that has a ``when`` decides them (an empty list: none). Origins without
the key say nothing about patterns (it is left out of the file).

``last_cycle`` (an addition readers may ignore) names the journal cycle of the
last save applied. ``retired`` (another) keeps the origins of entries
that left the playbook, by the cycle that removed them, so ``acecode restore``
and ``acecode undo`` bring an entry back with its history and a later entry
that reuses the name starts clean.

The file is written by :func:`~acecode.store.provenance_changes.apply_provenance`,
which ``update_playbook`` calls under the playbook lock right after the save and
the history journal, all committed together (:mod:`acecode.store.commit`). It is local state:
it never travels with a ``git merge`` (see :mod:`acecode.store.provenance_changes`
for what the merge driver records). Reading never raises: a missing file is
empty, a corrupt one a one-line warning and empty.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from acecode.errors import AcecodeError
from acecode.project.diagnostics import warn
from acecode.project.layer import Layer, Where
from acecode.text.redact import redact

PROVENANCE_NAME = "provenance.json"
PROVENANCE_VERSION = 1
HOW_VALUES = ("learned", "merged", "added-by-user", "edited-by-user", "merge-driver", "imported")
EVIDENCE_KINDS = ("failure", "request", "none")
REASON_CHARS = 300
EXCERPT_CHARS = 200


def excerpt(text: Any, limit: int = EXCERPT_CHARS) -> str:
    """``text`` redacted, on one line, at most ``limit`` characters (an ellipsis marks a cut).

    Redaction runs on the whole text before the cut, so a secret is never
    split into a part the redactor no longer recognises.
    """
    if not isinstance(text, str):
        return ""
    flat = " ".join(redact(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Evidence:
    """What in the session showed the rule was needed (every field redacted).

    For a failure, ``head`` and ``error_key`` are its signature's command head and
    normalised error, computed from the whole output when the rule was learned
    (:func:`acecode.impact.signature.evidence_signature` reads them); ``ref`` is the
    moment of the session (``F3``, ``C1``) and ``link`` how the cycle found it:
    ``named`` by the curator or reflector, ``overlap`` by the word-overlap fallback,
    ``relinked`` by ``acecode bootstrap --relink``.
    """

    kind: str = "none"  # failure | request | none
    tool: str = ""
    command: str = ""
    error: str = ""
    request: str = ""
    head: str = ""
    error_key: str = ""
    ref: str = ""
    link: str = ""

    @classmethod
    def from_dict(cls, data: Any) -> Evidence:
        """Tolerant rebuild: unknown kinds become ``none``, non-strings empty."""
        if not isinstance(data, dict):
            return cls()
        kind = data.get("kind") if data.get("kind") in EVIDENCE_KINDS else "none"
        return cls(
            kind=kind,
            tool=excerpt(data.get("tool"), 80),
            command=excerpt(data.get("command")),
            error=excerpt(data.get("error")),
            request=excerpt(data.get("request")),
            head=excerpt(data.get("head"), 80),
            error_key=excerpt(data.get("error_key")),
            ref=excerpt(data.get("ref"), 12),
            link=excerpt(data.get("link"), 12),
        )


@dataclass(frozen=True)
class Origin:
    """One event in an entry's history: the cycle, how, and why."""

    cycle_id: str
    at: str
    how: str
    agent: str
    session: str | None = None
    transcript: str | None = None
    reason: str = ""
    evidence: Evidence = field(default_factory=Evidence)
    # Input patterns as (tool, field, pattern); None: this origin names none.
    when: tuple[tuple[str, str, str], ...] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of the file format (``when`` only when the origin has it)."""
        data = asdict(self)
        if self.when is None:
            del data["when"]
        else:
            data["when"] = [
                {"tool": tool, "field": field, "pattern": pattern}
                for tool, field, pattern in self.when
            ]
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Origin:
        """Rebuild one origin; ``ValueError`` when it lacks a cycle id or a known ``how``."""
        if not isinstance(data, dict) or not isinstance(data.get("cycle_id"), str):
            raise ValueError("origin without a cycle_id")
        if data.get("how") not in HOW_VALUES:
            raise ValueError(f"origin with unknown how {data.get('how')!r}")

        def text_or_none(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        return cls(
            cycle_id=data["cycle_id"],
            at=str(data.get("at") or ""),
            how=data["how"],
            agent=str(data.get("agent") or "user"),
            session=text_or_none("session"),
            transcript=text_or_none("transcript"),
            reason=excerpt(data.get("reason"), REASON_CHARS),
            evidence=Evidence.from_dict(data.get("evidence")),
            when=patterns_of(data.get("when")),
        )


def patterns_of(value: Any) -> tuple[tuple[str, str, str], ...] | None:
    """The usable input patterns of an origin's ``when`` as ``(tool, field, pattern)``
    (None when it has none; unreadable ones are left out). Their quality was checked
    where they were written; the recall index checks them again."""
    if not isinstance(value, list | tuple):
        return None
    from acecode.recall.pattern import InputPattern, PatternError

    found: list[tuple[str, str, str]] = []
    for item in value:
        try:
            pattern = InputPattern.from_dict(item)
        except PatternError:
            continue
        key = (pattern.tool, pattern.field, pattern.pattern)
        if key not in found:
            found.append(key)
    return tuple(found)


@dataclass(frozen=True)
class Retired:
    """The origins of an entry that left the playbook, and the cycle that removed it."""

    removed_in: str
    origins: tuple[Origin, ...]


@dataclass
class Ledger:
    """The whole file in memory: live entries' origins and retired records."""

    entries: dict[str, list[Origin]] = field(default_factory=dict)
    retired: dict[str, list[Retired]] = field(default_factory=dict)
    # The journal cycle of the last save applied (acecode.store.commit: a save finished
    # after a kill is not applied twice).
    last_cycle: str | None = None

    def serialize(self) -> str:
        data: dict[str, Any] = {
            "version": PROVENANCE_VERSION,
            **({"last_cycle": self.last_cycle} if self.last_cycle else {}),
            "entries": {
                name: {"origins": [origin.as_dict() for origin in origins]}
                for name, origins in sorted(self.entries.items())
                if origins
            },
            "retired": {
                name: [
                    {"removed_in": r.removed_in, "origins": [o.as_dict() for o in r.origins]}
                    for r in records
                ]
                for name, records in sorted(self.retired.items())
                if records
            },
        }
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def provenance_path(playbook_path: Where) -> Path:
    """The provenance file that belongs to ``playbook_path`` (a playbook file or its layer)."""
    return Layer.of(playbook_path).file(PROVENANCE_NAME)


class ProvenanceFileError(AcecodeError, ValueError):
    """The provenance file is not in the format above; the message names file and problem."""


def _origins(value: Any, where: str) -> list[Origin]:
    if not isinstance(value, list):
        raise ProvenanceFileError(f"{where}: origins is not a list")
    try:
        return [Origin.from_dict(item) for item in value]
    except ValueError as exc:
        raise ProvenanceFileError(f"{where}: {exc}") from exc


def parse_ledger(text: str, source: Path) -> Ledger:
    """The ledger in ``text``; ``ProvenanceFileError`` naming ``source`` when malformed."""
    from acecode.project.bounds import FileLimitError, loads_bounded

    try:
        data = loads_bounded(text.encode("utf-8", "surrogateescape"), source, "provenance file")
    except FileLimitError as exc:
        raise ProvenanceFileError(str(exc)) from exc
    except json.JSONDecodeError as exc:
        raise ProvenanceFileError(f"{source}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("entries"), dict):
        raise ProvenanceFileError(f"{source}: no 'entries' object")
    if data.get("version") != PROVENANCE_VERSION:
        raise ProvenanceFileError(f"{source}: unknown version {data.get('version')!r}")
    last = data.get("last_cycle")
    ledger = Ledger(last_cycle=last if isinstance(last, str) else None)
    for name, record in data["entries"].items():
        origins = record.get("origins") if isinstance(record, dict) else None
        ledger.entries[name] = _origins(origins, f"{source}: entry {name}")
    retired = data.get("retired") or {}
    if not isinstance(retired, dict):
        raise ProvenanceFileError(f"{source}: 'retired' is not an object")
    for name, records in retired.items():
        if not isinstance(records, list):
            raise ProvenanceFileError(f"{source}: retired {name} is not a list")
        ledger.retired[name] = [
            Retired(
                str(item.get("removed_in") or ""),
                tuple(_origins(item.get("origins"), f"{source}: retired {name}")),
            )
            for item in records
            if isinstance(item, dict)
        ]
    return ledger


def read_ledger(playbook_path: Where) -> Ledger:
    """The ledger on disk (empty when there is none); raises ``ProvenanceFileError``/``OSError``."""
    target = provenance_path(playbook_path)
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Ledger()
    return parse_ledger(text, target)


def load_ledger(playbook_path: Where) -> Ledger:
    """``read_ledger`` for readers: a bad file is one warning line and an empty ledger."""
    try:
        return read_ledger(playbook_path)
    except (ProvenanceFileError, OSError, UnicodeDecodeError) as exc:
        warn(f"provenance unreadable, shown as empty: {exc}")
        return Ledger()


def load_provenance(playbook_path: Where) -> dict[str, list[Origin]]:
    """Every live entry's origins, oldest first (the reader API; never raises)."""
    return load_ledger(playbook_path).entries
