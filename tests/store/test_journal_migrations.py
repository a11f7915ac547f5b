"""The history journal's named, ordered schema migrations, on a journal of the old format."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from acecode.store import load_playbook, save_playbook
from acecode.store.journal import HistoryError, cycles_with_text, journal_path, list_cycles
from acecode.store.journal_schema import MIGRATIONS, SCHEMA_VERSION
from acecode_cli import run_acecode as acecode

FIXTURE = Path(__file__).parent / "data" / "journal-v1.sql"


@pytest.fixture
def old_journal(project_dir: Path) -> Path:
    """The playbook as the fixture's three cycles left it, and that version-1 journal."""
    path = project_dir / ".claude" / "playbook.json"
    entry = {"name": "pat-001", "text": "Run pytest -x -q first.", "helpful": 2, "harmful": 0}
    save_playbook({"sections": {"PATTERNS & APPROACHES": [entry]}}, path)
    journal = journal_path(path)
    journal.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(journal) as conn:
        conn.executescript(FIXTURE.read_text(encoding="utf-8"))
    return path


def columns(journal: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(journal) as conn:
        return conn.execute(sql).fetchall()


def test_the_migrations_are_named_ordered_and_set_the_version() -> None:
    names = [name for name, _ in MIGRATIONS]
    assert names == ["create_cycles_and_changes", "index_playbook_and_texts"]
    assert len(MIGRATIONS) == SCHEMA_VERSION


def test_an_old_journal_is_migrated_in_place_and_keeps_every_cycle(old_journal: Path) -> None:
    journal = journal_path(old_journal)
    assert columns(journal, "PRAGMA user_version") == [(1,)]

    cycles = list_cycles(old_journal)

    assert [c.cycle_id for c in cycles] == [
        "20260101-100000-aaaaaa",
        "20260102-100000-bbbbbb",
        "20260103-100000-cccccc",
    ]
    assert cycles[2].counts["deleted"] == 1
    assert columns(journal, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    applied = columns(journal, "SELECT version, name FROM schema_migrations ORDER BY version")
    assert applied == [(2, "index_playbook_and_texts")]  # version 1 predates the record
    plan = columns(
        journal,
        "EXPLAIN QUERY PLAN SELECT name FROM changes "
        "WHERE json_extract(after_entry, '$.text') = 'x'",
    )
    assert any("changes_by_after_text" in row[-1] for row in plan), plan
    assert cycles_with_text(old_journal, "Never commit .env files.") == [
        ("mis-001", "20260101-100000-aaaaaa")
    ]

    # The migrated journal works for the commands: undo the old deletion, then restore.
    acecode("undo", "20260103")
    assert [e["name"] for e in load_playbook(old_journal)["sections"]["MISTAKES TO AVOID"]] == [
        "mis-001"
    ]
    kinds = [row["kind"] for row in json.loads(acecode("history", "--json").stdout)]
    assert kinds == ["learn", "learn", "learn", "undo"]


def test_a_new_journal_runs_every_step_once(project_dir: Path) -> None:
    path = project_dir / ".claude" / "playbook.json"
    acecode("add", "Run ruff before committing.", "--section", "pat")
    journal = journal_path(path)
    applied = columns(journal, "SELECT version, name FROM schema_migrations ORDER BY version")
    assert applied == [(1, "create_cycles_and_changes"), (2, "index_playbook_and_texts")]
    acecode("add", "Run mypy before committing.", "--section", "pat")
    assert len(columns(journal, "SELECT * FROM schema_migrations")) == 2
    assert len(list_cycles(path)) == 2


def test_a_journal_from_a_newer_acecode_is_refused_in_one_line(old_journal: Path) -> None:
    journal = journal_path(old_journal)
    with sqlite3.connect(journal) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(HistoryError, match="schema version 99, newer than this acecode's"):
        list_cycles(old_journal)
    error = acecode("undo", code=1).stderr.strip().splitlines()
    assert len(error) == 1 and "newer than this acecode" in error[0]
    assert columns(journal, "PRAGMA user_version") == [(99,)]
