"""The review queue: texts held back from the playbook until a human decides.

Lives in ``<playbook dir>/acecode/pending.json`` (``.claude/acecode/`` for
the default playbook)::

    {"version": 1,
     "pending": [{"id", "text", "section", "operation", "target_ids", "rule",
                  "detail", "session", "transcript", "queued_at",
                  "was", "counters"}],
     "rejected": {"<text key>": {"text", "rule", "item_id", "rejected_at"}}}

Every change is a read-modify-write under the queue's own file lock with an
atomic replace, so concurrent learning cycles and a review never lose each
other's items. A file that is not a valid queue is never overwritten.

Item IDs are the first 8 hex digits of the text key (``normalize.text_key``),
so the same text queued twice is one item, and a rejected text is recognised
again even if its case, spacing or look-alike letters changed.

Approval never holds the queue lock and the playbook lock together: the
item is read, the playbook updated under its own lock, then the item removed.
A crash in between leaves the item pending; approving it again finds its
text already in the playbook and just removes it. Callers may therefore
queue texts while they hold the playbook lock without any risk of deadlock.
The decisions (approve, reject) are :mod:`acecode.quarantine.queue_decisions`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.errors import AcecodeError
from acecode.playbook.operations import clean_text
from acecode.playbook.schema import _resolve_section
from acecode.project.layer import Layer, Where
from acecode.quarantine.normalize import text_key
from acecode.store import DEFAULT_LOCK_TIMEOUT
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookError, PlaybookWriteError
from acecode.store.lock import exclusive_lock

QUEUE_VERSION = 1
QUEUE_FILE = "pending.json"
QUEUED_OPERATIONS = ("ADD", "UPDATE", "MERGE")
ID_LENGTH = 8
# The rules of a text that waits only for a safety review start so
# (acecode.quarantine.unreviewed.NOT_REVIEWED; a test keeps them equal).
WAITING_PREFIX = "not-reviewed"
MIN_ID_PREFIX = 4


class QueueError(AcecodeError):
    """The queue could not be read, locked or written, or an ID is unknown; one line."""


@dataclass(frozen=True)
class PendingItem:
    """One held-back text and why it was held back.

    ``operation`` is what the curator proposed (ADD, UPDATE or MERGE) and
    ``target_ids`` the entries that UPDATE/MERGE named; ``rule`` is the
    screen rule that flagged the text, or ``review:all``. An entry a git
    merge deleted while the other branch changed it is held as an ADD with
    ``was``, the ID it had, and ``counters``, its (helpful, harmful) then:
    approving brings it back under a new ID with those counters.
    """

    id: str
    text: str
    section: str
    operation: str
    rule: str
    detail: str = ""
    target_ids: tuple[str, ...] = ()
    session: str | None = None
    transcript: str | None = None
    queued_at: str = ""
    was: str | None = None
    counters: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, as stored in ``pending.json``."""
        data = asdict(self)
        data["target_ids"] = list(self.target_ids)
        data["counters"] = None if self.counters is None else list(self.counters)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> PendingItem:
        """Rebuild an item; raises ``ValueError`` when the record is malformed."""
        if not isinstance(data, dict):
            raise ValueError("item is not an object")
        required = ("id", "text", "section", "operation", "rule")
        if any(not isinstance(data.get(key), str) for key in required):
            raise ValueError(f"item lacks one of {', '.join(required)}")
        targets = data.get("target_ids") or []
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise ValueError(f"item {data['id']}: target_ids is not a list of IDs")
        optional = {key: data.get(key) for key in ("session", "transcript", "was")}
        counters = data.get("counters")
        valid = (
            isinstance(counters, list)
            and len(counters) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counters)
        )
        return cls(
            id=data["id"],
            text=data["text"],
            section=data["section"],
            operation=data["operation"],
            rule=data["rule"],
            detail=str(data.get("detail") or ""),
            target_ids=tuple(targets),
            session=optional["session"] if isinstance(optional["session"], str) else None,
            transcript=optional["transcript"] if isinstance(optional["transcript"], str) else None,
            queued_at=str(data.get("queued_at") or ""),
            was=optional["was"] if isinstance(optional["was"], str) else None,
            counters=(counters[0], counters[1]) if valid else None,
        )


@dataclass
class Approval:
    """What approving an item did to the playbook.

    ``applied_as`` is the operation that took effect (the original UPDATE or
    MERGE when its targets still exist, else ADD), or None when the text was
    already in the playbook. ``entry`` is the created or updated entry.
    """

    item: PendingItem
    text: str
    applied_as: str | None
    section: str | None = None
    entry: dict[str, Any] | None = None
    note: str = ""


@dataclass
class _QueueFile:
    pending: list[PendingItem] = field(default_factory=list)
    rejected: dict[str, dict[str, Any]] = field(default_factory=dict)

    def serialize(self) -> str:
        data = {
            "version": QUEUE_VERSION,
            "pending": [item.as_dict() for item in self.pending],
            "rejected": self.rejected,
        }
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def queue_path(playbook: Where = None) -> Path:
    """``pending.json`` beside a playbook (default: ``.claude/acecode/pending.json``)."""
    return Layer.of(playbook).file(QUEUE_FILE)


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _read(path: Path) -> _QueueFile:
    from acecode.project.bounds import FileLimitError, read_json

    try:
        data = read_json(path, "review queue")
    except FileNotFoundError:
        return _QueueFile()
    except OSError as exc:
        raise QueueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except FileLimitError as exc:
        raise QueueError(f"{exc}; file left untouched") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise QueueError(f"{path}: not a valid JSON file ({exc}); file left untouched") from exc
    if not isinstance(data, dict):
        raise QueueError(f"{path}: not a review queue (top level is not an object)")
    pending, rejected = data.get("pending", []), data.get("rejected", {})
    if not isinstance(pending, list) or not isinstance(rejected, dict):
        raise QueueError(f"{path}: not a review queue (pending/rejected have the wrong type)")
    try:
        items = [PendingItem.from_dict(item) for item in pending]
    except ValueError as exc:
        raise QueueError(f"{path}: malformed pending item ({exc}); file left untouched") from exc
    return _QueueFile(items, rejected)


def _write(path: Path, queue: _QueueFile) -> None:
    try:
        atomic_write_text(path, queue.serialize())
    except PlaybookWriteError as exc:
        raise QueueError(str(exc)) from exc


@contextmanager
def _locked(path: Path, timeout: float) -> Iterator[_QueueFile]:
    """Lock the queue, yield its content for editing, save it on a clean exit."""
    with ExitStack() as stack:
        try:
            stack.enter_context(exclusive_lock(path, timeout))
        except PlaybookError as exc:
            raise QueueError(str(exc)) from exc
        queue = _read(path)
        before = queue.serialize()
        yield queue
        if queue.serialize() != before:
            _write(path, queue)


def _find(queue: _QueueFile, item_id: str, path: Path) -> PendingItem:
    """The item with this ID, or with this unique prefix of at least 4 characters."""
    wanted = item_id.strip().lower()
    exact = [item for item in queue.pending if item.id == wanted]
    if exact:
        return exact[0]
    matches = (
        [item for item in queue.pending if item.id.startswith(wanted)]
        if len(wanted) >= MIN_ID_PREFIX
        else []
    )
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise QueueError(f"ID {item_id!r} is ambiguous in {path}; give more characters")
    raise QueueError(f"no pending item with ID {item_id!r} in {path}")


def pending_item(
    text: str,
    *,
    rule: str,
    detail: str = "",
    section: Any = None,
    operation: str = "ADD",
    target_ids: Sequence[str] = (),
    session: str | None = None,
    transcript: str | None = None,
    item_id: str | None = None,
    was: str | None = None,
    counters: tuple[int, int] | None = None,
) -> PendingItem:
    """The item ``queue_text`` would store for ``text``, built without touching any file.

    A dry run shows these; ``queue_text`` stores them. Raises ``ValueError``
    for an empty text or an operation other than ADD/UPDATE/MERGE.
    """
    if operation not in QUEUED_OPERATIONS:
        raise ValueError(f"only {', '.join(QUEUED_OPERATIONS)} texts are queued, not {operation!r}")
    cleaned = clean_text(text)
    if cleaned is None:
        raise ValueError("cannot queue an empty text")
    return PendingItem(
        id=item_id or text_key(cleaned)[:ID_LENGTH],
        text=cleaned,
        section=_resolve_section(section),
        operation=operation,
        rule=rule,
        detail=detail,
        target_ids=tuple(str(target) for target in target_ids),
        session=session,
        transcript=transcript,
        queued_at=_now(),
        was=was,
        counters=counters,
    )


def queue_text(
    text: str,
    *,
    playbook: Where = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    **details: Any,
) -> PendingItem | None:
    """Hold ``text`` for review; returns the pending item, or None if it was rejected before.

    ``details`` are ``pending_item``'s keywords (``rule`` is required).
    Secrets are redacted before the text touches disk. Queuing a text that is
    already pending returns the existing item instead of adding a second one.
    Raises ``ValueError`` for an empty text or an operation other than
    ADD/UPDATE/MERGE, and ``QueueError`` when the queue cannot be written.
    """
    item = pending_item(text, **details)
    key = text_key(item.text)
    path = queue_path(playbook)
    with _locked(path, lock_timeout) as queue:
        if key in queue.rejected:
            return None
        taken = {pending.id: pending for pending in queue.pending}
        if item.id in taken:
            if text_key(taken[item.id].text) == key:
                return _stronger(queue, taken[item.id], item)
            item = replace(item, id=key[: ID_LENGTH * 2])
        queue.pending.append(item)
    return item


def _stronger(queue: _QueueFile, pending: PendingItem, new: PendingItem) -> PendingItem:
    """The item a text already queued keeps: as it was, unless it only waited for a
    safety review and is now held for a person (a finding, a flag, an instruction it
    contradicts): then that rule and detail, so the text is not reviewed again for
    nothing and the person sees why."""
    waits = pending.rule.startswith(WAITING_PREFIX)
    if not waits or new.rule.startswith(WAITING_PREFIX):
        return pending
    stronger = replace(pending, rule=new.rule, detail=new.detail)
    queue.pending = [stronger if item.id == pending.id else item for item in queue.pending]
    return stronger


def list_pending(playbook: Where = None) -> list[PendingItem]:
    """The items waiting for review, oldest first (reads without locking: writes are atomic)."""
    return list(_read(queue_path(playbook)).pending)


def rejected_keys(playbook: Where = None) -> frozenset[str]:
    """Text keys of every rejected text, for checking many texts with one read."""
    return frozenset(_read(queue_path(playbook)).rejected)


def is_rejected(text: str, playbook: Where = None) -> bool:
    """True when a reviewer rejected this text (or one differing only in spelling tricks)."""
    cleaned = clean_text(text)
    return cleaned is not None and text_key(cleaned) in rejected_keys(playbook)


def settle_items(
    playbook: Where = None,
    *,
    remove: Sequence[str] = (),
    rules: dict[str, tuple[str, str]] | None = None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    removable: Callable[[PendingItem], bool] | None = None,
) -> None:
    """Remove the items ``remove`` names (their texts landed) and give others a new rule
    and detail (``rules``: ID -> (rule, detail)), in one locked write. IDs no longer
    pending are ignored: a reviewer may have decided meanwhile; ``removable`` keeps an
    item ``remove`` names that another step held since (its rule changed)."""
    gone, changes = set(remove), rules or {}
    with _locked(queue_path(playbook), lock_timeout) as queue:
        kept = []
        for item in queue.pending:
            if item.id in gone and (removable is None or removable(item)):
                continue
            if item.id in changes:
                rule, detail = changes[item.id]
                item = replace(item, rule=rule, detail=detail)
            kept.append(item)
        queue.pending = kept
