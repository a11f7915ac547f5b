"""``acecode stats``, ``history``, ``undo`` and ``restore``: inspect and repair learning.

Thin wrappers: the health numbers come from ``acecode.playbook.health``, the
journal from ``acecode.store.journal``, undo/restore from ``acecode.store.undo``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from acecode.cli.common import (
    console,
    fail,
    layer_path,
    playbook_option,
    refresh_injection,
    user_option,
)
from acecode.text.wording import counted


def stats(
    playbook: playbook_option = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")] = False,
    user: user_option = False,
) -> None:
    """Show the playbook's health: size per section, effectiveness, growth phase.

    The "this cycle" counts are those of the last journaled cycle; the numbers
    are one layer's (the project's, or the user's with ``--user``), the
    entries reaching the model those of both layers together.
    """
    from rich.table import Table

    from acecode.cli.stale_report import stale_json, stale_lines, stale_report
    from acecode.playbook.health import compute_health, size_in_words
    from acecode.project.diagnostics import warn
    from acecode.project.layers import is_user_layer
    from acecode.store import PlaybookError, load_playbook
    from acecode.store.journal import list_cycles

    path = layer_path(playbook, user=user)
    try:
        data = load_playbook(path)
    except PlaybookError as exc:
        fail(str(exc))
    try:
        cycles = list_cycles(path)
    except PlaybookError as exc:  # a damaged journal must not hide the playbook's numbers
        warn(str(exc))
        cycles = []
    metrics = compute_health(data, cycles[-1].counts if cycles else None)
    metrics["layer"] = "user" if is_user_layer(path) else "project"
    injection = _injection_metrics(playbook)
    if injection is not None:
        metrics["injection"] = injection
    stale = stale_report(path, data)
    metrics["possibly_stale"] = stale_json(stale)
    if as_json:
        print(json.dumps(metrics, indent=2))
        return
    table = Table(title=f"Playbook health ({metrics['layer']} layer): {path}", show_header=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows: list[tuple[str, Any]] = [("entries", metrics["total_entries"])]
    rows += [
        (f"  {section.title()}", count) for section, count in metrics["entries_per_section"].items()
    ]
    ratio = metrics["effectiveness_ratio"]
    average = metrics["average_text_length"]
    rows += [
        ("helpful / harmful", f"{metrics['helpful_total']} / {metrics['harmful_total']}"),
        ("effectiveness", "n/a (no evaluations)" if ratio is None else f"{ratio:.0%}"),
        ("untested entries", metrics["untested_entries"]),
        ("average text length", "n/a" if average is None else f"{average:.0f} chars"),
        ("size", size_in_words(metrics["total_entries"])),
    ]
    rows += [(f"last cycle: {key}", value) for key, value in metrics["this_cycle"].items()]
    if injection is not None:
        reach = f"{injection['injected']} of {injection['total']}"
        rows.append(
            ("reach the model at session start", reach if injection["active"] else "0 (off here)")
        )
    rows.append(("possibly stale entries", len(stale.entries)))
    for label, value in rows:
        table.add_row(label, str(value))
    console.print(table)
    for line in stale_lines(stale)[1:] if stale.entries else ():
        warn(line)
    if injection is not None and injection["left_out"]:
        warn(
            f"{counted(injection['left_out'], 'entry')} left out at session start; the per-prompt "
            "top-up adds the ones relevant to each prompt (`acecode doctor` has the details)"
        )


def _injection_metrics(playbook: Path | None) -> dict[str, Any] | None:
    """What reaches the model (for ``stats``); None when the playbook cannot be rendered."""
    from acecode.cli.injection_report import injection_state
    from acecode.store import PlaybookError

    try:
        state = injection_state(playbook)
    except PlaybookError:
        return None
    return {
        "active": bool(state.get("active")),
        "total": state.get("total", 0),
        "injected": len(state.get("injected", ())),
        "left_out": state.get("left_out", 0),
        "budget_chars": state.get("budget"),
        "topup_budget_chars": state.get("topup_budget"),
    }


def history(
    cycle: Annotated[
        str | None,
        typer.Argument(
            metavar="CYCLE", help="Show this cycle in full (its id, short id or a unique prefix)."
        ),
    ] = None,
    playbook: playbook_option = None,
    user: user_option = False,
    limit: Annotated[
        int, typer.Option("--limit", "-n", help="Show the last N cycles (0 = all).")
    ] = 20,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show each cycle in full, entries included.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the cycles as JSON.")] = False,
) -> None:
    """List the cycles, newest last, one line each: status (ok, undone, nothing-new,
    skipped, failed...), kind (learn, add, merge, undo...) and what changed."""
    from acecode.cli.history_rows import history_rows
    from acecode.cli.history_view import history_table, print_detail
    from acecode.project import outcomes
    from acecode.project.layer import Layer
    from acecode.store import PlaybookError
    from acecode.store.journal import changes_of, list_cycles, match_cycle_id

    path = layer_path(playbook, user=user)
    layer = Layer(path)
    try:
        rows = history_rows(list_cycles(layer), outcomes.read_outcomes(layer))
        if cycle is not None:
            chosen = match_cycle_id([row.cycle_id for row in rows], cycle)
            rows = [row for row in rows if row.cycle_id == chosen]
        shown = rows[-limit:] if limit > 0 and cycle is None else rows
        changes = changes_of(layer, [row.seq for row in shown if row.seq is not None])
    except PlaybookError as exc:
        fail(str(exc))
    if as_json:
        records = [
            row.as_json(changes.get(row.seq) if row.seq is not None else None) for row in shown
        ]
        print(json.dumps(records, indent=2))
        return
    if not shown:
        console.print(f"(no history for {path})", markup=False, highlight=False)
        return
    if cycle is not None or verbose:
        for number, row in enumerate(shown):
            if number:
                console.print()
            print_detail(console, row, changes.get(row.seq) if row.seq is not None else None)
        return
    console.print(history_table(f"History: {path}", shown, changes, console.width))


def undo(
    target: Annotated[
        str | None,
        typer.Argument(
            metavar="CYCLE|NAME",
            help="A cycle (id, short id or unique prefix; default: the last cycle not undone) "
            "or an entry's ID, e.g. pat-004, to take back just that rule's last change.",
        ),
    ] = None,
    playbook: playbook_option = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Revert what can be reverted; leave entries changed later as they are."
        ),
    ] = False,
    user: user_option = False,
) -> None:
    """Undo one cycle, or one rule's last change, keeping later unrelated changes.

    `acecode undo NAME` takes back the change that added or rewrote the rule NAME (and
    the rules it merged), whatever later cycles did to its counters. `acecode undo
    CYCLE` reverts every entry of the cycle that nothing changed since. Undoing a move
    (`acecode move`) undoes it in both layers. Each undo is a cycle: undo it to redo."""
    from acecode.store import PlaybookError
    from acecode.store.undo import undo_cycle

    path = layer_path(playbook, user=user, name=target)
    try:
        if target is not None and _undo_entry(path, target, playbook):
            return
        if _undo_graduation(path, target, playbook):
            return
        if _undo_move(path, target, playbook, force):
            return
        result = undo_cycle(path, target, force=force)
    except PlaybookError as exc:
        fail(str(exc))
    for name, why in result.skipped:
        console.print(f"kept {name}: {why}", markup=False, highlight=False)
    refresh_injection(playbook)
    if not result.reverted:
        console.print(f"nothing reverted for cycle {result.undone}", markup=False)
        return
    console.print(
        f"undid cycle {result.undone}: {counted(len(result.reverted), 'entry')} reverted "
        f"({', '.join(result.reverted)}); recorded as cycle {result.journal_cycle}",
        markup=False,
        highlight=False,
    )


def _undo_entry(path: Path, name: str, playbook: Path | None) -> bool:
    """Take back entry ``name``'s last change; False when ``name`` is no entry of ``path``
    (then it names a cycle). Raises ``PlaybookError`` as ``undo_entry`` does."""
    from acecode.playbook.schema import iter_entries
    from acecode.store import load_playbook
    from acecode.store.journal import last_removal, list_cycles
    from acecode.store.undo import undo_entry

    if any(cycle.cycle_id == name for cycle in list_cycles(path)):
        return False
    if name not in {entry["name"] for _section, entry in iter_entries(load_playbook(path))}:
        from acecode.edits.graduate import graduated_in
        from acecode.project.layer import Layer

        graduation = graduated_in(Layer(path), name)
        if graduation is not None:
            return _undo_graduation(path, graduation.cycle_id, playbook)
        removed = last_removal(path, name)
        if removed is not None:
            fail(
                f"{name} is not in the playbook (removed by cycle {removed[0]}); "
                f"`acecode restore {name}` brings it back"
            )
        return False
    result = undo_entry(path, name)
    refresh_injection(playbook)
    for other, why in result.skipped:
        console.print(f"kept {other} out: {why}", markup=False, highlight=False)
    what = "removed it" if result.removed else "put back its text from before"
    back = f"; {', '.join(result.restored)} merged into it came back" if result.restored else ""
    console.print(
        f"undid {name}'s change in cycle {result.undone}: {what}{back}; recorded as cycle "
        f"{result.journal_cycle} (`acecode undo {result.journal_cycle}` redoes it)",
        markup=False,
        highlight=False,
    )
    return True


def _undo_graduation(path: Path, cycle: str | None, playbook: Path | None) -> bool:
    """Undo ``cycle`` (default: the last) when it is an ``acecode graduate``: the entries
    come back and leave the instruction files; False when it is not one."""
    from acecode.edits.graduate import graduation_of, undo_graduation
    from acecode.project.layer import Layer

    layer = Layer(path)
    graduation = graduation_of(layer, cycle)
    if graduation is None:
        return False
    back = undo_graduation(graduation, layer)
    refresh_injection(playbook)
    files = sorted({e["file"] for e in graduation.meta["graduated"]["entries"]})
    console.print(
        f"undid graduation {graduation.cycle_id}: {', '.join(back)} back in the playbook, "
        f"taken out of {', '.join(files)}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return True


def _undo_move(path: Path, cycle: str | None, playbook: Path | None, force: bool) -> bool:
    """Undo ``cycle`` in both layers when it is a move; False when it is not one."""
    from acecode.edits.layer_move import is_move, undo_move
    from acecode.project.layers import is_user_layer, user_playbook_file

    move = is_move(path, cycle)
    if move is None:
        return False
    project = layer_path(None if is_user_layer(path) else playbook)
    reverted = undo_move(move, project=project, user=Path(user_playbook_file()), force=force)
    refresh_injection(playbook)
    console.print(
        f"undid move {move} in both layers ({', '.join(reverted)} reverted)",
        markup=False,
        highlight=False,
    )
    return True


def restore(
    name: Annotated[
        str,
        typer.Argument(help="ID of a pruned, deleted or merged-away entry (u-...: user layer)."),
    ],
    playbook: playbook_option = None,
) -> None:
    """Bring back a removed entry from the history journal."""
    from acecode.store import PlaybookError
    from acecode.store.undo import restore_entry

    try:
        result = restore_entry(layer_path(playbook, name=name), name)
    except PlaybookError as exc:
        fail(str(exc))
    refresh_injection(playbook)
    renamed = f" as {result.restored_as}" if result.restored_as != result.name else ""
    reset = "; counters reset to 0/0 so it is not pruned again" if result.counters_reset else ""
    console.print(
        f"restored {result.name}{renamed} into {result.section} "
        f"(removed in cycle {result.from_cycle}){reset}",
        markup=False,
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    """Add ``stats``, ``history``, ``undo`` and ``restore`` to ``app``."""
    app.command()(stats)
    app.command()(history)
    app.command()(undo)
    app.command()(restore)
