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
user_option = Annotated[
    bool,
    typer.Option(
        "--user",
        help="The user layer (~/.claude/acecode-user/playbook.json, shared by all projects) "
        "instead of the project's playbook.",
    ),
]


def fail(message: str) -> NoReturn:
    """Print one ``acecode: ...`` line on stderr and exit with status 1."""
    err_console.print(f"acecode: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1)


def refresh_injection(playbook: Path | None = None) -> None:
    """Render what the hooks inject now, after a command changed one of its inputs.

    The session-start text and the top-up index are cached under a key of
    every input (``acecode.hooks.rendered``), and so is the recall index
    (``acecode.recall.index``); rendering them here, in a process that has
    already paid for its imports, spares the next hook a cache miss. Only the
    project's own playbook is injected, so a command run on another
    ``--playbook`` has nothing to refresh. A playbook that cannot
    be read is left for the hook to report.
    """
    import contextlib

    from acecode.hooks.rendered import CACHE_NAME, INDEX_NAME, prime
    from acecode.project import paths
    from acecode.project.layer import Layer
    from acecode.recall.index import INDEX_NAME as RECALL_INDEX
    from acecode.recall.index import current_index
    from acecode.store import PlaybookError
    from acecode.store.atomic import remove_stale_temp_files

    if playbook is not None and playbook.resolve() != paths.playbook_path().resolve():
        return
    project = str(paths.project_dir())
    # A learner killed while writing the cache leaves its temp file; hooks write the
    # cache best effort, so removing one in flight only costs that hook its write.
    for name in (CACHE_NAME, INDEX_NAME, RECALL_INDEX):
        remove_stale_temp_files(Path(Layer.of_project(project).state_file(name)))
    with contextlib.suppress(PlaybookError):
        prime(project)
        current_index(project)


def layer_path(playbook: Path | None, *, user: bool = False, name: str | None = None) -> Path:
    """The playbook file a command acts on: the user layer with ``--user`` or for a
    ``u-`` entry name given without ``--playbook``, else the project's (or ``--playbook``)."""
    from acecode.project.layers import is_user_name, user_playbook_file
    from acecode.store import resolve_path

    if user and playbook is not None:
        fail("--user and --playbook name two different files; give one of them")
    if user or (playbook is None and is_user_name(name)):
        chosen = Path(user_playbook_file())
    else:
        chosen = resolve_path(playbook)
    settle_interrupted_save(chosen)
    return chosen


def settle_interrupted_save(playbook: Path) -> None:
    """Finish (or undo) a save of ``playbook`` that a killed process left half done, so
    that what the command reads (history, provenance) matches the playbook; one line
    when one was found (:mod:`acecode.store.commit`)."""
    from acecode.project.layer import Layer
    from acecode.store import PlaybookError
    from acecode.store.commit import settle_pending

    try:
        done = settle_pending(Layer(playbook))
    except PlaybookError as exc:
        done = str(exc)
    if done:
        err_console.print(f"acecode: {done}", markup=False, highlight=False, soft_wrap=True)
