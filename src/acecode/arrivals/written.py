"""What a save on this machine adds to the record: the texts it wrote.

Every write of a playbook by acecode on this machine goes through
``update_playbook`` (learning cycles, ``acecode add`` and ``edit``, review
approvals, de-duplication and consolidation, ``acecode move``, undo and
restore) or ``save_playbook`` (the library), and both call
:func:`record_written` after the save. A text counts as written here when the
saved playbook holds it and the playbook before the save did not, whichever
entry holds it: a text that only moved, was renamed or had its counters changed
keeps the status it had. Not counted:

- undo and restore: they bring back texts the file held before, whose status
  the cycles that wrote them decided (an undo must not turn a teammate's
  entry, once replaced by a learned text, into one of this machine's);
- the git merge driver, which does not call this at all: a merge brings a
  teammate's texts, arrivals exactly as a fast-forward pull brings them.

Never raises: the playbook is saved; a record that cannot be written only
means the new texts are screened as arrivals, which the floor let through
when they were learned anyway.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from acecode.arrivals.upgrade import NOT_WRITTEN_HERE
from acecode.project.layer import Layer, Where


def _texts(playbook: dict[str, Any]) -> set[str]:
    from acecode.playbook.schema import iter_entries

    return {entry["text"] for _section, entry in iter_entries(playbook)}


def new_texts(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """The texts ``after`` holds and ``before`` did not."""
    return _texts(after) - _texts(before)


def record_written(
    playbook_path: Where, before: dict[str, Any], after: dict[str, Any], kind: Any = None
) -> None:
    """Record as known the texts this save wrote (see the module docstring)."""
    if kind in NOT_WRITTEN_HERE:
        return
    texts = new_texts(before, after)
    if not texts:
        return
    mark_known(playbook_path, texts)


def add_marks_beside(playbook: Where, key: bytes, lines: Iterable[tuple[str, str, str]]) -> str:
    """Append ``lines`` (fingerprint, mark, detail) to the marks of the layer ``playbook``
    names; returns its state folder. Raises ``OSError`` when they cannot be written."""
    from acecode.arrivals.marks import add_marks

    state = str(Layer.of(playbook).folder)
    add_marks(state, key, list(lines))
    return state


def mark_known(playbook_path: Where, texts: set[str] | list[str]) -> None:
    """Record ``texts`` as known beside ``playbook_path``; warns instead of raising."""
    from acecode.arrivals.fingerprint import fingerprint, machine_key
    from acecode.arrivals.marks import KNOWN

    key = machine_key()
    if key is None:
        return
    try:
        add_marks_beside(
            playbook_path, key, [(fingerprint(key, text), KNOWN, "") for text in sorted(texts)]
        )
    except OSError as exc:
        from acecode.project.diagnostics import warn

        warn(
            f"could not record the texts written to {Layer.of(playbook_path).playbook_file} "
            f"as this machine's ({exc.strerror or exc}); they will be screened as arrivals"
        )
