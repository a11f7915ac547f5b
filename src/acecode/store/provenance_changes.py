"""How one saved change of the playbook updates the provenance ledger.

The writer describes the change in ``txn.meta`` (the same dict the history
journal reads). ``meta["provenance"]`` is the writer's *plan*::

    {"agent": "claude-code", "session": "<id>", "transcript": "<path>",
     "entries": [{"name": "pat-004", "how": "learned", "reason": "...",
                  "evidence": {...}, "when": [{"tool", "field", "pattern"}],
                  "from": ["pat-002", "pat-003"]}, ...]}

Each planned entry gets one origin, in list order (so an entry added and
then merged in the same cycle hands its origin on). ``from`` names entries
whose origins the entry inherits first: a MERGE survivor holds the union of
its sources' histories. An entry new to the playbook starts a fresh record;
an existing one has the origin appended (UPDATE, a credited duplicate).

Without a plan entry, a change is described by the writer's ``kind``:

* ``undo``: origins the undone cycle added are removed, entries it removed
  come back with the records they had, entries it added leave with theirs
  whole, retired under the undo, so that ``restore`` and the undo of the undo
  bring them back (for an undo of one entry, ``meta["undoes_entry"]``, only
  that entry's and those merged into it);
* ``restore``: the restored entry gets back the record retired when it was
  removed (under its new ID when the old one was taken);
* ``merge`` (the git merge driver): an entry that arrives from the other branch (or whose
  text the merge took from it) gets a ``merge-driver`` origin. Provenance is
  local to a clone, so the origins are *followed* through the history
  journal: earlier cycles of this clone that wrote exactly this text, under
  whatever ID (the driver renumbers colliding IDs), lend their origins.
  Without such a cycle the origin says "unknown origin". An entry of this
  clone the merge gave the other side's ID keeps its record under the new
  ID, and the ID it left, when another entry now holds it, starts afresh;
* ``review``: an approved held text is ``learned`` when a session was behind
  it, else the user's own ``added-by-user``/``edited-by-user``;
* anything else that adds an entry or changes its text is ``imported``,
  with the writer's ``source`` as reason. Counter changes alone (tags) add
  no origin.

Entries that left the playbook move to ``retired`` under the id of the cycle
that removed them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.project.diagnostics import warn
from acecode.project.layer import Layer, Where
from acecode.store.provenance import (
    HOW_VALUES,
    REASON_CHARS,
    Evidence,
    Ledger,
    Origin,
    ProvenanceFileError,
    Retired,
    excerpt,
    patterns_of,
    provenance_path,
    read_ledger,
)

DEFAULT_AGENT = "claude-code"
UNKNOWN_ORIGIN = (
    "unknown origin: provenance is local to each clone and this one has no record of this text"
)
Follower = Callable[[str], list[Origin]]


def _texts(playbook: dict[str, Any]) -> dict[str, str]:
    sections = playbook.get("sections") or {}
    return {
        entry["name"]: entry["text"] for entries in sections.values() for entry in entries or ()
    }


def _unique(origins: Iterable[Origin]) -> list[Origin]:
    seen: list[Origin] = []
    for origin in origins:
        if origin not in seen:
            seen.append(origin)
    return seen


class _Change:
    """The pieces of one change the ledger needs: who, when, and the entries touched."""

    def __init__(self, ledger: Ledger, before: dict[str, Any], after: dict[str, Any], meta: dict):
        self.ledger = ledger
        self.meta = meta
        self.cycle_id = str(meta.get("cycle_id") or "")
        self.at = datetime.now().astimezone().isoformat(timespec="seconds")
        self.before_texts = _texts(before)
        self.after_texts = _texts(after)
        self.planned: set[str] = set()

    def origin(self, how: str, reason: str, **fields: Any) -> Origin:
        return Origin(
            cycle_id=self.cycle_id,
            at=self.at,
            how=how if how in HOW_VALUES else "imported",
            agent=str(fields.get("agent") or DEFAULT_AGENT),
            session=fields.get("session") if isinstance(fields.get("session"), str) else None,
            transcript=fields.get("transcript")
            if isinstance(fields.get("transcript"), str)
            else None,
            reason=excerpt(reason, REASON_CHARS),
            evidence=Evidence.from_dict(fields.get("evidence")),
            when=patterns_of(fields.get("when")),
        )

    def is_new(self, name: str) -> bool:
        return name not in self.before_texts

    def start(self, name: str, origins: list[Origin]) -> None:
        """A fresh record for a new entry; a stale one under the same name is retired first."""
        stale = self.ledger.entries.pop(name, None)
        if stale:
            self.ledger.retired.setdefault(name, []).append(Retired(self.cycle_id, tuple(stale)))
        self.ledger.entries[name] = origins

    def extend(self, name: str, origins: list[Origin]) -> None:
        """Append ``origins`` to the entry's record (a fresh one the first time a new entry
        is seen in this change)."""
        if self.is_new(name) and name not in self.planned:
            self.start(name, _unique(origins))
        else:
            self.ledger.entries[name] = _unique([*self.ledger.entries.get(name, []), *origins])
        self.planned.add(name)

    def changed(self) -> list[str]:
        """Names added, or whose text changed, by this save (counter-only changes left out)."""
        return [
            name for name, text in self.after_texts.items() if self.before_texts.get(name) != text
        ]


def apply_change(
    ledger: Ledger,
    before: dict[str, Any],
    after: dict[str, Any],
    meta: dict[str, Any],
    *,
    playbook_path: Where = None,
    follow: Follower | None = None,
) -> Ledger:
    """Update ``ledger`` in place for the save from ``before`` to ``after``; returns it.

    ``follow(text)`` lends origins to entries a git merge brought in (default:
    the history journal of ``playbook_path``; see the module docstring).
    """
    change = _Change(ledger, before, after, meta)
    kind = meta.get("kind")
    if kind == "undo":
        undone = meta.get("undoes_entry")
        if isinstance(undone, dict):  # one entry and what was merged into it
            names = {undone.get("name"), *(undone.get("restored") or ())}
            _undo(change, str(undone.get("cycle") or ""), {n for n in names if isinstance(n, str)})
        else:
            _undo(change, str(meta.get("undoes") or ""))
    elif kind == "restore":
        _restore(change, meta.get("restored"))
    else:
        _apply_plan(change, meta.get("provenance"))
        rest = [name for name in change.changed() if name not in change.planned]
        if kind == "merge":  # the git merge driver's journal kind
            if follow is None and playbook_path is not None:
                follow = _journal_follower(playbook_path, ledger, change.cycle_id)
            _merge_driver(change, rest, follow or (lambda text: []))
        elif kind == "review":
            _review(change, rest)
        else:
            for name in rest:
                source = meta.get("source") or kind or "an edit outside a learning cycle"
                change.extend(
                    name, [change.origin("imported", f"written by {source}", agent="user")]
                )
    _retire_missing(change)
    return ledger


def _apply_plan(change: _Change, plan: Any) -> None:
    if not isinstance(plan, dict):
        return
    common = {key: plan.get(key) for key in ("agent", "session", "transcript")}
    for item in plan.get("entries") or ():
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        name = item["name"]
        inherited = [
            origin
            for source in item.get("from") or ()
            if isinstance(source, str) and source != name
            for origin in change.ledger.entries.get(source, [])
        ]
        fields = {**common, **{k: item[k] for k in ("agent", "evidence", "when") if k in item}}
        origin = change.origin(
            str(item.get("how") or "learned"), str(item.get("reason") or ""), **fields
        )
        change.extend(name, [*inherited, origin])


def _review(change: _Change, names: list[str]) -> None:
    review = change.meta.get("review") if isinstance(change.meta.get("review"), dict) else {}
    learned = bool(review.get("session") or review.get("transcript"))
    if learned:
        how, agent = "learned", DEFAULT_AGENT
    else:
        how = "edited-by-user" if review.get("operation") == "UPDATE" else "added-by-user"
        agent = "user"
    reason = f"approved in review (held by {review.get('rule') or 'the screen'})"
    if isinstance(review.get("was"), str):
        reason += f"; it was {review['was']}, which a git merge deleted while it was changed"
    for name in names:
        change.extend(
            name,
            [
                change.origin(
                    how,
                    reason,
                    agent=agent,
                    session=review.get("session"),
                    transcript=review.get("transcript"),
                )
            ],
        )


def _merge_driver(change: _Change, names: list[str], follow: Follower) -> None:
    merge = change.meta.get("merge") if isinstance(change.meta.get("merge"), dict) else {}
    renamed = {
        item.get("to"): item.get("from")
        for item in merge.get("renumbered") or ()
        if isinstance(item, dict)
    }
    # Entries of this clone the merge gave the other side's ID: their record moves along,
    # and the ID they left, if another entry now holds it, starts a fresh record.
    moved = {
        item.get("to"): item.get("from")
        for item in merge.get("renamed") or ()
        if isinstance(item, dict)
    }
    carried = {new: list(change.ledger.entries.get(old, [])) for new, old in moved.items()}
    vacated = set(moved.values())
    theirs, action = merge.get("theirs") or "the other branch", change.meta.get("source")
    action = action or "git merge"
    for name in names:
        followed = [o for o in follow(change.after_texts[name]) if o.cycle_id != change.cycle_id]
        if name in moved:
            reason = f"renumbered from {moved[name]} in {action}, as {theirs} numbers it"
            origin = change.origin("merge-driver", reason, agent="user")
            change.start(name, _unique([*carried[name], *followed, origin]))
            change.planned.add(name)
            continue
        new = change.is_new(name) or name in vacated
        if new:
            reason = f"arrived from {theirs} in {action}"
        else:
            reason = f"text taken from {theirs} in {action}"
        if renamed.get(name):
            reason += f"; renumbered from {renamed[name]}"
        known = [] if new else [*change.ledger.entries.get(name, [])]
        if not followed and not known:
            reason += f"; {UNKNOWN_ORIGIN}"
        origins = [*followed, change.origin("merge-driver", reason, agent="user")]
        if name in vacated:
            change.start(name, _unique(origins))
            change.planned.add(name)
        else:
            change.extend(name, origins)


def _journal_follower(playbook_path: Where, ledger: Ledger, skip_cycle: str) -> Follower:
    """Origins of earlier cycles of this clone that wrote exactly ``text`` (any ID)."""
    from acecode.store.journal import cycles_with_text

    def follow(text: str) -> list[Origin]:
        found: list[Origin] = []
        for name, cycle_id in cycles_with_text(playbook_path, text):
            if cycle_id == skip_cycle:
                continue
            pools = [ledger.entries.get(name, [])] + [
                list(r.origins) for r in ledger.retired.get(name, [])
            ]
            found += [o for pool in pools for o in pool if o.cycle_id == cycle_id]
        return _unique(found)

    return follow


def _undo(change: _Change, undone: str, only: set[str] | None = None) -> None:
    """Take back what cycle ``undone`` recorded (module docstring); for the entries
    ``only`` when the undo took back just those."""
    ledger = change.ledger
    returning: dict[str, list[Origin]] = {}
    for name in change.after_texts:
        records = ledger.retired.get(name, []) if change.is_new(name) else []
        match = next((r for r in reversed(records) if r.removed_in == undone), None)
        if match is not None:
            records.remove(match)
            returning[name] = [o for o in match.origins if o.cycle_id != undone]
    # An entry the undone cycle added leaves with its record whole: it is retired under
    # this undo (``_retire_missing``), so ``acecode restore`` and the undo of this undo
    # bring it back as it was.
    leaving = {name for name in change.before_texts if name not in change.after_texts}
    # A survivor of a merge the undone cycle made inherited the returning entries' origins.
    handed_on = {origin for origins in returning.values() for origin in origins}
    for name, origins in list(ledger.entries.items()):
        if name in leaving:
            continue
        if (only is None or name in only) and any(o.cycle_id == undone for o in origins):
            ledger.entries[name] = [
                o for o in origins if o.cycle_id != undone and o not in handed_on
            ]
    ledger.entries.update(returning)
    if only is not None:
        return
    # An entry the undone cycle both created and removed (an ADD merged away at once).
    for records in ledger.retired.values():
        records[:] = [
            r
            for r in records
            if not (r.removed_in == undone and all(o.cycle_id == undone for o in r.origins))
        ]


def _restore(change: _Change, restored: Any) -> None:
    if not isinstance(restored, dict):
        return
    name, new_name = restored.get("name"), restored.get("as") or restored.get("name")
    records = change.ledger.retired.get(name, []) if isinstance(name, str) else []
    match = next((r for r in reversed(records) if r.removed_in == restored.get("from_cycle")), None)
    if match is None or not isinstance(new_name, str):
        return
    records.remove(match)
    change.start(new_name, list(match.origins))


def _retire_missing(change: _Change) -> None:
    """Move the records of entries no longer in the playbook to ``retired``."""
    for name in [name for name in change.ledger.entries if name not in change.after_texts]:
        origins = change.ledger.entries.pop(name)
        if origins:
            change.ledger.retired.setdefault(name, []).append(
                Retired(change.cycle_id, tuple(origins))
            )
    for name in [name for name, records in change.ledger.retired.items() if not records]:
        del change.ledger.retired[name]


def _set_aside(target: Path, problem: Exception) -> None:
    """Rename a corrupt file beside itself so the next write starts clean and nothing is lost."""
    aside = target.with_name(f"{target.name}.corrupt-{datetime.now():%Y%m%d-%H%M%S}")
    target.replace(aside)
    warn(f"{problem}; moved it to {aside.name} and started a new provenance file")


def apply_provenance(
    playbook_path: Where,
    before: dict[str, Any],
    after: dict[str, Any],
    meta: dict[str, Any],
) -> None:
    """Update the provenance file for one saved change; ``PlaybookWriteError`` when it
    cannot be written. A change whose cycle the ledger already records as its last is
    not applied again (a save finished after a kill, :mod:`acecode.store.commit`)."""
    from acecode.store.atomic import atomic_write_text
    from acecode.store.errors import PlaybookWriteError

    target = provenance_path(playbook_path)
    try:
        try:
            ledger = read_ledger(playbook_path)
        except (ProvenanceFileError, UnicodeDecodeError) as exc:
            _set_aside(target, exc)
            ledger = Ledger()
        cycle_id = str(meta.get("cycle_id") or "")
        if cycle_id and ledger.last_cycle == cycle_id:
            return
        apply_change(ledger, before, after, meta, playbook_path=playbook_path)
        ledger.last_cycle = cycle_id or None
        atomic_write_text(target, ledger.serialize())
    except (OSError, TypeError, ValueError) as exc:
        raise PlaybookWriteError(f"provenance not updated in {target} ({exc})") from exc


def record_provenance(
    playbook_path: Where,
    before: dict[str, Any],
    after: dict[str, Any],
    meta: dict[str, Any],
) -> None:
    """:func:`apply_provenance` that never raises (warns instead), for the git merge
    driver, whose playbook git writes.

    ``meta["cycle_id"]`` is the id the journal recorded. ``meta`` says how the
    entries came about (see this module's docstring).
    """
    from acecode.store.errors import PlaybookError

    try:
        apply_provenance(playbook_path, before, after, meta)
    except PlaybookError as exc:
        playbook = Layer.of(playbook_path).playbook_file
        warn(f"{exc}; {playbook} was saved")
