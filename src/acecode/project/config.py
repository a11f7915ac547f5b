"""acecode settings: one place that says where each knob comes from.

Precedence, highest first: environment variable ``ACECODE_<NAME>`` (upper
case), the project file ``<project>/.claude/acecode.toml``, the user file
``~/.claude/acecode.toml``, then the default below. Claude Code's own keys
``playbook_update_on_exit`` / ``playbook_update_on_clear`` are read from the
Claude Code settings files, as the earlier system did; they are opt-outs now
(see :func:`claude_setting`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from acecode.playbook.budget import DEFAULT_INJECTION_BUDGET, DEFAULT_TOPUP_BUDGET
from acecode.project import paths
from acecode.project.diagnostics import warn


@dataclass(frozen=True)
class Settings:
    """Every tunable of acecode with its default. Documented in the README."""

    # Review gate: "flagged" queues only texts the quarantine screen flags;
    # "all" queues every new text for a human.
    review: str = "flagged"
    # Longest rule text accepted into the playbook (characters).
    max_rule_chars: int = 600
    # Natural languages the project's rules may be written in without a safety review
    # (ISO 639-1 codes, comma-separated or a TOML list). Empty: English and the languages
    # of your own requests in the sessions learned (.claude/acecode/languages.json).
    # A rule in another language waits for a human unless the safety review passed it.
    languages: str = ""
    # Least severity ("low", "medium" or "high") at which a flag of the LLM safety review
    # holds a rule for a human; a lower flag is only reported.
    review_severity: str = "medium"
    # Token budget of the condensed transcript given to the reflector (its largest part:
    # every request, failed call and reply after a failure is kept well within it).
    transcript_budget_tokens: int = 10_000
    # Share of entries one cycle may remove (delete + prune + merge-away).
    max_removal_ratio: float = 0.10
    # Warn when one cycle shrinks the playbook by more than this share.
    shrink_warning_ratio: float = 0.20
    # A MERGE text may be at most this much shorter than its longest source.
    min_merge_length_ratio: float = 0.6
    # Seconds to wait for the playbook lock before giving up with an error.
    lock_timeout: float = 10.0
    # Learn from subagent transcripts at SubagentStop.
    learn_from_subagents: bool = True
    # Seconds between sessions during `acecode bootstrap`.
    bootstrap_delay: float = 2.0
    # A session (or its part not learned yet) is too small to learn from, and skipped
    # without an LLM call, when it has fewer user requests than this, fewer tool calls
    # than learn_min_tool_calls, no failed tool call and no stated preference (a rule the
    # user gave outright, acecode.pipeline.triage.PREFERENCE). Only cycles started by a hook
    # or by `acecode bootstrap` skip; `acecode learn` learns what it is given.
    learn_min_requests: int = 2
    learn_min_tool_calls: int = 5
    # Before any LLM call, a cycle started by a hook, bootstrap or catch-up reads the
    # session for a learning signal (a failed call, a correction, a preference, an
    # interruption, a repeated attempt: acecode.pipeline.triage); a session with none is
    # recorded as "nothing to learn" at $0. `acecode learn` by hand only with --triage.
    triage: bool = True
    # Pairs of texts at or above this calibrated similarity are sent to the judge
    # (recall-oriented: embeddings only propose, the judge decides; docs/dedup.md).
    judge_floor: float = 0.55
    # Most pairs one judge call may carry; the rest wait for a later cycle.
    judge_max_pairs: int = 40
    # Pairs of a text and one of the project's instructions (CLAUDE.md, rules) at or above
    # this calibrated similarity go to the judge too: lower than judge_floor, since a rule
    # that contradicts one sentence of a longer instruction scores lower (docs/instructions.md).
    instructions_judge_floor: float = 0.40
    # The `claude` provider (headless Claude Code): model alias or name, effort level
    # ("" leaves both to Claude Code), and seconds per call: a CLI run can take minutes,
    # as Claude Code retries API errors itself before it gives up.
    claude_model: str = "sonnet"
    claude_effort: str = "low"
    claude_timeout: float = 300.0
    # Longest session-start injection, framing included, in the characters Claude
    # Code counts (UTF-16 code units). Claude Code 2.1.197 replaces a hook context
    # longer than 10,000 by a 2 KB preview; see acecode.playbook.budget.
    injection_budget_chars: int = DEFAULT_INJECTION_BUDGET
    # Longest per-prompt top-up of relevant entries that did not fit at session start.
    topup_budget_chars: int = DEFAULT_TOPUP_BUDGET
    # Most tokens of playbook entries the curator is shown (acecode.playbook.curator_view):
    # the entries the session cited or the reflector tagged, then the most relevant ones.
    curator_budget_tokens: int = 4_000
    # Most tokens of playbook entries the reflector is shown (acecode.pipeline.reflector_view):
    # the entries the session cited, then the ones most relevant to the session.
    reflector_budget_tokens: int = 6_000
    # Most tokens of the project's own instructions (CLAUDE.md files, .claude/rules, the auto
    # memory's index) the reflector and the curator are shown (acecode.instructions.digest).
    instructions_budget_tokens: int = 1_000
    # An entry no learned session cited or tagged in this many sessions is offered to
    # the curator as a candidate to retire (acecode.playbook.retire); 0 turns it off.
    retire_after_sessions: int = 20
    # Spending limits of the learning cycles, across all projects (acecode.cost): per
    # local day and calendar month, in USD and in tokens (input + output); 0 = no limit.
    # A cycle whose worst case would cross one is skipped without an LLM call. Read from
    # ~/.claude/acecode.toml and the environment only: a project must not raise them.
    daily_budget_usd: float = 1.0
    monthly_budget_usd: float = 0.0
    daily_budget_tokens: int = 0
    monthly_budget_tokens: int = 0
    # A model of the same provider for the judge and for the safety review ("" = the
    # provider's model, as for the reflector and the curator): a cheaper one costs less
    # per cycle, at the price of judgements and reviews a weaker model makes. Read from
    # ~/.claude/acecode.toml and the environment only: a project must not weaken the
    # review of the rules it teaches, nor choose what the user pays for.
    judge_model: str = ""
    safety_review_model: str = ""
    # Randomised hold-back (acecode.experiments, docs/impact.md): in each session each
    # eligible entry is held back with probability holdback_rate, at most holdback_max
    # entries per session, to measure whether it makes its failure rarer. Opt-in, and read
    # from ~/.claude/acecode.toml and the environment only: a project must not withhold
    # rules from a user who did not ask for it.
    experiments: bool = False
    holdback_rate: float = 0.2
    holdback_max: int = 3
    # Recall (acecode.recall, docs/recall.md): a learned entry put in front of the agent
    # at the tool call it is about. `recall` after a failed call that matches an entry's
    # failure trigger; `recall_before` before a call whose input matches an entry's
    # input pattern (the PreToolUse hook, run on every tool call).
    recall: bool = True
    recall_before: bool = True


BUDGET_KEYS = frozenset(
    {"daily_budget_usd", "monthly_budget_usd", "daily_budget_tokens", "monthly_budget_tokens"}
)
EXPERIMENT_KEYS = frozenset({"experiments", "holdback_rate", "holdback_max"})
ROLE_MODEL_KEYS = frozenset({"judge_model", "safety_review_model"})
# Keys a project's .claude/acecode.toml may not set: they spend the user's money, choose
# the models that review the project's rules, or withhold rules from the user.
USER_ONLY_KEYS = BUDGET_KEYS | EXPERIMENT_KEYS | ROLE_MODEL_KEYS


def _read_toml(path: Path) -> dict[str, Any]:
    from acecode.project.toml_file import SettingsFileError, read_toml

    try:
        values, note = read_toml(path)
    except SettingsFileError as exc:
        warn(f"{exc}; its settings are ignored")
        return {}
    if note:
        warn(note)
    return values


# Settings that are shares or probabilities: between 0 and 1. Every number is at least 0.
FRACTION_KEYS = frozenset(
    {
        "max_removal_ratio",
        "shrink_warning_ratio",
        "min_merge_length_ratio",
        "judge_floor",
        "holdback_rate",
    }
)


def _convert(raw: Any, default: Any) -> Any:
    """``raw`` as the type of ``default`` (a list joins into text, ``"yes"`` is true);
    raises ``ValueError`` or ``TypeError`` when it cannot be."""
    if isinstance(default, str) and isinstance(raw, list):
        return ", ".join(str(item) for item in raw)
    if isinstance(default, bool):
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in {"1", "true", "yes", "on"}:
            return True
        if text in {"0", "false", "no", "off"}:
            return False
        raise ValueError(raw)
    if isinstance(default, int | float):
        return _number(raw, type(default))
    return type(default)(raw)


def _number(raw: Any, kind: type) -> int | float:
    """``raw`` as a finite number of ``kind`` (an ``int`` only when whole), at least 0."""
    import math

    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise TypeError(raw)
    number = float(raw.strip()) if isinstance(raw, str) else raw
    if not math.isfinite(number) or number < 0:
        raise ValueError(raw)
    if kind is int:
        if number != int(number):
            raise ValueError(raw)
        return int(number)
    return float(number)


def _expected(name: str, default: Any) -> str:
    if isinstance(default, bool):
        return "true or false"
    if name in FRACTION_KEYS:
        return "a number from 0 to 1"
    if isinstance(default, int):
        return "a whole number, 0 or more"
    if isinstance(default, float):
        return "a number, 0 or more"
    return "text"


def invalid_value(label: str, name: str, raw: Any, default: Any) -> str | None:
    """One line naming the setting ``name`` (``label``: ``<file>: <key>`` or a variable)
    when ``raw`` is not a usable value for it (its default is ``default``: the type, and
    for numbers finite and at least 0, at most 1 for a share); None when it is."""
    try:
        value = _convert(raw, default)
        if name in FRACTION_KEYS and value > 1:
            raise ValueError(raw)
    except (TypeError, ValueError, OverflowError):
        shown = json.dumps(raw, ensure_ascii=False, default=str)
        return f"{label} = {shown} is not {_expected(name, default)}; ignored"
    return None


def _label(where: str, name: str) -> str:
    """How a message names setting ``name`` from ``where`` (a file, or its variable)."""
    return where if where.startswith("ACECODE_") else f"{where}: {name}"


def user_only_key(project_file: Path, name: str) -> str:
    """The line for a budget or experiment key found in a project's file, which may not set
    it."""
    what = (
        "budgets"
        if name in BUDGET_KEYS
        else "role models"
        if name in ROLE_MODEL_KEYS
        else "experiments"
    )
    return (
        f"{project_file}: {name} ignored: {what} are set in "
        f"{paths.user_claude_dir() / 'acecode.toml'} or ACECODE_{name.upper()}, never by a project"
    )


def _toml_layers(project: Path | None) -> tuple[Path, Path]:
    """The TOML files, lowest precedence first."""
    return paths.user_claude_dir() / "acecode.toml", paths.claude_dir(project) / "acecode.toml"


def _layers(project: Path | None, env: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """Where settings come from, lowest precedence first: (name for messages, values by
    setting name). A project's budget keys are dropped with a warning."""
    user_file, project_file = _toml_layers(project)
    user_values, project_values = _read_toml(user_file), _read_toml(project_file)
    for name in sorted(USER_ONLY_KEYS & project_values.keys()):
        warn(user_only_key(project_file, name))
        del project_values[name]
    layers = [(str(user_file), user_values), (str(project_file), project_values)]
    for field in fields(Settings):
        env_name = f"ACECODE_{field.name.upper()}"
        if env_name in env:
            layers.append((env_name, {field.name: env[env_name]}))
    return layers


def load_settings(project: Path | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Merge defaults, user file, project file and environment (``os.environ`` unless given).

    A value that cannot be used is reported in one line naming its file (or
    variable) and key, and the next layer down (at last the default) applies.
    """
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for where, layer in _layers(project, env):
        for field in fields(Settings):
            if field.name not in layer:
                continue
            label = _label(where, field.name)
            problem = invalid_value(label, field.name, layer[field.name], field.default)
            if problem:
                warn(problem)
            else:
                values[field.name] = _convert(layer[field.name], field.default)
    return Settings(**values)


def setting_source(
    name: str, project: Path | None = None, env: Mapping[str, str] | None = None
) -> str | None:
    """Where setting ``name`` comes from: its variable, the TOML file, or None for the default."""
    env = os.environ if env is None else env
    env_name = f"ACECODE_{name.upper()}"
    if env_name in env:
        return env_name
    user_file, project_file = _toml_layers(project)
    layers = (user_file,) if name in USER_ONLY_KEYS else (project_file, user_file)
    for layer in layers:
        if name in _read_toml(layer):
            return str(layer)
    return None


def claude_setting(name: str, project: Path | None = None) -> tuple[Any, Path | None]:
    """A key of Claude Code's settings files (user, project, local; the last that sets it
    wins): its value and the file it came from, or ``(None, None)`` when no file sets it.

    The caller decides what a value means: acecode's learning hooks treat only an
    explicit ``false`` as an opt-out, so a missing or odd value never stops learning.
    """
    value: Any = None
    source: Path | None = None
    for layer in (
        paths.user_claude_dir() / "settings.json",
        paths.claude_dir(project) / "settings.json",
        paths.claude_dir(project) / "settings.local.json",
    ):
        try:
            data = json.loads(layer.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and name in data:
            value, source = data[name], layer
    return value, source
