"""``acecode add``, ``edit`` and ``forget``: change one rule by hand.

The work is done by :mod:`acecode.edits.rule_edits`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from acecode.cli.common import (
    console,
    fail,
    layer_path,
    playbook_option,
    refresh_injection,
    user_option,
)

if TYPE_CHECKING:
    from acecode.edits.rule_edits import RuleEdit

_NAME = Annotated[str, typer.Argument(metavar="NAME", help="Entry ID, e.g. pat-001.")]
_TEXT = Annotated[str, typer.Argument(metavar="TEXT", help="The rule, in one or two sentences.")]
_REASON = Annotated[
    str, typer.Option("--reason", help="Why, kept in the entry's provenance (`acecode why`).")
]
_WHEN = Annotated[
    list[str] | None,
    typer.Option(
        "--when",
        metavar="TOOL:PATTERN",
        help="Warn before a tool call that matches (repeatable; replaces the rule's earlier "
        "patterns): TOOL is Bash, Read, Edit, "
        "Write, MultiEdit or NotebookEdit, with .old_string for an Edit's old text; PATTERN "
        "a regular expression searched in the command, the file path or the old text, "
        "{cwd_name} standing for the folder the call runs in. e.g. 'Read:(^|/)status\\.md$'",
    ),
]


def _say(message: str) -> None:
    console.print(message, markup=False, highlight=False, soft_wrap=True)


def _run(
    playbook: Path | None,
    change: Callable[[], RuleEdit],
    done: Callable[[RuleEdit], str],
    when: list[str] | None = None,
) -> None:
    """Make the change and say in one line what changed and how to take it back, or why
    it waits for review; a change that landed re-renders what the hooks inject."""
    from acecode.store import PlaybookError

    try:
        result = change()
    except PlaybookError as exc:
        fail(str(exc))
    if result.held:
        _say(
            f"held for review, not changed yet: {result.held_rule}: {result.held_detail}. "
            f"`acecode review approve {result.held_id}` applies it, "
            f"`acecode review reject {result.held_id}` drops it"
            + (
                "; --when is not kept for a held text: give it with `acecode edit NAME "
                "--when ...` once approved"
                if when
                else ""
            )
        )
        return
    refresh_injection(playbook)
    if result.cycle_id is None:  # only the triggers changed: provenance, no history line
        _say(done(result))
        return
    _say(f"{done(result)}; recorded as cycle {result.cycle_id} (`acecode undo` reverts it)")


def _refuse_the_home_folder() -> None:
    """A rule added in the home folder would start a project playbook there, beside the
    user layer it was surely meant for: say which to use instead."""
    from acecode.project import paths

    project = paths.project_dir()
    if project.resolve() == Path.home().resolve():
        fail(
            f"{project} is your home folder, not a project: `acecode add --user ...` adds the "
            "rule to your user layer (every project); or run it in a project"
        )


def add(
    text: _TEXT,
    section: Annotated[
        str,
        typer.Option(
            "--section", "-s", help="Section name or ID prefix: pat, mis, pref, ctx, oth."
        ),
    ],
    reason: _REASON = "",
    when: _WHEN = None,
    playbook: playbook_option = None,
    user: user_option = False,
) -> None:
    """Add one rule to a section (screened like a learned rule; flagged ones wait for review);
    ``--user`` adds it to your user layer, for every project; ``--when`` warns before the
    tool calls it is about."""
    from acecode.edits.rule_edits import add_rule

    if playbook is None and not user:
        _refuse_the_home_folder()
    _run(
        playbook,
        lambda: add_rule(layer_path(playbook, user=user), text, section, reason=reason, when=when),
        lambda result: f"added {result.name} to {result.section}{_triggers(when)}",
        when,
    )


def edit(
    name: _NAME,
    text: Annotated[
        str | None,
        typer.Argument(metavar="[TEXT]", help="The new text (leave out to change --when only)."),
    ] = None,
    reason: _REASON = "",
    when: _WHEN = None,
    no_when: Annotated[
        bool, typer.Option("--no-when", help="Remove the rule's input patterns.")
    ] = False,
    playbook: playbook_option = None,
) -> None:
    """Replace one rule's text (screened like a learned rule; flagged ones wait for review),
    or set its ``--when`` patterns: recall warns before the tool calls they match."""
    from acecode.edits.rule_edits import edit_rule

    if no_when and when:
        fail("--when and --no-when contradict each other; give one of them")
    patterns = [] if no_when else when
    _run(
        playbook,
        lambda: edit_rule(
            layer_path(playbook, name=name), name, text, reason=reason, when=patterns
        ),
        lambda result: (
            f"{'edited' if text is not None else 'set the triggers of'} {name}{_triggers(patterns)}"
        ),
        patterns,
    )


def _triggers(when: list[str] | None) -> str:
    if when is None:
        return ""
    return f" (warns before a call matching {', '.join(when)})" if when else " (no patterns)"


def forget(name: _NAME, reason: _REASON = "", playbook: playbook_option = None) -> None:
    """Delete one rule (`acecode undo` or `acecode restore NAME` brings it back)."""
    from acecode.edits.rule_edits import forget_rule

    _run(
        playbook,
        lambda: forget_rule(layer_path(playbook, name=name), name, reason=reason),
        lambda result: f"forgot {name} ({result.section})",
    )


def register(app: typer.Typer) -> None:
    app.command()(add)
    app.command()(edit)
    app.command()(forget)
