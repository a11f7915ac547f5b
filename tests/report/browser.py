"""Headless chromium driven over its DevTools pipe, to measure a page as a user sees it.

``chromium --remote-debugging-pipe`` reads DevTools commands (JSON, each ended
by a NUL byte) on file descriptor 3 and answers on 4. A test opens the page
at a viewport size, waits for its load event and asks for geometry with
``Runtime.evaluate``. That evaluation is the debugger's, not page script: the
report's Content-Security-Policy, which forbids every script, stays in force.

Needs Debian's ``chromium`` (``.ci/run`` installs it); without it the test
fails with that instruction instead of skipping. The read timeout is a hang
guard only.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HANG_GUARD_S = 180


def chromium_binary() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.fail(
            "chromium is missing: install Debian's chromium package "
            "(apt-get install chromium; .ci/run does) or deselect with -m 'not browser'"
        )
    return found


class Chromium:
    """One headless browser; ``open`` a page, ``evaluate`` in it, ``close`` when done."""

    def __init__(self, home: Path) -> None:
        to_browser, self._commands = os.pipe()
        self._answers, from_browser = os.pipe()

        def wire() -> None:  # in the child: the pipe ends on descriptors 3 and 4
            reading, writing = os.dup(to_browser), os.dup(from_browser)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self._process = subprocess.Popen(
            [
                chromium_binary(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            preexec_fn=wire,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": str(home)},
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self._session: str | None = None

    def _read_message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._answers], [], [], HANG_GUARD_S)
            assert ready, "chromium stopped answering"
            chunk = os.read(self._answers, 1 << 16)
            assert chunk, "chromium closed its DevTools pipe"
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command (to the open page once there is one); return its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if self._session is not None:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read_message()
            if answer.get("id") == self._next_id:
                assert "error" not in answer, answer["error"]
                return answer.get("result", {})
            self._events.append(answer)

    def _wait_for(self, event: str) -> None:
        while not any(seen.get("method") == event for seen in self._events):
            self._events.append(self._read_message())
        self._events.clear()

    def open(self, url: str, width: int, height: int) -> None:
        """Load ``url`` in a new page of ``width`` x ``height`` CSS pixels."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        self._session = attached["sessionId"]
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        self.call("Page.enable")
        self.call("Page.navigate", {"url": url})
        self._wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The JSON value of ``expression`` in the open page."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def close(self) -> None:
        self._session = None
        with contextlib.suppress(AssertionError):  # it may be gone before it answers
            self.call("Browser.close")
        self._process.wait(timeout=HANG_GUARD_S)
        os.close(self._commands)
        os.close(self._answers)
