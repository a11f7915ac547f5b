"""One rule at a time, by hand: add, edit or forget a single playbook entry.

What ``acecode add``, ``edit`` and ``forget`` do, as a library:

* every text goes through the same triage as a learning cycle's
  (:func:`acecode.quarantine.gate.triage_operations`: the screen, the
  ``review`` setting, texts rejected earlier): a flagged text is held for
  ``acecode review`` and nothing changes yet, a rejected one is refused;
* the change is applied as the curator operation it is (ADD, UPDATE,
  DELETE) by :mod:`acecode.playbook.operations`, in one ``update_playbook``
  transaction, so it is journaled like a cycle (``acecode history``,
  ``acecode undo``) and the provenance file records ``added-by-user`` or
  ``edited-by-user`` (a forgotten entry's history is retired, so
  ``acecode restore`` brings it back with it);
* ``when`` (``acecode add/edit --when TOOL:PATTERN``) sets the entry's input
  patterns (:class:`acecode.recall.pattern.InputPattern`), checked by
  :func:`acecode.recall.quality.quality_problem` and kept in the provenance
  origin as ``"when"`` (they replace earlier ones; ``edit --no-when`` records an
  empty list: none): recall warns before a call that matches one. ``edit`` with
  patterns and no new text records them alone (no playbook change, no history line).

Errors are ``RuleEditError`` with a one-line message naming the entry,
section or file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acecode.playbook.operations import apply_operations_with_outcomes, clean_text
from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, iter_entries, match_section
from acecode.project.config import Settings, load_settings
from acecode.project.layers import name_prefix_for
from acecode.store import PlaybookError, load_playbook, resolve_path, update_playbook

USER_AGENT = "user"


class RuleEditError(PlaybookError):
    """A single-rule command that cannot be done as asked; one line saying why."""


@dataclass
class RuleEdit:
    """What a command did: ``applied`` (with the journal's cycle id) or ``held`` for review."""

    operation: str
    name: str | None
    section: str | None
    text: str
    cycle_id: str | None = None
    held_id: str | None = None
    held_rule: str = ""
    held_detail: str = ""

    @property
    def held(self) -> bool:
        return self.held_id is not None


def resolve_section(raw: str) -> str:
    """The canonical section for a name (any case) or its ID prefix (``pat``, ``mis``...)."""
    by_slug = {slug: section for section, slug in SECTION_SLUGS.items()}
    section = match_section(raw) or by_slug.get(raw.strip().lower())
    if section is None:
        choices = ", ".join(f"{name!r} ({SECTION_SLUGS[name]})" for name in SECTION_NAMES)
        raise RuleEditError(f"unknown section {raw!r}; use one of {choices}")
    return section


def _find(playbook: dict[str, Any], name: str, path: Path) -> tuple[str, dict[str, Any]]:
    found = next(((s, e) for s, e in iter_entries(playbook) if e["name"] == name), None)
    if found is None:
        raise RuleEditError(f"no entry named {name!r} in {path} (see `acecode show`)")
    return found


def _cleaned(text: str) -> str:
    cleaned = clean_text(text)
    if cleaned is None:
        raise RuleEditError("the text is empty; nothing was changed")
    return cleaned


def _triage(op: dict[str, Any], path: Path, playbook: dict[str, Any], settings: Settings) -> Any:
    """The cycle's triage for one operation: a ``Triage`` (allowed, queued or dropped)."""
    from acecode.quarantine.gate import triage_operations

    triage = triage_operations([op], settings, playbook=playbook, playbook_path=path)
    if triage.dropped:
        _, why = triage.dropped[0]
        raise RuleEditError(f"not changed: {why} (see `acecode review`)")
    return triage


def checked_patterns(when: list[str] | None) -> list[dict[str, str]] | None:
    """``--when`` values as provenance's ``when`` (None when none are given, ``[]`` for
    ``[]``: no patterns); :class:`RuleEditError` naming the first one that cannot be used."""
    if when is None:
        return None
    from acecode.recall.pattern import InputPattern, PatternError
    from acecode.recall.quality import quality_problem

    found: list[dict[str, str]] = []
    for text in when:
        try:
            pattern = InputPattern.parse(text)
        except PatternError as exc:
            raise RuleEditError(f"--when: {exc}") from None
        problem = quality_problem(pattern)
        if problem:
            raise RuleEditError(f"--when {text!r}: {problem}; nothing was changed")
        found.append(pattern.to_dict())
    return found


def _apply(
    path: Path,
    op: dict[str, Any],
    how: str,
    reason: str,
    command: str,
    when: list[dict[str, str]] | None = None,
) -> tuple[Any, str | None]:
    """Apply ``op`` in one journaled transaction; returns its outcome and the cycle id."""
    with update_playbook(path) as txn:
        updated, outcomes = apply_operations_with_outcomes(
            txn.playbook, [op], name_prefix_for(txn.path)
        )
        outcome = outcomes[0] if outcomes else None
        if outcome is None or not outcome.applied:
            why = outcome.reason if outcome is not None else "nothing to apply"
            raise RuleEditError(f"not changed: {why}")
        entry = outcome.created or outcome.updated_after or outcome.removed[0][1]
        txn.playbook = updated
        txn.meta.update(
            kind=command,
            source=f"acecode {command}",
            operations=[outcome.as_dict()],
            removals={
                removed["name"]: {"cause": "delete", "reason": reason}
                for _, removed in outcome.removed
            },
            provenance={
                "agent": USER_AGENT,
                "entries": []
                if op["type"] == "DELETE"
                else [
                    {
                        "name": entry["name"],
                        "how": how,
                        "reason": reason,
                        **({"when": when} if when is not None else {}),
                    }
                ],
            },
        )
    return outcome, txn.meta.get("cycle_id")


def _screened(
    path: Path,
    op: dict[str, Any],
    current: dict[str, Any],
    settings: Settings | None,
    edit: RuleEdit,
    why: str,
    when: list[dict[str, str]] | None = None,
) -> RuleEdit:
    """Triage ``op``'s text, then hold it for review or apply it as ``edit`` describes."""
    triage = _triage(op, path, current, settings or load_settings())
    if triage.queued:
        item = triage.queued[0]
        edit.held_id, edit.held_rule, edit.held_detail = item.id, item.rule, item.detail
        return edit
    adding = op["type"] == "ADD"
    command, how = ("add", "added-by-user") if adding else ("edit", "edited-by-user")
    outcome, edit.cycle_id = _apply(path, op, how, why, command, when)
    if adding:
        edit.name = outcome.created["name"]
    return edit


def add_rule(
    playbook: str | Path | None,
    text: str,
    section: str,
    *,
    reason: str = "",
    settings: Settings | None = None,
    when: list[str] | None = None,
) -> RuleEdit:
    """Add ``text`` to ``section`` as a new entry (or hold it for review), with the input
    patterns ``when`` (``TOOL:PATTERN``)."""
    path = resolve_path(playbook)
    target = resolve_section(section)
    cleaned = _cleaned(text)
    patterns = checked_patterns(when)
    op = {"type": "ADD", "text": cleaned, "section": target}
    why = reason.strip() or "added by the user with `acecode add`"
    edit = RuleEdit("ADD", None, target, cleaned)
    return _screened(path, op, load_playbook(path), settings, edit, why, patterns)


def edit_rule(
    playbook: str | Path | None,
    name: str,
    text: str | None,
    *,
    reason: str = "",
    settings: Settings | None = None,
    when: list[str] | None = None,
) -> RuleEdit:
    """Replace the text of entry ``name`` (or hold the new text for review) and set its
    input patterns to ``when`` (``[]``: none; None: unchanged); with no ``text``, only
    the patterns."""
    path = resolve_path(playbook)
    current = load_playbook(path)
    section, entry = _find(current, name, path)
    patterns = checked_patterns(when)
    why = reason.strip() or "edited by the user with `acecode edit`"
    if text is None:
        if patterns is None:
            raise RuleEditError(
                f"give {name} a new text, --when TOOL:PATTERN or --no-when; nothing changed"
            )
        return _record_patterns(path, name, section, entry["text"], why, patterns)
    cleaned = _cleaned(text)
    if cleaned == entry["text"] and patterns is None:
        raise RuleEditError(f"{name} already has this text; nothing was changed")
    if cleaned == entry["text"]:
        return _record_patterns(path, name, section, cleaned, why, patterns or [])
    op = {"type": "UPDATE", "target_id": name, "text": cleaned}
    edit = RuleEdit("UPDATE", name, section, cleaned)
    return _screened(path, op, current, settings, edit, why, patterns)


def _record_patterns(
    path: Path, name: str, section: str, text: str, why: str, when: list[dict[str, str]]
) -> RuleEdit:
    """Give ``name`` the input patterns ``when`` in its provenance, the playbook unchanged
    (a provenance origin of its own, under the playbook lock)."""
    from acecode.store.journal import new_cycle_id
    from acecode.store.lock import playbook_lock
    from acecode.store.playbook_file import DEFAULT_LOCK_TIMEOUT
    from acecode.store.provenance_changes import record_provenance

    cycle_id = new_cycle_id()
    with playbook_lock(path, DEFAULT_LOCK_TIMEOUT):
        playbook = load_playbook(path)
        _find(playbook, name, path)
        plan = {"name": name, "how": "edited-by-user", "reason": why, "when": when}
        meta = {"cycle_id": cycle_id, "provenance": {"agent": USER_AGENT, "entries": [plan]}}
        record_provenance(path, playbook, playbook, meta)
    return RuleEdit("UPDATE", name, section, text)


def forget_rule(playbook: str | Path | None, name: str, *, reason: str = "") -> RuleEdit:
    """Delete entry ``name``; ``acecode undo`` or ``acecode restore NAME`` brings it back."""
    path = resolve_path(playbook)
    section, entry = _find(load_playbook(path), name, path)
    why = reason.strip() or "forgotten by the user with `acecode forget`"
    op = {"type": "DELETE", "target_id": name, "reason": why}
    _, cycle_id = _apply(path, op, "edited-by-user", why, "forget")
    return RuleEdit("DELETE", name, section, entry["text"], cycle_id)
