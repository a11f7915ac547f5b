"""Shared fixtures: every test runs in a throw-away project and home folder.

The autouse fixture points ``CLAUDE_PROJECT_DIR`` and ``HOME`` at fresh
temporary folders, makes the project the current directory and drops the
credential and configuration variables acecode reads (``ACECODE_*`` included),
so no test can read or write the developer's real playbook, settings, prompt
overrides or API keys, and no developer setting such as ``ACECODE_REVIEW=all``
changes an outcome. Subprocesses started by a test inherit the same isolated
environment.

It also puts acecode's progress lines ("reflector waiting on ..., 5 s") out of
reach (``ACECODE_PROGRESS_AFTER``): whether a step takes 5 s depends on the
machine's load, and a test must not. The tests of those lines set it to 0,
which prints them at once, whatever the load.

Hypothesis runs under the profile named by ``HYPOTHESIS_PROFILE``: ``ci``
(set by ``.ci/run``) is derandomised, so a CI run is reproducible; ``dev``,
the default, explores new examples on every run. Neither has a per-example
deadline: on a loaded machine a wall-clock limit fails tests for being slow,
not wrong.

``-n auto`` (the README's command and CI's) starts two workers per core: see
``WORKERS_PER_CORE``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# ``-n auto`` starts this many workers per core. A worker spends about a quarter of
# its time waiting on what it started (a Claude Code session's terminal, a scripted
# server, a pip install, a learning cycle in the background) with its core idle:
# with one worker per core the whole suite used 146 % of a 2-core machine and took
# 982 s, with two per core 171 % and 803 s (both green); three per core were no faster.
WORKERS_PER_CORE = 2


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: ``WORKERS_PER_CORE`` workers for every core this process may use.

    ``PYTEST_XDIST_AUTO_NUM_WORKERS``, when set, is left to pytest-xdist, which reads it.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return WORKERS_PER_CORE * len(os.sched_getaffinity(0))


# Seconds before a progress line: longer than any test's hang guard.
PROGRESS_NEVER = 24 * 3600

# Variables that would let a test reach a real account or a real config.
_SCRUBBED_PREFIXES = (
    "ACECODE_",
    "AGENTIC_CONTEXT_",
    "ANTHROPIC_",
    "OPENAI_",
    "CLAUDE_",
    "CODEX_",
    "XDG_",
)


@pytest.fixture(autouse=True)
def project_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The isolated project root (also the cwd); ``HOME`` is its sibling ``home``."""
    root = tmp_path_factory.mktemp("acecode")
    project, home = root / "project", root / "home"
    project.mkdir()
    home.mkdir()
    for name in list(os.environ):
        if name.startswith(_SCRUBBED_PREFIXES):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ACECODE_PROGRESS_AFTER", str(PROGRESS_NEVER))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.chdir(project)
    return project


@pytest.fixture
def home_dir(project_dir: Path) -> Path:
    """The isolated home folder (``~``) of the current test."""
    return project_dir.parent / "home"


@pytest.fixture
def diagnostic_mode(project_dir: Path) -> Path:
    """Turn diagnostic mode on; returns the folder diagnostics are written to."""
    claude = project_dir / ".claude"
    claude.mkdir(exist_ok=True)
    (claude / "diagnostic_mode").touch()
    return claude / "diagnostic"


# A provider that counts as configured but can reach nothing: a closed local port.
CONFIGURED_PROVIDER = {
    "AGENTIC_CONTEXT_API_KEY": "test-key-never-sent",
    "AGENTIC_CONTEXT_BASE_URL": "http://127.0.0.1:9",
}


@pytest.fixture
def provider_configured(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A user who has set an LLM provider, so the session-start notice does not say that
    none is configured; any call would go to a closed port on this machine."""
    for name, value in CONFIGURED_PROVIDER.items():
        monkeypatch.setenv(name, value)
    return dict(CONFIGURED_PROVIDER)


@pytest.fixture(autouse=True)
def fresh_events_logger(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test meets acecode's events logger as a new process does: no handler yet,
    not disabled, the first event installs acecode's own. A handler, level or ``disabled``
    flag left by an earlier test in the same worker (a library's logging set-up, an
    in-process CLI run) would otherwise swallow the warnings a later test reads."""
    import logging

    from acecode import events

    logger = logging.getLogger(events.EVENTS_LOGGER)
    monkeypatch.setattr(logger, "handlers", [])
    monkeypatch.setattr(logger, "level", logging.NOTSET)
    monkeypatch.setattr(logger, "disabled", False)
    monkeypatch.setattr(logger, "propagate", True)
    monkeypatch.setattr(events, "_ready", False)
    logger.manager._clear_cache()  # isEnabledFor's cache, kept across tests otherwise
