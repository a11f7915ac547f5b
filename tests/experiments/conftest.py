"""Fixtures of the experiment tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _with_a_provider(provider_configured: dict[str, str]) -> None:
    """A user with an LLM provider set, so the session-start notice has nothing to say
    about it and only the experiments' own lines show."""
