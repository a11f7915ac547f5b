"""The condensed transcript numbers the moments a rule can be learned from, and shows
each failure's error line."""

from __future__ import annotations

from typing import Any

from acecode.transcript.condense import condense


def failing(number: int, command: str, output: str) -> list[dict[str, Any]]:
    call = {"kind": "tool_use", "tool_use_id": f"t{number}", "tool_name": "Bash"}
    call["tool_input"] = {"command": command}
    result = {"kind": "tool_result", "tool_use_id": f"t{number}", "is_error": True}
    return [call, {**result, "tool_name": "Bash", "content": output}]


def test_failures_and_user_messages_are_numbered_in_order() -> None:
    shown = condense(
        [
            {"kind": "prompt", "content": "make the tests pass"},
            *failing(1, "pytest", "E   KeyError: 'port'"),
            {"kind": "prompt", "content": "use uv run pytest"},
            *failing(2, "uv run pytest", "The user doesn't want to proceed with this tool use."),
            *failing(3, "uv run pytest -x", "E   AssertionError: 1 != 2"),
        ]
    )
    lines = shown.splitlines()
    assert "Failures are numbered [F1], [F2]..., the user's messages [C1], [C2]..." in lines[0]
    assert "[C1] USER: make the tests pass" in lines
    assert "[F1] ERROR from Bash: E   KeyError: 'port'" in lines
    assert "[C2] USER: use uv run pytest" in lines
    # The user declining a call is no failure: the next failure is F2.
    assert "ERROR from Bash: The user doesn't want to proceed with this tool use." in lines
    assert "[F2] ERROR from Bash: E   AssertionError: 1 != 2" in lines


def test_a_session_without_moments_says_nothing_of_numbers() -> None:
    assert "numbered" not in condense([{"kind": "text", "content": "hello"}])


def test_an_error_line_the_clip_hides_is_shown_beside_the_failure() -> None:
    output = "\n".join(
        [*(f"collecting module {n}" for n in range(60)), "E   ImportError: cannot import name 'x'"]
        + [f"teardown step {n}" for n in range(60)]
    )
    shown = condense(failing(1, "pytest", output))
    (line,) = [text for text in shown.splitlines() if text.startswith("[F1]")]
    assert line.startswith("[F1] ERROR from Bash (E   ImportError: cannot import name 'x'): ")
