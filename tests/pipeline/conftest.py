"""Pipeline fixtures: start a content-routed LLM server and point acecode at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from support.llm_env import LLM_ENV_VARS
from support.pipeline import RoutedLLM, Router, routed_servers


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
