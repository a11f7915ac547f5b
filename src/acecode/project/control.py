"""Per-project and per-session switches: is acecode active here, and why not?

Three controls, checked in this order:

1. ``ACECODE_SKIP=1`` in the environment skips one session (``ACECODE_SKIP=1
   claude``): no injection, no learning. acecode's own nested runs use
   ``ACECODE_HOOKS_DISABLED=1``, which has the same effect.
2. ``acecode off`` / ``acecode on`` write ``enabled = false`` / ``true`` into
   the project's local switch file, ``.claude/acecode/switch.toml``: it lives in
   the git-ignored state folder, so turning acecode off for yourself never
   turns it off for a team that commits ``.claude/``. ``enabled`` in the
   project's ``.claude/acecode.toml`` (what ``acecode off`` wrote before, or a
   team's shared choice) still counts; the local switch wins over it.
3. ``opt_in = true`` in the user's ``~/.claude/acecode.toml`` makes acecode
   act only in projects that were turned on with ``acecode on``, for users who
   install the hooks at user scope but want to choose their projects.

A switch file that cannot be read never switches acecode on: it may hold
``enabled = false`` or ``opt_in = true``, so acecode is off (in the project,
or everywhere for the user's file) until it is fixed, and the reason says so;
the session-start notice and ``acecode doctor`` show it.

Reading TOML costs more than the injection hook's whole budget, so the hook
never calls :func:`activity` per prompt: the injection cache keys on the
files' ``stat`` (see :func:`switch_files`) and stores the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from acecode.errors import AcecodeError
from acecode.project import paths
from acecode.project.session_switch import TRUE_WORDS, session_skipped

ENABLED_KEY = "enabled"
OPT_IN_KEY = "opt_in"
CONFIG_NAME = "acecode.toml"
SWITCH_NAME = "switch.toml"
FALSE_WORDS = frozenset({"0", "false", "no", "off"})
# How the reason of a project switched off starts (the session-start notice looks for it).
TURNED_OFF = "turned off for this project in "


class ControlFileError(AcecodeError, RuntimeError):
    """A switch file cannot be read or written; the message names it and why."""


@dataclass(frozen=True)
class Activity:
    """Whether acecode acts in a project, with the reason when it does not."""

    active: bool
    reason: str = ""


def project_config(project: Path | None = None) -> Path:
    """``<project>/.claude/acecode.toml``: the project's settings (often committed)."""
    return paths.claude_dir(project) / CONFIG_NAME


def local_switch(project: Path | None = None) -> Path:
    """``<project>/.claude/acecode/switch.toml``: this clone's ``acecode on``/``off``."""
    return paths.state_dir(project) / SWITCH_NAME


def user_config() -> Path:
    """``~/.claude/acecode.toml``: user-wide settings, including ``opt_in``."""
    return paths.user_claude_dir() / CONFIG_NAME


def switch_files(project: Path | None = None) -> tuple[Path, Path, Path]:
    """The files whose content decides :func:`activity` (for cache keys)."""
    return local_switch(project), project_config(project), user_config()


def read_switch_file(path: Path) -> dict:
    """The TOML in ``path`` ({} when there is none); raises :class:`ControlFileError`
    naming the file and the problem when it cannot be read."""
    from acecode.project.toml_file import SettingsFileError, read_toml

    try:
        return read_toml(path)[0]
    except SettingsFileError as exc:
        raise ControlFileError(str(exc)) from None


def flag(value: object) -> bool | None:
    """An on/off value (``true``, ``"off"``, ...) as a bool; None when it is neither."""
    if isinstance(value, bool):
        return value
    word = value.strip().lower() if isinstance(value, str) else None
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    return None


def off_until_fixed(problem: str, path: Path) -> str:
    """The reason acecode is off because ``path`` cannot be read (``problem`` names it)."""
    where = "in every project" if path == user_config() else "in this project"
    return f"{problem}; acecode is off {where} until it is fixed"


def _project_switch(project: Path | None) -> tuple[bool | None, Path | None]:
    """The ``enabled`` that decides (the local switch first) and the file it is in."""
    for path in (local_switch(project), project_config(project)):
        value = flag(read_switch_file(path).get(ENABLED_KEY))
        if value is not None:
            return value, path
    return None, None


def project_switch(project: Path | None = None) -> bool | None:
    """The project's ``enabled`` value: True (``acecode on``), False (``off``) or None.
    Raises :class:`ControlFileError` when a switch file cannot be read."""
    return _project_switch(project)[0]


def activity(project: Path | None = None, env: Mapping[str, str] | None = None) -> Activity:
    """Decide whether acecode injects and learns in ``project`` (see the module docstring)."""
    skipped = session_skipped(env)
    if skipped:
        return Activity(False, f"{skipped} is set for this session")
    for path in switch_files(project):
        try:
            read_switch_file(path)
        except ControlFileError as exc:
            return Activity(False, off_until_fixed(str(exc), path))
    switch, source = _project_switch(project)
    if switch is False:
        return Activity(False, f"{TURNED_OFF}{source}")
    opt_in = flag(read_switch_file(user_config()).get(OPT_IN_KEY))
    if opt_in and switch is not True:
        return Activity(
            False,
            f"opt_in is set in {user_config()} and this project was not turned on "
            "(run `acecode on`)",
        )
    return Activity(True)


SWITCH_HEADER = (
    "# acecode on/off for this clone only (`acecode on` / `acecode off`); it is in the\n"
    "# git-ignored .claude/acecode/ folder and wins over `enabled` in .claude/acecode.toml.\n"
)


def set_project_switch(on: bool, project: Path | None = None) -> Path:
    """Write ``enabled = true|false`` into the project's local switch file; returns its path.

    The file is acecode's own (only ``enabled``), so it is rewritten whole, which
    also repairs one that was broken by hand.
    """
    from acecode.project.state_folder import ensure_state_folder
    from acecode.store.atomic import atomic_write_text
    from acecode.store.errors import PlaybookWriteError

    path = local_switch(project)
    text = f"{SWITCH_HEADER}{ENABLED_KEY} = {'true' if on else 'false'}\n"
    try:
        ensure_state_folder(path.parent)
        atomic_write_text(path, text)
    except (OSError, PlaybookWriteError) as exc:
        raise ControlFileError(f"cannot write {path}: {exc}") from None
    return path


def shared_switch(project: Path | None = None) -> bool | None:
    """``enabled`` in the project's (possibly committed) acecode.toml, or None when it is
    absent, invalid or unreadable: for ``acecode on``/``off`` to say what the team chose."""
    try:
        return flag(read_switch_file(project_config(project)).get(ENABLED_KEY))
    except ControlFileError:
        return None
