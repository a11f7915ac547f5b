"""The typer application: one module per command group, each with ``register(app)``."""

from __future__ import annotations

import importlib

import typer

# Command modules, each exposing ``register(app: typer.Typer) -> None``.
COMMAND_MODULES: tuple[str, ...] = (
    "acecode.cli.playbook_cmds",
    "acecode.cli.learn_cmds",
    "acecode.cli.consolidation_cmds",
    "acecode.cli.install_cmd",
    "acecode.cli.condense_cmd",
    "acecode.cli.doctor_cmd",
    "acecode.cli.review_cmd",
    "acecode.cli.control_cmds",
    "acecode.cli.merge_cmd",
)


def build_app() -> typer.Typer:
    """Create the app and let every command module add its commands."""
    app = typer.Typer(
        name="acecode",
        help="Learn a playbook from your Claude Code sessions and inject it into the next one.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(app)
    return app
