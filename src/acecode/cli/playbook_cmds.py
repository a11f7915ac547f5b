"""``acecode show``: read the playbook as a table, markdown or JSON."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from acecode.cli.common import console, fail, playbook_option


class ShowFormat(StrEnum):
    table = "table"
    md = "md"
    json = "json"


def show(
    playbook: playbook_option = None,
    output_format: Annotated[
        ShowFormat, typer.Option("--format", "-f", help="table, md (as injected) or json.")
    ] = ShowFormat.table,
) -> None:
    """Show the playbook's entries by section."""
    from rich.table import Table

    from acecode.playbook.formatting import format_key_points
    from acecode.playbook.schema import SECTION_NAMES
    from acecode.store import PlaybookError, load_playbook, resolve_path, serialize_playbook

    try:
        data = load_playbook(playbook)
    except PlaybookError as exc:
        fail(str(exc))
    if output_format is ShowFormat.json:
        print(serialize_playbook(data), end="")
        return
    if output_format is ShowFormat.md:
        print(format_key_points(data) or "(empty playbook)")
        return
    table = Table(title=str(resolve_path(playbook)), show_lines=False)
    for column in ("section", "id", "helpful", "harmful", "text"):
        table.add_column(column, overflow="fold")
    for section in SECTION_NAMES:
        for entry in data["sections"][section]:
            table.add_row(
                section,
                entry["name"],
                str(entry["helpful"]),
                str(entry["harmful"]),
                entry["text"],
            )
    if table.row_count == 0:
        console.print("(empty playbook)")
        return
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command()(show)
