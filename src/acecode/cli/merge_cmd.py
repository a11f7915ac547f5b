"""``acecode merge-driver`` (what git runs) and ``acecode install/uninstall --git``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from acecode.cli.common import console, err_console, fail
from acecode.text.wording import counted


def _say(text: str, *, err: bool = False) -> None:
    (err_console if err else console).print(text, markup=False, highlight=False, soft_wrap=True)


def _summary(result: object) -> str:
    from acecode.edits.merge_driver import DriverResult

    assert isinstance(result, DriverResult)
    outcome = result.outcome
    parts = []
    held = [item_id for _, item_id in result.queued if item_id is not None]
    if held:
        parts.append(
            f"{counted(len(held), 'text')} held for review ({', '.join(held)}; `acecode review`)"
        )
    refused = [item.name for item, item_id in result.queued if item_id is None]
    if refused:
        parts.append(f"not held again, rejected in an earlier review: {', '.join(refused)}")
    for renumbered in outcome.renumbered:
        parts.append(f"their new {renumbered.old} is now {renumbered.new}")
    for renamed in outcome.renamed:
        parts.append(f"our {renamed.old} is now {renamed.new}, as the other side numbers it")
    if result.pins_problem:
        parts.append(f"pins not moved along: {result.pins_problem}")
    if result.cycle_id:
        parts.append(f"history cycle {result.cycle_id}")
    detail = f": {'; '.join(parts)}" if parts else ""
    return f"acecode: merged {result.playbook} by entry{detail}"


def merge_driver(
    base: Annotated[Path, typer.Argument(help="git's %O: the merge base's version.")],
    ours: Annotated[Path, typer.Argument(help="git's %A: our version; the result goes here.")],
    theirs: Annotated[Path, typer.Argument(help="git's %B: their version.")],
    path: Annotated[
        str | None,
        typer.Argument(help="git's %P: the playbook's path in the repository."),
    ] = None,
    virtual_base: Annotated[
        bool,
        typer.Option(
            "--virtual-base",
            help="git's internal merge of two merge bases: queue and journal nothing.",
        ),
    ] = False,
) -> None:
    """Merge .claude/playbook.json by entry (git runs this; set up by `acecode install --git`)."""
    from acecode.edits.merge_driver import MergeDriverError, run_driver
    from acecode.project import paths

    playbook = Path(path) if path else paths.playbook_path()
    try:
        result = run_driver(base, ours, theirs, playbook, virtual_base=virtual_base)
    except MergeDriverError as exc:
        fail(f"{playbook} not merged: {exc}; git leaves the conflict for you to resolve")
    if not virtual_base:
        _say(_summary(result), err=True)


def install_git() -> None:
    """``acecode install --git``: register the merge driver in this repository."""
    from acecode.agents.hooks_file import acecode_executable
    from acecode.edits.gitsetup import GitSetupError, install_git

    try:
        setup = install_git(acecode_executable("user"))
    except GitSetupError as exc:
        fail(str(exc))
    if setup.attributes_action == "added":
        _say(f"added `{setup.attributes_line}` to {setup.attributes} (commit it)")
    else:
        _say(f"{setup.attributes} already has `{setup.attributes_line}`")
    for change in setup.config:
        if change.action != "unchanged":
            _say(f"git config --local {change.key} {change.value!r} ({change.action})")
    if all(change.action == "unchanged" for change in setup.config):
        _say(f"the merge driver is already configured in the git config of {setup.root}")
    if setup.state_ignore_written:
        _say(f"wrote {setup.state_ignore}: acecode's state stays out of git")
    if setup.tracked_state:
        _say(
            "warning: git tracks acecode's local state: "
            f"{', '.join(setup.tracked_state)}; untrack it with "
            f"`git rm -r --cached {setup.state_in_repo}`"
        )
    _say(
        "the driver lives in this clone's git config, which is not committed: "
        "each teammate runs `acecode install --git` once (without it git merges "
        "the playbook as plain text)"
    )


def uninstall_git() -> None:
    """``acecode uninstall --git``: remove the attributes line and the driver config."""
    from acecode.edits.gitsetup import GitSetupError, uninstall_git

    try:
        setup = uninstall_git()
    except GitSetupError as exc:
        fail(str(exc))
    if setup.attributes_action == "removed":
        _say(f"removed `{setup.attributes_line}` from {setup.attributes} (commit it)")
    else:
        _say(f"{setup.attributes} has no `{setup.attributes_line}` line")
    removed = [change.key for change in setup.config if change.action == "removed"]
    if removed:
        _say(f"removed from this clone's git config: {', '.join(removed)}")
    else:
        _say("the merge driver was not configured in this clone")


def register(app: typer.Typer) -> None:
    """Add ``merge-driver`` to the app."""
    app.command("merge-driver")(merge_driver)
