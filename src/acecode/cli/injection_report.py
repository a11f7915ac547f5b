"""What reaches the model: the injection as ``doctor``, ``stats`` and ``show`` report it.

Everything comes from the same render the hooks use (``acecode.hooks.rendered``),
through its cache for the project's own playbook, so the numbers shown are
those of the text Claude Code receives.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from acecode.project.layers import is_user_name, user_playbook_file
from acecode.text.wording import counted


def injection_state(playbook: Path | None = None, *, write: bool = True) -> dict[str, Any]:
    """The session-start state (see ``rendered.session_start``) for ``playbook``;
    ``write=False`` leaves the injection cache as it is (``acecode doctor``).

    Raises ``acecode.store.PlaybookError`` for a playbook that cannot be read.
    """
    from acecode.hooks import rendered
    from acecode.project import paths
    from acecode.store import PlaybookError, resolve_path

    project = str(paths.project_dir())
    target = resolve_path(playbook)
    if target.resolve() == paths.playbook_path().resolve():
        state = rendered.session_start(project, write=write)
    else:
        state = rendered.render_uncached(project, str(target))
    if state.get("error"):
        raise PlaybookError(state["error"])
    return state


def describe(state: dict[str, Any], playbook: Path | None = None) -> list[str]:
    """Lines for a report: how many entries reach the model, and what is wrong if anything.

    Problems start with ``[problem]`` and warnings with ``[warning]``, as in
    ``acecode doctor``.
    """
    from acecode.playbook.budget import (
        CLAUDE_CODE_CONTEXT_CAP,
        CLAUDE_CODE_VERSION_MEASURED,
        context_length,
    )

    if not state.get("active", True):
        return [f"nothing is injected: acecode is off here ({state.get('reason', '')})"]
    total, budget = state.get("total", 0), state.get("budget")
    lines: list[str] = []
    if isinstance(budget, int) and budget > CLAUDE_CODE_CONTEXT_CAP:
        lines.append(
            f"[problem] injection_budget_chars = {budget} is above the {CLAUDE_CODE_CONTEXT_CAP:,} "
            f"characters Claude Code {CLAUDE_CODE_VERSION_MEASURED} passes whole: a longer "
            "context reaches the model as a 2 KB preview"
        )
    if not total:
        held = repeats(state) + _held_arrivals(state)
        return [*lines, *(held or ["nothing to inject yet (no entries)"])]
    text = state.get("text", "")
    if not text:
        return [
            *lines,
            f"[problem] nothing is injected: the playbook.txt template alone is longer than "
            f"injection_budget_chars ({budget})",
        ]
    shown, left_out = len(state.get("injected", ())), state.get("left_out", 0)
    lines.append(
        f"{shown} of {counted(total, 'entry')} reach the model at session start "
        f"({context_length(text):,} of {budget:,} characters)"
    )
    if left_out:
        lines.append(
            f"[warning] {counted(left_out, 'entry')} left out at session start "
            "(best entries first, every section its share); the per-prompt top-up adds the "
            f"ones relevant to each prompt (up to {state.get('topup_budget', 0):,} characters); "
            "`acecode pin NAME` keeps an entry in"
        )
    return lines + repeats(state) + _held_arrivals(state) + _stale_pins(state, playbook)


def repeats(state: dict[str, Any]) -> list[str]:
    """The entries left out because they repeat an instruction Claude Code loads at session
    start, each with that instruction (:mod:`acecode.instructions.overlap`)."""
    records = state.get("repeats") or []
    if not records:
        return []
    lines = [
        f"{counted(len(records), 'entry')} left out at session start: "
        "each repeats an instruction Claude Code already loads into the same context"
    ]
    for record in records:
        lines.append(
            f"  [{record['name']}] repeats {record['label']}:{record['line']}: "
            f"“{record['instruction']}”"
        )
    return lines


def _held_arrivals(state: dict[str, Any]) -> list[str]:
    """Entries that arrived with the repository and are held (``acecode.arrivals``)."""
    arrivals = state.get("arrivals") or {}
    held = len(arrivals.get("held") or ())
    waiting = int(arrivals.get("reviewing") or 0) + int(arrivals.get("unscreened") or 0)
    lines = []
    if held:
        lines.append(
            f"[warning] {held} of the {arrivals.get('arrived', held)} entries that arrived with "
            "the repository (not written on this machine) are held for review and not injected "
            "(`acecode review`)"
        )
    if waiting:
        lines.append(
            f"[warning] {waiting} of the {arrivals.get('arrived', waiting)} entries that arrived "
            "with the repository wait for the LLM review started in the background at session "
            "start and are not injected until it passes them"
        )
    if arrivals.get("arrived") and not arrivals.get("need_review"):
        lines.append(
            "entries that arrived with the repository are screened by the floor alone, as no "
            "LLM provider is configured to review them"
        )
    return lines


def _stale_pins(state: dict[str, Any], playbook: Path | None) -> list[str]:
    """Pins that name no entry (deleted or merged away) in the layer the name belongs to:
    a ``u-`` pin is looked up in the user layer, which is injected beside the project's."""
    pinned = state.get("pinned") or []
    if not pinned:
        return []
    names = _names(playbook)
    if any(is_user_name(name) for name in pinned) and os.path.exists(user_playbook_file()):
        names |= _names(Path(user_playbook_file()))
    stale = [name for name in pinned if name not in names]
    if not stale:
        return [f"pinned: {', '.join(pinned)}"]
    return [
        f"pinned: {', '.join(pinned)}",
        f"[warning] pinned but not in the playbook: {', '.join(stale)} "
        "(deleted or merged; `acecode unpin NAME`)",
    ]


def _names(playbook: Path | None) -> set[str]:
    """Every entry name in the playbook at ``playbook``."""
    from acecode.playbook.schema import iter_entries
    from acecode.store import load_playbook

    return {entry["name"] for _section, entry in iter_entries(load_playbook(playbook))}
