"""The playbook core does no I/O: it reports its events through logging.

Two checks. Statically, no module of ``acecode.playbook``,
``acecode.consolidation`` or the de-duplication logic imports a module that
writes files or prints (diagnostics, atomic writes, locks, report files).
At run time, the core functions run with diagnostic mode on and every file
operation patched to fail: they still return their results, and their
diagnostic events (the spec's OBS-* names) arrive on the ``acecode.events``
logger instead of the disk.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import logging
import os
import pathlib
import pkgutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import acecode.consolidation
import acecode.playbook
from acecode import events
from acecode.consolidation.guards import RemovalBudget, guard_operations
from acecode.consolidation.report import build_report
from acecode.dedup.groups import deduplicate
from acecode.dedup.ladder import decide
from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.playbook.schema import _resolve_section
from acecode.playbook.scoring import prune_harmful_detailed, update_playbook_data
from support.embedding_backends import HashBackend
from support.playbooks import MIS, PAT, entry, make_playbook

DEDUP_LOGIC = ("groups", "ladder", "similarity", "verbatim", "candidates", "verdicts")
IO_MODULES = {
    "acecode.project.diagnostics",
    "acecode.project.diagnostics_handler",
    "acecode.store.atomic",
    "acecode.store.lock",
    "acecode.store.reports",
    "acecode.store.playbook_file",
    "acecode.project.state_folder",
    "acecode.project.outcomes",
    "shutil",
    "sqlite3",
    "tempfile",
}


def core_modules() -> list[str]:
    names = []
    for package in (acecode.playbook, acecode.consolidation):
        names.append(package.__name__)
        names += [
            info.name for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}.")
        ]
    return names + [f"acecode.dedup.{name}" for name in DEDUP_LOGIC]


def imported_modules(module_name: str) -> set[str]:
    source = Path(importlib.import_module(module_name).__file__).read_text(encoding="utf-8")
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


@pytest.mark.parametrize("module", core_modules())
def test_core_module_imports_no_io_helper(module: str) -> None:
    assert imported_modules(module) & IO_MODULES == set()


def test_the_static_check_sees_an_io_import() -> None:
    """The check above can fail: the store layer it guards against is found."""
    assert "acecode.store.atomic" in imported_modules("acecode.store.reports")


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.diagnostics: list[tuple[str, str]] = []
        self.warnings: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        name = getattr(record, events.DIAGNOSTIC_ATTR, None)
        if name is not None:
            self.diagnostics.append((name, record.getMessage()))
        elif record.levelno >= logging.WARNING:
            self.warnings.append(record.getMessage())


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> Captured:
    """The events logger with only a capturing handler (acecode's own handler left out)."""
    handler = Captured()
    logger = logging.getLogger(events.EVENTS_LOGGER)
    monkeypatch.setattr(logger, "handlers", [handler])
    monkeypatch.setattr(logger, "level", logging.DEBUG)
    monkeypatch.setattr(events, "_ready", True)
    return handler


@contextmanager
def no_file_access(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Inside the block every file operation the core could reach raises (undone on
    the way out, so that pytest can report a failure)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the core touched the file system: {args!r}")

    with monkeypatch.context() as patch:
        patch.setattr(builtins, "open", refuse)
        patch.setattr(os, "replace", refuse)
        patch.setattr(sqlite3, "connect", refuse)
        for method in FILE_METHODS:
            patch.setattr(pathlib.Path, method, refuse)
        yield


FILE_METHODS = (
    "open",
    "exists",
    "is_file",
    "is_dir",
    "mkdir",
    "touch",
    "read_text",
    "write_text",
    "read_bytes",
    "write_bytes",
    "unlink",
)


def test_core_functions_run_without_file_access_and_report_events(
    captured: Captured, diagnostic_mode: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    playbook = make_playbook(
        pat=[entry("pat-001", "Run the focused test file first.", 1, 0)],
        mis=[entry("mis-001", "Never force-push shared branches.", 0, 4)],
    )
    operations = [
        {"type": "ADD", "text": "Pin the linter version in CI.", "section": "No Such Section"},
        {"type": "UPDATE", "target_id": "pat-001", "text": "Run the focused test file first."},
        {"type": "DELETE", "target_id": "oth-404", "reason": "stale"},
    ]

    with no_file_access(monkeypatch):
        budget = RemovalBudget.for_playbook(playbook, 0.5)
        guarded = guard_operations(playbook, operations, budget, 0.5)
        applied, outcomes = apply_operations_with_outcomes(playbook, guarded.allowed)
        pruned_playbook, pruned = prune_harmful_detailed(applied)
        scored = update_playbook_data(pruned_playbook, {"evaluations": [], "operations": []})
        report = build_report(
            cycle_id="c1",
            before=playbook,
            after=scored,
            source="memory",
            operations=guarded.allowed,
            outcomes=outcomes,
            guard=guarded,
            budget=budget,
            pruned=pruned,
        )
        deduped = deduplicate(scored, 0.85, backend=HashBackend(), cache=None)
        ladder = decide("Pin the linter version in CI.", PAT, scored, backend=HashBackend())
        unknown = _resolve_section("Nowhere")

    assert [op.applied for op in outcomes] == [True, True, False]
    assert [entry["name"] for _, entry in pruned] == ["mis-001"]
    assert report["cycle_id"] == "c1" and deduped.playbook["sections"][MIS] == []
    assert ladder.action in {"add", "skip", "credit", "update"}
    assert unknown == "OTHERS"
    names = [name for name, _ in captured.diagnostics]
    for expected in (
        "sections_unknown_section",
        "curator_nonexistent_id",
        "curator_ops_summary",
        "prune_report",
    ):
        assert expected in names
    assert any("OBS-SECT-002" in content for _, content in captured.diagnostics)
    assert any("non-existent ID 'oth-404'" in line for line in captured.warnings)
    assert any(line.startswith("pruned [mis-001]") for line in captured.warnings)


def test_without_a_program_handler_events_become_files_and_lines(
    diagnostic_mode: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """acecode's own handler is installed on the first event: the OBS files and the
    ``acecode:`` lines are what they were before the core stopped writing them."""
    logger = logging.getLogger(events.EVENTS_LOGGER)
    monkeypatch.setattr(logger, "handlers", [])
    monkeypatch.setattr(events, "_ready", False)

    _resolve_section("Nowhere")
    events.warning("one line for the user")

    [written] = sorted(diagnostic_mode.glob("*_sections_unknown_section.txt"))
    assert "OBS-SECT-002: unknown section 'Nowhere' -> OTHERS" in written.read_text()
    assert capsys.readouterr().err == "acecode: one line for the user\n"
