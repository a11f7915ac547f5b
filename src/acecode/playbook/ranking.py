"""Which playbook entries matter most, and which of them fit in a budget.

Pure: plain entry dicts in, plain lists out, no I/O. The injection uses it to
choose what reaches the model within Claude Code's context cap; the curator
can use it to choose what it is shown.

Ranking, best first:

1. pinned entries (the user said so), then entries measured to help (a randomised
   hold-back showed their failure recurs less with them, :mod:`acecode.experiments`);
2. evidence: ``helpful - harmful``;
3. more evaluations (``helpful + harmful``): a well-tested entry beats an
   untested one with the same evidence;
4. newer entries (later in their section, where ADD appends them), so a new
   rule gets its chance against old untested ones;
5. canonical section order, then position, so the order is total and stable.

Selection within a budget gives every section with entries an equal share of
what the pinned entries leave, fills each share with the section's best
entries, and hands any unused share on to the sections that still have
entries, round after round. A large PATTERNS section therefore cannot crowd
out USER PREFERENCES or MISTAKES TO AVOID, and no budget is wasted while an
entry still fits.
"""

# No ``from __future__ import annotations`` here: with it, ``NamedTuple`` turns every
# field's annotation into a ForwardRef and compiles it, which costs the hook about a
# millisecond per class.

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from typing import Any, NamedTuple

from acecode.playbook.schema import SECTION_NAMES

Entry = dict[str, Any]
# The cost of one entry (its line and separator) and of one section (its header).
EntryCost = Callable[[str, Entry], int]
SectionCost = Callable[[str], int]

_SECTION_ORDER = {name: index for index, name in enumerate(SECTION_NAMES)}


class Ranked(NamedTuple):
    """One entry with where it lives: its section and its position in that section."""

    section: str
    position: int
    entry: Entry


class Selection(NamedTuple):
    """What fits in a budget and what does not, each in rank order (best first)."""

    chosen: list[Ranked]
    left_out: list[Ranked]
    cost: int

    def by_section(self) -> dict[str, list[Entry]]:
        """The chosen entries grouped by section, canonical section order, best first."""
        grouped: dict[str, list[Entry]] = {}
        for item in sorted(self.chosen, key=lambda r: _SECTION_ORDER.get(r.section, 99)):
            grouped.setdefault(item.section, []).append(item.entry)
        return grouped


def evidence(entry: Entry) -> int:
    """``helpful - harmful``: how much the sessions so far say for the entry."""
    return entry["helpful"] - entry["harmful"]


def evaluations(entry: Entry) -> int:
    """``helpful + harmful``: how often the entry has been judged at all."""
    return entry["helpful"] + entry["harmful"]


def rank_key(
    item: Ranked, pinned: Set[str] = frozenset(), helps: Set[str] = frozenset()
) -> tuple[int, int, int, int, int]:
    """Sort key of an entry: smaller sorts first (see the module docstring); ``helps`` are
    the entries measured to help."""
    entry = item.entry
    return (
        0 if entry["name"] in pinned else 1 if entry["name"] in helps else 2,
        -evidence(entry),
        -evaluations(entry),
        -item.position,
        _SECTION_ORDER.get(item.section, len(_SECTION_ORDER)),
    )


def ranked_entries(
    sections: Mapping[str, Sequence[Entry]],
    pinned: Set[str] = frozenset(),
    helps: Set[str] = frozenset(),
) -> list[Ranked]:
    """Every entry of ``sections`` (canonical sections only), best first."""
    items = [
        Ranked(section, position, entry)
        for section in SECTION_NAMES
        for position, entry in enumerate(sections.get(section) or ())
    ]
    items.sort(key=lambda item: rank_key(item, pinned, helps))
    return items


def rank_section(entries: Sequence[Entry], pinned: Set[str] = frozenset()) -> list[Entry]:
    """The entries of one section, best first."""
    items = [Ranked("", position, entry) for position, entry in enumerate(entries)]
    items.sort(key=lambda item: rank_key(item, pinned))
    return [item.entry for item in items]


class _Budget:
    """The running total of a selection: what has been spent and on which sections."""

    def __init__(self, limit: int, entry_cost: EntryCost, section_cost: SectionCost) -> None:
        self.limit, self.spent = limit, 0
        self.entry_cost, self.section_cost = entry_cost, section_cost
        self.opened: set[str] = set()
        self.chosen: list[Ranked] = []

    def cost(self, item: Ranked) -> int:
        """What taking ``item`` now costs, its section's header included the first time."""
        header = 0 if item.section in self.opened else self.section_cost(item.section)
        return header + self.entry_cost(item.section, item.entry)

    def take(self, item: Ranked) -> None:
        self.spent += self.cost(item)
        self.opened.add(item.section)
        self.chosen.append(item)

    @property
    def remaining(self) -> int:
        return self.limit - self.spent


def _fill_shares(budget: _Budget, queues: dict[str, deque[Ranked]]) -> None:
    """Give every section with entries an equal share, round after round.

    Each round a section takes its best entries while they fit in its share;
    what a section leaves unused stays in the pot for the next round. When no
    section can take anything within an equal share, the best next entry
    that fits in the whole remainder is taken (so one long entry is not
    blocked forever by the shares). Entries that no longer fit at all are
    dropped from their queue. Every round takes or drops at least one entry.
    """
    while True:
        for section in list(queues):
            queue = queues[section]
            while queue and budget.cost(queue[0]) > budget.remaining:
                queue.popleft()  # can never fit: left out
            if not queue:
                del queues[section]
        if not queues:
            return
        share = budget.remaining // len(queues)
        took = False
        for queue in queues.values():
            allowance = share
            while queue and budget.cost(queue[0]) <= allowance:
                allowance -= budget.cost(queue[0])
                budget.take(queue.popleft())
                took = True
        if not took:
            best = min((queue[0] for queue in queues.values()), key=rank_key)
            budget.take(queues[best.section].popleft())


def select_within_budget(
    sections: Mapping[str, Sequence[Entry]],
    budget: int,
    entry_cost: EntryCost,
    section_cost: SectionCost,
    pinned: Set[str] = frozenset(),
    helps: Set[str] = frozenset(),
) -> Selection:
    """The best entries whose total cost stays within ``budget``.

    ``entry_cost(section, entry)`` is what one entry adds to the text and
    ``section_cost(section)`` what a section's header adds the first time one
    of its entries is taken; the returned ``cost`` is their sum and never
    exceeds ``budget``. Pinned entries are taken first, best first, as long as
    they fit; then every section gets its share (see ``_fill_shares``). No
    left-out entry fits in what remains: an entry is dropped only when it does
    not fit in the remainder at that point, and the remainder only shrinks,
    by at least the section's header before that header stops being charged.
    """
    ranked = ranked_entries(sections, pinned, helps)
    spend = _Budget(max(budget, 0), entry_cost, section_cost)
    rest: list[Ranked] = []
    for item in ranked:
        if item.entry["name"] in pinned:
            if spend.cost(item) <= spend.remaining:
                spend.take(item)
        else:
            rest.append(item)
    queues: dict[str, deque[Ranked]] = {}
    for item in rest:
        queues.setdefault(item.section, deque()).append(item)
    _fill_shares(spend, queues)
    taken = {id(item) for item in spend.chosen}
    left_out = [item for item in ranked if id(item) not in taken]
    spend.chosen.sort(key=lambda item: rank_key(item, pinned, helps))
    return Selection(spend.chosen, left_out, spend.spent)


def pinned_first(
    sections: Mapping[str, Sequence[Entry]], pinned: Set[str]
) -> dict[str, list[Entry]]:
    """Each section with its pinned entries moved to the top, both groups in their order.

    The session-start text shows a playbook that fits the budget in this
    order, as the selection within a budget does, so a pinned entry comes
    first in its section whether or not the playbook is over the budget.
    """
    return {
        section: [e for e in entries if e["name"] in pinned]
        + [e for e in entries if e["name"] not in pinned]
        for section, entries in sections.items()
    }


def names(items: Iterable[Ranked]) -> list[str]:
    """The entry names of ``items``, in order."""
    return [item.entry["name"] for item in items]
