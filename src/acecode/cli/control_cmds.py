"""``acecode on`` / ``acecode off``: switch learning and injection for one project.

The switch is written to ``.claude/acecode/switch.toml``, in the git-ignored state
folder: it is this clone's choice, never a change a team would commit (see
:mod:`acecode.project.control`).
"""

from __future__ import annotations

import typer

from acecode.cli.common import console, fail, refresh_injection


def _say(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _switch(on: bool) -> None:
    from acecode.project import paths
    from acecode.project.control import (
        ControlFileError,
        activity,
        project_config,
        set_project_switch,
        shared_switch,
    )

    project = paths.project_dir()
    try:
        written = set_project_switch(on, project)
    except ControlFileError as exc:
        fail(str(exc))
    refresh_injection()
    state = "on" if on else "off"
    _say(
        f"acecode is {state} for {project} (learning and injection); saved in {written} "
        "(this clone only: the folder is git-ignored)"
    )
    shared = shared_switch(project)
    if shared is not None and shared != on:
        _say(
            f"note: {project_config(project)} sets enabled = {'true' if shared else 'false'} "
            "for everyone who shares it; this clone's switch wins here"
        )
    now = activity(project)
    if on and not now.active:
        _say(f"note: still inactive: {now.reason}")


def on() -> None:
    """Turn acecode on for this project in this clone: inject the playbook and learn."""
    _switch(True)


def off() -> None:
    """Turn acecode off for this project in this clone: no injection, no learning (the
    playbook stays; nothing a team commits changes)."""
    _switch(False)


def register(app: typer.Typer) -> None:
    app.command()(on)
    app.command()(off)
