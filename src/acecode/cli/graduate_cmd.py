"""``acecode graduate NAME...``: proven entries into CLAUDE.md or .claude/rules (see
:mod:`acecode.edits.graduate`), the diff shown first and written on confirmation."""

from __future__ import annotations

from typing import Annotated

import typer

from acecode.cli.common import console, fail, layer_path, playbook_option, refresh_injection
from acecode.text.wording import counted

TARGETS = ("rules", "CLAUDE.md")


def graduate(
    names: Annotated[list[str], typer.Argument(metavar="NAME...", help="Entry IDs, e.g. pat-004.")],
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="rules: .claude/rules/acecode.md (an entry about some paths: a rules file "
            "limited to them); CLAUDE.md: the project's CLAUDE.md. A u- entry goes to your "
            "own ~/.claude/rules or ~/.claude/CLAUDE.md.",
        ),
    ] = "rules",
    force: Annotated[
        bool,
        typer.Option("--force", help='Graduate entries that are neither "helps" nor pinned.'),
    ] = False,
    paths: Annotated[
        list[str] | None,
        typer.Option(
            "--paths",
            metavar="PATTERN",
            help="Load the rules only once a file matching PATTERN is read (repeatable); "
            "by default the paths an entry is about.",
        ),
    ] = None,
    everywhere: Annotated[
        bool,
        typer.Option("--everywhere", help="No paths: load the rules at every session start."),
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Write without asking.")] = False,
    playbook: playbook_option = None,
) -> None:
    """Move proven entries into the instructions the team reviews: Claude Code's rules or
    CLAUDE.md.

    Proven: concluded "helps" by the hold-back experiments, or pinned (else --force).
    The diff is shown first and written when you confirm; the entries then leave the
    playbook, their history kept (`acecode why NAME`); `acecode undo` takes it back.
    """
    from acecode.edits.graduate import GraduateError, plan_graduation, run_graduation
    from acecode.project import paths as project_paths
    from acecode.project.layer import Layer
    from acecode.project.layers import USER_PREFIX
    from acecode.store import PlaybookError

    if to not in TARGETS:
        fail(f"--to must be one of {', '.join(TARGETS)}, not {to!r}")
    if len({name.startswith(USER_PREFIX) for name in names}) > 1:
        fail("graduate the user layer's entries (u-...) and the project's in two commands")
    project = project_paths.project_dir()
    layer = Layer(layer_path(playbook, name=names[0]))
    patterns = () if everywhere else (tuple(paths) if paths else None)
    try:
        plan = plan_graduation(
            names,
            project=project,
            layer=layer,
            to_claude_md=to == "CLAUDE.md",
            force=force,
            paths=patterns,
        )
    except (GraduateError, PlaybookError) as exc:
        fail(str(exc))
    console.print(plan.diff(project), markup=False, highlight=False, soft_wrap=True, end="")
    if not yes and not _confirmed():
        console.print("nothing written", markup=False)
        raise typer.Exit(1)
    try:
        cycle_id = run_graduation(plan)
    except PlaybookError as exc:
        fail(f"{exc}; nothing written")
    refresh_injection(playbook)
    for moved in plan.graduates:
        patterns = ", ".join(moved.paths)
        limited = f", loaded once a file matching {patterns} is read" if patterns else ""
        console.print(
            f"graduated {moved.name} to {moved.file}{limited}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"{counted(len(plan.graduates), 'entry')} left the playbook (cycle {cycle_id}); "
        f"`acecode undo {cycle_id}` takes it back, `acecode why NAME` tells its history",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _confirmed() -> bool:
    """The user's yes; no answer (no terminal, end of input) is a no."""
    try:
        return typer.confirm("Write these changes?", default=False)
    except typer.Abort:
        console.print()
        return False


def register(app: typer.Typer) -> None:
    app.command()(graduate)
