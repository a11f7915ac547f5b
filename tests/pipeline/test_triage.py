"""The triage: a session with no learning signal costs $0 and says why, where users look.

Real cycles against a routed Anthropic server on 127.0.0.1 (its request count is the
proof that no call was made), real transcript files, the real user ledger, and real
``acecode`` processes for the CLI views.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.agents import get_agent
from acecode.cost.ledger import TRIAGED, Ledger
from acecode.pipeline import run_cycle_sync
from acecode.pipeline.progress import learned_count
from acecode.pipeline.triage import Signals
from acecode.project import outcomes, paths
from support.hang_guard import HANG_GUARD
from support.pipeline import curator_says

ADD = {"type": "ADD", "section": "OTHERS", "text": "Run the linter before committing."}


def session(path: Path, prompts: list[str], calls: int = 6, failed: int = 0) -> Path:
    """Requests, each followed by ``calls`` distinct shell calls (``failed`` of them fail)."""
    records = []
    for p, prompt in enumerate(prompts):
        records.append(
            {"type": "user", "uuid": f"u{p}", "message": {"role": "user", "content": prompt}}
        )
        for i in range(calls):
            tid = f"t{p}-{i}"
            use = {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": f"ls d{i}"}}
            result = {"type": "tool_result", "tool_use_id": tid, "content": f"file{i}"}
            if i < failed:
                result |= {"is_error": True, "content": "ls: cannot access: No such file"}
            records.append(
                {
                    "type": "assistant",
                    "uuid": f"a{tid}",
                    "message": {"id": f"m{tid}", "content": [use]},
                }
            )
            records.append({"type": "user", "uuid": f"r{tid}", "message": {"content": [result]}})
        records.append(
            {
                "type": "assistant",
                "uuid": f"e{p}",
                "message": {"id": f"n{p}", "content": [{"type": "text", "text": "Done."}]},
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def signals_of(messages: list[dict]) -> dict[str, int]:
    signals = Signals(get_agent().tools)
    list(signals.observe(messages))
    return signals.as_dict()


def prompt(text: str) -> dict:
    return {"kind": "prompt", "content": text}


DONE = {"kind": "text", "content": "Done."}


@pytest.mark.parametrize(
    ("messages", "signal"),
    [
        ([{"kind": "tool_result", "is_error": True, "content": "boom"}], "failed_calls"),
        (
            [
                {"kind": "tool_use", "tool_name": "Bash", "tool_use_id": "a", "content": "pytest"},
                {"kind": "tool_result", "tool_use_id": "a", "content": "FAILED t.py::x - 1 failed"},
            ],
            "failure_output",
        ),
        ([{"kind": "interrupt", "content": "[Request interrupted by user]"}], "interruptions"),
        (
            [prompt("Add a flag"), DONE, prompt("No, that's wrong: keep the old name")],
            "corrections",
        ),
        ([prompt("Add a flag"), DONE, prompt("why did you delete the test?")], "corrections"),
        ([prompt("From now on always use pnpm, never npm")], "preferences"),
        ([prompt("I'd rather keep functions small")], "preferences"),
        (
            [
                {"kind": "tool_use", "tool_name": "Bash", "tool_use_id": str(i), "content": "make"}
                for i in range(3)
            ],
            "repeated_attempts",
        ),
        (
            [prompt("ビルドして"), DONE, prompt("テストが失敗しています、直してください")],
            "unscreened_requests",
        ),
    ],
)
def test_each_signal_is_found(messages: list[dict], signal: str) -> None:
    found = signals_of(messages)
    assert found[signal] >= 1
    assert sum(found.values()) == found[signal]


def test_plain_successful_work_and_subagent_instructions_are_no_signal() -> None:
    quiet = [
        prompt("Add a dark mode toggle to the settings page"),
        {"kind": "tool_use", "tool_name": "Bash", "tool_use_id": "a", "content": "npm test"},
        {"kind": "tool_result", "tool_use_id": "a", "content": "12 passed"},
        DONE,
        prompt("Thanks! Now add a Pause button"),
        # A subagent's task comes from the parent agent, not the user.
        {"kind": "prompt", "sidechain": True, "content": "Never touch the lockfile; always"},
    ]
    assert sum(signals_of(quiet).values()) == 0


def test_a_hook_cycle_without_signal_costs_nothing_and_says_why(
    routed_llm, project_dir: Path, tmp_path: Path
) -> None:
    llm = routed_llm(curator_says(ADD))
    path = session(tmp_path / "quiet.jsonl", ["Add a dark mode toggle", "Now add tests for it"])
    report = run_cycle_sync(path, source="session-end")
    assert report.status == outcomes.NOTHING_NEW
    assert report.reason.startswith("nothing to learn (triage): 2 user request(s), 12 tool call(s)")
    assert llm.bodies == []  # no LLM call at all
    state = paths.state_dir()
    assert learned_count(state, path) == report.messages  # not offered again
    (record,) = [r for r in Ledger().records() if r["kind"] == TRIAGED]
    assert record["cycle_id"] == report.cycle_id and "cost_usd" not in record
    log = Path(outcomes.log_file(state)).read_text()
    assert "[nothing-new] quiet.jsonl: nothing to learn (triage)" in log
    assert outcomes.read_outcomes(state)[-1]["signals"]["failed_calls"] == 0


def test_a_hook_cycle_with_a_signal_learns(routed_llm, project_dir: Path, tmp_path: Path) -> None:
    llm = routed_llm(curator_says(ADD))
    path = session(tmp_path / "s.jsonl", ["Add a dark mode toggle", "Now tests"], failed=1)
    report = run_cycle_sync(path, source="session-end")
    assert report.status == outcomes.OK
    assert report.signals["failed_calls"] == 2
    assert len(llm.bodies) >= 3


def test_by_hand_learns_everything_unless_asked_to_triage(
    routed_llm, project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = routed_llm(curator_says(ADD))
    quiet = session(tmp_path / "quiet.jsonl", ["Add a dark mode toggle", "Now add tests"])
    assert run_cycle_sync(quiet).status == outcomes.OK  # `acecode learn` by hand
    calls = len(llm.bodies)
    assert calls >= 3
    again = session(tmp_path / "again.jsonl", ["Add a light mode toggle", "Now add docs"])
    assert run_cycle_sync(again, triage=True).status == outcomes.NOTHING_NEW
    assert len(llm.bodies) == calls
    # The setting turns the hooks' triage off.
    monkeypatch.setenv("ACECODE_TRIAGE", "false")
    third = session(tmp_path / "third.jsonl", ["Add a sepia mode toggle", "Now add docs"])
    assert run_cycle_sync(third, source="session-end").status == outcomes.OK


def acecode(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD,
        check=False,
    )


def test_learn_triage_flag_doctor_history_and_cost_show_the_skip(
    routed_llm, project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    routed_llm(curator_says(ADD))
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", "claude-sonnet-4-6")
    env = {**os.environ, "COLUMNS": "250"}
    noisy = session(tmp_path / "noisy.jsonl", ["Fix the build", "Again"], failed=1)
    assert acecode("learn", str(noisy), env=env).returncode == 0
    quiet = session(tmp_path / "quiet.jsonl", ["Add a dark mode toggle", "Now add tests"])
    done = acecode("learn", "--triage", str(quiet), "--json", env=env)
    (report,) = json.loads(done.stdout)
    assert report["status"] == "nothing-new" and "triage" in report["reason"]

    history = acecode("history", env=env).stdout
    assert "nothing to learn (triage)" in history
    doctor = acecode("doctor", env=env).stdout
    assert "triage" in doctor and "1 of the last 2 cycles had no learning signal" in doctor
    cost = json.loads(acecode("cost", "--json", env=env).stdout)["per_session"]
    assert (cost["cycles"], cost["triaged"], cost["sessions"]) == (1, 1, 2)
    assert cost["mean_per_session_usd"] == pytest.approx(cost["mean_usd"] / 2)
    assert cost["triage_saved_usd"] == pytest.approx(cost["median_usd"])
    table = acecode("cost", env=env).stdout
    assert "per cycle (last 1 that called an LLM): median $" in table
    assert "triage: 1 session(s) with nothing to learn skipped at $0" in table
