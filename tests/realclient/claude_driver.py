"""Drive the real Claude Code CLI offline: an isolated home, headless and interactive runs.

``ClaudeHome`` prepares what a user's machine would have: a ``HOME`` whose
``~/.claude.json`` has finished onboarding, trusts the test projects and
approves the test key, and an environment pointing the CLI (and acecode's
background learner, which inherits it through the hooks) at the scripted
server. ``run_print`` runs ``claude -p``; ``interactive`` starts the full
terminal UI in a pseudo-terminal (tmux does not start on these machines) and
returns a :class:`PtySession` to type into.

The screen is drawn with cursor moves and redraws, so screen checks compare
text with ANSI sequences and all whitespace removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from support.hang_guard import HANG_GUARD

API_KEY = "sk-ant-api03-realclient-test-key-000000000000"
# Control sequences the terminal UI draws with: CSI, OSC, charset selection, single-char escapes.
_ANSI = re.compile(
    rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]"
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    rb"|\x1b[()][0-9A-B]"
    rb"|\x1b[=>78MDEc]"
)
_SPACE = re.compile(r"\s+")
_IDLE, _BUSY = "forshortcuts", "esctointerrupt"  # the status bar, whitespace removed


def squash(text: str) -> str:
    """``text`` without whitespace, for comparing against the drawn screen."""
    return _SPACE.sub("", text)


def user_env(home: Path, *layers: Mapping[str, str]) -> dict[str, str]:
    """A user's shell environment for a CLI under test: ``home`` as ``HOME``, then ``layers``.

    Only a few host variables pass through (PATH, locale, TMPDIR), so nothing of
    the developer's own configuration reaches the CLI; acecode's console script,
    beside the interpreter running the tests, comes first on PATH.
    """
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update({"HOME": str(home), "USERPROFILE": str(home), "TERM": "xterm-256color"})
    for layer in layers:
        env.update(layer)
    return env


@dataclass
class ClaudeHome:
    """An isolated user of the real CLI: home folder, environment, projects it trusts."""

    claude_bin: Path
    home: Path
    server_url: str
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / ".claude").mkdir(exist_ok=True)
        self._state: dict = {
            "hasCompletedOnboarding": True,
            "projects": {},
            "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        }
        self._write_state()

    @property
    def settings_file(self) -> Path:
        return self.home / ".claude" / "settings.json"

    def trust(self, project: Path) -> None:
        """Accept the workspace trust dialog for ``project`` ahead of time."""
        state = json.loads((self.home / ".claude.json").read_text())
        state.setdefault("projects", {})[str(project)] = {"hasTrustDialogAccepted": True}
        self._state = state
        self._write_state()

    def _write_state(self) -> None:
        (self.home / ".claude.json").write_text(json.dumps(self._state))

    def env(self, **overrides: str) -> dict[str, str]:
        """The environment a user's shell would give ``claude``, pointed at the server."""
        client = {
            "ANTHROPIC_BASE_URL": self.server_url,
            "ANTHROPIC_API_KEY": API_KEY,
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        return user_env(self.home, client, self.extra_env, overrides)

    def sessions_dir(self, project: Path) -> Path:
        """Where the CLI saves the transcripts of ``project``."""
        encoded = re.sub(r"[^A-Za-z0-9]", "-", str(project))
        return self.home / ".claude" / "projects" / encoded

    def run_print(
        self,
        project: Path,
        prompt: str,
        *args: str,
        env: Mapping[str, str] | None = None,
        timeout: float = HANG_GUARD,
    ) -> subprocess.CompletedProcess:
        """``claude -p PROMPT --output-format json ARGS`` in ``project``."""
        self.trust(project)
        return subprocess.run(
            [str(self.claude_bin), "-p", prompt, "--output-format", "json", *args],
            cwd=project,
            env=dict(env) if env is not None else self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def interactive(
        self, project: Path, *args: str, env: Mapping[str, str] | None = None
    ) -> PtySession:
        """The terminal UI in a pseudo-terminal, ready for input."""
        self.trust(project)
        session = PtySession(
            [str(self.claude_bin), *args],
            env=dict(env) if env is not None else self.env(),
            cwd=project,
        )
        session.wait_idle(since_mark=False)  # SessionStart hooks finish before the first prompt
        return session


def echo_wait(attempt: int) -> float:
    """How long a typed line may take to show, at the ``attempt``-th try (from 0)."""
    return 3.0 * 2**attempt


class PtySession:
    """One process on a pseudo-terminal; a thread keeps reading so the child never blocks."""

    def __init__(
        self, argv: list[str], env: dict[str, str], cwd: Path, rows: int = 50, cols: int = 200
    ) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the CLI
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self._output = bytearray()
        self._lock = threading.Lock()
        self._mark = 0
        self.returncode: int | None = None
        self._reader = threading.Thread(target=self._read_forever, daemon=True)
        self._reader.start()

    def _read_forever(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.2)
                if not ready:
                    if self.returncode is not None:
                        return
                    continue
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._output += data

    # --- reading the screen ----------------------------------------------------------------

    def screen(self, since_mark: bool = False) -> str:
        """Everything drawn so far (or since :meth:`mark`), ANSI and whitespace removed."""
        with self._lock:
            raw = bytes(self._output[self._mark :] if since_mark else self._output)
        return squash(_ANSI.sub(b"", raw).decode("utf-8", errors="replace"))

    def mark(self) -> None:
        """Start :meth:`wait_screen` ``since_mark`` searches from the current output."""
        with self._lock:
            self._mark = len(self._output)

    def shows(self, text: str, since_mark: bool = False) -> bool:
        """True when ``text`` has been drawn (since :meth:`mark`), whitespace aside."""
        return squash(text) in self.screen(since_mark)

    def wait_screen(self, text: str, timeout: float = HANG_GUARD, since_mark: bool = False) -> None:
        wanted = squash(text)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if wanted in self.screen(since_mark):
                return
            if self.poll() is not None and wanted not in self.screen(since_mark):
                break
            time.sleep(0.1)
        tail = self.screen(since_mark)[-1500:]
        raise AssertionError(f"{text!r} not on screen within {timeout:g} s; screen ends: {tail}")

    # --- typing ----------------------------------------------------------------------------

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode("utf-8"))

    def wait_idle(
        self, timeout: float = HANG_GUARD, quiet: float = 1.0, since_mark: bool = True
    ) -> None:
        """Wait until the UI has finished what the last input started.

        The status bar reads "esc to interrupt" while a turn, a compaction or a
        hook runs and "? for shortcuts" when the prompt is free again; idle means
        the latter was drawn after the former (since :meth:`mark`) and nothing
        new has been drawn for ``quiet`` seconds.
        """
        deadline = time.monotonic() + timeout
        last, stable_since = "", time.monotonic()
        while time.monotonic() < deadline:
            text = self.screen(since_mark)
            if text != last:
                last, stable_since = text, time.monotonic()
            idle = text.rfind(_IDLE) > text.rfind(_BUSY)
            if idle and time.monotonic() - stable_since >= quiet:
                return
            if self.poll() is not None:
                raise AssertionError(f"the CLI exited ({self.returncode}): {text[-800:]}")
            time.sleep(0.1)
        raise AssertionError(f"the CLI stayed busy for {timeout:g} s: {self.screen()[-800:]}")

    def submit(
        self, text: str, *, wait: bool = True, settle: float = 0.6, attempts: int = 6
    ) -> None:
        """Type ``text``, check the prompt box shows it, press Enter, wait until idle.

        While the UI is busy keystrokes can be dropped, so the echo is checked and
        the line is cleared (Ctrl-U) and typed again when it does not appear. The
        wait for the echo doubles with every attempt (3 s to 96 s): a slow echo on a
        loaded machine is waited for, a dropped one is retyped.
        ``wait=False`` returns right after Enter (for ``/exit``).
        """
        for attempt in range(attempts):
            self.mark()
            self.type(text)
            try:
                self.wait_screen(text, timeout=echo_wait(attempt), since_mark=True)
            except AssertionError:
                self.ctrl("u")
                time.sleep(1)
                continue
            time.sleep(settle)  # let menus (slash-command completion) settle
            self.mark()
            self.type("\r")
            if wait:
                self.wait_idle()
            return
        raise AssertionError(f"the CLI never echoed {text!r}: {self.screen()[-800:]}")

    def ctrl(self, letter: str) -> None:
        os.write(self.fd, bytes([ord(letter.upper()) - 64]))

    # --- ending ----------------------------------------------------------------------------

    def poll(self) -> int | None:
        if self.returncode is None:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait_exit(self, timeout: float = HANG_GUARD) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code = self.poll()
            if code is not None:
                return code
            time.sleep(0.1)
        raise AssertionError(f"the CLI did not exit within {timeout:g} s: {self.screen()[-800:]}")

    def hang_up(self) -> None:
        """Close the terminal as closing its window does: the kernel sends the CLI SIGHUP."""
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def close(self) -> None:
        """Make sure nothing is left running, whatever the test did."""
        if self.poll() is None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)
