"""Fixtures for the real-client scenarios: the pinned CLI, the scripted server, a user's home.

The CLIs (Claude Code and Codex) come from ``tests/clients`` (``npm ci --prefix
tests/clients``, which ``.ci/run`` does). Without them these tests fail with that
instruction rather than skip: a skipped proof is no proof. For a quick local run without them,
deselect the marker: ``python -m pytest -m "not realclient"``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from claude_driver import ClaudeHome
from codex_driver import CodexHome
from messages_server import MessagesServer
from responses_server import ResponsesServer

from support.hang_guard import HANG_GUARD

CLIENTS = Path(__file__).resolve().parents[1] / "clients"
CLAUDE_VERSION = "2.1.197"
CODEX_VERSION = "0.169.0"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is a real-client test, and slow."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.realclient)
            item.add_marker(pytest.mark.slow)


def pinned_cli(name: str, label: str, version: str) -> Path:
    """The pinned CLI ``name`` from tests/clients; fails (never skips) when it is missing."""
    binary = CLIENTS / "node_modules" / ".bin" / name
    if not binary.exists():
        pytest.fail(
            f"the real {label} CLI is not installed: run `npm ci --prefix {CLIENTS}` "
            '(or deselect these tests with -m "not realclient")',
            pytrace=False,
        )
    shown = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, timeout=HANG_GUARD
    ).stdout
    assert version in shown, f"expected {label} {version}: {shown}"
    return binary


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    """The pinned Claude Code CLI, checked once per run."""
    return pinned_cli("claude", "Claude Code", CLAUDE_VERSION)


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    """The pinned Codex CLI, checked once per run."""
    return pinned_cli("codex", "Codex", CODEX_VERSION)


@pytest.fixture
def server() -> Iterator[MessagesServer]:
    """A fresh scripted Messages API server; its responder is set by each test."""
    running = MessagesServer().start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def claude(claude_bin: Path, home_dir: Path, server: MessagesServer) -> ClaudeHome:
    """A user of the real CLI whose home is the test's isolated ``HOME``."""
    return ClaudeHome(claude_bin=claude_bin, home=home_dir, server_url=server.url)


@pytest.fixture
def responses_server() -> Iterator[ResponsesServer]:
    """A fresh scripted Responses API server for Codex; its responder is set by each test."""
    running = ResponsesServer().start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def codex(codex_bin: Path, home_dir: Path, responses_server: ResponsesServer) -> CodexHome:
    """A user of the real Codex CLI whose home is the test's isolated ``HOME``."""
    return CodexHome(codex_bin=codex_bin, home=home_dir, base_url=responses_server.base_url)
