"""``acecode import --auto-memory``: Claude's own notes for this project into the review
queue (:mod:`acecode.instructions.memory_import`)."""

from __future__ import annotations

from typing import Annotated

import typer

from acecode.cli.common import console, fail, playbook_option
from acecode.text.wording import counted


def import_(
    auto_memory: Annotated[
        bool,
        typer.Option(
            "--auto-memory",
            help="Offer the notes Claude Code's auto memory keeps for this project "
            "(~/.claude/projects/<project>/memory/) for review as rules.",
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be queued; queue nothing.")
    ] = False,
    playbook: playbook_option = None,
) -> None:
    """Bring what Claude already learned into acecode: every note waits in `acecode review`
    and becomes a rule only when you approve it."""
    from acecode.instructions import auto_memory as memory
    from acecode.instructions.memory_import import auto_memory_notes, queue_notes
    from acecode.project import paths
    from acecode.project.config import load_settings
    from acecode.project.layer import Layer
    from acecode.quarantine.queue import QueueError
    from acecode.quarantine.unreviewed import hold_label
    from acecode.store import PlaybookError, load_playbook

    if not auto_memory:
        fail("say what to import: --auto-memory (Claude Code's notes for this project)")
    project = paths.project_dir()
    folder = memory.memory_folder(project)
    notes = auto_memory_notes(project)
    if not notes:
        console.print(f"no auto-memory notes for this project in {folder}", markup=False)
        return
    layer = Layer.of(playbook)
    try:
        result = queue_notes(
            notes,
            project=project,
            playbook=load_playbook(layer),
            layer=layer,
            settings=load_settings(),
            dry_run=dry_run,
        )
    except (PlaybookError, QueueError) as exc:
        fail(str(exc))
    verb = "would queue" if dry_run else "queued"
    for item in result.queued:
        console.print(
            f"  {item.id}  ({hold_label(item.rule)}) {item.section}: {item.text}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    for note, why in result.skipped:
        line = f"  skipped ({why}): {note.text}"
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"{verb} {counted(len(result.queued), 'note')} of {folder} for review"
        + ("" if dry_run else "; `acecode review` to approve or reject each"),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def register(app: typer.Typer) -> None:
    app.command(name="import")(import_)
