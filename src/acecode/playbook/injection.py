"""The session-start text within the budget: the best entries, the rest named.

When the whole playbook fits in the budget (:mod:`acecode.playbook.budget`),
it is injected whole, each section in its order with its pinned entries
first. Otherwise the best entries are chosen with
:mod:`acecode.playbook.ranking` (pinned first, every section its share) and a
last line says how many were left out and where to read them; the left-out
entries become the candidates of the per-prompt top-up.

Pure: no I/O. ``NamedTuple`` rather than ``dataclass``: the injection hook
imports this module on a cache miss.
"""

# No ``from __future__ import annotations`` here: with it, ``NamedTuple`` turns every
# field's annotation into a ForwardRef and compiles it, which costs the hook about a
# millisecond per class.

from collections.abc import Callable, Sequence, Set
from typing import Any, NamedTuple

from acecode.playbook.budget import TopupItem, context_length, header_cost, line_cost
from acecode.playbook.formatting import PLACEHOLDER, format_entry, format_key_points
from acecode.playbook.ranking import Ranked, pinned_first, select_within_budget
from acecode.playbook.schema import SECTION_NAMES, entry_count, iter_entries


class Injection(NamedTuple):
    """The session-start text and what it holds."""

    text: str  # "" when there is nothing to inject
    injected: list[str]  # names of the entries in ``text``, in display order
    left_out: list[Ranked]  # entries that did not fit, best first
    total: int  # entries in the playbook


def left_out_line(count: int, total: int, playbook_path: str) -> str:
    """The last line when ``count`` of ``total`` entries did not fit."""
    where = f"read {playbook_path} with the Read tool" if playbook_path else "read the playbook"
    return (
        f"[{count} more of the {total} entries did not fit here. acecode adds the ones "
        f"relevant to each prompt as it arrives. To see them all, {where} "
        "or run `acecode show --format md`.]"
    )


def _shown(sections: dict[str, list[dict[str, Any]]]) -> list[str]:
    return [entry["name"] for section in SECTION_NAMES for entry in sections.get(section, ())]


def render_injection(
    playbook: dict[str, Any],
    template: str,
    budget: int,
    pinned: Set[str] = frozenset(),
    playbook_path: str = "",
    measure: Callable[[str], int] = context_length,
    helps: Set[str] = frozenset(),
) -> Injection:
    """The session-start text of ``playbook`` framed by ``template``, at most ``budget`` long.

    The whole playbook when it fits, pinned entries first in their section;
    otherwise the entries chosen by ``select_within_budget`` (pinned first,
    every section its share), shown
    in canonical section order, best first within a section, followed by
    :func:`left_out_line`. The text is ``""`` when the playbook has no entries
    or when not even the template and the last line fit in ``budget``.
    ``measure`` counts as the agent's cap does (default: Claude Code's UTF-16 units);
    ``helps`` are the entries measured to help, ranked right after the pinned ones.
    """
    sections = playbook.get("sections") or {}
    total = entry_count(playbook)
    if not total:
        return Injection("", [], [], 0)
    # Each entry is formatted once: a cache miss of the hook pays for every line.
    lines = {id(entry): format_entry(entry) for _section, entry in iter_entries(playbook)}
    costs = {key: line_cost(line, measure) for key, line in lines.items()}
    copies = template.count(PLACEHOLDER)
    framing = measure(template) - copies * len(PLACEHOLDER)
    # The exact length of format_key_points(playbook): headers and lines, minus the
    # separator the first section does not have.
    whole = sum(costs.values()) - 2
    whole += sum(header_cost(name, measure) for name in SECTION_NAMES if sections.get(name))
    if framing + copies * whole <= budget:
        ordered = pinned_first(sections, pinned) if pinned else sections
        text = template.replace(PLACEHOLDER, format_key_points({"sections": ordered}))
        return Injection(text, _shown(ordered) if copies else [], [], total)
    reserve = 2 + measure(left_out_line(total, total, playbook_path))
    room = (budget - framing) // max(copies, 1) - reserve
    selection = select_within_budget(
        sections,
        room,
        lambda _section, entry: costs[id(entry)],
        lambda section: header_cost(section, measure),
        pinned,
        helps,
    )
    chosen = selection.by_section()
    points = "\n\n".join(
        f"## {name}\n" + "\n".join(lines[id(entry)] for entry in chosen[name])
        for name in SECTION_NAMES
        if name in chosen
    )
    block = (points + "\n\n" if points else "") + left_out_line(
        len(selection.left_out), total, playbook_path
    )
    text = template.replace(PLACEHOLDER, block)
    if measure(text) > budget:
        return Injection("", [], selection.chosen + selection.left_out, total)
    return Injection(text, _shown(chosen) if copies else [], selection.left_out, total)


def topup_items(left_out: Sequence[Ranked]) -> list[TopupItem]:
    """The left-out entries as top-up candidates, in the given order."""
    return [TopupItem(r.section, r.entry["name"], format_entry(r.entry)) for r in left_out]
