"""Habits across projects: real cycles in three projects of one user, a real HTTP LLM.

The same failure (an Edit of a file not read first) in project A is learned there;
in project B the curator is told it recurs without an entry, and the entry B learns
moves to the user layer; in project C the curator is told it was already learned.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acecode.habits.record import load_record, record_file
from acecode.pipeline import run_cycle_sync
from acecode.playbook.schema import iter_entries
from acecode.project.layers import user_playbook_file
from acecode.store import load_playbook
from acecode.store.history import list_cycles
from acecode.store.provenance import load_provenance
from support.pipeline import is_curator

RULE = "Read a file before editing it: Edit refuses a file the session has not read."
NOT_READ = "File has not been read yet. Read it first before writing to it."


def session(path: Path, edited: str, session_id: str) -> Path:
    """A session whose Edit of ``edited`` fails because the file was not read first."""
    records: list[dict[str, Any]] = [
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": session_id,
            "cwd": str(path.parent),
            "message": {"role": "user", "content": "Rename the helper in the app module"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": session_id,
            "cwd": str(path.parent),
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Edit",
                        "input": {
                            "file_path": edited,
                            "old_string": "def helper",
                            "new_string": "def h",
                        },
                    }
                ],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "sessionId": session_id,
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": NOT_READ,
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "sessionId": session_id,
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [{"type": "text", "text": "I read the file, then edited it."}],
            },
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


class Curator:
    """Route: the reflector names F1; the curator adds the rule (or nothing) and the
    prompts it was sent are kept."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.operations: list[dict[str, Any]] = []

    def __call__(self, system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            self.prompts.append(prompt)
            return json.dumps({"reasoning": "scripted", "operations": self.operations})
        return json.dumps({"findings": [f"[F1] {RULE}"], "tags": []})


def notes(prompt: str) -> str:
    """The curator prompt's section on the failed calls the findings name."""
    return prompt.split("# Failed calls the findings name\n", 1)[1].split("\n\n#", 1)[0]


def learn(root: Path, curator: Curator, operations: list[dict[str, Any]], name: str):
    (root / ".claude").mkdir(parents=True, exist_ok=True)
    curator.operations = operations
    transcript = session(root / f"{name}.jsonl", str(root / "src" / "app.py"), name)
    report = run_cycle_sync(transcript, playbook_path=root / ".claude" / "playbook.json")
    assert report.status in ("ok", "nothing-new"), report.reason
    return report


@pytest.fixture
def curator(routed_llm) -> Curator:
    scripted = Curator()
    routed_llm(scripted)
    return scripted


ADD = {"type": "ADD", "text": RULE, "section": "MISTAKES TO AVOID", "refs": ["F1"]}


def test_a_failure_learned_in_two_projects_becomes_a_user_entry_met_in_the_third(
    curator, tmp_path, home_dir
):
    a, b, c = (tmp_path / name for name in ("a", "b", "c"))

    first = learn(a, curator, [ADD], "sa")
    told = notes(curator.prompts[-1])
    # The call is clipped to COMMAND_CHARS: how much of old_string shows depends on the
    # length of the (temporary) project path, so only the call's start is asserted.
    assert told.startswith("- F1: `Edit(file_path=")
    assert told.endswith("failed: " + NOT_READ)
    assert first.promoted == []
    assert [e["name"] for _, e in iter_entries(load_playbook(a / ".claude/playbook.json"))] == [
        "mis-001"
    ]

    second = learn(b, curator, [ADD], "sb")
    assert notes(curator.prompts[-1]).endswith(
        ". It recurs without an entry: also in 1 other project(s) of the user"
    )
    assert second.promoted == [
        {"name": "mis-001", "as": "u-mis-001", "failure": "Edit |  | " + NOT_READ.rstrip(".")}
    ]
    assert list(iter_entries(load_playbook(b / ".claude/playbook.json"))) == []
    user = Path(user_playbook_file())
    assert [(e["name"], e["text"]) for _, e in iter_entries(load_playbook(user))] == [
        ("u-mis-001", RULE)
    ]
    (origin,) = load_provenance(user)["u-mis-001"]
    assert origin.how == "learned" and origin.session == "sb"
    assert (origin.evidence.kind, origin.evidence.tool, origin.evidence.ref) == (
        "failure",
        "Edit",
        "F1",
    )
    assert origin.reason.startswith("the same failure was learned in 2 of the user's projects")
    assert [c.kind for c in list_cycles(user)][-1] == "move"
    # Project A keeps its own entry: its curator merges or retires it, never this one.
    assert load_playbook(a / ".claude/playbook.json") != {}

    third = learn(c, curator, [], "sc")
    assert notes(curator.prompts[-1]).endswith(
        ". Already learned from this failure: u-mis-001; reinforce it"
    )
    assert third.promoted == []
    record = load_record()
    key = "Edit |  | " + NOT_READ.rstrip(".")
    assert record.promoted == {key: "u-mis-001"}
    assert {root: list(seen[key]["entries"]) for root, seen in record.projects.items()} == {
        str(a): ["mis-001"],
        str(b): ["mis-001"],
        str(c): [],
    }
    assert "src/app.py" not in record_file().read_text(encoding="utf-8")


def test_learning_a_session_again_counts_it_once(curator, tmp_path, home_dir):
    a = tmp_path / "a"
    learn(a, curator, [ADD], "sa")
    learn(a, curator, [], "sa")
    (seen,) = load_record().projects[str(a)].values()
    assert seen["sessions"] == ["sa"] and seen["entries"] == ["mis-001"]
    learn(a, curator, [], "sa2")
    assert notes(curator.prompts[-1]).endswith(
        ". Already learned from this failure: mis-001; reinforce it"
    )
