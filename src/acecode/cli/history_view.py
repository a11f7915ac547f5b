"""How ``acecode history`` prints cycles: one line each, or one cycle in full.

The table keeps every cycle on one line at any width from 80 columns: ids
are the short ids (``acecode.store.journal.short_id``, which every command
taking a cycle accepts), the changes are counts, and only the last column,
the details, is cut (with an ellipsis) when the terminal is narrow.
``history CYCLE`` and ``history --verbose`` print the full story, each
entry changed included.
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from acecode.cli.history_rows import (
    CHANGE_SIGNS,
    HistoryRow,
    change_counts,
    relation,
    session_name,
)
from acecode.store.diff import EntryChange

# Entry names listed in a row's details before "+N more".
_NAMED_ENTRIES = 3
# Below this width the time drops its year.
_WIDE = 100
# Two lines, each short enough for an 80-column terminal.
LEGEND = (
    "status ok: in effect; changes: +added ~rewritten -removed r rated\n"
    "`acecode history CYCLE` or `--verbose`: every field and entry"
)


def _time(created_at: str, *, with_year: bool) -> str:
    """``2026-03-21 10:15`` (``03-21 10:15`` on a narrow terminal), local time as recorded."""
    stamp = created_at[:16].replace("T", " ")
    return stamp if with_year else stamp[5:]


def _entries(changes: list[EntryChange]) -> str:
    """``+pat-004 ~pat-001 -pat-002 +2 more``: entries whose text or place changed."""
    named = [f"{CHANGE_SIGNS[c.kind]}{c.name}" for c in changes if c.kind != "rated"]
    more = len(named) - _NAMED_ENTRIES
    return " ".join(named[:_NAMED_ENTRIES]) + (f" +{more} more" if more > 0 else "")


def _details(row: HistoryRow, changes: list[EntryChange]) -> str:
    """What the row needs to be understood, most telling first (the end may be cut)."""
    parts = [
        relation(row),
        row.reason,
        f"{row.held_for_review} held for review" if row.held_for_review else "",
        _entries(changes),
        session_name(row),
    ]
    return "; ".join(part for part in parts if part)


def history_table(
    title: str, rows: list[HistoryRow], changes: dict[int, list[EntryChange]], width: int
) -> Table:
    """The one-line-per-cycle table (``changes`` by journal ``seq``)."""
    table = Table(
        title=title,
        caption=LEGEND,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        title_justify="left",
        caption_justify="left",
    )
    for column in ("cycle", "time", "kind", "status", "changes"):
        table.add_column(column, no_wrap=True)
    # The only column rich may narrow; its cells refuse to wrap, so it is cut instead.
    table.add_column("details")
    for row in rows:
        found = changes.get(row.seq, []) if row.seq is not None else []
        table.add_row(
            row.short,
            _time(row.created_at, with_year=width >= _WIDE),
            row.kind,
            row.status,
            change_counts(row.counts),
            Text(_details(row, found), no_wrap=True, overflow="ellipsis"),
        )
    return table


def _change_line(change: EntryChange) -> str:
    """One entry of a cycle: what it was and what it became."""
    sign = CHANGE_SIGNS[change.kind]
    if change.kind == "added":
        assert change.after is not None
        return f"{sign} {change.name} ({change.after_section}): {change.after['text']}"
    if change.kind == "removed":
        assert change.before is not None
        why = f"{change.cause}: {change.reason}" if change.reason else change.cause or "removed"
        return f"{sign} {change.name} ({why}): {change.before['text']}"
    assert change.before is not None and change.after is not None
    if change.kind == "rated":
        return (
            f"{sign} {change.name} helpful {change.before['helpful']} -> "
            f"{change.after['helpful']}, harmful {change.before['harmful']} -> "
            f"{change.after['harmful']}"
        )
    moved = (
        f" (moved from {change.before_section} to {change.after_section})"
        if change.before_section != change.after_section
        else ""
    )
    return f"{sign} {change.name}{moved}: {change.before['text']}\n    now: {change.after['text']}"


def print_detail(console: Console, row: HistoryRow, changes: list[EntryChange] | None) -> None:
    """One cycle in full: every field, and each entry it changed (``changes``; None when
    the cycle saved nothing)."""
    fields: list[tuple[str, Any]] = [
        ("time", row.created_at),
        ("kind", row.kind),
        ("status", f"{row.status}: {row.reason}" if row.reason else row.status),
        ("source", row.source),
        ("transcript", row.transcript),
        ("changes", change_counts(row.counts) if changes is not None else ""),
        ("held for review", row.held_for_review or ""),
        ("relations", relation(row)),
    ]
    lines = [f"cycle {row.cycle_id}"]
    lines += [f"  {label}: {value}" for label, value in fields if value]
    if changes:
        lines += [f"  {_change_line(change)}" for change in changes]
    elif changes is not None:
        lines.append("  (no entry changed)")
    console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
