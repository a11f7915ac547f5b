"""Fixtures for the role tests: the scripted wire server and an isolated env."""

from __future__ import annotations

from support.wire import (  # noqa: F401  (fixtures, found by pytest by name)
    _llm_http_server,
    anthropic_env,
    diagnostic_mode,
    llm_server,
    openai_env,
    project,
    recorded_delays,
)
