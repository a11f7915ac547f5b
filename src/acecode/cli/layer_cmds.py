"""``acecode move NAME --to user|project``: move an entry between the two layers."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from acecode.cli.common import console, fail, layer_path, playbook_option, refresh_injection


class Layer(StrEnum):
    user = "user"
    project = "project"


def move(
    name: Annotated[str, typer.Argument(help="Entry ID, e.g. pref-002 or u-pref-001.")],
    to: Annotated[
        Layer,
        typer.Option("--to", help="user (shared by all your projects) or project (this one)."),
    ],
    playbook: playbook_option = None,
) -> None:
    """Move an entry to the other layer; it gets a new ID there (u-... in the user layer).

    Journaled in both layers' history; `acecode undo CYCLE` puts it back.
    """
    from acecode.edits.layer_move import move_entry
    from acecode.project.config import load_settings
    from acecode.project.layers import user_playbook_file
    from acecode.store import PlaybookError

    try:
        result = move_entry(
            name,
            to.value,
            project=layer_path(playbook),
            user=Path(user_playbook_file()),
            lock_timeout=load_settings().lock_timeout,
        )
    except PlaybookError as exc:
        fail(str(exc))
    refresh_injection(playbook)
    console.print(
        f"moved {result.name} to the {result.to} layer as {result.new_name} ({result.section}); "
        f"cite it as [{result.new_name}] from now on. Undo: acecode undo {result.cycle_id}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    app.command()(move)
