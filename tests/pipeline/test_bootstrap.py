"""Bootstrap over a fake ~/.claude/projects folder: order, subagents, resume, failures."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acecode.agents.claude_code.sessions import encode_project_path, find_sessions, sessions_dir
from acecode.pipeline.bootstrap import BootstrapState, bootstrap
from acecode.store import load_playbook
from support.pipeline import is_curator, write_transcript


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "my.project"
    (root / ".claude").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(root))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return root


def make_sessions(project: Path, names: list[str]) -> list[Path]:
    folder = sessions_dir(project)
    made = []
    for age, name in enumerate(names):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_transcript(path, f"MARKER-{path.stem} request", "done")
        stamp = 1_700_000_000 + age * 60
        os.utime(path, (stamp, stamp))
        made.append(path)
    return made


def test_encoded_folder_name_matches_claude_code(tmp_path):
    """Claude Code 2.1.197 filed a session started in ``.../my_proj.x y+z`` under
    ``...-my-proj-x-y-z``: every character but an ASCII letter or digit becomes ``-``."""
    folder = tmp_path / "my_proj.x y+z"
    folder.mkdir()
    prefix = "".join(c if c.isascii() and c.isalnum() else "-" for c in str(tmp_path.resolve()))
    assert encode_project_path(folder) == f"{prefix}-my-proj-x-y-z"


def test_sessions_are_found_oldest_first_with_subagents_but_not_compaction(project):
    made = make_sessions(
        project,
        [
            "b-session.jsonl",
            "a-session.jsonl",
            "b-session/subagents/agent-a1.jsonl",
            "b-session/subagents/agent-acompact-ff.jsonl",
            "agent-legacy.jsonl",
        ],
    )
    assert find_sessions(project) == [made[0], made[1], made[2], made[4]]
    assert find_sessions(project, include_subagents=False) == [made[0], made[1]]


LESSONS = {
    "one": "Deploy scripts live in ops/deploy and need the VPN to be up.",
    "two": "Use factory_boy factories instead of hand-built model instances in tests.",
    "three": "The docs site builds with mkdocs; run `mkdocs serve` to preview it.",
}


def test_bootstrap_learns_each_session_once_and_resumes(routed_llm, project):
    def router(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            marker = prompt.split("MARKER-", 1)[1].split()[0]
            text = LESSONS[marker]
            return json.dumps({"reasoning": "r", "operations": [{"type": "ADD", "text": text}]})
        marker = prompt.split("MARKER-", 1)[1].split()[0]
        return json.dumps({"analysis": f"MARKER-{marker} analysed", "bullet_tags": []})

    llm = routed_llm(router)
    sessions = make_sessions(project, ["one.jsonl", "two.jsonl"])
    state_path = project / ".claude" / "acecode" / "bootstrap.json"

    assert bootstrap(sessions, state_path=state_path, playbook_path=None, delay=0) == (2, 0, 0, 0)
    calls = len(llm.bodies)
    more = make_sessions(project, ["three.jsonl"])
    assert bootstrap([*sessions, *more], state_path=state_path, playbook_path=None, delay=0) == (
        1,
        2,
        0,
        0,
    )

    assert len(llm.bodies) == calls + 3  # the new session's reflector, curator, safety review
    texts = [e["text"] for e in load_playbook()["sections"]["OTHERS"]]
    assert len(texts) == 3
    assert set(BootstrapState.load(state_path).done) == {str(p) for p in [*sessions, *more]}


def test_a_failed_session_is_recorded_and_retried(routed_llm, project):
    routed_llm(lambda system, prompt: "no json here")
    sessions = make_sessions(project, ["one.jsonl"])
    state_path = project / ".claude" / "acecode" / "bootstrap.json"
    seen: list[str | None] = []

    result = bootstrap(
        sessions,
        state_path=state_path,
        playbook_path=None,
        delay=0,
        on_progress=lambda path, report, error: seen.append(error),
    )

    assert result == (0, 0, 0, 1)
    state = BootstrapState.load(state_path)
    assert state.done == {} and str(sessions[0]) in state.failed
    assert state.failed[str(sessions[0])].startswith(
        "failed: reflector: the reply contained no JSON"
    )
    assert seen and seen[0] is not None


def test_a_session_too_small_to_learn_from_is_skipped_and_retried_once_it_grew(routed_llm, project):
    llm = routed_llm(
        lambda system, prompt: json.dumps(
            {"reasoning": "r", "operations": [{"type": "ADD", "text": "Run make lint."}]}
            if is_curator(system, prompt)
            else {"analysis": "lint first", "bullet_tags": []}
        )
    )
    small = sessions_dir(project) / "small.jsonl"
    small.parent.mkdir(parents=True)
    question = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "what is x?"}}
    answer = {
        "type": "assistant",
        "uuid": "a1",
        "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "y"}]},
    }
    small.write_text(json.dumps(question) + "\n" + json.dumps(answer) + "\n")
    state_path = project / ".claude" / "acecode" / "bootstrap.json"

    first = bootstrap([small], state_path=state_path, playbook_path=None, delay=0)

    assert first == (0, 0, 1, 0)
    assert llm.bodies == []  # no LLM call for a session too small to teach anything
    assert BootstrapState.load(state_path).done == {}  # stays due
    with small.open("a") as handle:
        handle.write(
            # a second request, with a preference: big enough, and a signal for the triage
            json.dumps(
                {**question, "uuid": "u2", "message": {"role": "user", "content": "Always say z"}}
            )
            + "\n"
        )
    assert bootstrap([small], state_path=state_path, playbook_path=None, delay=0) == (1, 0, 0, 0)
    assert len(llm.bodies) == 3  # reflector, curator, safety review


def test_sessions_the_hooks_learned_already_count_as_already_learned_without_a_record(
    routed_llm, project
):
    from acecode.pipeline.cycle import run_cycle_sync
    from acecode.project import outcomes
    from acecode.project.layer import Layer
    from acecode.store.journal import list_cycles

    def router(system: str, prompt: str) -> str:
        marker = prompt.split("MARKER-", 1)[1].split()[0]
        if is_curator(system, prompt):
            return json.dumps(
                {"reasoning": "r", "operations": [{"type": "ADD", "text": LESSONS[marker]}]}
            )
        return json.dumps({"analysis": f"MARKER-{marker} analysed", "bullet_tags": []})

    llm = routed_llm(router)
    sessions = make_sessions(project, ["one.jsonl", "two.jsonl", "three.jsonl"])
    for session in sessions[:2]:  # what the SessionEnd hooks learned
        assert run_cycle_sync(session, source="session-end").status == "ok"
    layer = Layer.of_project(project)
    records, journal, calls = outcomes.read_outcomes(layer), list_cycles(layer), len(llm.bodies)
    state_path = project / ".claude" / "acecode" / "bootstrap.json"

    counts = bootstrap(sessions, state_path=state_path, playbook_path=None, delay=0)

    assert counts == (1, 2, 0, 0)  # learned the third; the hooks' two are already learned
    assert len(llm.bodies) == calls + 3  # the third's reflector, curator, safety review
    new_records = outcomes.read_outcomes(layer)[len(records) :]
    assert [Path(r["transcript"]).name for r in new_records] == ["three.jsonl"]
    assert len(list_cycles(layer)) == len(journal) + 1
    assert set(BootstrapState.load(state_path).done) == {str(p) for p in sessions}
