"""``acecode why NAME``: where an entry came from (its provenance), for people or as JSON."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from acecode.cli.common import console, fail, layer_path, playbook_option


def why(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Entry ID, e.g. pat-001.")],
    playbook: playbook_option = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
) -> None:
    """Show where an entry came from: each cycle, session, reason and the evidence seen."""
    from acecode.cli.provenance_view import why_record, why_text
    from acecode.playbook.schema import iter_entries
    from acecode.store import PlaybookError, load_playbook
    from acecode.store.provenance import load_ledger

    path = layer_path(playbook, name=name)
    try:
        data = load_playbook(path)
    except PlaybookError as exc:
        fail(str(exc))
    entry = next(((s, e) for s, e in iter_entries(data) if e["name"] == name), None)
    ledger = load_ledger(path)
    if entry is None and not ledger.retired.get(name):
        fail(f"no entry named {name!r} in {path}, now or in its provenance (see `acecode show`)")
    if as_json:
        print(json.dumps(why_record(name, entry, ledger), indent=2, ensure_ascii=False))
        return
    for line in why_text(name, entry, ledger):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    app.command()(why)
