"""``acecode review`` for entries that arrived with the repository and are held.

A held arrival is an entry of the playbook file, not a proposal: it stays in the
file whatever is decided here, because the file is the team's. The decision is
this machine's:

- **approve**: the text becomes known here (:mod:`acecode.arrivals.marks`), so it is
  injected from the next session on, like the entries this machine learned;
- **reject**: the text stays out of this machine's sessions for good, even if a
  later floor or review would pass it, and no learning cycle proposes it again
  (it is remembered as rejected in the review queue). The shared file is not
  changed: ``acecode forget NAME`` deletes the entry from it, a change to commit
  for the whole team.

An item's ID is the first 8 hex digits of its normalised text's hash, like the
queue's (``acecode.quarantine.queue``); a unique prefix of 4 or more also works.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from acecode.arrivals.split import REJECTED_RULE, SAFETY_REVIEW_RULE, Arrival, Split
from acecode.errors import AcecodeError

ORIGIN = "arrived with the repository"
ID_LENGTH = 8
MIN_ID_PREFIX = 4


class ArrivalError(AcecodeError):
    """An ID that names no held arrival, or several; one line."""


@dataclass(frozen=True)
class HeldArrival:
    """A held arrival as ``acecode review`` shows it."""

    id: str
    name: str
    section: str
    text: str
    rule: str
    detail: str
    # What the learning cycle's safety review said: None not yet, "" safe, else its reason.
    review: str | None

    @property
    def reason(self) -> str:
        """Why it is held ("not reviewed" for a wait, else the rule), and the safety
        review's opinion when there is one."""
        from acecode.quarantine.unreviewed import hold_label

        reason = hold_label(self.rule) + (f": {self.detail}" if self.detail else "")
        if self.review is not None and self.rule != SAFETY_REVIEW_RULE:
            reason += f"; safety review: {self.review or 'safe'}"
        return reason


def _held(arrival: Arrival) -> HeldArrival:
    from acecode.quarantine.normalize import text_key

    return HeldArrival(
        id=text_key(arrival.text)[:ID_LENGTH],
        name=arrival.name,
        section=arrival.section,
        text=arrival.text,
        rule=arrival.rule,
        detail=arrival.detail,
        review=arrival.review,
    )


def split_playbook(playbook: str | Path | None = None) -> Split | None:
    """The split of the project playbook (or ``playbook``) under the project's settings;
    None for the user layer, which is never split. Raises ``PlaybookError``."""
    from acecode.arrivals.mode import needs_review
    from acecode.arrivals.split import split_arrivals, state_dir_of
    from acecode.project.config import load_settings
    from acecode.project.layers import is_user_layer
    from acecode.store import load_playbook, resolve_path

    path = resolve_path(playbook)
    if is_user_layer(path) or not path.exists():
        return None
    settings = load_settings()
    return split_arrivals(
        str(path),
        load_playbook(path),
        settings.max_rule_chars,
        settings.languages,
        need_review=needs_review(state_dir_of(str(path))),
    )


def held_arrivals(
    playbook: str | Path | None = None, *, awaiting: bool = False
) -> list[HeldArrival]:
    """The held arrivals awaiting a decision, in playbook order; with ``awaiting`` also
    those only waiting for the background review (a person may decide before it does)."""
    split = split_playbook(playbook)
    if split is None:
        return []
    chosen = split.awaiting_review
    if awaiting:
        chosen = [a for a in split.arrived if a.held and a.rule != REJECTED_RULE]
    return [_held(arrival) for arrival in chosen]


def waiting_counts(playbook: str | Path | None = None) -> tuple[int, int]:
    """``(arrived entries waiting for the background review, not screened yet)``."""
    split = split_playbook(playbook)
    return (0, 0) if split is None else (split.reviewing, split.unscreened)


def matching(item_id: str, playbook: str | Path | None = None) -> list[HeldArrival]:
    """The held arrivals ``item_id`` names: its exact ID, else those it is a prefix of
    (4 characters or more)."""
    wanted = item_id.strip().lower()
    held = held_arrivals(playbook, awaiting=True)
    exact = [item for item in held if item.id == wanted]
    if exact or len(wanted) < MIN_ID_PREFIX:
        return exact
    return [item for item in held if item.id.startswith(wanted)]


def _one(item_id: str, playbook: str | Path | None) -> HeldArrival:
    found = matching(item_id, playbook)
    if not found:
        raise ArrivalError(f"no held entry with ID {item_id!r} (see `acecode review`)")
    if len({item.id for item in found}) > 1:
        raise ArrivalError(f"ID {item_id!r} is ambiguous; give more characters")
    return found[0]


def _mark(playbook: str | Path | None, text: str, mark: str) -> None:
    from acecode.arrivals.fingerprint import fingerprint, machine_key
    from acecode.arrivals.written import add_marks_beside

    key = machine_key()
    if key is None:
        raise ArrivalError(
            "cannot record the decision: this machine's key cannot be read or created "
            "(~/.claude/acecode-user/acecode/machine-key)"
        )
    try:
        add_marks_beside(playbook, key, [(fingerprint(key, text), mark, "")])
    except OSError as exc:
        from acecode.project.layer import Layer

        state = Layer.of(playbook).folder
        raise ArrivalError(f"cannot record the decision in {state}: {exc.strerror or exc}") from exc


def approve_arrival(item_id: str, playbook: str | Path | None = None) -> HeldArrival:
    """Make a held arrival's text known here: it is injected from the next session on."""
    from acecode.arrivals.marks import KNOWN

    item = _one(item_id, playbook)
    _mark(playbook, item.text, KNOWN)
    return item


def reject_arrival(item_id: str, playbook: str | Path | None = None) -> HeldArrival:
    """Keep a held arrival out of this machine's sessions for good (the file is unchanged)."""
    from acecode.arrivals.marks import REJECTED
    from acecode.quarantine.queue import QueueError
    from acecode.quarantine.queue_decisions import remember_rejection

    item = _one(item_id, playbook)
    _mark(playbook, item.text, REJECTED)
    try:
        remember_rejection(item.text, rule=item.rule, item_id=item.id, playbook=playbook)
    except QueueError as exc:
        raise ArrivalError(
            f"{item.id} is kept out of this machine's sessions, but the review queue could "
            f"not remember it as rejected: {exc}"
        ) from exc
    return item
