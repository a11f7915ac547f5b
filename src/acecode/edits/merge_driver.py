"""What ``acecode merge-driver %O %A %B %P`` does when git merges the playbook.

git calls the driver with three temporary files (the merge base, ours and
theirs) and reads the result back from the second one. This module reads
them, merges them with :func:`acecode.playbook.merge3.merge_playbooks`, holds
the texts the merge could not keep in the review queue, writes the result
over ``ours`` (atomically, in the canonical serialisation of
``save_playbook``) and records the merge in the history journal as a cycle of
kind ``merge``, so ``acecode history`` shows it and ``acecode undo`` can
revert it.

Failure means git's conflict: when any version cannot be read as a
playbook, or a text cannot be queued, ``ours`` is left exactly as git gave
it and :class:`MergeDriverError` carries one line for the user; git then
marks the file as conflicted.

For git's internal merge of two merge bases (criss-cross histories; git
runs the driver named by ``merge.acecode.recursive``) nothing is queued or
journaled: that result is only a base for the real merge.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.errors import AcecodeError
from acecode.playbook.merge3 import DuplicateNameError, MergeOutcome, ReviewItem, merge_playbooks
from acecode.playbook.schema import empty_playbook
from acecode.project.layer import Layer
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookError
from acecode.store.playbook_file import serialize_playbook
from acecode.store.reading import read_playbook

REVIEW_RULE = "merge-conflict"
JOURNAL_KIND = "merge"


class MergeDriverError(AcecodeError):
    """The merge was not done; ``ours`` is untouched and git keeps the conflict."""


@dataclass(frozen=True)
class Labels:
    """How the two sides are named in messages, the review queue and the journal."""

    ours: str
    theirs: str
    action: str  # what git is doing, as a command: "git merge feature", "git rebase (pick)"

    def of(self, side: str) -> str:
        return self.ours if side == "ours" else self.theirs


@dataclass
class DriverResult:
    """What the driver did, for the one-line report on stderr."""

    playbook: Path
    outcome: MergeOutcome
    changed: bool
    # Each held text with its review item ID, or None when a reviewer rejected it before.
    queued: list[tuple[ReviewItem, str | None]] = field(default_factory=list)
    cycle_id: str | None = None
    pins_problem: str | None = None  # why pins could not follow renumbered entries


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def git_labels(environ: dict[str, str] | None = None) -> Labels:
    """Name the sides from what git exposes to a merge driver.

    Ours is the checked-out branch (or HEAD's short hash while rebasing);
    theirs is the branch named by ``git merge``'s ``GITHEAD_<hash>`` variable,
    else ``theirs`` (cherry-pick and rebase name no branch).
    """
    env = os.environ if environ is None else environ
    ours = _git("symbolic-ref", "--quiet", "--short", "HEAD") or _git(
        "rev-parse", "--short", "HEAD"
    )
    heads = [value for key, value in env.items() if key.startswith("GITHEAD_") and value]
    theirs = heads[0] if len(heads) == 1 else "theirs"
    action = env.get("GIT_REFLOG_ACTION")
    return Labels(ours or "ours", theirs, f"git {action}" if action else "git merge")


_SIDE_NAMES = {"base": "the merge base's version", "ours": "our version", "theirs": "their version"}


def _read_side(path: Path, side: str) -> dict[str, Any]:
    """One version as a playbook; an empty base (no common ancestor) is an empty playbook."""
    what = _SIDE_NAMES[side]
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc
        raise MergeDriverError(f"cannot read {what} {path}: {reason}") from exc
    if side == "base" and not raw.strip():
        return empty_playbook()
    if not raw.strip():
        raise MergeDriverError(f"{what} is an empty file, not a playbook")
    try:
        return read_playbook(path)
    except PlaybookError as exc:
        reason = str(exc).removeprefix(f"{path}: ").removesuffix("; file left untouched")
        raise MergeDriverError(f"{what} is not a valid playbook: {reason}") from exc


def _detail(item: ReviewItem, labels: Labels) -> str:
    side, other = labels.of(item.side), labels.of("theirs" if item.side == "ours" else "ours")
    counters = f"helpful {item.helpful}, harmful {item.harmful}"
    if item.kind == "edited-both":
        return (
            f"{item.name} was edited on both {other} and {side}; {other}'s text was kept, "
            f"this is {side}'s ({counters}); approve to replace it"
        )
    return (
        f"{item.name} was deleted on {other} but changed on {side}; the deletion stands, "
        f"this is {side}'s version ({counters}); approve to bring it back under a new ID "
        "with these counters"
    )


def _queue(result: DriverResult, labels: Labels) -> None:
    from acecode.quarantine.queue import QueueError, queue_text

    for item in result.outcome.review:
        try:
            queued = queue_text(
                item.text,
                rule=REVIEW_RULE,
                detail=_detail(item, labels),
                section=item.section,
                operation=item.operation,
                target_ids=[item.name] if item.operation == "UPDATE" else [],
                playbook=result.playbook,
                was=item.name if item.operation == "ADD" else None,
                counters=(item.helpful, item.harmful) if item.operation == "ADD" else None,
            )
        except (QueueError, ValueError) as exc:
            raise MergeDriverError(f"could not hold {item.name}'s text for review: {exc}") from exc
        result.queued.append((item, None if queued is None else queued.id))


def _journal(result: DriverResult, ours: dict[str, Any], labels: Labels) -> None:
    from acecode.store.journal import journal_saved_change
    from acecode.store.provenance_changes import record_provenance

    outcome = result.outcome
    removals = {
        r.old: {"cause": "renumber", "reason": f"renumbered to {r.new} as on {labels.theirs}"}
        for r in outcome.renamed
    }
    removals |= {
        name: {"cause": "delete", "reason": f"deleted by the git merge ({labels.action})"}
        for name in outcome.deleted
    }
    meta: dict[str, Any] = {
        "kind": JOURNAL_KIND,
        "source": labels.action,
        "removals": removals,
        "merge": {
            "ours": labels.ours,
            "theirs": labels.theirs,
            "review": [
                {"name": item.name, "kind": item.kind, "side": item.side, "item": item_id}
                for item, item_id in result.queued
            ],
            "renumbered": [{"from": r.old, "to": r.new} for r in outcome.renumbered],
            "renamed": [{"from": r.old, "to": r.new} for r in outcome.renamed],
            "folded": outcome.folded,
        },
    }
    result.cycle_id = journal_saved_change(result.playbook, ours, outcome.playbook, meta)
    record_provenance(result.playbook, ours, outcome.playbook, meta)


def run_driver(
    base_file: Path,
    ours_file: Path,
    theirs_file: Path,
    playbook: Path,
    *,
    virtual_base: bool = False,
    labels: Labels | None = None,
) -> DriverResult:
    """Merge the three versions into ``ours_file`` (see the module docstring).

    ``playbook`` is the file being merged (git's ``%P``, relative to the
    repository root where git runs the driver): its state folder receives the
    review items and the journal. Raises ``MergeDriverError``.
    """
    base = _read_side(base_file, "base")
    ours = _read_side(ours_file, "ours")
    theirs = _read_side(theirs_file, "theirs")
    try:
        outcome = merge_playbooks(base, ours, theirs, virtual_base=virtual_base)
    except DuplicateNameError as exc:
        raise MergeDriverError(f"cannot merge by entry name: {exc}") from exc
    text = serialize_playbook(outcome.playbook)
    result = DriverResult(playbook, outcome, changed=text != serialize_playbook(ours))
    if virtual_base:
        _write(ours_file, text)
        return result
    labels = labels or git_labels()
    if outcome.review or result.changed:
        layer = Layer(playbook)
        try:
            layer.ensure_folder()  # git-ignored before the queue or journal is created in it
        except OSError as exc:
            raise MergeDriverError(f"cannot create {layer.folder}: {exc.strerror or exc}") from exc
    _queue(result, labels)
    _write(ours_file, text)
    if result.changed:
        _journal(result, ours, labels)
    if outcome.renamed:
        result.pins_problem = _move_pins(playbook, outcome)
    return result


def _move_pins(playbook: Path, outcome: MergeOutcome) -> str | None:
    """Pins follow this clone's entries the merge renumbered; the reason when they could not."""
    from acecode.project.pins import PinsFileError, pins_path, rename_pins

    try:
        rename_pins(pins_path(playbook), {r.old: r.new for r in outcome.renamed})
    except (PinsFileError, PlaybookError) as exc:
        return str(exc)
    return None


def _write(ours_file: Path, text: str) -> None:
    try:
        atomic_write_text(ours_file, text)
    except PlaybookError as exc:
        raise MergeDriverError(str(exc)) from exc
