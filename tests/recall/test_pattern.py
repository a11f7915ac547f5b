"""Input patterns (acecode.recall.pattern) and their quality check (acecode.recall.quality)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acecode.recall import quality
from acecode.recall.pattern import MAX_INPUT_CHARS, InputPattern, PatternError
from acecode.recall.quality import quality_problem, validated

# --- construction --------------------------------------------------------------------------


def test_parse_takes_the_tool_and_everything_after_the_first_colon() -> None:
    pattern = InputPattern.parse(r"Bash:^curl http://localhost:\d+")
    assert (pattern.tool, pattern.field, pattern.pattern) == (
        "Bash",
        "command",
        r"^curl http://localhost:\d+",
    )


def test_parse_gives_each_tool_its_default_field_and_takes_another_after_a_dot() -> None:
    assert InputPattern.parse("Read:status\\.md").field == "file_path"
    assert InputPattern.parse("Edit:x\\.py$").field == "file_path"
    assert InputPattern.parse("Edit.old_string:^import os$").field == "old_string"
    assert InputPattern.parse("exec_command:^make").field == "command"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Bash", "not TOOL:PATTERN"),
        ("Bash:", "no pattern"),
        ("Bash:   ", "no pattern"),
        ("Grep:foo", "unknown tool 'Grep'"),
        ("Read.old_string:foo", "Read has no field 'old_string'"),
        ("Bash.file_path:foo", "Bash has no field 'file_path'"),
    ],
)
def test_parse_refuses_what_it_cannot_use_in_one_line(text: str, problem: str) -> None:
    with pytest.raises(PatternError, match=problem) as caught:
        InputPattern.parse(text)
    assert "\n" not in str(caught.value)


def test_dict_round_trip_and_the_when_form() -> None:
    pattern = InputPattern("Edit", "^import os$", "old_string")
    assert pattern.to_dict() == {"tool": "Edit", "field": "old_string", "pattern": "^import os$"}
    assert InputPattern.from_dict(pattern.to_dict()) == pattern
    assert str(pattern) == "Edit.old_string:^import os$"
    assert InputPattern.parse(str(pattern)) == pattern
    assert str(InputPattern("Read", "a\\.md")) == "Read:a\\.md"
    assert InputPattern.from_dict({"tool": "Read", "pattern": "a"}).field == "file_path"
    assert len({pattern, InputPattern.from_dict(pattern.to_dict())}) == 1


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "Bash:x",
        {"tool": "Bash"},
        {"tool": 1, "pattern": "x"},
        {"tool": "Bash", "pattern": "x", "field": 3},
    ],
)
def test_from_dict_refuses_malformed_records(data: object) -> None:
    with pytest.raises(PatternError):
        InputPattern.from_dict(data)


# --- matching ------------------------------------------------------------------------------


def test_a_shell_pattern_matches_every_shell_tool_and_codex_argv_commands() -> None:
    pattern = InputPattern("Bash", r"^make test\b")
    assert pattern.matches("Bash", {"command": "make test -j4"})
    assert pattern.matches("exec_command", {"command": "make test"})
    assert pattern.matches("shell", {"command": ["bash", "-lc", "make test"]})
    assert pattern.matches("local_shell", {"command": ["make", "test"]})
    assert not pattern.matches("Bash", {"command": "make build"})
    assert not pattern.matches("Read", {"file_path": "make test"})


def test_a_file_pattern_reads_file_path_notebook_path_and_apply_patch_files() -> None:
    read = InputPattern("Read", r"(^|/)status\.md$")
    assert read.matches("Read", {"file_path": "/p/docs/status.md"})
    assert not read.matches("Read", {"file_path": "/p/docs/STATUS.md"})
    assert not read.matches("Write", {"file_path": "/p/docs/status.md"})
    notebook = InputPattern("NotebookEdit", r"\.ipynb$")
    assert notebook.matches("NotebookEdit", {"notebook_path": "/p/a.ipynb"})
    edit = InputPattern("Edit", r"(^|/)settings\.py$")
    assert edit.matches("MultiEdit", {"file_path": "/p/settings.py", "edits": []})
    patch = "*** Begin Patch\n*** Update File: app/settings.py\n@@\n-a\n+b\n*** End Patch\n"
    assert edit.matches("apply_patch", {"command": patch})
    assert not edit.matches("apply_patch", {"command": patch.replace("settings", "urls")})
    assert not InputPattern("Bash", "Update File").matches("apply_patch", {"command": patch})


def test_an_old_string_pattern_reads_every_edit_of_a_multi_edit() -> None:
    pattern = InputPattern("Edit", r"^\s*return None$", "old_string")
    assert pattern.matches("Edit", {"file_path": "a.py", "old_string": "    return None"})
    edits = [{"old_string": "x = 1", "new_string": "x = 2"}, {"old_string": "return None"}]
    assert pattern.matches("MultiEdit", {"file_path": "a.py", "edits": edits})
    assert not pattern.matches("MultiEdit", {"file_path": "a.py", "edits": edits[:1]})


def test_cwd_name_stands_for_the_folder_the_call_runs_in() -> None:
    pattern = InputPattern("Bash", r"^cd\s+(\./)?{cwd_name}/?(\s|$|&&|;)")
    assert pattern.matches("Bash", {"command": "cd build && cmake .."}, cwd="/p/build")
    assert pattern.matches("Bash", {"command": "cd build"}, cwd="/p/build/")
    assert not pattern.matches("Bash", {"command": "cd build && cmake .."}, cwd="/p")
    assert not pattern.matches("Bash", {"command": "cd build"})  # no cwd: no match
    dotted = InputPattern("Bash", r"^cd {cwd_name}$")
    assert not dotted.matches("Bash", {"command": "cd a+b"}, cwd="/p/a.b")  # escaped


def test_matching_never_raises_on_odd_input() -> None:
    pattern = InputPattern("Edit", "x", "old_string")
    for tool_input in (None, "x", [], {"old_string": 3}, {"edits": "x"}, {"edits": [1, None]}):
        assert pattern.matches("Edit", tool_input) is False
    broken = InputPattern("Bash", "(")
    assert broken.matches("Bash", {"command": "("}) is False


def test_matching_searches_only_the_first_part_of_a_long_input() -> None:
    pattern = InputPattern("Bash", "needle")
    assert pattern.matches("Bash", {"command": "x" * (MAX_INPUT_CHARS - 6) + "needle"})
    assert not pattern.matches("Bash", {"command": "x" * MAX_INPUT_CHARS + "needle"})


# --- quality -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        InputPattern("Bash", r"^cd\s+(\./)?{cwd_name}/?(\s|$|&&|;)"),
        InputPattern("Bash", r"^git push\b.*--force"),
        InputPattern("Bash", r"^npm run lint\b"),
        InputPattern("Read", r"(^|/)status\.md$"),
        InputPattern("Edit", r"(^|/)src/legacy/"),
        InputPattern("Edit", r"^\s*from \.models import \*$", "old_string"),
        InputPattern("Bash", r"\bpython\s+manage\.py\s+migrate\b"),
    ],
)
def test_specific_patterns_pass(pattern: InputPattern) -> None:
    assert quality_problem(pattern) is None
    assert validated(pattern) is pattern


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        (InputPattern("Bash", "x" * 201), "longer than 200"),
        (InputPattern("Bash", "(unclosed"), "does not compile"),
        (InputPattern("Bash", ".*"), "empty input"),
        (InputPattern("Bash", "^"), "empty input"),
        (InputPattern("Bash", "a|"), "empty input"),
        (InputPattern("Bash", "(?!zzz)"), "empty input"),
        (InputPattern("Bash", "."), "ordinary command inputs"),
        (InputPattern("Bash", "e"), "ordinary command inputs"),
        (InputPattern("Bash", r"^\w"), "ordinary command inputs"),
        (InputPattern("Bash", "test"), "ordinary command inputs"),
        (InputPattern("Bash", "^git "), "ordinary command inputs"),
        (InputPattern("Read", r"\.py$"), "ordinary file_path inputs"),
        (InputPattern("Read", "/home/"), "ordinary file_path inputs"),
        (InputPattern("Edit", r"\S", "old_string"), "ordinary old_string inputs"),
        (InputPattern("Bash", r"^(a+)+$"), "repeats a repetition"),
        (InputPattern("Bash", r"(\w+\s?)*zz$"), "repeats a repetition"),
        (InputPattern("Bash", r"(x|xx)+y$"), "too slow"),
        (InputPattern("Bash", r".*q.*r.*s.*t"), "too slow"),
    ],
)
def test_harmful_patterns_are_refused_with_the_reason(pattern: InputPattern, problem: str) -> None:
    found = quality_problem(pattern)
    assert found is not None and problem in found, found
    with pytest.raises(PatternError, match="pattern '"):
        validated(pattern)


def test_the_worst_case_bound_holds_outside_the_main_thread_too() -> None:
    """A curator may run in a worker thread; the CPU alarm is main-thread only, so the
    check runs in a child process there, and still refuses (and still finishes)."""
    found: dict[str, str | None] = {}

    def check() -> None:
        found["slow"] = quality_problem(InputPattern("Bash", r"(x|xx)+y$"))
        found["fine"] = quality_problem(InputPattern("Bash", r"^make dist\b"))

    worker = threading.Thread(target=check)
    worker.start()
    worker.join(timeout=120)
    assert found["slow"] is not None and "too slow" in found["slow"]
    assert found["fine"] is None


def test_worst_cases_are_built_from_the_patterns_own_characters() -> None:
    cases = list(quality.worst_cases(r"(x|xx)+y$"))
    assert all(len(case) == MAX_INPUT_CHARS for case in cases)
    assert any(case.startswith("xxxx") for case in cases)


@given(st.text(max_size=40))
def test_the_check_answers_for_any_text_and_never_raises(text: str) -> None:
    try:
        pattern = InputPattern("Bash", text)
    except PatternError:
        assert text == ""
        return
    problem = quality_problem(pattern)
    assert problem is None or (problem and "\n" not in problem)
