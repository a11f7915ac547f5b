"""``acecode impact``: what the playbook changed, read from the project's own transcripts."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from acecode.cli.common import console, fail, playbook_option
from acecode.text.wording import counted

if TYPE_CHECKING:
    from acecode.impact.analysis import ImpactReport

_WEEKS_SHOWN = 8

# Shared with ``acecode report``.
transcripts_option = Annotated[
    Path | None,
    typer.Option(
        "--transcripts",
        help="A transcript file, or a folder of transcripts, to read (default: this "
        "project's Claude Code and Codex sessions).",
    ),
]
sessions_option = Annotated[
    int,
    typer.Option(
        "--sessions", min=1, help="Retire candidates: entries unused in the last N sessions."
    ),
]


def check_transcripts(transcripts: Path | None) -> None:
    """Fail with one line when ``--transcripts`` names neither a file nor a folder."""
    if transcripts is not None and not transcripts.exists():
        fail(f"{transcripts}: no such transcript file or folder")


def _parse_since(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        fail(f"--since {value!r} is not a date (YYYY-MM-DD or an ISO time)")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def impact(
    playbook: playbook_option = None,
    transcripts: transcripts_option = None,
    since: Annotated[
        str | None, typer.Option("--since", help="Only sessions that started on or after DATE.")
    ] = None,
    sessions: sessions_option = 20,
    top: Annotated[
        int, typer.Option("--top", min=1, help="Failure signatures shown in the table.")
    ] = 20,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole report as JSON.")
    ] = False,
    rules: Annotated[
        bool,
        typer.Option(
            "--rules",
            help="The measured effect of each entry: sessions injected and held back, "
            "recurrences in each, the effect with its 90% interval, the class.",
        ),
    ] = False,
) -> None:
    """Recurring failures, before/after each learned entry, citations, entries to retire."""
    from acecode.impact.run import run_impact, transcript_files, transcripts_folder
    from acecode.project import paths
    from acecode.store import PlaybookError, load_playbook, resolve_path

    started = _parse_since(since)
    folder = transcripts_folder(paths.project_dir(), transcripts)
    check_transcripts(transcripts)
    files = transcript_files(paths.project_dir(), transcripts)
    target = resolve_path(playbook)
    try:
        data = load_playbook(playbook)
    except PlaybookError as exc:
        fail(str(exc))
    if rules:
        _rules(target, data, folder, files, started, as_json)
        return
    report = run_impact(target, data, files, since=started, window=sessions)
    if as_json:
        print(json.dumps({"transcripts": str(folder), **report.as_dict()}, indent=2))
        return
    _print_report(report, folder, top)


def _rules(
    target: Path,
    data: dict,
    folder: Path,
    files: list[Path],
    since: datetime | None,
    as_json: bool,
) -> None:
    from acecode.cli.effect_view import experiments_line, print_rules, rules_json
    from acecode.experiments.status import refresh
    from acecode.impact.analysis import filter_since
    from acecode.impact.scan import scan_transcripts
    from acecode.project import paths
    from acecode.project.config import load_settings

    settings = load_settings(paths.project_dir())
    measurement, _changed = refresh(target, data, folder)
    scans = filter_since(scan_transcripts(files), since)
    rules = measurement.rules(scans)
    draws = len(measurement.draws)
    if as_json:
        print(json.dumps(rules_json(rules, folder, settings.experiments, draws), indent=2))
        return
    header = experiments_line(
        settings.experiments, settings.holdback_rate, settings.holdback_max, draws
    )
    print_rules(rules, header)


def _print_report(report: ImpactReport, folder: Path, top: int) -> None:
    from rich.table import Table

    def day(value: datetime | None) -> str:
        return value.date().isoformat() if value else "?"

    console.print(
        f"{counted(report.sessions, 'session')} ({counted(report.files, 'file')}) in {folder}, "
        f"{day(report.first_session)} to {day(report.last_session)}: "
        f"{counted(report.failed_calls, 'failed tool call')}, "
        f"{report.declined_calls} declined by the user",
        markup=False,
        highlight=False,
    )
    if report.bad_lines:
        console.print(f"{counted(report.bad_lines, 'unreadable line')} skipped", markup=False)
    table = Table(title="Failure signatures (most sessions first)")
    for column in ("sessions", "calls", "tool", "command", "error", "last seen"):
        table.add_column(column, overflow="fold")
    for item in report.signatures[:top]:
        sig = item.signature
        table.add_row(
            str(item.sessions), str(item.calls), sig.tool, sig.head, sig.error, day(item.last_seen)
        )
    console.print(table if table.row_count else "No failed tool calls.")
    if len(report.signatures) > top:
        console.print(f"... {len(report.signatures) - top} more (--top, --json)", markup=False)

    table = Table(title="Failures before and after the entry learned from them")
    for column in ("entry", "learned", "failure", "before", "after"):
        table.add_column(column, overflow="fold")
    for entry in report.entries:
        name = entry.entry if entry.in_playbook else f"{entry.entry} (removed)"
        table.add_row(
            name,
            day(entry.learned_at),
            entry.signature.key,
            f"{entry.hit_before} of {counted(entry.sessions_before, 'session')}",
            f"{entry.hit_after} of {counted(entry.sessions_after, 'session')}",
        )
    console.print(table if table.row_count else "No entry has failure provenance yet.")
    _print_recall(report)

    weeks = sorted({week for counts in report.citations.values() for week in counts})
    shown = weeks[-_WEEKS_SHOWN:]
    table = Table(title="Citations per week")
    table.add_column("entry")
    for week in shown:
        table.add_column(week, justify="right")
    table.add_column("total", justify="right")
    for entry, counts in report.citations.items():
        cells = [str(counts.get(week, 0)) for week in shown]
        table.add_row(entry, *cells, str(sum(counts.values())))
    console.print(table if table.row_count else "No entry was cited.")

    title = (
        "Retire candidates: not cited or tagged in the last "
        f"{counted(report.window_sessions, 'session')}"
        + (f" (of {report.window} asked)" if report.window_sessions < report.window else "")
    )
    table = Table(title=title)
    for column in ("entry", "section", "helpful", "harmful", "last cited", "text", "why"):
        table.add_column(column, overflow="fold")
    for item in report.retire:
        table.add_row(
            item.entry,
            item.section,
            str(item.helpful),
            str(item.harmful),
            day(item.last_cited) if item.last_cited else "never",
            item.text,
            item.reason or "not cited or tagged",
        )
    console.print(table if table.row_count else "No retire candidates.")


def _print_recall(report: ImpactReport) -> None:
    """Per entry: recalled after a failure, warned before a call, and the next try."""
    from rich.table import Table

    table = Table(title="Recall at the tool call (acecode.recall)")
    for column in ("entry", "recalled", "warned", "same call next time"):
        table.add_column(column, overflow="fold")
    for item in report.recall:
        table.add_row(
            item.entry,
            str(item.recalled),
            str(item.warned),
            f"succeeded {item.succeeded} of {counted(item.tried_again, 'try', 'tries')}",
        )
    console.print(table if table.row_count else "Recall has not shown an entry yet.")


def register(app: typer.Typer) -> None:
    app.command()(impact)
