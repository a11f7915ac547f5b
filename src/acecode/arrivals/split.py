"""Which entries of a project playbook arrived from elsewhere, and which of those are held.

An entry *arrived* when its exact text is not known on this machine
(:mod:`acecode.arrivals.marks`): it came with a clone, a pull, a checkout, a
merge or an edit acecode did not make. An arrived entry is *held* (left out of
the injection and the top-up, and listed in ``acecode review``) when

- the user rejected it in review, or
- the floor holds its text (a finding, :mod:`acecode.arrivals.verdicts`), or
- the learning cycle's LLM safety review flagged it (:mod:`acecode.arrivals.safety`), or
- no review has passed it yet and it touches a class whose danger depends on
  intent or is in a language the user does not write in ("not reviewed", as
  for a learned text nobody could review).

Everything else arrived is injected as before. The user layer is never split:
it lives in the home folder, outside any repository, and only this machine
writes it.
"""

from __future__ import annotations

import os
from typing import Any

from acecode.arrivals.fingerprint import fingerprint, machine_key
from acecode.arrivals.marks import Marks, load_marks
from acecode.project.state_folder import STATE_FOLDER_NAME

# The kinds of verdict (acecode.arrivals.verdicts.FINDING and WAITS; a test keeps them
# equal), here so that a playbook without arrivals never loads that module.
FINDING, WAITS = "finding", "waits"

REJECTED_RULE = "rejected"
SAFETY_REVIEW_RULE = "safety-review"  # acecode.quarantine.gate.SAFETY_REVIEW_RULE
# Hex digits of a held entry's fingerprint the session-start notice remembers it by.
NOTICE_TAG_CHARS = 16


class Arrival:
    """One arrived entry: where it is, its text, whether it is held and why.

    ``tag`` is the text's fingerprint (:mod:`acecode.arrivals.fingerprint`);
    ``review`` is what the LLM safety review said (None: not reviewed yet, ``""``:
    safe, else the reason of its flag). A plain class: the hook builds many.
    """

    __slots__ = ("detail", "entry", "held", "review", "rule", "section", "tag")

    def __init__(self, section: str, entry: dict[str, Any], tag: str) -> None:
        self.section, self.entry, self.tag = section, entry, tag
        self.held, self.rule, self.detail = False, "", ""
        self.review: str | None = None

    @property
    def name(self) -> str:
        return str(self.entry.get("name", ""))

    @property
    def text(self) -> str:
        return str(self.entry.get("text", ""))


class Split:
    """A playbook split: ``playbook`` without the held entries, the number of ``entries``
    it had, and its ``arrived`` entries (held or not)."""

    __slots__ = ("arrived", "entries", "playbook")

    def __init__(self, playbook: dict[str, Any], entries: int, arrived: list[Arrival]) -> None:
        self.playbook, self.entries, self.arrived = playbook, entries, arrived

    @property
    def held(self) -> list[Arrival]:
        """The arrived entries left out, rejected ones included."""
        return [arrival for arrival in self.arrived if arrival.held]

    @property
    def awaiting_review(self) -> list[Arrival]:
        """The held entries the user has not rejected: what ``acecode review`` lists."""
        return [a for a in self.arrived if a.held and a.rule != REJECTED_RULE]

    def summary(self) -> dict[str, Any]:
        """What the injection cache keeps for the session-start notice: the counts and
        the held entries awaiting review (a short fingerprint, the name, the rule)."""
        return {
            "entries": self.entries,
            "arrived": len(self.arrived),
            "held": [
                [arrival.tag[:NOTICE_TAG_CHARS], arrival.name, arrival.rule]
                for arrival in self.awaiting_review
            ],
        }


def state_dir_of(playbook_path: str) -> str:
    """The state folder beside ``playbook_path`` (``acecode.project.layer.Layer.folder``), without
    pathlib: the injection hook calls it."""
    return os.path.join(os.path.dirname(os.path.abspath(playbook_path)), STATE_FOLDER_NAME)


def _hold(arrival: Arrival, marks: Marks, verdict: tuple[str, str, str]) -> None:
    """Decide ``arrival`` in the order of the module docstring; what the review said is
    kept either way."""
    if arrival.tag in marks.reviewed:
        arrival.review = marks.reviewed[arrival.tag] or ""
    kind, rule, detail = verdict
    if arrival.tag in marks.rejected:
        rule, detail = REJECTED_RULE, "you rejected it in review"
    elif kind != FINDING and arrival.review:
        rule, detail = SAFETY_REVIEW_RULE, arrival.review
    elif not kind or (kind == WAITS and arrival.review is not None):
        return  # it passes, or it waited for a review that passed it
    arrival.held, arrival.rule, arrival.detail = True, rule, detail


def _without(playbook: dict[str, Any], held: list[Arrival]) -> dict[str, Any]:
    """``playbook`` without the ``held`` entries (a copy; the entries are shared)."""
    if not held:
        return playbook
    out = {id(arrival.entry) for arrival in held}
    kept = dict(playbook)
    kept["sections"] = {
        section: [entry for entry in entries if id(entry) not in out]
        for section, entries in (playbook.get("sections") or {}).items()
    }
    return kept


def split_arrivals(
    playbook_path: str,
    playbook: dict[str, Any],
    max_chars: int,
    languages: str,
    write: bool = True,
) -> Split:
    """Split ``playbook`` (read from ``playbook_path``) as the module docstring says;
    ``max_chars`` and ``languages`` are the project's settings (``languages`` "": the
    languages of the user's own requests). ``write=False`` writes nothing in the state
    folder (``acecode doctor``)."""
    from acecode.playbook.schema import iter_entries

    entries = list(iter_entries(playbook))
    key = machine_key()
    state = state_dir_of(playbook_path)
    marks = load_marks(state, key, create=write) if key is not None else Marks()
    arrived = []
    for section, entry in entries:
        # Without a key nothing is known; the unkeyed fingerprint only tells texts apart.
        tag = fingerprint(key or b"", entry["text"])
        if key is None or tag not in marks.known:
            arrived.append(Arrival(section, entry, tag))
    if arrived:
        from acecode.arrivals.verdicts import floor_verdicts

        texts = list(dict.fromkeys(arrival.text for arrival in arrived))
        verdicts = floor_verdicts(state, key, texts, max_chars, languages, write)
        for arrival in arrived:
            _hold(arrival, marks, verdicts[arrival.text])
    split = Split(playbook, len(entries), arrived)
    split.playbook = _without(playbook, split.held)
    return split
