"""Which entries of a project playbook arrived from elsewhere, and which of those are held.

An entry *arrived* when its exact text is not known on this machine
(:mod:`acecode.arrivals.marks`): it came with a clone, a pull, a checkout, a
merge or an edit acecode did not make. An arrived entry is *held* (left out of
the injection and the top-up, and listed in ``acecode review``) when

- the user rejected it in review, or
- the floor has not screened it yet (``not-screened``: the first screen of a
  large arrival is spread over several hooks, :mod:`acecode.arrivals.verdicts`), or
- the floor holds its text (a finding), or
- an LLM safety review of this machine flagged it (the background review,
  :mod:`acecode.pipeline.arrival_review`, or a learning cycle's,
  :mod:`acecode.arrivals.safety`), or
- no review has passed it yet and it touches a class whose danger depends on
  intent or is in a language the user does not write in ("not reviewed", as
  for a learned text nobody could review), or
- with ``need_review`` (an LLM provider is configured, so a review will come:
  the SessionStart hook starts it in the background), no review has passed it
  yet at all (``not-reviewed``).

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
NOT_SCREENED_RULE = "not-screened"
NOT_REVIEWED_RULE = "not-reviewed"  # acecode.quarantine.unreviewed.NOT_REVIEWED
AWAITING_REVIEW = "no LLM review on this machine has passed it yet (reviewed in the background)"
AWAITING_SCREEN = "not screened yet (the screen goes on at the next hook and in the background)"
# Hex digits of a held entry's fingerprint the session-start notice remembers it by.
NOTICE_TAG_CHARS = 16


class Arrival:
    """One arrived entry: where it is, its text, whether it is held and why.

    ``tag`` is the text's fingerprint (:mod:`acecode.arrivals.fingerprint`);
    ``review`` is what the LLM safety review said (None: not reviewed yet, ``""``:
    safe, else the reason of its flag). A plain class: the hook builds many.
    """

    __slots__ = (
        "awaiting",
        "detail",
        "entry",
        "finding",
        "held",
        "review",
        "rule",
        "section",
        "tag",
    )

    def __init__(self, section: str, entry: dict[str, Any], tag: str) -> None:
        self.section, self.entry, self.tag = section, entry, tag
        self.held, self.rule, self.detail = False, "", ""
        self.review: str | None = None
        self.finding = False  # the floor holds it: no review releases it
        # Held only until the screen or the background review reaches it.
        self.awaiting = False

    @property
    def screened(self) -> bool:
        return self.rule != NOT_SCREENED_RULE

    @property
    def for_a_person(self) -> bool:
        """Held until the user decides in ``acecode review``: not only waiting for the
        screen or for the background review to reach it."""
        return self.held and not self.awaiting and self.rule != REJECTED_RULE

    @property
    def awaits_llm_review(self) -> bool:
        """Screened, neither rejected nor a finding, and no LLM review has answered yet:
        what the background review sends."""
        return (
            self.screened
            and self.rule != REJECTED_RULE
            and not self.finding
            and (self.review is None)
        )

    @property
    def name(self) -> str:
        return str(self.entry.get("name", ""))

    @property
    def text(self) -> str:
        return str(self.entry.get("text", ""))


class Split:
    """A playbook split: ``playbook`` without the held entries, the number of ``entries``
    it had, and its ``arrived`` entries (held or not)."""

    __slots__ = ("arrived", "entries", "need_review", "playbook")

    def __init__(
        self,
        playbook: dict[str, Any],
        entries: int,
        arrived: list[Arrival],
        need_review: bool = False,
    ) -> None:
        self.playbook, self.entries, self.arrived = playbook, entries, arrived
        self.need_review = need_review

    @property
    def held(self) -> list[Arrival]:
        """The arrived entries left out, rejected ones included."""
        return [arrival for arrival in self.arrived if arrival.held]

    @property
    def awaiting_review(self) -> list[Arrival]:
        """The held entries the user decides on: what ``acecode review`` lists (not the
        rejected ones, nor those only waiting for the screen or the background review)."""
        return [arrival for arrival in self.arrived if arrival.for_a_person]

    @property
    def unscreened(self) -> int:
        return sum(1 for arrival in self.arrived if not arrival.screened)

    @property
    def reviewing(self) -> int:
        """Arrived entries held only until the background review reaches them."""
        return sum(1 for arrival in self.arrived if arrival.awaiting and arrival.screened)

    @property
    def complete(self) -> bool:
        """Whether the floor has screened every arrived entry."""
        return self.unscreened == 0

    def summary(self) -> dict[str, Any]:
        """What the injection cache keeps for the session-start notice: the counts, the
        held entries awaiting review (a short fingerprint, the name, the rule), how many
        wait for the screen and for the background review, and whether a review comes."""
        return {
            "entries": self.entries,
            "arrived": len(self.arrived),
            "held": [
                [arrival.tag[:NOTICE_TAG_CHARS], arrival.name, arrival.rule]
                for arrival in self.awaiting_review
            ],
            "unscreened": self.unscreened,
            "reviewing": self.reviewing,
            "reviewed": sum(1 for arrival in self.arrived if arrival.review is not None),
            "injected": sum(1 for arrival in self.arrived if not arrival.held),
            "need_review": self.need_review,
        }


def state_dir_of(playbook_path: str) -> str:
    """The state folder beside ``playbook_path`` (``acecode.project.layer.Layer.folder``), without
    pathlib: the injection hook calls it."""
    return os.path.join(os.path.dirname(os.path.abspath(playbook_path)), STATE_FOLDER_NAME)


def _hold(
    arrival: Arrival, marks: Marks, verdict: tuple[str, str, str] | None, need_review: bool
) -> None:
    """Decide ``arrival`` in the order of the module docstring; what the review said is
    kept either way."""
    if arrival.tag in marks.reviewed:
        arrival.review = marks.reviewed[arrival.tag] or ""
    kind, rule, detail = verdict or ("", NOT_SCREENED_RULE, AWAITING_SCREEN)
    arrival.finding = kind == FINDING
    if arrival.tag in marks.rejected:
        rule, detail = REJECTED_RULE, "you rejected it in review"
    elif verdict is None:
        arrival.awaiting = True  # not screened yet
    elif kind != FINDING and arrival.review:
        rule, detail = SAFETY_REVIEW_RULE, arrival.review
    elif kind != FINDING and arrival.review is not None:
        return  # a review passed it (the floor did too)
    elif kind != FINDING and need_review:
        arrival.awaiting = True  # the background review will answer
        if kind != WAITS:  # the floor passed it ("", or the floor alone asked)
            rule, detail = NOT_REVIEWED_RULE, AWAITING_REVIEW
    elif not kind:
        return  # it passes: no provider, so the floor and the waits decide
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
    *,
    need_review: bool = False,
    deadline: float | None = None,
) -> Split:
    """Split ``playbook`` (read from ``playbook_path``) as the module docstring says;
    ``max_chars`` and ``languages`` are the project's settings (``languages`` "": the
    languages of the user's own requests). ``write=False`` writes nothing in the state
    folder (``acecode doctor``). ``need_review``: hold every arrival no LLM review has
    passed (a provider is configured). ``deadline``: screen until then
    (``time.monotonic()``), the rest is held as not screened yet."""
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
        verdicts = floor_verdicts(
            state, key, texts, max_chars, languages, write, deadline, waits=not need_review
        )
        for arrival in arrived:
            _hold(arrival, marks, verdicts[arrival.text], need_review)
    split = Split(playbook, len(entries), arrived, need_review)
    split.playbook = _without(playbook, split.held)
    return split
