"""Register acecode's merge driver for the playbook in a git repository, or take it out.

Two halves, as git wants them:

* ``.gitattributes`` at the repository root (committed, so it reaches every
  teammate) gets one line, ``.claude/playbook.json merge=acecode``. The
  user's other lines are kept as they are; the line is added once.
* the clone's own git config (``.git/config``, never committed) defines the
  driver: ``merge.acecode.driver`` runs ``acecode merge-driver %O %A %B %P``
  through the absolute path of this install (as the hooks do), and
  ``merge.acecode.recursive`` names a second definition, ``acecode-base``,
  that git uses for its internal merge of two merge bases. A teammate whose
  clone lacks the config merges the file as plain text, as before; each one
  runs ``acecode install --git`` once.

The state folder beside the playbook (``.claude/acecode``) is checked too:
its ``.gitignore`` is written when missing, and files of it that git already
tracks (committed before the ignore rule existed) are reported.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from acecode.errors import AcecodeError
from acecode.project import paths
from acecode.project.layer import Layer
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookWriteError

DRIVER = "acecode"
BASE_DRIVER = "acecode-base"
ATTRIBUTE = f"merge={DRIVER}"
ATTRIBUTES_FILE = ".gitattributes"


class GitSetupError(AcecodeError):
    """Not a git repository, or git refused a change; one line, nothing half-done."""


@dataclass(frozen=True)
class ConfigChange:
    """One git config key: its value and what happened to it."""

    key: str
    value: str | None
    action: str  # "added", "updated", "unchanged", "removed" or "absent"


@dataclass
class GitSetup:
    """What ``install_git`` / ``uninstall_git`` did in one repository."""

    root: Path
    attributes: Path
    attributes_line: str
    attributes_action: str  # "added", "unchanged", "removed" or "absent"
    config: list[ConfigChange] = field(default_factory=list)
    state_ignore: Path | None = None
    state_in_repo: str = ""  # the state folder's path from the repository root
    state_ignore_written: bool = False
    tracked_state: list[str] = field(default_factory=list)


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=30, check=False
        )
    except OSError as exc:
        raise GitSetupError(f"cannot run git: {exc.strerror or exc}") from exc
    if check and done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise GitSetupError(f"git {' '.join(args[:3])} failed in {root}: {reason}")
    return done


def repo_root(start: Path) -> Path:
    """The top of the work tree that contains ``start``."""
    done = _git(start, "rev-parse", "--show-toplevel", check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise GitSetupError(f"{start} is not inside a git work tree; run this in your repository")
    return Path(done.stdout.strip())


def _existing_folder(path: Path) -> Path:
    """The nearest folder above ``path`` that exists (``.claude`` may not yet)."""
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    return folder


def attribute_pattern(playbook: Path, root: Path) -> str:
    """The playbook's path from the repository root, quoted when git needs it."""
    try:
        relative = playbook.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        raise GitSetupError(f"{playbook} is outside the repository {root}") from None
    if any(char in relative for char in ' \t"\\'):
        escaped = relative.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    return relative


def driver_config(executable: str) -> dict[str, str]:
    """The git config keys that define the driver, run through ``executable``."""
    return {
        f"merge.{DRIVER}.name": "acecode playbook merge (by entry)",
        f"merge.{DRIVER}.driver": f"{executable} merge-driver %O %A %B %P",
        f"merge.{DRIVER}.recursive": BASE_DRIVER,
        f"merge.{BASE_DRIVER}.name": "acecode playbook merge of two merge bases",
        f"merge.{BASE_DRIVER}.driver": f"{executable} merge-driver --virtual-base %O %A %B %P",
    }


def _is_our_line(line: str, line_wanted: str) -> bool:
    return line.split() == line_wanted.split()


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise GitSetupError(f"cannot read {path}: {exc}; nothing changed") from exc


def _write_lines(path: Path, lines: list[str]) -> None:
    try:
        if lines:
            atomic_write_text(path, "\n".join(lines) + "\n")
        else:
            path.unlink(missing_ok=True)
    except (PlaybookWriteError, OSError) as exc:
        raise GitSetupError(str(exc)) from exc


def _local_config(root: Path, key: str) -> str | None:
    done = _git(root, "config", "--local", "--get", key, check=False)
    return done.stdout.rstrip("\n") if done.returncode == 0 else None


def _state_check(setup: GitSetup, playbook: Path) -> None:
    layer = Layer(playbook)
    state = layer.folder
    ignore = state / ".gitignore"
    setup.state_ignore = ignore
    setup.state_ignore_written = not ignore.exists()
    try:
        layer.ensure_folder()
    except OSError as exc:
        raise GitSetupError(f"cannot create {state}: {exc.strerror or exc}") from exc
    setup.state_in_repo = state.resolve().relative_to(setup.root.resolve()).as_posix()
    listed = _git(setup.root, "ls-files", "-z", "--", setup.state_in_repo).stdout
    # A committed .gitignore is harmless (it even helps); anything else is state in the repo.
    setup.tracked_state = [
        name for name in listed.split("\0") if name and Path(name).name != ".gitignore"
    ]


def install_git(executable: str, playbook: Path | None = None) -> GitSetup:
    """Add the attributes line and the driver config; ensure the state folder is ignored."""
    target = (playbook or paths.playbook_path()).absolute()
    root = repo_root(_existing_folder(target))
    line = f"{attribute_pattern(target, root)} {ATTRIBUTE}"
    attributes = root / ATTRIBUTES_FILE
    lines = _read_lines(attributes)
    present = any(_is_our_line(existing, line) for existing in lines)
    if not present:
        _write_lines(attributes, [*lines, line])
    setup = GitSetup(root, attributes, line, "unchanged" if present else "added")
    for key, value in driver_config(executable).items():
        old = _local_config(root, key)
        if old != value:
            _git(root, "config", "--local", key, value)
        action = "unchanged" if old == value else ("added" if old is None else "updated")
        setup.config.append(ConfigChange(key, value, action))
    _state_check(setup, target)
    return setup


def uninstall_git(playbook: Path | None = None) -> GitSetup:
    """Remove the attributes line and both driver sections of the clone's git config."""
    target = (playbook or paths.playbook_path()).absolute()
    root = repo_root(_existing_folder(target))
    line = f"{attribute_pattern(target, root)} {ATTRIBUTE}"
    attributes = root / ATTRIBUTES_FILE
    lines = _read_lines(attributes)
    kept = [existing for existing in lines if not _is_our_line(existing, line)]
    if len(kept) != len(lines):
        _write_lines(attributes, kept)
    setup = GitSetup(root, attributes, line, "removed" if len(kept) != len(lines) else "absent")
    for key in driver_config("acecode"):
        old = _local_config(root, key)
        setup.config.append(ConfigChange(key, old, "absent" if old is None else "removed"))
    for section in (DRIVER, BASE_DRIVER):
        _git(root, "config", "--local", "--remove-section", f"merge.{section}", check=False)
    return setup
