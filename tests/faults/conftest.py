"""Fixtures of the fault matrix: the project's playbook path and a scripted LLM server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fault_support import lesson_router, permission_bits_enforced

from support.pipeline import routed_servers


@pytest.fixture
def playbook(project_dir: Path) -> Path:
    """``<project>/.claude/playbook.json`` (not created)."""
    return project_dir / ".claude" / "playbook.json"


@pytest.fixture
def llm() -> Iterator[Callable[..., Any]]:
    """Start a RoutedLLM (default: ``lesson_router``) on 127.0.0.1; stopped after the test."""
    with routed_servers() as start_server:

        def start(router: Callable[[str, str], str] = lesson_router, delay: float = 0.0) -> Any:
            return start_server(router, delay)

        yield start


@pytest.fixture(scope="session")
def obeying_permissions() -> Callable[[], None] | None:
    """preexec_fn for a child that obeys permission bits (None: it already does)."""
    preexec, reason = permission_bits_enforced()
    if reason is not None:
        pytest.skip(reason)
    return preexec
