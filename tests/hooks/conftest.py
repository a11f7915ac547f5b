"""Fixtures of the hook tests (helpers live in ``hook_helpers``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hook_helpers import write_playbook

from support.playbooks import entry


@pytest.fixture(autouse=True)
def _with_a_provider(provider_configured: dict[str, str]) -> None:
    """Hook tests run as a user with an LLM provider set; the tests of the notice that
    none is set remove it."""


@pytest.fixture
def playbook(project_dir: Path) -> Path:
    """A small playbook with entries in two sections."""
    return write_playbook(
        project_dir,
        {
            "PATTERNS & APPROACHES": [entry("pat-001", "Run pytest -q before committing", 3)],
            "MISTAKES TO AVOID": [entry("mis-001", "Never edit generated files by hand", 1, 1)],
        },
    )
