"""``acecode on`` / ``acecode off``: switch learning and injection for one project."""

from __future__ import annotations

import typer

from acecode.cli.common import console, fail, refresh_injection


def _switch(on: bool) -> None:
    from acecode import paths
    from acecode.control import ControlFileError, activity, set_project_switch

    project = paths.project_dir()
    try:
        written = set_project_switch(on, project)
    except ControlFileError as exc:
        fail(str(exc))
    refresh_injection()
    state = "on" if on else "off"
    console.print(
        f"acecode is {state} for {project} (learning and injection); saved in {written}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    now = activity(project)
    if on and not now.active:
        console.print(f"note: still inactive: {now.reason}", markup=False, highlight=False)


def on() -> None:
    """Turn acecode on for this project: inject the playbook and learn from sessions."""
    _switch(True)


def off() -> None:
    """Turn acecode off for this project: no injection, no learning (the playbook stays)."""
    _switch(False)


def register(app: typer.Typer) -> None:
    app.command()(on)
    app.command()(off)
