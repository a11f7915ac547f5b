"""``acecode learn`` and ``acecode bootstrap``: run learning cycles by hand."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from acecode.cli.common import (
    console,
    err_console,
    fail,
    layer_path,
    playbook_option,
    refresh_injection,
)
from acecode.text.wording import counted

if TYPE_CHECKING:
    from acecode.pipeline.cycle_report import CycleReport


PROJECT_HELP = (
    "The project, or any folder in it (default: $CLAUDE_PROJECT_DIR, else the current "
    "folder); its root is found the way git finds a repository."
)


def _use_project(project: Path | None) -> None:
    """Make the project ``project`` is in (its root, :mod:`acecode.project.project_root`)
    the project of everything that follows."""
    if project is not None:
        os.environ["CLAUDE_PROJECT_DIR"] = str(project.resolve())


def _describe(report: CycleReport) -> list[str]:
    """What a cycle did (or, in a dry run, would do), one line per change; the user
    layer's changes follow under their own heading."""
    lines = _changes(report.as_dict())
    if report.user_layer:
        lines += [f"  user layer ({report.user_layer['playbook']}):"]
        lines += [f"  {line}" for line in _changes(report.user_layer)]
    return lines


def _changes(report: dict[str, Any]) -> list[str]:
    """One layer's changes (``CycleReport.as_dict`` or its ``user_layer``)."""
    from acecode.consolidation.deferred import describe_operation
    from acecode.quarantine.unreviewed import hold_label

    lines = []
    for item in report["held_for_review"]:
        lines.append(f"  HOLD    ({hold_label(item['rule'])}) {item['text']}")
    for item in report.get("instruction_repeats") or ():
        where = item["instruction"]
        lines.append(f"  ALREADY {where['file']}:{where['line']} says it: {item['text']}")
    dedup = (report["curation"] or {}).get("de_duplication_results", {})
    for decision in dedup.get("ladder_decisions", []):
        if decision["action"] != "add":
            lines.append(
                f"  {decision['action'].upper():<7} {decision['matched_name']} "
                f"(similarity {decision['similarity']:.2f}, {decision['rung']}) "
                f"{decision['candidate_text']}"
            )
    for conflict in (dedup.get("judge") or {}).get("new_conflicts", []):
        lines.append(f"  CONFLICT {conflict['first']} <-> {conflict['second']} (both kept)")
    for op in report["operations"]:
        if not op["applied"]:
            lines.append(f"  SKIP    {op['type']}: {op['reason']}")
            continue
        entry = op.get("created") or op.get("updated_after") or op["removed"][0]["entry"]
        sources = "+".join(item["entry"]["name"] for item in op["removed"])
        target = f"{sources} -> {entry['name']}" if op["type"] == "MERGE" else entry["name"]
        lines.append(f"  {op['type']:<7} {target}: {entry['text']}")
    for item in report["pruned"]:
        lines.append(f"  PRUNE   {item['entry']['name']}: {item['entry']['text']}")
    for item in report.get("deferred") or ():
        lines.append(f"  DEFER   {describe_operation(item['operation'])}: {item['reason']}")
    for item in report.get("promoted") or ():
        lines.append(
            f"  MOVE    {item['name']} -> {item['as']}: another project of yours learned "
            "the same failure, so it is now a user-layer entry"
        )
    return lines


def _print_json(reports: list[dict[str, Any]]) -> None:
    print(json.dumps(reports, indent=2, ensure_ascii=False), flush=True)


def _expand(arguments: list[Path], include_subagents: bool) -> list[Path]:
    """Each file as given; each folder as its session transcripts, oldest first."""
    from acecode.agents.claude_code.sessions import transcripts_in

    transcripts = []
    for argument in arguments:
        if argument.is_dir():
            found = transcripts_in(argument, include_subagents=include_subagents)
            if not found:
                fail(f"{argument}: a folder with no session transcripts (*.jsonl) in it or below")
            transcripts += found
        elif argument.is_file():
            transcripts.append(argument)
        else:
            fail(f"{argument}: no such transcript file or folder")
    return transcripts


def learn(
    transcripts: Annotated[
        list[Path],
        typer.Argument(
            metavar="TRANSCRIPT...",
            help="Claude Code or Codex session .jsonl files, or folders: a folder means every "
            "*.jsonl "
            "in it and below, oldest first (subagent transcripts included, Claude Code's "
            "compaction helpers skipped), e.g. ~/.claude/projects/<project>.",
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the changes; save nothing.")
    ] = False,
    relearn: Annotated[
        bool,
        typer.Option(
            "--relearn", help="Reflect on the whole transcript, even parts already learned."
        ),
    ] = False,
    source: Annotated[str, typer.Option(help="Who started the cycle (for the report).")] = "cli",
    project: Annotated[
        Path | None,
        typer.Option(help=PROJECT_HELP),
    ] = None,
    playbook: playbook_option = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the cycle reports as JSON.")
    ] = False,
    skip_subagents: Annotated[
        bool,
        typer.Option("--skip-subagents", help="In folders, learn from main sessions only."),
    ] = False,
    ignore_budget: Annotated[
        bool,
        typer.Option(
            "--ignore-budget",
            help="Learn even when a cycle would go over your budget (its cost is still "
            "recorded; see `acecode cost`).",
        ),
    ] = False,
    triage: Annotated[
        bool,
        typer.Option(
            "--triage",
            help="Skip, at $0, a session with no learning signal (no failed call, "
            "correction, preference, interruption or repeated command), as the hooks do.",
        ),
    ] = False,
) -> None:
    """Learn from one or more transcripts (or folders of them) now: reflect, curate, save.

    Parts of a session learned before are skipped (unless --relearn), so a
    folder can be learned again after new sessions were added.

    Each cycle prints its status: ok, nothing-new, skipped or failed (with the
    reason). Exits with status 1 when a cycle failed (no provider, LLM
    failure), the playbook then unchanged and the transcript due, or when a
    file is not a transcript (no line of it is a JSON record).

    Cycles are bound by your budgets (daily_budget_usd, ...): one that would go
    over is skipped without an LLM call; --ignore-budget learns anyway. Several
    transcripts are a burst: their calls ask for a one-hour prompt cache.
    """
    from acecode.errors import LearnInputError
    from acecode.output.waiting import progress_to
    from acecode.pipeline import run_cycle_sync
    from acecode.pipeline.own_sessions import own_session_role
    from acecode.project.diagnostics import warn
    from acecode.project.outcomes import FAILED
    from acecode.store import PlaybookError

    _use_project(project)
    reports = []
    over_budget = unusable = 0
    files = _expand(transcripts, include_subagents=not skip_subagents)
    # Slow steps (an LLM that does not answer, a long transcript) say so on stderr.
    with progress_to(warn):
        for transcript in files:
            role = own_session_role(transcript)
            if role:
                err_console.print(
                    f"acecode: {transcript} is one of acecode's own nested `claude -p` sessions "
                    f"(it opens with acecode's {role} prompt); skipped, nothing to learn",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
                continue
            try:
                report = run_cycle_sync(
                    transcript,
                    playbook_path=playbook,
                    source=source,
                    dry_run=dry_run,
                    relearn=relearn,
                    ignore_budget=ignore_budget,
                    triage=True if triage else None,
                    burst=len(files) > 1,
                )
            except PlaybookError as exc:
                if as_json:  # the reports so far, and this cycle's failure: never nothing
                    failed = {"transcript": str(transcript), "status": FAILED, "reason": str(exc)}
                    _print_json([*(report.as_dict() for report in reports), failed])
                fail(str(exc))
            except LearnInputError as exc:  # not a transcript: said once, the others still learn
                warn(str(exc))
                unusable += 1
                continue
            reports.append(report)
            if report.cost.get("over_budget"):
                over_budget += 1
            if report.saved and playbook is None:
                refresh_injection()
            if as_json:
                continue
            console.print(report.summary(), markup=False, highlight=False, soft_wrap=True)
            for line in _describe(report):
                console.print(line, markup=False, highlight=False, soft_wrap=True)
    if playbook is None and not dry_run:
        from acecode.experiments.status import refresh_after_learning
        from acecode.store import resolve_path

        refresh_after_learning(resolve_path(None))
    if as_json:
        _print_json([report.as_dict() for report in reports])
    if over_budget and source == "cli":  # a hook's learner: its cycle line says what to do
        err_console.print(
            f"acecode: {counted(over_budget, 'cycle')} skipped for your budget, "
            "without any LLM call; "
            "`acecode cost` shows the spend, the limits are daily_budget_usd, "
            "monthly_budget_usd, daily_budget_tokens and monthly_budget_tokens in "
            "~/.claude/acecode.toml; --ignore-budget learns anyway",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if unusable or any(report.status == FAILED for report in reports):
        raise typer.Exit(1)


agent_option = Annotated[
    str, typer.Option("--agent", help="Which coding agent's sessions: claude-code or codex.")
]


def bootstrap(
    agent: agent_option = "claude-code",
    project: Annotated[
        Path | None,
        typer.Option(help=PROJECT_HELP),
    ] = None,
    skip_subagents: Annotated[
        bool, typer.Option("--skip-subagents", help="Learn from main sessions only.")
    ] = False,
    delay: Annotated[
        float | None, typer.Option(help="Seconds between sessions (rate limits).")
    ] = None,
    playbook: playbook_option = None,
    relink: Annotated[
        bool,
        typer.Option(
            "--relink",
            help="Learn nothing: link the existing rules' provenance to the failure or "
            "request of their session that matches their text (no LLM call).",
        ),
    ] = False,
) -> None:
    """Learn from this project's existing sessions, oldest first; rerun to resume.

    Sessions too small to teach anything, and failed ones, stay due: a rerun tries
    them again.
    """
    from rich.progress import Progress

    from acecode.agents import UnknownAgentError, get_agent
    from acecode.output.waiting import progress_to
    from acecode.pipeline.bootstrap import bootstrap as run_bootstrap
    from acecode.pipeline.bootstrap import bootstrap_file
    from acecode.pipeline.own_sessions import split_own_sessions
    from acecode.project import paths
    from acecode.project.config import load_settings
    from acecode.project.control import activity
    from acecode.project.diagnostics import warn

    _use_project(project)
    if relink:
        _relink(playbook)
        return
    root = paths.project_dir()
    try:
        coding_agent = get_agent(agent)
    except UnknownAgentError as exc:
        fail(str(exc))
    state = activity(root)
    if not state.active:
        fail(f"acecode is not active here: {state.reason}; nothing learned")
    found = coding_agent.find_sessions(root, include_subagents=not skip_subagents)
    transcripts, own = split_own_sessions(found)
    if own:
        console.print(f"skipping {len(own)} of acecode's own nested `claude -p` sessions")
    if not transcripts:
        besides = f" besides {len(own)} of acecode's own nested runs" if own else ""
        where = coding_agent.sessions_location(root)
        fail(f"no {coding_agent.label} sessions of {root} found in {where}{besides}")
    settings = load_settings()
    with Progress(console=console, transient=False) as progress:
        task = progress.add_task("learning", total=len(transcripts))

        def on_progress(transcript: Path, report, error: str | None) -> None:
            if error:
                progress.console.print(
                    f"failed {transcript.name}: {error}", markup=False, highlight=False
                )
            progress.advance(task)

        try:
            with progress_to(warn):
                counts = run_bootstrap(
                    transcripts,
                    state_path=bootstrap_file(root),
                    playbook_path=playbook,
                    delay=settings.bootstrap_delay if delay is None else delay,
                    on_progress=on_progress,
                )
        except KeyboardInterrupt:
            err_console.print(
                "acecode: interrupted; progress is saved, run `acecode bootstrap` again to resume",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(130) from None
    if counts.learned:
        refresh_injection(playbook)
    skipped = (
        f", skipped {counts.skipped} (too small to learn from, or empty; "
        "tried again on the next run)"
        if counts.skipped
        else ""
    )
    console.print(
        f"learned {counts.learned}, already learned {counts.already_done}, "
        f"failed {counts.failed}{skipped}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    if counts.failed:
        raise typer.Exit(1)


def _relink(playbook: Path | None) -> None:
    """``bootstrap --relink``: one line of counts (:mod:`acecode.pipeline.relink`)."""
    from acecode.pipeline.relink import relink
    from acecode.project.config import load_settings
    from acecode.store.errors import PlaybookError
    from acecode.store.provenance import ProvenanceFileError

    target = layer_path(playbook)
    try:
        counts = relink(target, load_settings().lock_timeout)
    except (PlaybookError, ProvenanceFileError, OSError) as exc:
        fail(str(exc))
    console.print(
        f"relinked {counts.relinked}, unchanged {counts.unchanged}, already linked "
        f"{counts.current}, transcript gone {counts.transcript_gone}, "
        f"not from a session {counts.no_session}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def catch_up(
    agent: agent_option = "codex",
    project: Annotated[Path | None, typer.Option(help="Project root.")] = None,
    except_session: Annotated[
        str | None, typer.Option("--except", help="The session now starting: left alone.")
    ] = None,
) -> None:
    """Learn the agent's earlier sessions of the project that no cycle learned yet.

    Started in the background by Codex's session-start hook, because Codex
    fires no SessionEnd when its terminal is closed or it is killed. Silent
    when there is nothing to catch up; one catch-up at a time per project.
    """
    from acecode.agents import get_agent
    from acecode.output.waiting import progress_to
    from acecode.pipeline.bootstrap import BootstrapState, bootstrap_file
    from acecode.pipeline.bootstrap import bootstrap as run_bootstrap
    from acecode.pipeline.own_sessions import split_own_sessions
    from acecode.project import outcomes, paths
    from acecode.project.control import activity
    from acecode.project.diagnostics import warn
    from acecode.project.session_switch import NESTED_ENV
    from acecode.store.errors import PlaybookLockTimeout
    from acecode.store.lock import exclusive_lock

    _use_project(project)
    root = paths.project_dir()
    # The hook that started this run set NESTED_ENV to keep nested runs quiet; it is
    # not a reason to stay inactive (as in acecode.pipeline.cycle).
    if not activity(root, {k: v for k, v in os.environ.items() if k != NESTED_ENV}).active:
        return
    state_path = bootstrap_file(root)
    done = BootstrapState.load(state_path)
    sessions = get_agent(agent).find_sessions(root, include_subagents=False)
    pending = [
        path
        for path in split_own_sessions(sessions)[0]
        if not (except_session and except_session in path.name) and not done.is_done(path)
    ]
    if not pending:
        return
    state = paths.state_dir(root)
    try:
        with exclusive_lock(state / "catch-up.json", timeout=0):
            outcomes.append_log(
                state, f"catch-up: learning {counted(len(pending), f'earlier {agent} session')}"
            )
            with progress_to(warn):
                run_bootstrap(
                    pending, state_path=state_path, playbook_path=None, delay=0, source="catch-up"
                )
    except PlaybookLockTimeout:
        return  # another catch-up is on it
    refresh_injection()


def review_arrivals(
    project: Annotated[Path | None, typer.Option(help="Project root.")] = None,
) -> None:
    """Screen and review the entries that arrived with the repository.

    Started in the background by the session-start hook
    (:mod:`acecode.pipeline.arrival_review`): what the review passes is injected by the
    next prompt's top-up. One job at a time per project; silent (its outcome is in
    ``.claude/acecode/arrival-review.json`` and the session-start notice).
    """
    from acecode.pipeline.arrival_review import review_arrivals as run
    from acecode.project import paths
    from acecode.project.control import activity
    from acecode.project.session_switch import NESTED_ENV

    _use_project(project)
    root = paths.project_dir()
    if not activity(root, {k: v for k, v in os.environ.items() if k != NESTED_ENV}).active:
        return
    run(str(root))


def register(app: typer.Typer) -> None:
    app.command()(learn)
    app.command()(bootstrap)
    app.command("catch-up", hidden=True)(catch_up)
    app.command("review-arrivals", hidden=True)(review_arrivals)
