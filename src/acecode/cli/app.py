"""The typer application: one module per command group, each with ``register(app)``."""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

from acecode.cli.help_flags import HELP_FLAGS
from acecode.cli.help_text import TidyHelpGroup

# Command modules, each exposing ``register(app: typer.Typer) -> None``.
COMMAND_MODULES: tuple[str, ...] = (
    "acecode.cli.playbook_cmds",
    "acecode.cli.learn_cmds",
    "acecode.cli.consolidation_cmds",
    "acecode.cli.install_cmd",
    "acecode.cli.condense_cmd",
    "acecode.cli.doctor_cmd",
    "acecode.cli.cost_cmd",
    "acecode.cli.review_cmd",
    "acecode.cli.control_cmds",
    "acecode.cli.pin_cmds",
    "acecode.cli.layer_cmds",
    "acecode.cli.why_cmd",
    "acecode.cli.graduate_cmd",
    "acecode.cli.import_cmd",
    "acecode.cli.rule_cmds",
    "acecode.cli.merge_cmd",
    "acecode.cli.impact_cmd",
    "acecode.cli.report_cmd",
    "acecode.cli.hook_cmd",
)


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


def build_app() -> typer.Typer:
    """Create the app and let every command module add its commands."""
    app = typer.Typer(
        name="acecode",
        cls=TidyHelpGroup,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": sorted(HELP_FLAGS)},
    )
    app.callback()(_options)
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(app)
    return app
