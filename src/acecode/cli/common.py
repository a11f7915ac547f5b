"""Small helpers shared by the command modules."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)

playbook_option = Annotated[
    Path | None,
    typer.Option("--playbook", help="Playbook file (default: <project>/.claude/playbook.json)."),
]


def fail(message: str) -> NoReturn:
    """Print one ``acecode: ...`` line on stderr and exit with status 1."""
    err_console.print(f"acecode: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1)
