"""Per-project and per-session switches: is acecode active here, and why not?

Three controls, checked in this order:

1. ``ACECODE_SKIP=1`` in the environment skips one session (``ACECODE_SKIP=1
   claude``): no injection, no learning. acecode's own nested runs use
   ``ACECODE_HOOKS_DISABLED=1``, which has the same effect.
2. ``acecode off`` / ``acecode on`` write ``enabled = false`` / ``true`` into
   the project's ``.claude/acecode.toml``.
3. ``opt_in = true`` in the user's ``~/.claude/acecode.toml`` makes acecode
   act only in projects that were turned on with ``acecode on``, for users who
   install the hooks at user scope but want to choose their projects.

Reading TOML costs more than the injection hook's whole budget, so the hook
never calls :func:`activity` per prompt: the injection cache keys on the two
files' ``stat`` (see :data:`SWITCH_FILES`) and stores the answer.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from acecode import paths
from acecode.errors import AcecodeError
from acecode.session_switch import TRUE_WORDS, session_skipped

ENABLED_KEY = "enabled"
OPT_IN_KEY = "opt_in"
CONFIG_NAME = "acecode.toml"
_FALSE_WORDS = frozenset({"0", "false", "no", "off"})


class ControlFileError(AcecodeError, RuntimeError):
    """A switch file cannot be read or rewritten; it was left untouched."""


@dataclass(frozen=True)
class Activity:
    """Whether acecode acts in a project, with the reason when it does not."""

    active: bool
    reason: str = ""


def project_config(project: Path | None = None) -> Path:
    """``<project>/.claude/acecode.toml``: the project's settings and its on/off switch."""
    return paths.claude_dir(project) / CONFIG_NAME


def user_config() -> Path:
    """``~/.claude/acecode.toml``: user-wide settings, including ``opt_in``."""
    return paths.user_claude_dir() / CONFIG_NAME


def switch_files(project: Path | None = None) -> tuple[Path, Path]:
    """The files whose content decides :func:`activity` (for cache keys)."""
    return project_config(project), user_config()


def _read(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ControlFileError(f"{path}: invalid TOML ({exc}); nothing changed") from None


def _flag(data: dict, key: str) -> bool | None:
    value = data.get(key)
    if isinstance(value, bool):
        return value
    word = value.strip().lower() if isinstance(value, str) else None
    if word in TRUE_WORDS or word in _FALSE_WORDS:
        return word in TRUE_WORDS
    return None


def project_switch(project: Path | None = None) -> bool | None:
    """The project's ``enabled`` value: True (``acecode on``), False (``off``) or None."""
    return _flag(_read(project_config(project)), ENABLED_KEY)


def activity(project: Path | None = None, env: Mapping[str, str] | None = None) -> Activity:
    """Decide whether acecode injects and learns in ``project`` (see the module docstring).

    An unreadable switch file counts as "on": a typo must not silently stop
    learning; ``acecode doctor`` reports the file.
    """
    skipped = session_skipped(env)
    if skipped:
        return Activity(False, f"{skipped} is set for this session")
    try:
        switch = project_switch(project)
    except ControlFileError:
        switch = None
    if switch is False:
        return Activity(False, f"turned off for this project in {project_config(project)}")
    try:
        opt_in = _flag(_read(user_config()), OPT_IN_KEY)
    except ControlFileError:
        opt_in = None
    if opt_in and switch is not True:
        return Activity(
            False,
            f"opt_in is set in {user_config()} and this project was not turned on "
            "(run `acecode on`)",
        )
    return Activity(True)


_TABLE = re.compile(r"^\s*\[")


def set_project_switch(on: bool, project: Path | None = None) -> Path:
    """Write ``enabled = true|false`` into the project's acecode.toml; returns its path.

    Other keys and comments are kept: the existing top-level ``enabled`` line is
    replaced, or a new one goes before the first table. A file that is not
    valid TOML is refused untouched.
    """
    from acecode.store.atomic import atomic_write_text
    from acecode.store.errors import PlaybookWriteError

    path = project_config(project)
    _read(path)  # refuse a broken file before touching it
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    wanted = f"{ENABLED_KEY} = {'true' if on else 'false'}"
    key_line = re.compile(rf"^\s*{ENABLED_KEY}\s*=")
    top = next((i for i, line in enumerate(lines) if _TABLE.match(line)), len(lines))
    while top > 0 and not lines[top - 1].strip():  # stay above the blank line before a table
        top -= 1
    index = next((i for i in range(top) if key_line.match(lines[i])), None)
    if index is None:
        lines.insert(top, wanted)
    else:
        lines[index] = wanted
    text = "\n".join(lines) + "\n"
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # e.g. a multi-line value spanning our line
        raise ControlFileError(f"{path}: cannot set {ENABLED_KEY} safely ({exc})") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, text)
    except (OSError, PlaybookWriteError) as exc:
        raise ControlFileError(f"cannot write {path}: {exc}") from None
    return path
