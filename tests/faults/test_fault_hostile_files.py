"""Any file acecode reads, however large or malformed: one line, never a traceback (issue 28).

Each hostile file of ``tests/support/hostile_files.py`` (a playbook of 100,000 entries or of
a 20 MB string, 100,000 nested brackets, binary bytes, a named pipe; a settings file of
10 MB, binary, with ``inf``/``nan``, nested, in Latin-1; a prompt template that is binary,
Latin-1, 10 MB or lacks its placeholder; a state file nested 100,000 deep) is put in a
project that otherwise holds a valid playbook, and real ``acecode`` processes read it:

- the SessionStart hook exits 0 with valid JSON (or nothing); when the playbook itself is
  hostile its message names the file, otherwise the playbook is still injected;
- ``show``, ``doctor`` and ``learn`` never print a traceback: every stderr line is one
  ``acecode: ...`` line (or doctor's report), and a hostile playbook is refused with exit
  status 1 and a line naming it.

How long each takes and how much memory is ``bench/fault_probe.py``'s table: tests assert
behaviour, not timings.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from fault_support import acecode_env, run_acecode, session_transcript

from support.hostile_files import HOSTILE, VALID_RULE, Hostile, valid_playbook
from support.pipeline import is_curator


def _no_traceback(result: subprocess.CompletedProcess[str], doctor: bool = False) -> None:
    said = result.stdout + result.stderr
    assert "Traceback" not in said, said
    assert result.returncode in (0, 1), said
    if not doctor:
        stray = [line for line in result.stderr.splitlines() if not line.startswith("acecode: ")]
        assert stray == [], result.stderr


def _is_state_file(path: Path) -> bool:
    """acecode's own state (git-ignored): nothing the user must be told about at start."""
    return path.parent.name == "acecode" and path.parent.parent.name == ".claude"


@pytest.mark.parametrize("case", HOSTILE, ids=lambda case: case.name)
def test_fault_hostile_file_gets_one_line_and_never_a_traceback(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path, case: Hostile
) -> None:
    playbook = valid_playbook(project_dir)
    hostile = case.write(project_dir, home_dir)
    env = acecode_env(project_dir, home_dir, llm().env(), ACECODE_EMBED_BACKEND="none")
    start = json.dumps({"session_id": "hostile", "source": "startup", "cwd": str(project_dir)})

    hook = run_acecode(["hook", "session-start"], env, cwd=project_dir, stdin=start)

    assert hook.returncode == 0 and "Traceback" not in hook.stderr, hook.stderr
    output = json.loads(hook.stdout) if hook.stdout.strip() else {}
    context = output.get("hookSpecificOutput", {}).get("additionalContext", "")
    message = output.get("systemMessage", "")
    assert (VALID_RULE in context) != case.refused, output
    if not _is_state_file(hostile):
        assert str(hostile) in message, output

    for command in case.commands:
        if command == "learn":
            transcript = session_transcript(tmp_path / "s.jsonl", "hostile")
            result = run_acecode(["learn", str(transcript)], env, cwd=project_dir)
        else:
            shown = ["show", "--format", "md"] if command == "show" else [command]
            result = run_acecode(shown, env, cwd=project_dir)
        _no_traceback(result, doctor=command == "doctor")
        if hostile == playbook:  # the playbook itself: refused in one line naming it
            assert result.returncode == 1, command
            assert str(hostile) in result.stdout + result.stderr, command
        elif command == "show":
            assert VALID_RULE in result.stdout, result.stdout


def _reflector_of_another_shape(system: str, prompt: str) -> str:
    if is_curator(system, prompt):
        return json.dumps({"reasoning": "nothing", "operations": []})
    return json.dumps({"lessons": ["pytest needs PyYAML installed first"]})


def test_a_reflector_override_asking_for_another_shape_fails_the_cycle_aloud(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path
) -> None:
    """A ``reflector.txt`` override whose replies have none of the contract's keys: each
    cycle was "nothing to learn", without a word. Now the cycle fails, naming the file,
    and the next session start says so."""
    valid_playbook(project_dir)
    override = home_dir / ".claude" / "prompts" / "reflector.txt"
    override.parent.mkdir(parents=True)
    override.write_text('List the lessons of this session as {"lessons": [...]}:\n{transcript}\n')
    server = llm(_reflector_of_another_shape)
    env = acecode_env(project_dir, home_dir, server.env(), ACECODE_EMBED_BACKEND="none")
    transcript = session_transcript(tmp_path / "s.jsonl", "shape")

    learn = run_acecode(["learn", str(transcript)], env, cwd=project_dir)
    start = json.dumps({"session_id": "after", "source": "startup", "cwd": str(project_dir)})
    hook = run_acecode(["hook", "session-start"], env, cwd=project_dir, stdin=start)

    assert learn.returncode == 1, learn.stdout + learn.stderr
    assert "failed" in learn.stdout and str(override) in learn.stdout, learn.stdout
    assert str(override) in json.loads(hook.stdout)["systemMessage"]
