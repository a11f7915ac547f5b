"""Three-way merge of playbooks by entry name, for ``acecode merge-driver``.

Pure: playbook dicts in, a merged playbook and the texts held for review out,
no I/O. The rules (docs/team.md has them as a table):

* **Counters** add both sides' increments to the base:
  ``base + (ours - base) + (theirs - base)``, never below 0. An entry that is
  identical on both sides (same section, text and counters) is taken as it
  is: both branches carry the same change (a cherry-picked commit, a branch
  merged both ways), and git too takes an identical change once.
* **Text** edited on one side takes that edit. Edited differently on both
  sides, ours is kept and theirs is held for review as an UPDATE of the entry.
* **Section**: a move on one side is taken; moved to two different sections,
  ours wins (the text is in the playbook either way).
* **Deleted on one side**: the deletion stands when the other side left the
  entry exactly as it was in the base. When the other side changed anything
  (text, counters or section), the deletion still stands and the other
  side's version is held for review as an ADD: approving it brings it back.
  Nothing is lost and neither branch's decision is silently overruled.
* **New on both sides under the same ID**: the same text is one entry
  (counters added); different texts keep ours under the ID and give theirs
  the next free ID of its section. A new entry of theirs whose text ours
  also added under another ID is the same lesson: one entry, counters added.

In ``virtual_base`` mode (git's internal merge of two merge bases in a
criss-cross history) nothing is held for review: whatever the two bases
disagree on falls back to their common ancestor (its text, its section, the
entry itself), and a same-ID clash of new texts is left out, so the outer
merge still sees both sides' versions as changes and applies the rules above.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from acecode.errors import AcecodeError
from acecode.playbook.schema import (
    PLAYBOOK_VERSION,
    SECTION_NAMES,
    SECTION_SLUGS,
    empty_sections,
    format_keypoint_name,
    iter_entries,
    max_slug_number,
    new_entry,
)

Side = Literal["ours", "theirs"]
ConflictKind = Literal["edited-both", "deleted-edited"]
_ABSENT = object()


class DuplicateNameError(AcecodeError, ValueError):
    """One side names two entries alike, so a merge by name is ambiguous."""

    def __init__(self, side: str, name: str) -> None:
        super().__init__(f"{side}: entry name {name!r} appears more than once")
        self.side, self.name = side, name


@dataclass(frozen=True)
class Located:
    """An entry with its section and position in one playbook."""

    section: str
    position: int
    entry: dict[str, Any]

    @property
    def text(self) -> str:
        return self.entry["text"]

    def same_as(self, other: Located | None) -> bool:
        """Same section and same content (position aside)."""
        return other is not None and (self.section, self.entry) == (other.section, other.entry)


@dataclass(frozen=True)
class ReviewItem:
    """A text the merge could not keep without overruling the other side.

    ``operation`` is what approving it does: ``UPDATE`` puts ``text`` into
    entry ``name`` (both sides edited it), ``ADD`` brings the entry back
    under a new ID (one side deleted what the other side changed).
    ``side`` is the branch the text comes from, ``kept`` what the playbook
    holds for ``name`` after the merge (None when it was deleted).
    """

    name: str
    kind: ConflictKind
    side: Side
    section: str
    text: str
    helpful: int
    harmful: int
    kept: str | None

    @property
    def operation(self) -> str:
        return "UPDATE" if self.kind == "edited-both" else "ADD"


@dataclass(frozen=True)
class Renumbered:
    """Theirs' new entry that clashed with ours' new entry of the same ID."""

    old: str
    new: str
    section: str


@dataclass
class MergeOutcome:
    """The merged playbook and what the merge decided beyond taking one side."""

    playbook: dict[str, Any]
    review: list[ReviewItem] = field(default_factory=list)
    renumbered: list[Renumbered] = field(default_factory=list)
    folded: dict[str, str] = field(default_factory=dict)  # theirs' new ID -> entry with its text
    deleted: list[str] = field(default_factory=list)


def _index(playbook: dict[str, Any], side: str) -> dict[str, Located]:
    where: dict[str, Located] = {}
    positions = dict.fromkeys(SECTION_NAMES, 0)
    for section, entry in iter_entries(playbook):
        name = entry["name"]
        if name in where:
            raise DuplicateNameError(side, name)
        where[name] = Located(section, positions[section], entry)
        positions[section] += 1
    return where


def _pick(base: Any, ours: Any, theirs: Any, *, on_conflict: Any) -> Any:
    """Classic three-way choice for one value: the side that changed it wins."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    return on_conflict


def _counter(key: str, base: Located | None, ours: Located, theirs: Located) -> int:
    start = base.entry[key] if base is not None else 0
    return max(0, ours.entry[key] + theirs.entry[key] - start)


def _later(ours: Any, theirs: Any) -> Any:
    """The later of two ``last_updated`` stamps (ours when they cannot be compared)."""
    if ours is None or theirs is None:
        return theirs if ours is None else ours
    try:
        later = datetime.fromisoformat(theirs) > datetime.fromisoformat(ours)
    except (TypeError, ValueError):
        return ours
    return theirs if later else ours


@dataclass
class _Placed:
    """A result entry and where it sorts in its section: ours' order, then theirs'."""

    section: str
    entry: dict[str, Any]
    order: tuple[int, int]


class _Merger:
    """One merge: first every name on its own, then theirs' new entries against ours'."""

    def __init__(
        self,
        base: dict[str, Any],
        ours: dict[str, Any],
        theirs: dict[str, Any],
        virtual_base: bool,
    ) -> None:
        self.base, self.ours, self.theirs = (
            _index(base, "base"),
            _index(ours, "ours"),
            _index(theirs, "theirs"),
        )
        self.virtual = virtual_base
        self.placed: dict[str, _Placed] = {}
        self.outcome = MergeOutcome(playbook={})
        self.theirs_new: list[str] = []  # theirs' new IDs left for after the named pass

    def _place(self, name: str, section: str, entry: dict[str, Any]) -> None:
        ours, theirs = self.ours.get(name), self.theirs.get(name)
        if ours is not None and ours.section == section:
            order = (0, ours.position)
        elif theirs is not None and theirs.section == section:
            order = (1, theirs.position)
        else:
            base = self.base[name]  # the only other place a section can come from
            order = (2, base.position)
        self.placed[name] = _Placed(section, entry, order)

    def _hold(self, name: str, kind: ConflictKind, side: Side, held: Located) -> None:
        kept = self.placed[name].entry["text"] if name in self.placed else None
        self.outcome.review.append(
            ReviewItem(
                name=name,
                kind=kind,
                side=side,
                section=held.section,
                text=held.text,
                helpful=held.entry["helpful"],
                harmful=held.entry["harmful"],
                kept=kept,
            )
        )

    def _both(self, name: str, base: Located | None, ours: Located, theirs: Located) -> None:
        """The entry exists on both sides (and maybe in the base)."""
        if ours.same_as(theirs):
            self._place(name, ours.section, ours.entry)
            return
        fallback_section = base.section if self.virtual and base else ours.section
        section = _pick(
            base.section if base else _ABSENT,
            ours.section,
            theirs.section,
            on_conflict=fallback_section,
        )
        conflict = base is not None and len({base.text, ours.text, theirs.text}) == 3
        if conflict and base is not None:
            text = base.text if self.virtual else ours.text
        else:
            text = _pick(base.text if base else _ABSENT, ours.text, theirs.text, on_conflict=None)
        entry = new_entry(
            name,
            text,
            _counter("helpful", base, ours, theirs),
            _counter("harmful", base, ours, theirs),
        )
        self._place(name, section, entry)
        if conflict and not self.virtual:
            self._hold(name, "edited-both", "theirs", theirs)

    def _one_deleted(self, name: str, base: Located, kept: Located, side: Side) -> None:
        """``side`` still has the entry, the other side deleted it."""
        if kept.same_as(base):
            self.outcome.deleted.append(name)
        elif self.virtual:
            self._place(name, base.section, base.entry)
        else:
            self.outcome.deleted.append(name)
            self._hold(name, "deleted-edited", side, kept)

    def merge_named(self) -> None:
        names = [*self.ours, *(n for n in self.theirs if n not in self.ours)]
        names += [n for n in self.base if n not in self.ours and n not in self.theirs]
        for name in names:
            base, ours, theirs = self.base.get(name), self.ours.get(name), self.theirs.get(name)
            if base is None and theirs is not None and (ours is None or ours.text != theirs.text):
                if ours is not None:
                    self._place(name, ours.section, ours.entry)
                self.theirs_new.append(name)
            elif ours is not None and theirs is not None:
                self._both(name, base, ours, theirs)
            elif ours is not None:
                if base is None:
                    self._place(name, ours.section, ours.entry)
                else:
                    self._one_deleted(name, base, ours, "ours")
            elif theirs is not None:
                assert base is not None
                self._one_deleted(name, base, theirs, "theirs")
            else:
                self.outcome.deleted.append(name)

    def merge_theirs_new(self) -> None:
        """Theirs' new entries: folded into ours' same new text, kept, or renumbered."""
        ours_new = {
            placed.entry["text"]: name
            for name, placed in self.placed.items()
            if name not in self.base and name in self.ours
        }
        taken = [*self.base, *self.ours, *self.theirs]
        for name in self.theirs_new:
            theirs = self.theirs[name]
            same_text = ours_new.get(theirs.text)
            if same_text is not None and same_text in self.placed:
                self._fold(same_text, theirs)
                self.outcome.folded[name] = same_text
            elif name not in self.ours:
                self._place(name, theirs.section, theirs.entry)
            elif not self.virtual:
                slug = SECTION_SLUGS[theirs.section]
                new_name = format_keypoint_name(
                    slug, max_slug_number(({"name": n} for n in taken), slug) + 1
                )
                taken.append(new_name)
                self.placed[new_name] = _Placed(
                    theirs.section, {**theirs.entry, "name": new_name}, (1, theirs.position)
                )
                self.outcome.renumbered.append(Renumbered(name, new_name, theirs.section))
            else:
                del self.placed[name]  # the two bases disagree: neither is common ground

    def _fold(self, name: str, theirs: Located) -> None:
        """Different IDs mean the lesson was learned twice, on each branch: counters add."""
        placed = self.placed[name]
        placed.entry = new_entry(
            name,
            placed.entry["text"],
            placed.entry["helpful"] + theirs.entry["helpful"],
            placed.entry["harmful"] + theirs.entry["harmful"],
        )

    def sections(self) -> dict[str, list[dict[str, Any]]]:
        sections = empty_sections()
        for placed in sorted(self.placed.values(), key=lambda p: p.order):
            sections[placed.section].append(placed.entry)
        return sections


def _top_level(
    base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> dict[str, Any]:
    """``version``, ``last_updated`` and any extra keys, three-way, ours on conflict."""
    top: dict[str, Any] = {
        "version": ours.get("version", PLAYBOOK_VERSION),
        "last_updated": _pick(
            base.get("last_updated"),
            ours.get("last_updated"),
            theirs.get("last_updated"),
            on_conflict=_later(ours.get("last_updated"), theirs.get("last_updated")),
        ),
        "sections": {},
    }
    extra = [k for k in (*ours, *theirs, *base) if k not in top and k != "key_points"]
    for key in dict.fromkeys(extra):
        value = _pick(
            base.get(key, _ABSENT),
            ours.get(key, _ABSENT),
            theirs.get(key, _ABSENT),
            on_conflict=ours.get(key, _ABSENT),
        )
        if value is not _ABSENT:
            top[key] = value
    return top


def merge_playbooks(
    base: dict[str, Any],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    *,
    virtual_base: bool = False,
) -> MergeOutcome:
    """Merge ``theirs`` into ``ours`` over their common ``base`` (see the module docstring).

    All three are canonical playbooks (as ``load_playbook`` returns them);
    none is modified. Raises ``DuplicateNameError`` when a side names two
    entries alike.
    """
    merger = _Merger(base, ours, theirs, virtual_base)
    merger.merge_named()
    merger.merge_theirs_new()
    playbook = _top_level(base, ours, theirs)
    playbook["sections"] = merger.sections()
    merger.outcome.playbook = playbook
    return merger.outcome
