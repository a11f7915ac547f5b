"""The ``acecode`` script as a user types it: ``--version``, ``hook --help``, ``hook BOGUS``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import acecode
from support.hang_guard import HANG_GUARD

ACECODE = Path(sys.executable).with_name("acecode")


def _acecode(*args: str) -> list[str]:
    """The installed console script, as Claude Code and users run it."""
    assert ACECODE.is_file(), "the acecode console script is installed beside python"
    return [str(ACECODE), *args]


def test_version_prints_the_package_version() -> None:
    result = subprocess.run(
        _acecode("--version"), capture_output=True, text=True, timeout=HANG_GUARD
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout == f"acecode {acecode.__version__}\n"


@pytest.mark.parametrize(
    "args", [("hook", "--help"), ("hook", "-h"), ("hook", "session-start", "--help")]
)
def test_hook_help_prints_usage_without_reading_stdin(args: tuple[str, ...]) -> None:
    """stdin stays open and empty: a hook that waited for its JSON would never finish."""
    with subprocess.Popen(
        _acecode(*args),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            code = proc.wait(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"acecode {' '.join(args)} waited on stdin")
        out, err = proc.stdout.read(), proc.stderr.read()

    assert code == 0, err
    assert "Usage: acecode hook" in out
    for event in ("session-start", "user-prompt-submit", "pre-compact", "session-end"):
        assert event in out
    assert err == ""


def test_main_help_lists_the_hook_command() -> None:
    out = subprocess.run(
        _acecode("--help"), capture_output=True, text=True, timeout=HANG_GUARD
    ).stdout

    assert "hook" in out and "--version" in out


def test_unknown_hook_event_exits_0_with_one_line() -> None:
    result = subprocess.run(
        _acecode("hook", "no-such-event"), input=b"{}", capture_output=True, timeout=HANG_GUARD
    )

    assert result.returncode == 0
    assert result.stdout == b""
    [line] = result.stderr.decode().splitlines()
    assert line.startswith("acecode: unknown hook event 'no-such-event'")
