"""Which LLM provider the hooks used, beside the one this shell would use.

The hooks run with the environment Claude Code (or Codex) was started with,
not the shell ``acecode doctor`` runs in: a key exported in ``~/.bashrc`` after
Claude Code started, or a desktop-launched Claude Code without it, makes the
two differ. So ``doctor`` shows both: this shell's choice (as the next
``acecode learn`` would make it) and what the last cycle a hook started in
this project recorded (``cycles.jsonl``), and a shell without a provider is
only a note when the hooks have one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acecode.project import outcomes

if TYPE_CHECKING:
    from acecode.project.layer import Layer


def last_hook_choice(layer: Layer) -> dict[str, Any] | None:
    """The record of the last cycle a hook started here that chose a provider or failed for
    want of one (cycles skipped before choosing say nothing about it), or None."""
    for record in reversed(outcomes.read_outcomes(layer)):
        if not outcomes.started_by_hook(record.get("source")):
            continue
        if record.get("provider") or record.get("status") == outcomes.FAILED:
            return record
    return None


def hooks_line(record: dict[str, Any] | None, shell_provider: str | None) -> str:
    """One line: what the hooks' last cycle here used (or found), compared with this shell."""
    if record is None:
        return (
            "the hooks have not called a provider in this project yet; they use the environment "
            "Claude Code was started with, which may differ from this shell's"
        )
    head = f"the hooks' last cycle here ({record.get('finished_at')}, {record.get('source')})"
    used = outcomes.describe_provider(record)
    if not used:
        reason = outcomes.one_line(str(record.get("reason") or "no reason recorded"), 160)
        return f"{head} found no LLM provider: {reason}"
    differs = (
        f" (not this shell's {shell_provider}: the hooks have Claude Code's environment)"
        if shell_provider and record.get("provider") != shell_provider
        else ""
    )
    return f"{head} used {used}{differs}"


def hooks_have_a_provider(record: dict[str, Any] | None) -> bool:
    """True when the hooks' last cycle here chose a provider."""
    return bool(record and record.get("provider"))
