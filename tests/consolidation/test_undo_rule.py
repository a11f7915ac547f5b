"""Taking back one learned rule: ``acecode undo NAME``, through the CLI, after real cycles.

Every cycle is ``acecode learn`` against a local server speaking the Anthropic
Messages API: the reflector's and the curator's replies are scripted per cycle
(a later cycle rating a rule is what used to block ``undo CYCLE``), and a
judge, should one be asked, finds nothing.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from acecode.playbook.schema import iter_entries
from acecode.store import load_playbook
from acecode.store.history import list_cycles, short_id
from support.hang_guard import HANG_GUARD
from support.pipeline import all_safe, is_safety_review, request_prompt

MAKE = "Run the test suite with make test; bare pytest misses the fixtures the Makefile sets up."
UV = "Start every Python script of this repository with uv run so its locked packages are used."
UV_EDITED = "Prefer uv run, and pin tool versions in pyproject.toml when adding a new tool."


class LearningLLM:
    """Answers the reflector and the curator from the script of the next cycle."""

    def __init__(self, server: HTTPServer) -> None:
        self.server = server
        self.tags: list[dict[str, str]] = []
        self.operations: list[dict[str, Any]] = []
        server.expect_request("/v1/messages", method="POST").respond_with_handler(self._reply)

    def _reply(self, request: Request) -> Response:
        prompt = request.get_data(as_text=True)  # the role's template is in the user message
        if "You are the curator" in prompt:
            answer: dict[str, Any] = {"reasoning": "scripted", "operations": self.operations}
        elif "You are the judge" in prompt:
            answer = {"verdicts": []}
        elif is_safety_review("", request_prompt(prompt)):
            answer = json.loads(all_safe(request_prompt(prompt)))
        else:
            answer = {"analysis": "scripted", "bullet_tags": self.tags}
        message = {
            "id": "msg_undo",
            "type": "message",
            "role": "assistant",
            "model": "scripted-model",
            "content": [{"type": "text", "text": json.dumps(answer)}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }
        return Response(json.dumps(message), status=200, content_type="application/json")


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LearningLLM]:
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    monkeypatch.setenv("AGENTIC_CONTEXT_API_KEY", "test-key")
    monkeypatch.setenv("AGENTIC_CONTEXT_BASE_URL", server.url_for("/").rstrip("/"))
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", "scripted-model")
    monkeypatch.setenv("ACECODE_MAX_REMOVAL_RATIO", "1.0")  # a MERGE of two out of two
    yield LearningLLM(server)
    server.clear()
    server.stop()


def acecode(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == code, result.stdout + result.stderr
    return result


def learn(
    llm: LearningLLM,
    tmp_path: Path,
    operations: list[dict[str, Any]] | None = None,
    tags: list[dict[str, str]] | None = None,
) -> str:
    """One real learning cycle on a new session; returns the id of the cycle it journaled."""
    llm.operations, llm.tags = operations or [], tags or []
    number = len(list(tmp_path.glob("session-*.jsonl")))
    session = tmp_path / f"session-{number}.jsonl"
    records = [
        {"type": "user", "uuid": f"u{number}", "message": {"role": "user", "content": "test"}},
        {
            "type": "assistant",
            "uuid": f"a{number}",
            "message": {"id": f"m{number}", "content": [{"type": "text", "text": "ran it"}]},
        },
    ]
    session.write_text("".join(json.dumps(record) + "\n" for record in records))
    before = len(list_cycles(playbook()))
    acecode("learn", str(session))
    cycles = list_cycles(playbook())
    assert len(cycles) == before + 1, "the cycle saved nothing"
    return cycles[-1].cycle_id


def playbook() -> Path:
    return Path.cwd() / ".claude" / "playbook.json"


def entries() -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for _, entry in iter_entries(load_playbook(playbook()))}


def add(text: str) -> dict[str, Any]:
    return {"type": "ADD", "section": "OTHERS", "text": text}


def test_a_learned_rule_rated_later_is_taken_back_by_name_and_can_be_put_back(
    llm: LearningLLM, tmp_path: Path
) -> None:
    first = learn(llm, tmp_path, [add(MAKE), add(UV)])
    rating = learn(llm, tmp_path, tags=[{"name": "oth-001", "tag": "helpful"}])
    assert entries()["oth-001"]["helpful"] == 1

    # The cycle cannot be undone as a whole: the refusal says why and what to do instead.
    refused = acecode("undo", first, code=1)
    message = refused.stderr.strip()
    assert len(message.splitlines()) == 1
    assert f"oth-001 counters changed by later cycle {short_id(rating)}" in message
    assert "`acecode undo oth-001`" in message and "--force" in message
    assert set(entries()) == {"oth-001", "oth-002"}  # nothing changed

    done = acecode("undo", "oth-001")
    assert f"undid oth-001's change in cycle {first}: removed it" in done.stdout
    assert set(entries()) == {"oth-002"}  # only that rule, the other one of its cycle stays
    undo_cycle = list_cycles(playbook())[-1]
    assert undo_cycle.kind == "undo" and f"recorded as cycle {undo_cycle.cycle_id}" in done.stdout

    history = acecode("history").stdout
    assert re.search(
        rf"{short_id(first)} .* learn +partly undone +\+2 .*oth-001 undone by", history
    )
    assert re.search(
        rf"{short_id(undo_cycle.cycle_id)} .* undo +ok +-1 +undoes oth-001 of", history
    )

    acecode("undo", short_id(undo_cycle.cycle_id))  # the undo is itself a cycle: undo it
    assert entries()["oth-001"]["text"] == MAKE
    assert entries()["oth-001"]["helpful"] == 1  # as it was when it was taken back
    assert "partly undone" not in acecode("history").stdout


def test_a_rewritten_rule_gets_its_text_back_and_repeated_undo_walks_back(
    llm: LearningLLM, tmp_path: Path
) -> None:
    first = learn(llm, tmp_path, [add(MAKE), add(UV)])
    rewrite = learn(llm, tmp_path, [{"type": "UPDATE", "target_id": "oth-002", "text": UV_EDITED}])
    learn(llm, tmp_path, tags=[{"name": "oth-002", "tag": "harmful"}])
    assert (entries()["oth-002"]["text"], entries()["oth-002"]["harmful"]) == (UV_EDITED, 1)

    done = acecode("undo", "oth-002")
    assert (
        f"undid oth-002's change in cycle {rewrite}: put back its text from before" in done.stdout
    )
    # its text and counters from before the rewrite: the harmful vote rated the rewrite
    assert entries()["oth-002"] == {"name": "oth-002", "text": UV, "helpful": 0, "harmful": 0}

    again = acecode("undo", "oth-002")  # the next change back: the cycle that added it
    assert f"undid oth-002's change in cycle {first}: removed it" in again.stdout
    assert set(entries()) == {"oth-001"}

    gone = acecode("undo", "oth-002", code=1)
    assert gone.stderr.strip() == (
        f"acecode: oth-002 is not in the playbook (removed by cycle "
        f"{list_cycles(playbook())[-1].cycle_id}); `acecode restore oth-002` brings it back"
    )


def test_undoing_a_merged_rule_brings_back_the_rules_merged_into_it(
    llm: LearningLLM, tmp_path: Path
) -> None:
    first = learn(llm, tmp_path, [add(MAKE), add(UV)])
    merged_text = f"{MAKE} {UV}"
    merge = {
        "type": "MERGE",
        "source_ids": ["oth-001", "oth-002"],
        "merged_text": merged_text,
        "section": "OTHERS",
    }
    cycle = learn(llm, tmp_path, [merge])
    learn(llm, tmp_path, tags=[{"name": "oth-003", "tag": "helpful"}])
    assert [entry["text"] for entry in entries().values()] == [merged_text]

    done = acecode("undo", "oth-003")
    assert f"undid oth-003's change in cycle {cycle}: removed it; oth-001, oth-002" in done.stdout
    assert {name: entry["text"] for name, entry in entries().items()} == {
        "oth-001": MAKE,
        "oth-002": UV,
    }
    why = acecode("why", "oth-001").stdout  # its provenance is back with it
    assert re.search(rf"^1\. learned .* cycle {first} ", why, re.MULTILINE)
    assert "\n2. " not in why


def test_a_rule_the_journal_never_saw_is_refused_in_one_line(project_dir: Path) -> None:
    path = project_dir / ".claude" / "playbook.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    rule = {"name": "oth-001", "text": MAKE, "helpful": 0, "harmful": 0}
    path.write_text(json.dumps({"version": "1.0", "sections": {"OTHERS": [rule]}}))
    refused = acecode("undo", "oth-001", code=1)
    assert refused.stderr.strip() == (
        "acecode: the history journal has no change of oth-001 to undo (it predates the "
        "journal or was written by hand); `acecode forget oth-001` deletes it"
    )
