"""The evidence of a learned rule: the numbered moment the roles name, else a fallback."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from acecode.agents import get_agent
from acecode.impact.signature import signature_of
from acecode.pipeline.evidence import EvidencePool, refs_in
from acecode.transcript import load_transcript
from acecode.transcript.condense import condense

SHARED = Path(__file__).resolve().parents[3] / "shared" / "transcripts"
DATA = Path(__file__).resolve().parents[1] / "data" / "transcripts"


def call(number: int, command: str, output: str, error: bool = True) -> list[dict[str, Any]]:
    use = {"kind": "tool_use", "tool_use_id": f"t{number}", "tool_name": "Bash"}
    use["tool_input"] = {"command": command}
    result = {"kind": "tool_result", "tool_use_id": f"t{number}", "is_error": error}
    return [use, {**result, "content": output}]


def prompt(text: str) -> dict[str, Any]:
    return {"kind": "prompt", "content": text}


SESSION = [
    prompt("Please get the docs build green"),
    *call(1, "make docs", "sphinx-build: error: theme 'furo' not found"),
    *call(
        2, "pytest tests/test_api.py", "E   AssertionError: 404 != 200\nFAILED tests/test_api.py"
    ),
    *call(3, "npm test", "npm ERR! Missing script: test"),
    {"kind": "tool_result", "tool_use_id": "t9", "is_error": False, "content": "furo ok"},
    prompt("From now on answer in French"),
]


def test_moments_are_numbered_failures_and_user_messages_in_session_order() -> None:
    pool = EvidencePool.collect(SESSION)
    assert list(pool.moments) == ["C1", "F1", "F2", "F3", "C2"]
    assert pool.moments["F1"].evidence == {
        "kind": "failure",
        "tool": "Bash",
        "command": "make docs",
        "error": "sphinx-build: error: theme 'furo' not found",
        "head": "make docs",
        "error_key": "sphinx-build: error: theme <q> not found",
        "ref": "F1",
    }
    assert pool.moments["C2"].evidence == {
        "kind": "request",
        "request": "From now on answer in French",
        "ref": "C2",
    }


def test_named_moments_resolve_to_the_first_failure_and_unknown_ones_are_ignored() -> None:
    pool = EvidencePool.collect(SESSION)
    assert pool.resolve(["C1", "F3"])["command"] == "npm test"
    assert pool.resolve(["F3"])["link"] == "named"
    assert pool.resolve(["C2"])["request"] == "From now on answer in French"
    assert pool.resolve(["F9", "C1"])["ref"] == "C1"
    assert pool.resolve(["F9", "C7"]) is None
    assert pool.resolve([]) is None


def test_refs_are_read_from_lists_strings_and_findings() -> None:
    assert refs_in(["F2", "c1"]) == ["F2", "C1"]
    assert refs_in("[F3, F1] pytest must run from the root") == ["F3", "F1"]
    assert refs_in("F2, F2") == ["F2"]
    assert refs_in(None) == [] and refs_in(7) == []
    assert refs_in("[-] nothing numbered") == []


def test_the_fallback_scores_the_rules_own_text_against_command_and_error_line() -> None:
    pool = EvidencePool.collect(SESSION)
    found = pool.match("Install the furo theme before running make docs.")
    assert (found["command"], found["link"]) == ("make docs", "overlap")
    assert pool.match("package.json has no test script; run npm run unit")["command"] == "npm test"
    assert pool.match("The user wants answers in French.")["request"] == (
        "From now on answer in French"
    )
    assert pool.match("Prefer composition over inheritance.") == {"kind": "none"}


def test_a_long_output_does_not_win_every_rule() -> None:
    # The cause issue 26 found: every rule matched against each failure's whole output,
    # so the failure with the longest output won. A long CMake log that mentions
    # "status" in passing must not take the rule about the status file.
    cmake_log = "\n".join(
        ["-- Configuring incomplete, errors occurred!", "CMake Error at CMakeLists.txt:3"]
        + [f"-- status of check {n}: the file STATUS.md is not read by cmake" for n in range(60)]
    )
    session = [
        *call(1, "cmake -S . -B build", cmake_log),
        {"kind": "tool_use", "tool_use_id": "r1", "tool_name": "Read"},
        {
            "kind": "tool_result",
            "tool_use_id": "r1",
            "is_error": True,
            "content": "File does not exist.",
        },
    ]
    session[2]["tool_input"] = {"file_path": "/home/user/project/status.md"}
    session[2]["content"] = "Read(file_path='/home/user/project/status.md')"
    pool = EvidencePool.collect(session)
    found = pool.match("The status file is STATUS.md, in capitals; a Read of status.md fails.")
    assert found["ref"] == "F2" and found["tool"] == "Read"


def test_ties_go_to_the_later_failure() -> None:
    pool = EvidencePool.collect(
        [*call(1, "cargo build", "error: x"), *call(2, "cargo build", "error: y")]
    )
    assert pool.match("cargo build needs the nightly toolchain")["error"] == "error: y"


def test_declined_calls_are_no_moment_and_a_failing_piped_test_run_is_one() -> None:
    pool = EvidencePool.collect(
        [
            *call(1, "rm -rf build", "The user doesn't want to proceed with this tool use."),
            *call(
                2, "pytest | tail -3", "FAILED tests/test_a.py::test_x - KeyError\n1 failed", False
            ),
            *call(3, "ls", "a.py", False),
        ]
    )
    assert list(pool.moments) == ["F1"]
    assert pool.moments["F1"].evidence["command"] == "pytest | tail -3"


@pytest.mark.parametrize(
    "transcript",
    [
        "claude-code-log/-Users-dain-workspace-claude-code-log-sample/"
        "37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl",
        "claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
    ],
)
def test_the_condensed_transcript_and_the_pool_number_the_same_moments(transcript: str) -> None:
    path = SHARED / transcript
    if not path.exists():
        pytest.skip("the shared transcripts are not here")
    messages = load_transcript(path)
    shown = condense(messages, 200_000)
    pool = EvidencePool.collect(messages)
    labels = re.findall(r"^(?:\[subagent\] )?\[([FC]\d+)\] (.*)$", shown, re.MULTILINE)
    assert [ref for ref, _ in labels] == list(pool.moments)
    assert len(pool.failures) >= 5
    for ref, line in labels:
        moment = pool.moments[ref]
        if ref.startswith("F"):
            tool = moment.evidence["tool"]
            # The error line is shown in brackets when the clip hid it.
            assert line.startswith(
                (f"ERROR from {tool}:", f"ERROR from {tool} (", f"FAILURE in {tool} output:")
            ), ref
        else:
            assert line.startswith(("USER", "ERROR from")), line


def test_codex_failures_carry_the_command_not_the_call_description() -> None:
    messages = load_transcript(DATA / "codex" / "exec-failing-command.jsonl")
    pool = EvidencePool.collect(messages, get_agent("codex"))
    failure = pool.moments["F1"]
    assert failure.evidence["command"] == "cat tests/test_app.py"
    assert failure.evidence["error"] == "cat: tests/test_app.py: No such file or directory"
    assert failure.tool_input["command"] == "cat tests/test_app.py"
    output = next(m["content"] for m in messages if m["kind"] == "tool_result" and m["is_error"])
    expected = signature_of("exec_command", "cat tests/test_app.py", output)
    assert (failure.evidence["head"], failure.evidence["error_key"]) == (
        expected.head,
        expected.error,
    )
    assert pool.moments["F2"].evidence["tool"] == "apply_patch"
    assert pool.moments["C1"].evidence["request"] == "Show me the app's tests."
