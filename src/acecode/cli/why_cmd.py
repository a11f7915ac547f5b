"""``acecode why NAME``: where an entry came from (its provenance), for people or as JSON."""

from __future__ import annotations

import json
from pathlib import Path
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
    graduated = _graduated(path, name) if entry is None else None
    if entry is None and not ledger.retired.get(name) and graduated is None:
        fail(f"no entry named {name!r} in {path}, now or in its provenance (see `acecode show`)")
    if as_json:
        record = why_record(name, entry, ledger)
        print(json.dumps({**record, "graduated": graduated}, indent=2, ensure_ascii=False))
        return
    for line in why_text(name, entry, ledger, graduated):
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def _graduated(path: Path, name: str) -> dict[str, str] | None:
    """Where ``acecode graduate`` put entry ``name`` (its cycle, file and text), if that is
    how it left the playbook (:mod:`acecode.edits.graduate`)."""
    from acecode.edits.graduate import graduated_in
    from acecode.project.layer import Layer

    cycle = graduated_in(Layer(path), name)
    if cycle is None:
        return None
    entry = next(e for e in cycle.meta["graduated"]["entries"] if e["name"] == name)
    return {"cycle": cycle.cycle_id, "file": entry["file"], "text": entry["text"]}


def register(app: typer.Typer) -> None:
    app.command()(why)
