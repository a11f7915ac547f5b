"""A command builds only its own module's commands, and the map that says which is true."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
import typer
import typer.main

from acecode.cli.app import COMMAND_MODULES, build_app, modules_for
from acecode.cli.help_text import TidyHelpGroup
from support.hang_guard import HANG_GUARD


@pytest.mark.parametrize("module", list(COMMAND_MODULES))
def test_each_module_registers_exactly_the_commands_the_map_names(module: str) -> None:
    app = typer.Typer(cls=TidyHelpGroup)
    app.callback()(lambda: None)
    importlib.import_module(module).register(app)
    assert tuple(sorted(typer.main.get_command(app).commands)) == COMMAND_MODULES[module]


def test_a_named_command_loads_its_module_and_anything_else_loads_all() -> None:
    assert modules_for(["show", "--format", "md"]) == ["acecode.cli.playbook_cmds"]
    assert modules_for(["review", "approve", "x"]) == ["acecode.cli.review_cmd"]
    every = list(COMMAND_MODULES)
    for args in ([], ["--help"], ["--version"], ["shwo"]):
        assert modules_for(args) == every
    whole = set(typer.main.get_command(build_app()).commands)
    assert whole == {name for names in COMMAND_MODULES.values() for name in names}


def test_a_mistyped_command_still_gets_the_suggestion_from_every_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "doctr"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert result.returncode == 2
    assert "No such command" in result.stderr and "doctor" in result.stderr
