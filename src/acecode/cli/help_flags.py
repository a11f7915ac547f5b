"""The flags that ask for help, read both before typer loads (``acecode hook ... --help``
goes to typer, not to the hook) and by the typer app itself. A module of its own so
that the app does not import the entry point that imports the app."""

from __future__ import annotations

HELP_FLAGS: frozenset[str] = frozenset({"--help", "-h"})
