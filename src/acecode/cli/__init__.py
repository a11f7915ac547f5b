"""The ``acecode`` command line entry point.

``acecode hook <event>`` runs on every prompt, so it is dispatched here before
typer and rich are imported: the hook path must cost little more than the
interpreter start. Every other command, and ``acecode hook --help``, goes
through the typer app in ``acecode.cli.app``.
"""

from __future__ import annotations

import sys

from acecode.cli.help_flags import HELP_FLAGS


def _asks_for_help(args: list[str]) -> bool:
    """``acecode hook ... --help`` is for a person: typer prints the usage."""
    return not HELP_FLAGS.isdisjoint(args)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"] and not _asks_for_help(args[1:]):
        from acecode.hooks import run_hook

        sys.exit(run_hook(args[1:]))
    from acecode.output.log_stream import stamp_stderr_into_log

    stamp_stderr_into_log()  # the background learner: its stderr is learn.log
    from acecode.cli.app import build_app

    build_app(args)(args=args, prog_name="acecode")
