"""Drive the real Codex CLI offline: an isolated ``CODEX_HOME``, ``codex exec`` and pty runs.

``CodexHome`` prepares what a user's machine would have: a ``HOME`` whose
``~/.codex/config.toml`` points Codex at the scripted Responses server through a
custom model provider (authenticated by an API key in an environment
variable, so no login), trusts the test projects, and turns off what would
reach the network (update checks, analytics). ``run_exec`` runs ``codex exec``;
``interactive`` starts the terminal UI in a pseudo-terminal.

Codex runs a hook only when the user trusted it: ``trust_hooks`` writes the
``[hooks.state]`` entries Codex itself would write after a review, with the
hash computed by :func:`acecode.agents.codex.trust.hook_trust_hash` (see docs/codex.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyte
from claude_driver import PtySession, echo_wait, user_env

from acecode.agents.codex.trust import handler_states
from support.hang_guard import HANG_GUARD

API_KEY_ENV = "ACECODE_TEST_CODEX_KEY"
API_KEY = "sk-proj-realclient-test-key-000000000000"
MODEL = "scripted-model"
# What the Codex terminal UI shows while it works, and in its footer when the composer is free.
_CODEX_BUSY = ("esc to interrupt", "Waiting for startup")
_CODEX_IDLE = "? for shortcuts"


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string (JSON escapes are valid TOML escapes)."""
    return json.dumps(value)


def hook_states(hooks_file: Path) -> dict[str, str]:
    """State key -> trusted hash for every command handler in ``hooks_file``."""
    return handler_states(hooks_file, json.loads(hooks_file.read_text())["hooks"])


@dataclass
class CodexHome:
    """An isolated user of the real Codex CLI: home folder, config, trusted projects and hooks."""

    codex_bin: Path
    home: Path
    base_url: str
    extra_env: dict[str, str] = field(default_factory=dict)
    trusted_projects: list[Path] = field(default_factory=list)
    trusted_hook_files: list[Path] = field(default_factory=list)
    extra_config: str = ""

    def __post_init__(self) -> None:
        self.codex_home.mkdir(parents=True, exist_ok=True)
        self.temp_dir.mkdir(exist_ok=True)
        self.write_config()

    @property
    def temp_dir(self) -> Path:
        """The ``TMPDIR`` Codex runs with: it saves oversized hook output under it."""
        return self.home / "tmp"

    @property
    def codex_home(self) -> Path:
        return self.home / ".codex"

    @property
    def config_file(self) -> Path:
        return self.codex_home / "config.toml"

    @property
    def hooks_file(self) -> Path:
        """The user-level hooks file, ``~/.codex/hooks.json``."""
        return self.codex_home / "hooks.json"

    @property
    def sessions_dir(self) -> Path:
        """Where Codex saves session files: ``sessions/YYYY/MM/DD/rollout-*.jsonl``."""
        return self.codex_home / "sessions"

    def session_files(self) -> list[Path]:
        return sorted(self.sessions_dir.rglob("rollout-*.jsonl"))

    def write_config(self) -> None:
        """(Re)write ``config.toml`` from the provider, the trusted projects and hook states."""
        lines = [
            f"model = {toml_string(MODEL)}",
            'model_provider = "scripted"',
            'approval_policy = "never"',
            'sandbox_mode = "danger-full-access"',
            "check_for_update_on_startup = false",
            self.extra_config,
            "",
            "[analytics]",
            "enabled = false",
            "",
            "[model_providers.scripted]",
            'name = "scripted"',
            f"base_url = {toml_string(self.base_url)}",
            f"env_key = {toml_string(API_KEY_ENV)}",
            'wire_api = "responses"',
            "request_max_retries = 0",
            "stream_max_retries = 0",
        ]
        for project in self.trusted_projects:
            lines += ["", f"[projects.{toml_string(str(project))}]", 'trust_level = "trusted"']
        for hooks_file in self.trusted_hook_files:
            for key, digest in hook_states(hooks_file).items():
                lines += [
                    "",
                    f"[hooks.state.{toml_string(key)}]",
                    "enabled = true",
                    f"trusted_hash = {toml_string(digest)}",
                ]
        self.config_file.write_text("\n".join(lines) + "\n")

    def trust(self, project: Path) -> None:
        """Mark ``project`` trusted, as accepting Codex's trust prompt does."""
        if project not in self.trusted_projects:
            self.trusted_projects.append(project)
            self.write_config()

    def trust_hooks(self, hooks_file: Path) -> None:
        """Trust every handler in ``hooks_file`` as its current text, as ``/hooks`` review does."""
        if hooks_file in self.trusted_hook_files:
            self.trusted_hook_files.remove(hooks_file)
        self.trusted_hook_files.append(hooks_file)
        self.write_config()

    def env(self, **overrides: str) -> dict[str, str]:
        """The environment a user's shell would give ``codex``, pointed at the server."""
        client = {
            "CODEX_HOME": str(self.codex_home),
            "TMPDIR": str(self.temp_dir),
            API_KEY_ENV: API_KEY,
        }
        return user_env(self.home, client, self.extra_env, overrides)

    def run_exec(
        self,
        project: Path,
        prompt: str,
        *args: str,
        env: Mapping[str, str] | None = None,
        timeout: float = HANG_GUARD,
    ) -> subprocess.CompletedProcess:
        """``codex exec --json ARGS PROMPT`` in ``project``, stdin closed.

        ``--skip-git-repo-check`` because ``codex exec`` refuses a folder that is
        not a git repository even when config.toml trusts it. The CLI runs in a
        session of its own and the whole group is killed on timeout: the npm
        launcher's native child outlives a killed launcher, and Codex retries a
        provider it cannot reach without end ("waiting for network").
        """
        self.trust(project)
        argv = [str(self.codex_bin), "exec", "--json", "--skip-git-repo-check", *args, prompt]
        with subprocess.Popen(
            argv,
            cwd=project,
            env=dict(env) if env is not None else self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        ) as process:
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                raise
        return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)

    def interactive(
        self,
        project: Path,
        *args: str,
        env: Mapping[str, str] | None = None,
        ready: bool = True,
    ) -> CodexPty:
        """The terminal UI in a pseudo-terminal, ready for input (or at its first screen).

        ``--no-daemon`` keeps the session in this process: by default Codex
        0.169 hands it to a background app-server it installs under
        ``$CODEX_HOME/packages`` (about 400 MB) and leaves running after exit.
        """
        self.trust(project)
        session = CodexPty(
            [str(self.codex_bin), "--no-daemon", *args],
            env=dict(env) if env is not None else self.env(),
            cwd=project,
        )
        if ready:
            session.wait_idle()
        return session


def exec_events(result: subprocess.CompletedProcess) -> list[dict[str, Any]]:
    """The JSONL events ``codex exec --json`` printed on stdout."""
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


class CodexPty(PtySession):
    """The Codex terminal UI on a pseudo-terminal, its current screen rendered by ``pyte``.

    Codex redraws only what changed, so the raw output cannot say whether a
    turn is still running; a terminal emulator can. Busy means the screen
    shows "esc to interrupt" (a turn, a compaction) or "Waiting for startup";
    idle means the composer's "? for shortcuts" footer is shown, neither busy
    marker is, and nothing has changed for ``quiet`` seconds.
    """

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        rows, cols = 50, 200
        super().__init__(argv, env=env, cwd=cwd, rows=rows, cols=cols)
        self._terminal = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self._terminal)
        self._fed = 0

    def display(self) -> str:
        """The screen as a terminal shows it now: non-blank lines, right-trimmed."""
        with self._lock:
            data = bytes(self._output[self._fed :])
            self._fed += len(data)
        self._stream.feed(data)
        return "\n".join(line.rstrip() for line in self._terminal.display if line.strip())

    def wait_display(self, text: str, timeout: float = HANG_GUARD) -> None:
        """Wait until the screen shows ``text``."""
        deadline = time.monotonic() + timeout
        while text not in self.display():
            if time.monotonic() > deadline or self.poll() is not None:
                raise AssertionError(f"{text!r} not on screen: {self.display()[-800:]}")
            time.sleep(0.1)

    def choose(self, option: int, attempts: int = 6) -> None:
        """Select menu ``option`` by its number and confirm it.

        A key typed while the menu is still being drawn is lost (seen on a busy
        machine), so the number is retyped until the selection marker is on it.
        """
        marker = f"› {option}."
        for attempt in range(attempts):
            self.type(str(option))
            deadline = time.monotonic() + echo_wait(attempt)
            while time.monotonic() < deadline and marker not in self.display():
                time.sleep(0.1)
            if marker in self.display():
                self.type("\r")
                return
        raise AssertionError(f"menu option {option} never selected: {self.display()[-800:]}")

    def wait_idle(
        self, timeout: float = HANG_GUARD, quiet: float = 1.0, since_mark: bool = True
    ) -> None:
        deadline = time.monotonic() + timeout
        last, stable_since = "", time.monotonic()
        while time.monotonic() < deadline:
            shown = self.display()
            if shown != last:
                last, stable_since = shown, time.monotonic()
            busy = any(marker in shown for marker in _CODEX_BUSY)
            if not busy and _CODEX_IDLE in shown and time.monotonic() - stable_since >= quiet:
                return
            if self.poll() is not None:
                raise AssertionError(f"codex exited ({self.returncode}): {shown[-800:]}")
            time.sleep(0.1)
        raise AssertionError(f"codex stayed busy for {timeout:g} s: {self.display()[-800:]}")

    def close(self) -> None:
        """Kill the whole terminal session: the npm launcher's native child too."""
        if self.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
        super().close()

    def submit(
        self, text: str, *, wait: bool = True, settle: float = 0.6, attempts: int = 6
    ) -> None:
        """Type ``text``, check the composer shows it, press Enter, wait until idle
        (the echo is waited for and retyped as in :meth:`PtySession.submit`)."""
        for attempt in range(attempts):
            self.type(text)
            deadline = time.monotonic() + echo_wait(attempt)
            while time.monotonic() < deadline and f"› {text}" not in self.display():
                time.sleep(0.1)
            if f"› {text}" not in self.display():
                self.ctrl("u")
                time.sleep(1)
                continue
            time.sleep(settle)  # let the slash-command popup settle
            self.mark()
            self.type("\r")
            if wait:
                time.sleep(settle)
                self.wait_idle()
            return
        raise AssertionError(f"codex never echoed {text!r}: {self.display()[-800:]}")
