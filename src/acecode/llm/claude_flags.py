"""Which command-line flags the installed ``claude`` understands.

Claude Code gains flags release by release, and an unknown flag makes it exit
with ``error: unknown option``. acecode therefore reads ``claude --help`` once
per executable and passes only the optional flags that version lists; each
flag it has to leave out costs something, said in :data:`OPTIONAL_FLAGS` and
shown by ``acecode doctor``. The result is cached in the user's cache folder,
keyed by the executable's real path, size and modification time, so an upgrade
is noticed and a learning cycle does not pay for ``--help`` every time.

The core flags (``-p``, ``--output-format``, ``--max-turns``,
``--system-prompt``) are not looked up: ``--max-turns`` is hidden from the help
of recent versions, ``--system-prompt`` was hidden before 2.0.14, and without
them there is no headless completion at all.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

HELP_TIMEOUT = 20.0
CACHE_NAME = "claude-flags.json"

# The optional flags acecode uses, each with what is lost when the installed claude lacks it.
OPTIONAL_FLAGS: dict[str, str] = {
    "--tools": (
        "every request carries Claude Code's tool definitions, and a reply that calls "
        "a tool ends the call with error_max_turns"
    ),
    "--no-session-persistence": (
        "each call is saved as a session under ~/.claude/projects and listed by "
        "`claude --resume` (acecode recognises and skips them when learning)"
    ),
    "--strict-mcp-config": "your MCP servers start for each call",
    "--disable-slash-commands": "each request carries the list of your skills",
    "--settings": (
        "hooks of other tools fire in each call (acecode's own hooks stay off through "
        "ACECODE_HOOKS_DISABLED)"
    ),
    "--model": "each call runs on your default Claude Code model",
    "--effort": (
        "the effort is passed only through CLAUDE_CODE_EFFORT_LEVEL, which older versions ignore"
    ),
}

# An option line of commander's help: two-space indent, optional short form, long form(s).
# Wrapped description lines are indented further, so a flag named inside a description
# (``--bare`` mentions ``--settings``) is not taken for an option of its own.
_OPTION_LINE = re.compile(r"^ {1,4}(?:-[A-Za-z0-9], )?(--[A-Za-z][\w-]*)(?:, (--[A-Za-z][\w-]*))?")


@dataclass(frozen=True)
class FlagSupport:
    """What one ``claude`` executable offers, as read from its ``--help``."""

    executable: str
    flags: frozenset[str]
    version: str | None = None
    error: str | None = None

    def supports(self, flag: str) -> bool:
        return flag in self.flags

    @property
    def missing(self) -> list[str]:
        """The optional flags acecode would use that this executable lacks."""
        return [flag for flag in OPTIONAL_FLAGS if flag not in self.flags]

    def describe(self) -> list[str]:
        """Lines for ``acecode doctor``: the version, then one warning per missing flag."""
        name = f"claude {self.version}" if self.version else "claude"
        if self.error:
            lines = [f"[warning] could not read `{self.executable} --help`: {self.error}"]
        else:
            lines = [f"{name} at {self.executable}"]
        if not self.missing:
            lines.append("every flag acecode uses for a lean nested run is supported")
            return lines
        lines.append(f"running without {', '.join(self.missing)}:")
        lines += [f"[warning] no {flag}: {OPTIONAL_FLAGS[flag]}" for flag in self.missing]
        return lines


def parse_help(text: str) -> frozenset[str]:
    """Every long option named on an option line of ``claude --help``."""
    found: set[str] = set()
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if match:
            found.update(name for name in match.groups() if name)
    return frozenset(found)


def cache_path() -> Path:
    """``<user cache dir>/acecode/claude-flags.json`` (``~/.cache/acecode`` on Linux)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("acecode", appauthor=False)) / CACHE_NAME


def _fingerprint(executable: str) -> tuple[str, dict[str, int]]:
    real = os.path.realpath(executable)
    stat = os.stat(real)
    return real, {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _read_cache(path: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(path: Path, data: dict[str, dict[str, object]]) -> None:
    """Best effort: a cache that cannot be written only costs a ``--help`` next time."""
    from acecode.store.atomic import atomic_write_text
    from acecode.store.errors import PlaybookWriteError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
    except (OSError, PlaybookWriteError):
        pass


def _run(executable: str, argument: str, env: Mapping[str, str]) -> str:
    result = subprocess.run(
        [executable, argument],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=HELP_TIMEOUT,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if result.returncode != 0:
        detail = (result.stderr.strip() or result.stdout.strip())[-200:]
        raise RuntimeError(f"exit {result.returncode}: {detail}")
    return result.stdout


def _probe(executable: str, env: Mapping[str, str]) -> dict[str, object]:
    """Run ``--help`` (and ``--version``) once; failures become an ``error`` entry."""
    try:
        flags = parse_help(_run(executable, "--help", env))
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        return {"flags": [], "version": None, "error": str(exc) or type(exc).__name__}
    try:
        version = _run(executable, "--version", env).strip().split(" ")[0] or None
    except (OSError, RuntimeError, subprocess.SubprocessError):
        version = None
    return {"flags": sorted(flags), "version": version, "error": None}


def detect_flags(executable: str, env: Mapping[str, str] | None = None) -> FlagSupport:
    """The flags ``executable`` supports, from the cache or from a fresh ``--help``.

    Never raises: an executable that cannot be read yields no optional flags
    and an ``error`` (a failed probe is not cached, so it is tried again).
    """
    env = os.environ if env is None else env
    try:
        real, fingerprint = _fingerprint(executable)
    except OSError as exc:
        return FlagSupport(executable, frozenset(), error=str(exc))
    path = cache_path()
    cache = _read_cache(path)
    entry = cache.get(real)
    if not (isinstance(entry, dict) and entry.get("fingerprint") == fingerprint):
        entry = {"fingerprint": fingerprint, **_probe(executable, env)}
        if entry["error"] is None:
            cache[real] = entry
            _write_cache(path, cache)
    flags = entry.get("flags")
    version = entry.get("version")
    error = entry.get("error")
    return FlagSupport(
        executable=executable,
        flags=frozenset(flag for flag in flags if isinstance(flag, str))
        if isinstance(flags, list)
        else frozenset(),
        version=version if isinstance(version, str) else None,
        error=error if isinstance(error, str) else None,
    )
