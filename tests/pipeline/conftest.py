"""Pipeline fixtures: start a content-routed LLM server and point acecode at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.llm_env import LLM_ENV_VARS
from support.pipeline import RoutedLLM, Router, routed_servers


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a ``.claude`` folder, found through ``CLAUDE_PROJECT_DIR``, and an
    empty HOME beside it (no user layer, no user config)."""
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return root


@pytest.fixture
def routed_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., RoutedLLM]]:
    """Start a routed server and make it the configured provider (through the environment)."""
    with routed_servers() as start_server:

        def start(router: Router, delay: float = 0.0, safety: Router | None = None) -> RoutedLLM:
            llm = start_server(router, delay, safety)
            for name in LLM_ENV_VARS:
                monkeypatch.delenv(name, raising=False)
            for name, value in llm.env().items():
                monkeypatch.setenv(name, value)
            return llm

        yield start
