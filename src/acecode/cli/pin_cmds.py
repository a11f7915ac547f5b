"""``acecode pin NAME`` / ``acecode unpin NAME``: inject an entry first in its section and
keep it in when the playbook is over the budget, or stop (see ``acecode.playbook.ranking``)."""

from __future__ import annotations

from typing import Annotated

import typer

from acecode.cli.common import console, fail, layer_path, playbook_option, refresh_injection

_NAME = Annotated[
    str,
    typer.Argument(metavar="NAME", help="Entry ID, e.g. pat-001 (u-pref-001: the user layer)."),
]


def _say(message: str) -> None:
    console.print(message, markup=False, highlight=False, soft_wrap=True)


def pin(name: _NAME, playbook: playbook_option = None) -> None:
    """Pin an entry: at every session start it comes first in its section, whatever its
    counters, and stays in when the playbook is over the budget."""
    from acecode.playbook.schema import iter_entries
    from acecode.project.pins import PinsFileError, change_pins, pins_path
    from acecode.store import PlaybookError, load_playbook

    path = layer_path(playbook, name=name)
    try:
        names = {entry["name"] for _section, entry in iter_entries(load_playbook(path))}
    except PlaybookError as exc:
        fail(str(exc))
    if name not in names:
        fail(f"no entry named {name!r} in {path} (see `acecode show`)")
    try:
        pinned = change_pins(pins_path(path), add=name)
    except (PinsFileError, PlaybookError) as exc:
        fail(str(exc))
    refresh_injection(playbook)
    _say(
        f"pinned {name} ({len(pinned)} pinned); from the next session on it is injected "
        "first in its section"
    )


def unpin(name: _NAME, playbook: playbook_option = None) -> None:
    """Unpin an entry: it is ranked by its counters again."""
    from acecode.project.pins import PinsFileError, change_pins, pins_path, read_pins
    from acecode.store import PlaybookError

    path = pins_path(layer_path(playbook, name=name))
    try:
        if name not in read_pins(path):
            fail(f"{name!r} is not pinned (pinned entries are listed in {path})")
        pinned = change_pins(path, remove=name)
    except (PinsFileError, PlaybookError) as exc:
        fail(str(exc))
    refresh_injection(playbook)
    _say(f"unpinned {name} ({len(pinned)} pinned)")


def register(app: typer.Typer) -> None:
    app.command()(pin)
    app.command()(unpin)
