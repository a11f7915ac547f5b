"""Fixtures of the fault matrix: the project's playbook path and a scripted LLM server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fault_support import lesson_router, pipeline_support
from pytest_httpserver import HTTPServer


@pytest.fixture
def playbook(project_dir: Path) -> Path:
    """``<project>/.claude/playbook.json`` (not created)."""
    return project_dir / ".claude" / "playbook.json"


@pytest.fixture
def llm() -> Iterator[Callable[..., Any]]:
    """Start a RoutedLLM (default: ``lesson_router``) on 127.0.0.1; stopped after the test."""
    servers: list[HTTPServer] = []

    def start(router: Callable[[str, str], str] = lesson_router, delay: float = 0.0) -> Any:
        server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        server.start()
        servers.append(server)
        return pipeline_support().RoutedLLM(server, router, delay)

    yield start
    for server in servers:
        server.clear()
        server.stop()
