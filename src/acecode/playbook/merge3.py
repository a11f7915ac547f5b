"""Three-way merge of playbooks by entry, for ``acecode merge-driver``.

Pure: playbook dicts in, a merged playbook and the texts held for review out,
no I/O. The rules (docs/team.md has them as a table):

* **Which entry is which**: a side's entry continues the base entry of the
  same ID and text; else, best first by the words they share, the base entry
  of its ID (an edit) or of another ID (a merge renumbered it, maybe edited
  it since), as git pairs a deleted and an added file into a rename
  (:func:`_aligned`). Anything else is new on that side.
* **Counters** are increments: ``base + (ours - base) + (theirs - base)``,
  never below 0, also when both sides made the same change. The driver
  cannot tell a cherry-picked change from two sessions that rated a rule
  alike, and taking such a change once would lose the second session's
  rating (git itself takes a whole file that is identical on both sides
  once, which acecode's per-save time stamp makes rare).
* **Text** edited on one side takes that edit. Edited differently on both
  sides, ours is kept and theirs is held for review as an UPDATE of the entry.
* **Section**: a move on one side is taken; moved to two different sections,
  ours wins (the text is in the playbook either way).
* **ID**: a renumbering on one side is taken, as any other change (so the
  branch that lost a same-ID clash takes the other's numbering when that
  merge comes back, and both branches agree on every ID from then on),
  unless ours needs the ID for another entry.
* **Deleted on one side**: the deletion stands when the other side left the
  entry's content as it was in the base. When the other side changed it
  (text, counters or section), the deletion still stands and the other
  side's version is held for review as an ADD: approving it brings it back
  under a new ID. Nothing is lost and neither branch's decision is silently
  overruled.
* **New on both sides**: the same text is one entry (ours' ID, counters
  added: the lesson was learned on each branch). Different texts under the
  same ID keep ours under it and give theirs the next free ID of its
  section, never one any version has used.

In ``virtual_base`` mode (git's internal merge of two merge bases in a
criss-cross history) nothing is held for review, a text or section the two
bases changed differently falls back to their ancestor's, and everything
else is decided as in a real merge: an entry one base deleted is deleted,
clashing new IDs are renumbered. So the virtual base holds every entry both
bases hold, with both bases' increments exactly once, and the outer merge
finds each entry again by its text whatever ID either side gave it: counters
stay exact in criss-cross histories.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from acecode.errors import AcecodeError
from acecode.playbook.merge_align import aligned
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
    def name(self) -> str:
        return self.entry["name"]

    @property
    def text(self) -> str:
        return self.entry["text"]

    def content(self) -> tuple[str, str, int, int]:
        """What a merge compares: section, text and counters (the ID aside)."""
        return (self.section, self.text, self.entry["helpful"], self.entry["harmful"])


@dataclass(frozen=True)
class ReviewItem:
    """A text the merge could not keep without overruling the other side.

    ``operation`` is what approving it does: ``UPDATE`` puts ``text`` into
    entry ``name`` (both sides edited it), ``ADD`` brings the entry back
    under a new ID (one side deleted what the other side changed; ``name``
    is then the ID it had on ``side``). ``side`` is the branch the text
    comes from, ``kept`` what the playbook holds for ``name`` after the
    merge (None when it was deleted).
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
    """An entry whose ID the merge changed: ``old`` on its side, ``new`` in the result."""

    old: str
    new: str
    section: str


@dataclass
class MergeOutcome:
    """The merged playbook and what the merge decided beyond taking one side.

    ``renumbered``: theirs' new entries whose ID ours already used;
    ``renamed``: ours' entries that took the ID theirs gave them (or a free
    one); ``folded``: theirs' new ID -> ours' entry with the same text;
    ``deleted``: the entries a side deleted that the other side still had
    (ours' ID when ours had it).
    """

    playbook: dict[str, Any]
    review: list[ReviewItem] = field(default_factory=list)
    renumbered: list[Renumbered] = field(default_factory=list)
    renamed: list[Renumbered] = field(default_factory=list)
    folded: dict[str, str] = field(default_factory=dict)
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
class _Result:
    """One entry of the merged playbook, before the IDs are settled.

    ``wanted`` are the IDs it may take, most wanted first; ``rank`` says who
    chooses first: 0 ours' own IDs, 1 a renumbering theirs made, 2 theirs'
    new entries. ``order`` sorts it in its section: ours' order, then theirs'.
    """

    section: str
    text: str
    helpful: int
    harmful: int
    order: tuple[int, int]
    wanted: tuple[str, ...]
    rank: int
    ours_name: str | None = None
    theirs_name: str | None = None
    name: str = ""
    held: Located | None = None  # theirs' version, held as an UPDATE of this entry

    @classmethod
    def new(cls, entry: Located, side: Side) -> _Result:
        """An entry only ``side`` has, as it is there."""
        return cls(
            entry.section,
            entry.text,
            entry.entry["helpful"],
            entry.entry["harmful"],
            order=(0 if side == "ours" else 1, entry.position),
            wanted=(entry.name,),
            rank=0 if side == "ours" else 2,
            ours_name=entry.name if side == "ours" else None,
            theirs_name=entry.name if side == "theirs" else None,
        )


class _Merger:
    """One merge: base entries followed on both sides, then the new ones, then the IDs."""

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
        self.results: list[_Result] = []
        self.outcome = MergeOutcome(playbook={})
        self.deleted_held: list[tuple[Side, Located]] = []
        self.folded: list[tuple[str, _Result]] = []  # theirs' new ID, ours' entry of its text

    @staticmethod
    def _order(section: str, base: Located, ours: Located, theirs: Located) -> tuple[int, int]:
        """Ours' place when the entry stays in ours' section, else theirs', else the base's."""
        if ours.section == section:
            return (0, ours.position)
        if theirs.section == section:
            return (1, theirs.position)
        return (2, base.position)

    def _both(self, base: Located, ours: Located, theirs: Located) -> None:
        """The base entry is still on both sides: three-way on each field."""
        section = _pick(
            base.section,
            ours.section,
            theirs.section,
            on_conflict=base.section if self.virtual else ours.section,
        )
        conflict = len({base.text, ours.text, theirs.text}) == 3
        if conflict:
            text = base.text if self.virtual else ours.text
        else:
            text = _pick(base.text, ours.text, theirs.text, on_conflict=None)
        name = _pick(base.name, ours.name, theirs.name, on_conflict=ours.name)
        counters = [
            max(0, ours.entry[key] + theirs.entry[key] - base.entry[key])
            for key in ("helpful", "harmful")
        ]
        result = _Result(
            section,
            text,
            *counters,
            order=self._order(section, base, ours, theirs),
            wanted=(name,) if name == ours.name else (name, ours.name),
            rank=0 if name == ours.name else 1,
            ours_name=ours.name,
            theirs_name=theirs.name,
        )
        if conflict and not self.virtual:
            result.held = theirs
        self.results.append(result)

    def _one_deleted(self, base: Located, kept: Located, side: Side) -> None:
        """``side`` still has the entry, the other side deleted it: it goes."""
        self.outcome.deleted.append(kept.name if side == "ours" else base.name)
        if kept.content() != base.content() and not self.virtual:
            self.deleted_held.append((side, kept))

    def merge_followed(self, ours_of: dict[str, str], theirs_of: dict[str, str]) -> None:
        """Every base entry, by what became of it on each side (in ours', then theirs' order)."""
        ours_by_base = {ours_of[s]: self.ours[s] for s in self.ours if s in ours_of}
        theirs_by_base = {theirs_of[s]: self.theirs[s] for s in self.theirs if s in theirs_of}
        names = [*ours_by_base, *(b for b in theirs_by_base if b not in ours_by_base)]
        names += [b for b in self.base if b not in ours_by_base and b not in theirs_by_base]
        for name in names:
            base, ours, theirs = self.base[name], ours_by_base.get(name), theirs_by_base.get(name)
            if ours is not None and theirs is not None:
                self._both(base, ours, theirs)
            elif ours is not None:
                self._one_deleted(base, ours, "ours")
            elif theirs is not None:
                self._one_deleted(base, theirs, "theirs")

    def merge_new(self, ours_new: list[Located], theirs_new: list[Located]) -> None:
        """Entries no base entry became: ours' kept; theirs' folded into ours' text, or added."""
        by_text: dict[str, _Result] = {}
        for ours in ours_new:
            result = _Result.new(ours, "ours")
            self.results.append(result)
            by_text.setdefault(ours.text, result)
        for theirs in theirs_new:
            same = by_text.get(theirs.text)
            if same is not None:  # the lesson was learned on each branch: counters add
                same.helpful += theirs.entry["helpful"]
                same.harmful += theirs.entry["harmful"]
                self.folded.append((theirs.name, same))
                continue
            self.results.append(_Result.new(theirs, "theirs"))

    def settle_names(self) -> None:
        """Give every result an ID: ours' first, then theirs' renumberings, then theirs' new."""
        used = {*self.base, *self.ours, *self.theirs}
        assigned: set[str] = set()
        for rank in (0, 1, 2):
            for result in (r for r in self.results if r.rank == rank):
                free = [name for name in result.wanted if name not in assigned]
                result.name = free[0] if free else self._fresh(result.section, used | assigned)
                assigned.add(result.name)
                self._note_renaming(result)
        for theirs_name, result in self.folded:
            if theirs_name != result.name:
                self.outcome.folded[theirs_name] = result.name

    @staticmethod
    def _fresh(section: str, used: Iterable[str]) -> str:
        slug = SECTION_SLUGS[section]
        return format_keypoint_name(slug, max_slug_number(({"name": n} for n in used), slug) + 1)

    def _note_renaming(self, result: _Result) -> None:
        if result.ours_name is not None:
            if result.name != result.ours_name:
                self.outcome.renamed.append(
                    Renumbered(result.ours_name, result.name, result.section)
                )
        elif result.theirs_name is not None and result.name != result.theirs_name:
            self.outcome.renumbered.append(
                Renumbered(result.theirs_name, result.name, result.section)
            )

    def review(self) -> list[ReviewItem]:
        """The texts held for review: theirs' of entries edited on both sides, then
        the versions changed on one side of entries the other side deleted."""
        items = [
            self._item(result.name, "edited-both", "theirs", result.held, result.text)
            for result in self.results
            if result.held is not None
        ]
        for side, kept in self.deleted_held:
            items.append(self._item(kept.name, "deleted-edited", side, kept, None))
        return items

    @staticmethod
    def _item(
        name: str, kind: ConflictKind, side: Side, held: Located, kept: str | None
    ) -> ReviewItem:
        return ReviewItem(
            name=name,
            kind=kind,
            side=side,
            section=held.section,
            text=held.text,
            helpful=held.entry["helpful"],
            harmful=held.entry["harmful"],
            kept=kept,
        )

    def sections(self) -> dict[str, list[dict[str, Any]]]:
        sections = empty_sections()
        for result in sorted(self.results, key=lambda r: r.order):
            sections[result.section].append(
                new_entry(result.name, result.text, result.helpful, result.harmful)
            )
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
    ours_of = aligned(merger.base, merger.ours)
    theirs_of = aligned(merger.base, merger.theirs)
    merger.merge_followed(ours_of, theirs_of)
    merger.merge_new(
        [merger.ours[name] for name in merger.ours if name not in ours_of],
        [merger.theirs[name] for name in merger.theirs if name not in theirs_of],
    )
    merger.settle_names()
    outcome = merger.outcome
    outcome.review = merger.review()
    outcome.playbook = _top_level(base, ours, theirs)
    outcome.playbook["sections"] = merger.sections()
    return outcome
