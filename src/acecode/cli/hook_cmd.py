"""``acecode hook EVENT``: listed in ``acecode --help`` and documented by ``--help``.

Claude Code's calls never reach this module: ``acecode.cli.main`` sends
``acecode hook ...`` straight to ``acecode.hooks.run_hook`` before typer is
imported, except when ``--help`` or ``-h`` is among the arguments. So the
help is typer's, and reading it never waits on stdin.
"""

from __future__ import annotations

from typing import Annotated

import typer

from acecode.hooks import EVENT_ARGUMENTS

_EVENTS = ", ".join(EVENT_ARGUMENTS.values())


def hook(
    event: Annotated[
        str | None,
        typer.Argument(
            help=f"One of {_EVENTS} (or Claude Code's name, e.g. SessionStart); "
            "default: the input's hook_event_name.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """What Claude Code runs: reads the hook's JSON on stdin, answers on stdout.

    Always exits 0, even for an unknown event or bad input (a problem is one
    line on stderr), so a hook never blocks a prompt or a session.
    """
    from acecode.hooks import run_hook

    raise typer.Exit(run_hook([event] if event else []))


def register(app: typer.Typer) -> None:
    app.command()(hook)
