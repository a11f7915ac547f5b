"""``acecode report --html FILE``: the playbook and its effect as one static page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from acecode.cli.common import console, fail, playbook_option
from acecode.cli.impact_cmd import check_transcripts, sessions_option, transcripts_option


def report(
    html_file: Annotated[
        Path, typer.Option("--html", help="Write the report to this HTML file.", dir_okay=False)
    ],
    playbook: playbook_option = None,
    transcripts: transcripts_option = None,
    sessions: sessions_option = 20,
) -> None:
    """Write one self-contained HTML page: playbook, growth, cost, citations, failures, review."""
    from datetime import datetime

    from acecode.impact.run import transcript_files
    from acecode.project import paths
    from acecode.quarantine.queue import QueueError
    from acecode.report.data import gather
    from acecode.report.html import render
    from acecode.store import PlaybookError, load_playbook, resolve_path
    from acecode.store.atomic import atomic_write_text

    check_transcripts(transcripts)
    target = resolve_path(playbook)
    try:
        data = load_playbook(playbook)
        page = render(
            gather(
                target,
                data,
                transcript_files(paths.project_dir(), transcripts),
                folder=transcripts if transcripts is not None and transcripts.is_dir() else None,
                generated_at=datetime.now().astimezone().isoformat(timespec="seconds"),
                window=sessions,
            )
        )
    except (PlaybookError, QueueError) as exc:
        fail(str(exc))
    try:
        atomic_write_text(html_file, page)
    except PlaybookError as exc:  # the write error names the file and the cause
        fail(str(exc))
    console.print(f"wrote {html_file}", markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    app.command()(report)
