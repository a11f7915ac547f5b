"""The evidence heuristic: which failed call or request a new rule came from."""

from __future__ import annotations

from typing import Any

from acecode.pipeline.evidence import EvidencePool, error_line


def call(number: int, command: str, output: str) -> list[dict[str, Any]]:
    use = {"kind": "tool_use", "tool_use_id": f"t{number}", "tool_name": "Bash"}
    use["tool_input"] = {"command": command}
    result = {"kind": "tool_result", "tool_use_id": f"t{number}", "is_error": True}
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


def test_the_failure_sharing_the_rarest_words_with_the_rule_wins() -> None:
    pool = EvidencePool.collect(SESSION)
    found = pool.match("Install the furo theme before running make docs.", "sphinx theme missing")
    assert found == {
        "kind": "failure",
        "tool": "Bash",
        "command": "make docs",
        "error": "sphinx-build: error: theme 'furo' not found",
    }
    assert pool.match("package.json has no test script; run npm run unit")["command"] == "npm test"


def test_a_preference_matches_the_request_and_nothing_shared_is_none() -> None:
    pool = EvidencePool.collect(SESSION)
    assert pool.match("The user wants answers in French.") == {
        "kind": "request",
        "request": "From now on answer in French",
    }
    assert pool.match("Prefer composition over inheritance.") == {"kind": "none"}


def test_ties_go_to_the_later_failure() -> None:
    pool = EvidencePool.collect(
        [*call(1, "cargo build", "error: x"), *call(2, "cargo build", "error: y")]
    )
    assert pool.match("cargo build needs the nightly toolchain")["error"] == "error: y"


def test_error_line_picks_what_failed() -> None:
    traceback = "Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'"
    assert error_line(traceback) == "KeyError: 'x'"
    assert error_line("\n  building...\nnpm ERR! code ENOENT\n") == "npm ERR! code ENOENT"
    assert error_line("warming up\nall good") == "warming up"
    assert error_line("") == ""
