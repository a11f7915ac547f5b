"""Pipeline fixtures: start a content-routed LLM server and point acecode at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from pipeline_support import LLM_ENV_VARS, RoutedLLM, Router
from pytest_httpserver import HTTPServer


@pytest.fixture
def routed_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., RoutedLLM]]:
    servers: list[HTTPServer] = []

    def start(router: Router, delay: float = 0.0, safety: Router | None = None) -> RoutedLLM:
        server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        server.start()
        servers.append(server)
        llm = RoutedLLM(server, router, delay, safety)
        for name in LLM_ENV_VARS:
            monkeypatch.delenv(name, raising=False)
        for name, value in llm.env().items():
            monkeypatch.setenv(name, value)
        return llm

    yield start
    for server in servers:
        server.clear()
        server.stop()
