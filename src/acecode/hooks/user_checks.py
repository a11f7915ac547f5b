"""What stops learning in every project of this user, checked cheaply at session start.

Three states hold for every project at once: the user's ``~/.claude/acecode.toml``
cannot be read (acecode is off everywhere) or holds settings acecode ignores (or a
prompt template override acecode cannot use), no
LLM provider is configured (every learning cycle would fail), and a budget stops
learning (:func:`acecode.cost.budget.paused`). Finding out costs the provider
registry, the settings and the cost ledger: several times the injection hook's
budget. So the answer is cached in ``~/.claude/acecode-user/acecode/session-checks.json``
(beside the user layer's state, never in a project), under a key of everything
it depends on, cheap to compute:

- acecode's version;
- the LLM, budget and settings variables (``ACECODE_*``, ``AGENTIC_CONTEXT_*``,
  ``ANTHROPIC_*``, ``OPENAI_*``), ``PATH`` and ``XDG_STATE_HOME``: secrets only as
  set or not (that is all the provider choice reads of them), other values as a
  CRC, so no value is written in clear;
- the modification time of every ``PATH`` folder and the ``stat`` of
  ``ACECODE_CLAUDE_BIN``: installing or removing the ``claude`` command changes
  its folder;
- the ``stat`` of both ``acecode.toml`` files (the ``claude`` provider's settings
  may come from the project's) and of the cost ledger, and today's date (a
  budget's day or month ends);
- the ``stat`` of the user's prompt template overrides (one that cannot be used is
  named, :mod:`acecode.prompts.templates`).

The file keeps the answers for the last few keys, so that projects with their
own ``acecode.toml`` do not evict each other.
"""

from __future__ import annotations

import os
import time
from typing import Any

import acecode
from acecode.hooks.cache_files import read_cache_file, write_cache_file
from acecode.hooks.context import user_template_override
from acecode.project.file_stat import stat_key
from acecode.project.layer import Layer

CHECKS_NAME = "session-checks.json"
# acecode.prompts.templates.TEMPLATES (a test keeps them equal): the user's overrides.
TEMPLATE_NAMES = (
    "playbook.txt",
    "reflector.txt",
    "curator.txt",
    "reflection.txt",
    "judge.txt",
    "safety_review.txt",
)
KEEP = 8  # answers kept, one per key
_PREFIXES = ("ACECODE_", "AGENTIC_CONTEXT_", "ANTHROPIC_", "OPENAI_")
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH")
_ALSO = ("PATH", "XDG_STATE_HOME")
# acecode.llm.settings.CLAUDE_BIN_VAR; a test keeps them equal
CLAUDE_BIN_VAR = "ACECODE_CLAUDE_BIN"
HOW_TO = (
    "set ANTHROPIC_API_KEY (or AGENTIC_CONTEXT_API_KEY), or ACECODE_OPENAI_BASE_URL and "
    "ACECODE_OPENAI_MODEL for an OpenAI-compatible server, or put the `claude` command on "
    "PATH (`acecode doctor` shows how)"
)


def checks_file() -> str:
    """``~/.claude/acecode-user/acecode/session-checks.json``."""
    return Layer.user().state_file(CHECKS_NAME)


def _environment() -> list[list[Any]]:
    """The variables the checks read, secrets as set or not, other values as a CRC."""
    from zlib import crc32

    items = []
    for name, value in os.environ.items():
        if not (name.startswith(_PREFIXES) or name in _ALSO):
            continue
        if any(word in name for word in _SECRET_WORDS):
            items.append([name, bool(value.strip())])
        else:
            items.append([name, crc32(value.encode("utf-8", "surrogateescape"))])
    return sorted(items)


def _path_folders() -> list[int | None]:
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return [stat[0] if (stat := stat_key(folder)) else None for folder in folders]


def _key(project: str, ledger: str | None) -> list[Any]:
    claude_bin = os.environ.get(CLAUDE_BIN_VAR, "")
    return [
        acecode.__version__,
        _environment(),
        _path_folders(),
        stat_key(claude_bin) if os.sep in claude_bin else None,
        stat_key(os.path.join(os.path.expanduser("~"), ".claude", "acecode.toml")),
        stat_key(os.path.join(project, ".claude", "acecode.toml")),
        stat_key(ledger) if ledger else None,
        time.strftime("%Y-%m-%d"),
        [stat_key(user_template_override(name)) for name in TEMPLATE_NAMES],
    ]


def user_notices(project: str) -> dict[str, Any]:
    """``{"config_off": [...], "config_ignored": [...], "learning": [...],
    "no_provider": bool}``: lines about the user's settings file that cannot be read
    (shown even where acecode is thereby off), the settings it ignores, and what stops
    learning (shown where acecode is on); and whether no LLM provider is configured (so
    no review of the entries that arrive with a repository can be made,
    :mod:`acecode.arrivals.mode`). Whether the cost ledger can be written is looked at
    every time (a folder's permissions are not in the cache's key)."""
    notices, ledger = _cached(project)
    unwritable = ledger_problem(ledger)
    if unwritable:
        notices = {**notices, "learning": [unwritable, *notices.get("learning", ())]}
    return notices


def _cached(project: str) -> tuple[dict[str, Any], str | None]:
    """The cached notices (computed on a miss) and the cost ledger's path."""
    data = read_cache_file(checks_file()) or {}
    ledger = data.get("ledger") if isinstance(data.get("ledger"), str) else None
    key = _key(project, ledger)
    entries = data.get("entries") if isinstance(data.get("entries"), list) else []
    for entry in entries:
        if isinstance(entry, dict) and entry.get("key") == key:
            return entry["notices"], ledger
    notices, ledger = _check()
    entry = {"key": _key(project, ledger), "notices": notices}
    kept = [e for e in entries if isinstance(e, dict) and e.get("key") != entry["key"]]
    write_cache_file(checks_file(), {"ledger": ledger, "entries": [*kept[-(KEEP - 1) :], entry]})
    return notices, ledger


def ledger_problem(ledger: str | None) -> str:
    """A line when the cost ledger (or its folder) cannot be written: no cycle starts
    whose spend it could not record. Never worded as a budget."""
    from acecode.project.writable import looks_unwritable

    if not ledger:
        return ""
    problem = looks_unwritable(ledger, folder=False) or looks_unwritable(
        os.path.dirname(ledger), folder=True
    )
    if not problem:
        return ""
    return (
        f"sessions are not learned from: the cost ledger cannot be written ({problem}), "
        "and no learning cycle starts whose spend it could not record; make it writable "
        "(`acecode doctor`)"
    )


def _check() -> tuple[dict[str, Any], str | None]:
    """The notices, computed (a cache miss), and the cost ledger's path."""
    from acecode.project.config_check import as_notices, user_problems
    from acecode.prompts.templates import override_problems

    budget, ledger = budget_problem()
    provider = provider_problem()
    notices: dict[str, Any] = as_notices(user_problems())
    notices["config_ignored"] += override_problems()
    notices["learning"] = [line for line in (provider, budget) if line]
    notices["no_provider"] = bool(provider)
    return notices, ledger


def budget_problem() -> tuple[str, str | None]:
    """Why the budgets stop learning now, in one line ("" when they do not), and the
    ledger's path. A ledger that cannot be read is ``acecode doctor``'s to report."""
    from acecode.cost.budget import Limits, paused
    from acecode.cost.ledger import Ledger, LedgerError
    from acecode.project.config import load_settings
    from acecode.project.control import user_config

    ledger = Ledger()
    try:
        why = paused(ledger.records(), Limits.from_settings(load_settings()))
    except LedgerError:
        return "", str(ledger.path)
    if not why:
        return "", str(ledger.path)
    return f"{why} (`acecode cost`; budgets are set in {user_config()})", str(ledger.path)


def provider_problem() -> str:
    """Why no learning cycle can call an LLM, in one line; "" when a provider is set."""
    from acecode.llm import ProviderConfigError, explain_provider

    try:
        explain_provider()
    except ProviderConfigError as exc:
        first = str(exc).splitlines()[0].removesuffix(" Choose one:").rstrip(".")
        if first.startswith("no LLM provider is configured"):
            return f"no LLM provider is configured, so sessions are not learned from: {HOW_TO}"
        return f"sessions are not learned from: {first} (`acecode doctor`)"
    return ""
