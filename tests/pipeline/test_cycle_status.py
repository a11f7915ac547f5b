"""Every cycle ends ok, nothing-new, skipped or failed, says why, and leaves a record.

Real transcript files, a real Anthropic-protocol server on 127.0.0.1 (which
records every request, so "no LLM call" is checked, not assumed) and the real
state files: learn.log, cycles.jsonl, last-cycle.json, learned.json and the
curation report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acecode.llm import retry
from acecode.pipeline import run_cycle_sync
from acecode.project import outcomes
from acecode.store import load_playbook, save_playbook
from support.pipeline import is_curator, write_transcript

RULE = "Install PyYAML before running the test suite."
REFLECTION = {
    "analysis": "pytest failed on a missing yaml module; [pat-001] helped.",
    "bullet_tags": [{"name": "pat-001", "tag": "helpful", "rationale": "applied"}],
}
CURATION = {"reasoning": "r", "operations": [{"type": "ADD", "section": "OTHERS", "text": RULE}]}


def router(system: str, prompt: str) -> str:
    return json.dumps(CURATION if is_curator(system, prompt) else REFLECTION)


@pytest.fixture
def project(project_dir: Path) -> Path:
    """The isolated project of the root conftest, with a one-entry playbook."""
    root = project_dir
    (root / ".claude").mkdir()
    save_playbook(
        {
            "sections": {
                "PATTERNS & APPROACHES": [
                    {"name": "pat-001", "text": "Run pytest -x first.", "helpful": 1, "harmful": 0}
                ]
            }
        },
        root / ".claude" / "playbook.json",
    )
    return root


@pytest.fixture
def no_retry_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    async def record(seconds: float) -> None:
        return None

    monkeypatch.setattr(retry, "delay", record)


def state(project: Path) -> Path:
    return project / ".claude" / "acecode"


def log_lines(project: Path) -> list[str]:
    return [line[20:] for line in (state(project) / "logs" / "learn.log").read_text().splitlines()]


def learned(project: Path) -> dict:
    path = state(project) / "learned.json"
    return json.loads(path.read_text()) if path.exists() else {}


def helpful(project: Path) -> int:
    return load_playbook(project / ".claude" / "playbook.json")["sections"][
        "PATTERNS & APPROACHES"
    ][0]["helpful"]


def small_session(path: Path) -> Path:
    """One question, one answer: too small to teach anything."""
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "what is x?"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "y"}],
            },
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_ok_records_status_provider_and_model_everywhere(routed_llm, project, tmp_path):
    llm = routed_llm(router)
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done [pat-001]")

    report = run_cycle_sync(transcript, source="session-end")

    assert (report.status, report.reason) == ("ok", "")
    assert (report.provider, report.model) == ("anthropic", "scripted-model")
    assert report.provider_reason == "ACECODE_PROVIDER=anthropic"
    saved = json.loads(Path(report.report_file).read_text())
    assert saved["status"] == "ok"
    assert saved["provider"] == {
        "name": "anthropic",
        "model": "scripted-model",
        "selected_because": "ACECODE_PROVIDER=anthropic",
        "endpoint": f"{llm.url} (from AGENTIC_CONTEXT_BASE_URL; key from AGENTIC_CONTEXT_API_KEY)",
    }
    record = outcomes.read_outcomes(state(project))[-1]
    assert record["cycle_id"] == report.cycle_id and record["status"] == "ok"
    assert record["operations_applied"] == 1 and record["report_file"] == report.report_file
    assert outcomes.last_attempt(state(project))["cycle_id"] == report.cycle_id
    [line] = log_lines(project)
    assert line.startswith(f"cycle {report.cycle_id} [ok] s.jsonl: 1 tag, 1 operation applied")
    assert line.endswith(
        "| provider anthropic (ACECODE_PROVIDER=anthropic), model scripted-model, "
        f"at {llm.url} (from AGENTIC_CONTEXT_BASE_URL; key from AGENTIC_CONTEXT_API_KEY)"
    )
    assert str(transcript.resolve()) in learned(project)


def test_nothing_new_when_every_message_was_learned(routed_llm, project, tmp_path):
    llm = routed_llm(router)
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done")
    run_cycle_sync(transcript, source="pre-compact")
    calls_of_the_first_cycle = len(llm.bodies)

    again = run_cycle_sync(transcript, source="session-end")

    assert (again.status, again.reason) == ("nothing-new", "no new messages since the last cycle")
    assert again.learned and len(llm.bodies) == calls_of_the_first_cycle  # no LLM call
    assert "[nothing-new] s.jsonl: no new messages since the last cycle;" in log_lines(project)[-1]


def test_nothing_new_when_the_llm_finds_nothing_is_distinct_from_a_failure(
    routed_llm, project, tmp_path
):
    reflection = {"analysis": "routine session", "bullet_tags": []}
    routed_llm(
        lambda system, prompt: json.dumps(
            {"reasoning": "nothing to add", "operations": []}
            if is_curator(system, prompt)
            else reflection
        )
    )
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done")

    report = run_cycle_sync(transcript, source="session-end")

    assert report.status == "nothing-new"
    assert report.reason == "the LLM proposed no change that applies"
    assert report.learned and str(transcript.resolve()) in learned(project)
    assert json.loads(Path(report.report_file).read_text())["status"] == "nothing-new"


def test_too_small_is_skipped_without_an_llm_call_and_stays_due(routed_llm, project, tmp_path):
    llm = routed_llm(router)
    transcript = small_session(tmp_path / "small.jsonl")

    report = run_cycle_sync(transcript, source="session-end")

    assert report.status == "skipped"
    assert report.reason == (
        "too small to learn from: 1 user request, 0 tool calls, no failed tool call or "
        "stated preference (learn_min_requests = 2, learn_min_tool_calls = 5)"
    )
    assert llm.bodies == []
    assert learned(project) == {}  # stays due
    assert report.provider is None  # no provider was even chosen
    assert log_lines(project) == [f"cycle {report.cycle_id} [skipped] small.jsonl: {report.reason}"]
    assert outcomes.read_outcomes(state(project))[-1]["status"] == "skipped"
    assert outcomes.last_attempt(state(project)) is None  # a skip is not an attempt


def test_an_explicit_learn_learns_a_small_session_and_thresholds_are_configurable(
    routed_llm, project, tmp_path, monkeypatch
):
    llm = routed_llm(router)
    transcript = small_session(tmp_path / "small.jsonl")
    assert run_cycle_sync(transcript).status == "ok"  # `acecode learn` by hand
    assert len(llm.bodies) == 4  # reflector, curator, safety review, judge

    other = small_session(tmp_path / "other.jsonl")
    monkeypatch.setenv("ACECODE_LEARN_MIN_REQUESTS", "1")
    assert run_cycle_sync(other, source="session-end").status != "skipped"


@pytest.mark.parametrize(
    ("records", "size"),
    [
        # a failed tool call is always worth a cycle
        ("failed-call", {"requests": 1, "tool_calls": 1, "failed_tool_calls": 1}),
        # five tool calls after one request: real work, worth a cycle
        ("five-calls", {"requests": 1, "tool_calls": 5, "failed_tool_calls": 0}),
    ],
)
def test_one_request_with_a_failure_or_real_work_is_learned(
    routed_llm, project, tmp_path, records, size
):
    routed_llm(router)
    lines = [{"type": "user", "uuid": "u0", "message": {"role": "user", "content": "do it"}}]
    calls = 1 if records == "failed-call" else 5
    for i in range(calls):
        use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "ls"}}
        result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "out"}
        if records == "failed-call":
            result = {**result, "is_error": True, "content": "exit 1"}
        lines.append(
            {"type": "assistant", "uuid": f"a{i}", "message": {"id": f"m{i}", "content": [use]}}
        )
        lines.append({"type": "user", "uuid": f"r{i}", "message": {"content": [result]}})
    transcript = tmp_path / "s.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in lines))

    report = run_cycle_sync(transcript, source="session-end")

    assert report.session_size == size
    assert report.status == "ok"


def test_a_preference_stated_in_one_short_request_is_learned(routed_llm, project, tmp_path):
    # One request and one reply: too small by its counts, but the user gave a rule outright.
    llm = routed_llm(router)
    records = [
        {
            "type": "user",
            "uuid": "u1",
            "message": {"role": "user", "content": "From now on use pnpm, not npm, in this repo."},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "text", "text": "OK"}],
            },
        },
    ]
    transcript = tmp_path / "rule.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))

    report = run_cycle_sync(transcript, source="session-end")

    assert report.session_size == {"requests": 1, "tool_calls": 0, "failed_tool_calls": 0}
    assert report.signals["preferences"] == 1
    assert report.status == "ok" and llm.bodies  # reflected on, not skipped


def test_what_is_not_a_request_is_not_counted(routed_llm, project, tmp_path):
    llm = routed_llm(router)
    records = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "fix it"}},
        {"type": "user", "uuid": "u2", "isMeta": True, "message": {"content": "<context>"}},
        {
            "type": "user",
            "uuid": "u3",
            "message": {
                "content": "<command-name>/clear</command-name><command-args></command-args>"
            },
        },
        {
            "type": "user",
            "uuid": "u4",
            "message": {"content": "<local-command-stdout>done</local-command-stdout>"},
        },
        {"type": "user", "uuid": "u5", "isCompactSummary": True, "message": {"content": "summary"}},
        {"type": "user", "uuid": "u6", "message": {"content": "[Request interrupted by user]"}},
    ]
    transcript = tmp_path / "s.jsonl"
    transcript.write_text("".join(json.dumps(r) + "\n" for r in records))

    report = run_cycle_sync(transcript, source="session-end")

    assert report.session_size == {"requests": 1, "tool_calls": 0, "failed_tool_calls": 0}
    assert report.status == "skipped" and llm.bodies == []


def test_server_errors_fail_the_cycle_with_the_providers_message_and_it_stays_due(
    routed_llm, project, tmp_path, no_retry_wait
):
    llm = routed_llm(router)
    llm.fail_with = 500
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done [pat-001]")

    report = run_cycle_sync(transcript, source="session-end")

    assert report.status == "failed" and not report.learned
    assert report.reason.startswith(
        f"reflector: anthropic call to {llm.url} failed (3 attempts used): HTTP 500"
    )
    assert "scripted 500" in report.reason
    assert len(llm.bodies) == 3  # three attempts, then no curator call
    assert helpful(project) == 1 and learned(project) == {}
    [line] = log_lines(project)
    assert f"[failed] s.jsonl: {report.reason} | provider anthropic" in line
    assert outcomes.last_attempt(state(project))["status"] == "failed"

    llm.fail_with = None  # the server recovers: the whole session is learned next time
    retried = run_cycle_sync(transcript, source="session-end")
    assert retried.status == "ok" and retried.messages_already_learned == 0
    assert helpful(project) == 2


def test_a_failed_curator_applies_nothing_not_even_the_reflectors_tags(
    routed_llm, project, tmp_path, no_retry_wait
):
    def reflector_only(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            return "I have no JSON for you."
        return json.dumps(REFLECTION)

    routed_llm(reflector_only)
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done [pat-001]")

    report = run_cycle_sync(transcript, source="session-end")

    assert report.status == "failed"
    assert report.reason.startswith("curator: the reply contained no JSON object")
    assert helpful(project) == 1  # retrying later must not count the evidence twice
    assert learned(project) == {}


def test_no_provider_fails_without_a_request(project, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no `claude` either
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done")

    report = run_cycle_sync(transcript, source="session-end")

    assert report.status == "failed"
    assert report.reason == (
        "no LLM provider is configured; run `acecode doctor` to see how to set one"
    )
    assert outcomes.read_outcomes(state(project))[-1]["reason"] == report.reason


def test_a_skip_does_not_hide_an_earlier_failure(routed_llm, project, tmp_path, no_retry_wait):
    llm = routed_llm(router)
    llm.fail_with = 503
    failed = run_cycle_sync(
        write_transcript(tmp_path / "s.jsonl", "fix", "done"), source="session-end"
    )
    skipped = run_cycle_sync(small_session(tmp_path / "small.jsonl"), source="session-end")

    assert (failed.status, skipped.status) == ("failed", "skipped")
    assert outcomes.last_attempt(state(project))["cycle_id"] == failed.cycle_id
    assert [r["status"] for r in outcomes.read_outcomes(state(project))] == ["failed", "skipped"]


def test_a_project_turned_off_learns_nothing(routed_llm, project, tmp_path, monkeypatch):
    llm = routed_llm(router)
    (project / ".claude" / "acecode.toml").write_text("enabled = false\n")
    # the learner runs with ACECODE_HOOKS_DISABLED=1; that alone never stops it
    monkeypatch.setenv("ACECODE_HOOKS_DISABLED", "1")
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done")

    report = run_cycle_sync(transcript, source="session-end")

    assert report.status == "skipped"
    assert report.reason.startswith("acecode is not active here: turned off for this project")
    assert llm.bodies == [] and learned(project) == {}
    assert "[skipped]" in log_lines(project)[-1]

    (project / ".claude" / "acecode.toml").write_text("enabled = true\n")
    assert run_cycle_sync(transcript, source="session-end").status == "ok"


def test_a_dry_run_records_nothing(routed_llm, project, tmp_path):
    routed_llm(router)
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done")

    report = run_cycle_sync(transcript, dry_run=True)

    assert report.status == "ok"
    assert not (state(project) / "logs").exists()
    assert outcomes.read_outcomes(state(project)) == []


def test_a_store_error_is_left_to_the_caller_and_records_nothing(routed_llm, project, tmp_path):
    from acecode.store import PlaybookError

    llm = routed_llm(router)
    transcript = write_transcript(tmp_path / "s.jsonl", "fix the tests", "done")
    run_cycle_sync(transcript, source="session-end")  # creates the state folder
    calls_of_the_first_cycle = len(llm.bodies)
    (project / ".claude" / "playbook.json").write_text("{ not json")
    before = sorted(p.name for p in state(project).rglob("*"))
    lines = log_lines(project)

    with pytest.raises(PlaybookError, match="invalid JSON"):
        run_cycle_sync(write_transcript(tmp_path / "t.jsonl", "fix it", "done"))

    # `acecode learn` prints the error in one line (to learn.log when a hook started it)
    assert sorted(p.name for p in state(project).rglob("*")) == before
    assert log_lines(project) == lines
    assert len(llm.bodies) == calls_of_the_first_cycle  # refused before any call of its own
