"""The typer application: one module per command group, each with ``register(app)``."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Annotated

import typer

from acecode.cli.help_flags import HELP_FLAGS
from acecode.cli.help_text import TidyHelpGroup

# Command modules, each exposing ``register(app: typer.Typer) -> None``, and the top-level
# commands each registers (tests/cli/test_app_modules.py checks the two agree).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "acecode.cli.playbook_cmds": ("show",),
    "acecode.cli.learn_cmds": ("bootstrap", "catch-up", "learn", "review-arrivals"),
    "acecode.cli.consolidation_cmds": ("history", "restore", "stats", "undo"),
    "acecode.cli.install_cmd": ("install", "uninstall"),
    "acecode.cli.condense_cmd": ("condense",),
    "acecode.cli.doctor_cmd": ("doctor",),
    "acecode.cli.cost_cmd": ("cost",),
    "acecode.cli.review_cmd": ("review",),
    "acecode.cli.control_cmds": ("off", "on"),
    "acecode.cli.pin_cmds": ("pin", "unpin"),
    "acecode.cli.layer_cmds": ("move",),
    "acecode.cli.why_cmd": ("why",),
    "acecode.cli.graduate_cmd": ("graduate",),
    "acecode.cli.import_cmd": ("import",),
    "acecode.cli.rule_cmds": ("add", "edit", "forget"),
    "acecode.cli.merge_cmd": ("merge-driver",),
    "acecode.cli.impact_cmd": ("impact",),
    "acecode.cli.report_cmd": ("report",),
    "acecode.cli.hook_cmd": ("hook",),
}


def modules_for(args: Sequence[str] | None) -> list[str]:
    """The command modules a run with ``args`` needs: the one that registers the command
    ``args`` names, or every module (no command, an option first, an unknown name: the
    usage, ``--help`` and "No such command" list them all). Importing and building all
    fifty commands costs about a third of a short command's run."""
    name = args[0] if args else ""
    found = [module for module, names in COMMAND_MODULES.items() if name in names]
    return found or list(COMMAND_MODULES)


def _print_version(wanted: bool) -> None:
    if wanted:
        from acecode import __version__

        print(f"acecode {__version__}")
        raise typer.Exit()


def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Learn a playbook from your Claude Code and Codex sessions and inject it into the next
    one."""


def build_app(args: Sequence[str] | None = None) -> typer.Typer:
    """Create the app and let the command modules ``args`` needs (every one without
    ``args``) add their commands."""
    app = typer.Typer(
        name="acecode",
        cls=TidyHelpGroup,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": sorted(HELP_FLAGS)},
    )
    app.callback()(_options)
    for module_name in modules_for(args) if args is not None else COMMAND_MODULES:
        importlib.import_module(module_name).register(app)
    return app
