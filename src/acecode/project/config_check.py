"""Configuration acecode cannot use, one line per problem naming the file (or variable)
and the key.

:mod:`acecode.project.config` and :mod:`acecode.project.control` read the settings and the switches
and fall back on what they cannot use; this module lists what that was, for the
places a user looks: ``acecode doctor`` and the session-start notice. Two kinds:

* a file that cannot be read (invalid TOML, no permission): acecode is off where
  it applies until it is fixed (see :mod:`acecode.project.control`), so it is
  ``unreadable``;
* an ignored setting in a readable file or the environment: an unknown key (a
  typo), a value of the wrong type (``max_rule_chars = "lots"``), a budget key
  in a project's file, a switch in the file where it does not apply.

Which keys each file takes: the user's ``~/.claude/acecode.toml`` every setting
and ``opt_in``; a project's ``.claude/acecode.toml`` every setting but the
budgets, and ``enabled``; the local switch file ``enabled`` alone.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from acecode.project import config, control

USER, PROJECT, SWITCH = "user", "project", "switch"


@dataclass(frozen=True)
class ConfigProblem:
    """One line for the user; ``unreadable`` when a whole file could not be read."""

    text: str
    unreadable: bool = False


_DEFAULTS: dict[str, Any] = {field.name: field.default for field in fields(config.Settings)}


def _allowed(role: str) -> set[str]:
    if role == SWITCH:
        return {control.ENABLED_KEY}
    if role == PROJECT:
        return (_DEFAULTS.keys() - config.USER_ONLY_KEYS) | {control.ENABLED_KEY}
    return set(_DEFAULTS) | {control.OPT_IN_KEY}


def _unknown(path: Path, key: str, role: str) -> str:
    if key == control.ENABLED_KEY:
        return (
            f"{path}: {key} ignored: the on/off switch is per project (`acecode off` in the "
            f"project), or {control.OPT_IN_KEY} = true here for every project"
        )
    if key == control.OPT_IN_KEY:
        return f"{path}: {key} ignored: it is read from {control.user_config()} only"
    if key in config.USER_ONLY_KEYS:
        return config.user_only_key(path, key)
    if key in _DEFAULTS:  # a setting in the local switch file
        return f"{path}: {key} ignored: this file holds only {control.ENABLED_KEY}"
    close = difflib.get_close_matches(key, sorted(_allowed(role)), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{path}: unknown key {key} ignored{hint}"


def _invalid(path: Path, key: str, raw: Any) -> str | None:
    if key in (control.ENABLED_KEY, control.OPT_IN_KEY):
        if control.flag(raw) is None:
            return config.invalid_value(f"{path}: {key}", key, raw, True)
        return None
    return config.invalid_value(f"{path}: {key}", key, raw, _DEFAULTS[key])


def file_problems(path: Path, role: str) -> list[ConfigProblem]:
    """The problems of one TOML file: ``role`` is ``user``, ``project`` or ``switch``."""
    from acecode.project.toml_file import SettingsFileError, read_toml

    try:
        data, note = read_toml(path)
    except SettingsFileError as exc:
        return [ConfigProblem(control.off_until_fixed(str(exc), path), unreadable=True)]
    allowed = _allowed(role)
    problems = [ConfigProblem(note)] if note else []
    for key, raw in data.items():
        text = _invalid(path, key, raw) if key in allowed else _unknown(path, key, role)
        if text:
            problems.append(ConfigProblem(text))
    return problems


def env_problems(env: Mapping[str, str] | None = None) -> list[ConfigProblem]:
    """``ACECODE_<KEY>`` variables whose value cannot be used."""
    env = os.environ if env is None else env
    problems = []
    for name, default in _DEFAULTS.items():
        variable = f"ACECODE_{name.upper()}"
        if variable in env:
            text = config.invalid_value(variable, name, env[variable], default)
            if text:
                problems.append(ConfigProblem(text))
    return problems


def project_problems(project: Path | None = None) -> list[ConfigProblem]:
    """The project's two files: its local switch and its ``.claude/acecode.toml``."""
    return [
        *file_problems(control.local_switch(project), SWITCH),
        *file_problems(control.project_config(project), PROJECT),
    ]


def user_problems(env: Mapping[str, str] | None = None) -> list[ConfigProblem]:
    """The user's ``~/.claude/acecode.toml`` and the ``ACECODE_<KEY>`` variables."""
    return [*file_problems(control.user_config(), USER), *env_problems(env)]


def as_notices(problems: list[ConfigProblem]) -> dict[str, list[str]]:
    """The problems' lines as the session-start notice keeps them: ``config_off`` (files
    that cannot be read: acecode is off) and ``config_ignored`` (settings ignored)."""
    return {
        "config_off": [problem.text for problem in problems if problem.unreadable],
        "config_ignored": [problem.text for problem in problems if not problem.unreadable],
    }
