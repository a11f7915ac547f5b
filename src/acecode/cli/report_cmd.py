"""``acecode report``: the playbook and its effect as one static HTML page.

HTML is the only format, so it needs no flag: without ``--html FILE`` the page goes
to ``report.html`` in the project's state folder (``.claude/acecode/``, which git
ignores), and the command says where.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from acecode.cli.common import console, fail, playbook_option
from acecode.cli.impact_cmd import check_transcripts, sessions_option, transcripts_option

REPORT_FILE = "report.html"


def report(
    html_file: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write the page to this file (default: .claude/acecode/report.html).",
            dir_okay=False,
        ),
    ] = None,
    playbook: playbook_option = None,
    transcripts: transcripts_option = None,
    sessions: sessions_option = 20,
) -> None:
    """Write one self-contained HTML page: playbook, growth, cost, citations, failures, review."""
    from datetime import datetime

    from acecode.impact.run import transcript_files
    from acecode.project import paths
    from acecode.project.layer import Layer
    from acecode.quarantine.queue import QueueError
    from acecode.report.data import gather
    from acecode.report.html import render
    from acecode.store import PlaybookError, load_playbook, resolve_path
    from acecode.store.atomic import atomic_write_text

    check_transcripts(transcripts)
    target = resolve_path(playbook)
    default = html_file is None
    html_file = html_file or Layer.of(target).file(REPORT_FILE)
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
        if default:
            Layer.of(target).ensure_folder()  # with its .gitignore
        atomic_write_text(html_file, page)
    except (OSError, PlaybookError) as exc:  # the write error names the file and the cause
        fail(str(exc))
    shown = html_file.resolve()
    console.print(
        f"wrote {html_file} (open {shown.as_uri()} in a browser)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    app.command()(report)
