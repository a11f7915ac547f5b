"""The recall tests run as a user with an LLM provider set, like the hook tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _with_a_provider(provider_configured: dict[str, str]) -> None:
    """A user who has set a provider (the session-start notice stays quiet)."""
