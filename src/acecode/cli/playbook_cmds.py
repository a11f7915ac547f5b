"""``acecode show``: read the playbook as a table, markdown or JSON."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from acecode.cli.common import (
    console,
    err_console,
    fail,
    layer_path,
    playbook_option,
    user_option,
)


class ShowFormat(StrEnum):
    table = "table"
    md = "md"
    json = "json"


def show(
    playbook: playbook_option = None,
    output_format: Annotated[
        ShowFormat,
        typer.Option(
            "--format",
            "-f",
            help="table, md (every entry in the injected format, pinned ones first and marked) "
            "or json (one layer's file as saved, with its pinned names).",
        ),
    ] = ShowFormat.table,
    injected: Annotated[
        bool,
        typer.Option(
            "--injected",
            help="Print exactly what the SessionStart hook injects now (the budgeted text).",
        ),
    ] = False,
    provenance: Annotated[
        bool,
        typer.Option(
            "--provenance", help="Add where each entry came from (see `acecode why NAME`)."
        ),
    ] = False,
    user: user_option = False,
) -> None:
    """Show the playbook's entries by section, with the layer each is in and which are pinned.

    Both layers by default (the project's and the user's); ``--user`` shows
    the user layer alone. JSON is one layer's file: the project's, or the
    user's with ``--user``, plus its ``pinned`` names.
    """
    from rich.table import Table

    from acecode.playbook.schema import iter_entries
    from acecode.project.layers import combine, is_user_layer, layer_of, user_playbook_file
    from acecode.project.pins import pins_or_none
    from acecode.store import PlaybookError, load_playbook, serialize_playbook

    if injected:
        _show_injected(playbook)
        return
    path = layer_path(playbook, user=user)
    user_file = Path(user_playbook_file())
    with_user = not is_user_layer(path) and output_format is not ShowFormat.json
    try:
        data = load_playbook(path)
        shown = combine(data, load_playbook(user_file) if with_user else None)
    except PlaybookError as exc:
        fail(str(exc))
    pinned = pins_or_none(path) + (pins_or_none(user_file) if with_user else [])
    every_origin = {**_origins(path), **(_origins(user_file) if with_user else {})}
    origins = every_origin if provenance else None
    triggers = _triggers(shown, every_origin)
    if output_format is ShowFormat.json:
        as_saved = {**json.loads(serialize_playbook(data)), "pinned": pinned}
        as_saved["triggers"] = {name: lines for name, lines in triggers.items() if lines}
        if origins is not None:
            as_saved["provenance"] = {
                name: [origin.as_dict() for origin in found] for name, found in origins.items()
            }
        print(json.dumps(as_saved, indent=2, ensure_ascii=False))
        return
    if output_format is ShowFormat.md:
        print(_markdown(shown, frozenset(pinned)) or "(empty playbook)")
        if any(triggers.values()):
            print(_triggers_md(triggers))
        if origins is not None:
            print(_provenance_md(shown, origins))
        return
    title = f"{path} + {user_file}" if with_user and user_file.exists() else str(path)
    table = Table(title=title, show_lines=origins is not None)
    columns = ("layer", "section", "id", "pinned", "helpful", "harmful", "text", "triggers")
    for column in (*columns, "provenance") if origins is not None else columns:
        table.add_column(column, overflow="fold")
    for section, entry in iter_entries(shown):
        row = [
            layer_of(entry["name"]),
            section,
            entry["name"],
            "yes" if entry["name"] in pinned else "",
            str(entry["helpful"]),
            str(entry["harmful"]),
            entry["text"],
            "\n".join(triggers.get(entry["name"], [])),
        ]
        if origins is not None:
            row.append(_summary(origins.get(entry["name"], [])))
        table.add_row(*row)
    if table.row_count == 0:
        console.print("(empty playbook)")
        return
    console.print(table)


def _markdown(playbook: dict[str, Any], pinned: frozenset[str]) -> str:
    """Every entry in the injected format, in the injected order (pinned first in their
    section), each pinned one marked ``(pinned)`` after its ID."""
    from acecode.playbook.formatting import format_key_points
    from acecode.playbook.ranking import pinned_first

    text = format_key_points({"sections": pinned_first(playbook["sections"], pinned)})
    lines = []
    for line in text.splitlines():
        name = line[1 : line.find("]")] if line.startswith("[") else ""
        lines.append(line.replace("] ", "] (pinned) ", 1) if name in pinned else line)
    return "\n".join(lines)


def _origins(playbook: Path | None) -> dict[str, list[Any]]:
    from acecode.store import resolve_path
    from acecode.store.provenance import load_provenance

    return load_provenance(resolve_path(playbook))


def _triggers(playbook: dict[str, Any], origins: dict[str, list[Any]]) -> dict[str, list[str]]:
    """Every entry's triggers (what recalls it at a tool call), one line each."""
    from acecode.cli.provenance_view import trigger_lines
    from acecode.playbook.schema import iter_entries

    return {
        entry["name"]: trigger_lines(entry, origins.get(entry["name"], []))
        for _section, entry in iter_entries(playbook)
    }


def _triggers_md(triggers: dict[str, list[str]]) -> str:
    """A markdown section: what recalls each entry at a tool call."""
    lines = ["", "## Triggers", ""]
    for name, found in triggers.items():
        lines += [f"- {name}: {line}" for line in found]
    return "\n".join(lines)


def _summary(origins: list[Any]) -> str:
    from acecode.cli.provenance_view import UNKNOWN, origin_summary

    return "\n".join(origin_summary(origin) for origin in origins) or UNKNOWN.split(":")[0]


def _provenance_md(data: dict[str, Any], origins: dict[str, list[Any]]) -> str:
    """A markdown section: each entry's origins, one bullet each."""
    from acecode.playbook.schema import iter_entries

    lines = ["", "## Provenance", ""]
    for _section, entry in iter_entries(data):
        lines.append(
            f"- {entry['name']}: " + _summary(origins.get(entry["name"], [])).replace("\n", "; ")
        )
    return "\n".join(lines)


def _show_injected(playbook: Path | None) -> None:
    """The session-start text, exactly what the hook puts in ``additionalContext``."""
    from acecode.cli.injection_report import injection_state
    from acecode.project import paths
    from acecode.store import PlaybookError, resolve_path

    if playbook is not None and resolve_path(playbook).resolve() != paths.playbook_path().resolve():
        fail("--injected shows what this project's hook injects; leave out --playbook")
    try:
        state = injection_state()
    except PlaybookError as exc:
        fail(str(exc))
    if not state.get("active"):
        reason = state.get("reason", "")
        err_console.print(
            f"nothing is injected: acecode is off here ({reason})", markup=False, soft_wrap=True
        )
        return
    from acecode.cli.injection_report import repeats

    for line in repeats(state):  # on stderr: stdout stays exactly what the hook injects
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    if not state.get("text"):
        err_console.print("nothing is injected: the playbook has no entries", markup=False)
        return
    sys.stdout.write(state["text"] + "\n")


def register(app: typer.Typer) -> None:
    app.command()(show)
