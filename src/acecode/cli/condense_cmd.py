"""``acecode condense TRANSCRIPT``: print the session exactly as the reflector receives it.

Users should be able to see, before trusting acecode with a session, what
leaves their machine: the condensed, redacted rendering. It is written to
stdout as plain text (no rich markup, which would eat ``[REDACTED:...]``
markers and square-bracket citations).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from acecode.cli.common import fail
from acecode.text.wording import counted


def condense_command(
    transcript: Annotated[Path, typer.Argument(help="A Claude Code session file (.jsonl).")],
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            min=1,
            help="Token budget (default: the transcript_budget_tokens setting, 10000).",
        ),
    ] = None,
) -> None:
    """Print the condensed, redacted transcript the reflector LLM would receive."""
    from acecode.project.config import load_settings
    from acecode.project.diagnostics import warn
    from acecode.transcript import TranscriptStats, iter_messages
    from acecode.transcript.condense import condense

    if not transcript.is_file():
        fail(f"transcript not found: {transcript}")
    tokens = budget if budget is not None else load_settings().transcript_budget_tokens
    # Streamed: the messages are condensed as they are read, never held as a list.
    stats = TranscriptStats()
    text = condense(iter_messages(transcript, stats), tokens)
    if stats.bad_lines:
        warn(f"skipped {counted(stats.bad_lines, 'unreadable line')} in {transcript}")
    sys.stdout.write(text + "\n")


def register(app: typer.Typer) -> None:
    """Add ``condense`` to the application."""
    app.command("condense")(condense_command)
