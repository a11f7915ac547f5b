"""Learning hooks end to end: SessionEnd, PreCompact and SubagentStop.

The background learner is a stub (``ACECODE_LEARN_COMMAND``) that records its
arguments and environment, after waiting, when told to, for a file the test
creates: the hook returning while the stub still waits proves it does not wait
for the learner, however slow the machine. Where no learner may start, the
command names a program that does not exist: a hook that tried to start it
would say so at once, in learn.log and on stderr. The real ``acecode learn``
run by these hooks is covered by the pipeline tests.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from hook_helpers import run_hook

from support.hang_guard import HANG_GUARD, wait_until

STUB = """
import json, os, sys, time
release = os.environ.get("STUB_WAIT_FOR")
deadline = time.monotonic() + float(os.environ["STUB_GUARD"])
while release and not os.path.exists(release) and time.monotonic() < deadline:
    time.sleep(0.05)
print("stub learner ran", file=sys.stderr)
record = {
    "argv": sys.argv[1:],
    "disabled": os.environ.get("ACECODE_HOOKS_DISABLED"),
    "project_env": os.environ.get("CLAUDE_PROJECT_DIR"),
    "cwd": os.getcwd(),
    "session_leader": os.getsid(0) == os.getpid(),
}
with open(os.environ["STUB_OUT"], "w") as handle:
    json.dump(record, handle)
"""


@pytest.fixture
def learner(tmp_path: Path) -> dict[str, str]:
    """Environment that makes the hooks start the stub learner."""
    stub = tmp_path / "stub_learner.py"
    stub.write_text(STUB, encoding="utf-8")
    return {
        "ACECODE_LEARN_COMMAND": f"{shlex.quote(sys.executable)} {shlex.quote(str(stub))}",
        "STUB_OUT": str(tmp_path / "learner.json"),
        "STUB_GUARD": str(HANG_GUARD),
    }


@pytest.fixture
def no_learner(tmp_path: Path) -> dict[str, str]:
    """Environment whose learner cannot start: any attempt shows in learn.log and stderr."""
    return {"ACECODE_LEARN_COMMAND": str(tmp_path / "no-such-learner")}


def _assert_no_learner_was_started(run, project: Path) -> None:
    assert "could not start" not in run.stderr
    assert not any("could not start" in line for line in _log_lines(project))


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    return path


def _wait_for(path: Path) -> dict:
    """What the background learner recorded, once it has."""
    wait_until(lambda: path.exists() and path.stat().st_size, "the background learner")
    return json.loads(path.read_text())


def _log(project: Path) -> Path:
    return project / ".claude" / "acecode" / "logs" / "learn.log"


def _end(transcript: Path, reason: str = "logout") -> dict:
    return {
        "session_id": "s1",
        "hook_event_name": "SessionEnd",
        "transcript_path": str(transcript),
        "reason": reason,
    }


def test_session_end_returns_before_the_learner_finishes(
    project_dir: Path, transcript: Path, learner: dict[str, str], tmp_path: Path
) -> None:
    release = tmp_path / "release-the-learner"
    # The learner waits for a file created only after the hook returned: a hook that
    # waited for it would hang (and fail at the subprocess hang guard).
    run = run_hook("session-end", _end(transcript), env={**learner, "STUB_WAIT_FOR": str(release)})
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert not Path(learner["STUB_OUT"]).exists()  # still waiting: the hook did not wait
    release.touch()
    record = _wait_for(Path(learner["STUB_OUT"]))
    assert record["argv"] == [
        "learn",
        str(transcript),
        "--source",
        "session-end",
        "--project",
        str(project_dir),
    ]
    assert record["disabled"] == "1"
    assert record["project_env"] == str(project_dir)
    assert record["cwd"] == str(project_dir)
    assert record["session_leader"] is True  # detached: survives Claude Code exiting
    wait_until(
        lambda: "stub learner ran" in _log(project_dir).read_text(),
        "the learner's stderr in learn.log",
    )
    log = _log(project_dir).read_text()
    assert f"session-end: learning from {transcript}" in log
    assert "stub learner ran" in log


def _log_lines(project: Path) -> list[str]:
    """learn.log without its timestamps (``YYYY-MM-DD HH:MM:SS``)."""
    if not _log(project).exists():
        return []
    return [line[20:] for line in _log(project).read_text().splitlines()]


def _write_settings(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


# How real Claude Code 2.1.197 ends sessions: /exit, Ctrl-D, Ctrl-C give prompt_input_exit,
# /clear gives clear, a closed terminal or a finished `claude -p` give other; plus logout,
# a reason newer versions added, and an input without a reason.
ALL_REASONS = ["prompt_input_exit", "clear", "logout", "other", "bypass_permissions_disabled", None]


@pytest.mark.parametrize("reason", ALL_REASONS)
def test_every_session_end_is_learned_from_by_default(
    project_dir: Path, transcript: Path, learner: dict[str, str], reason: str | None
) -> None:
    run = run_hook("session-end", _end(transcript, reason), env=learner)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    argv = _wait_for(Path(learner["STUB_OUT"]))["argv"]
    assert argv[:4] == ["learn", str(transcript), "--source", "session-end"]
    note = f" (reason {reason})" if reason else ""
    assert _log_lines(project_dir)[0] == f"session-end: learning from {transcript}{note}"


@pytest.mark.parametrize(
    ("reason", "setting", "scope_file"),
    [
        ("prompt_input_exit", "playbook_update_on_exit", "home"),
        ("clear", "playbook_update_on_clear", "local"),
    ],
)
def test_an_explicit_false_setting_opts_out_and_says_so(
    project_dir: Path,
    home_dir: Path,
    transcript: Path,
    learner: dict[str, str],
    reason: str,
    setting: str,
    scope_file: str,
    no_learner: dict[str, str],
) -> None:
    settings = (
        home_dir / ".claude" / "settings.json"
        if scope_file == "home"
        else project_dir / ".claude" / "settings.local.json"
    )
    _write_settings(settings, {setting: False})
    run = run_hook("session-end", _end(transcript, reason), env=no_learner)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert _log_lines(project_dir) == [
        f'session-end: not learning (reason {reason}): "{setting}": false in {settings}'
    ]


@pytest.mark.parametrize(
    ("reason", "settings"),
    [
        # the old opt-in value: true, as `install --learn-on-exit` wrote it
        ("prompt_input_exit", {"playbook_update_on_exit": True}),
        # an opt-out covers its own reason only
        ("clear", {"playbook_update_on_exit": False}),
        ("prompt_input_exit", {"playbook_update_on_clear": False}),
        # only an explicit false opts out
        ("prompt_input_exit", {"playbook_update_on_exit": "false"}),
        ("clear", {"playbook_update_on_clear": None}),
    ],
)
def test_anything_but_an_explicit_false_learns(
    home_dir: Path, transcript: Path, learner: dict[str, str], reason: str, settings: dict
) -> None:
    _write_settings(home_dir / ".claude" / "settings.json", settings)
    run_hook("session-end", _end(transcript, reason), env=learner)
    assert _wait_for(Path(learner["STUB_OUT"]))["argv"][:2] == ["learn", str(transcript)]


def test_the_last_settings_file_that_sets_the_key_wins(
    project_dir: Path, home_dir: Path, transcript: Path, learner: dict[str, str]
) -> None:
    _write_settings(home_dir / ".claude" / "settings.json", {"playbook_update_on_exit": False})
    _write_settings(
        project_dir / ".claude" / "settings.local.json", {"playbook_update_on_exit": True}
    )
    run_hook("session-end", _end(transcript, "prompt_input_exit"), env=learner)
    assert _wait_for(Path(learner["STUB_OUT"]))["argv"][:2] == ["learn", str(transcript)]


def test_pre_compact_always_learns(
    project_dir: Path, transcript: Path, learner: dict[str, str]
) -> None:
    payload = {"session_id": "s1", "transcript_path": str(transcript), "trigger": "auto"}
    run = run_hook("pre-compact", payload, env=learner)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert _wait_for(Path(learner["STUB_OUT"]))["argv"][2:4] == ["--source", "pre-compact"]
    assert _log_lines(project_dir)[0] == f"pre-compact: learning from {transcript} (trigger auto)"


@pytest.mark.parametrize("event", ["pre-compact", "session-end"])
@pytest.mark.parametrize("kind", ["empty", "missing", "absent"])
def test_nothing_to_learn_returns_at_once_and_says_why(
    project_dir: Path, tmp_path: Path, learner: dict[str, str], event: str, kind: str
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    missing = tmp_path / "nope.jsonl"
    payload: dict = {"session_id": "s1", "reason": "logout"}
    if kind != "absent":
        payload["transcript_path"] = str(empty if kind == "empty" else missing)
    run = run_hook(event, payload, env=learner)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    why = {
        "empty": f"{empty} is empty",
        "missing": f"cannot read {missing} (No such file or directory)",
        "absent": "the hook input names no transcript",
    }[kind]
    note = " (reason logout)" if event == "session-end" else ""
    assert _log_lines(project_dir) == [f"{event}: not learning{note}: {why}"]
    assert not Path(learner["STUB_OUT"]).exists()


def test_subagent_stop_learns_from_the_subagent_transcript(
    project_dir: Path, tmp_path: Path, transcript: Path, learner: dict[str, str]
) -> None:
    agent = tmp_path / "agent-a1.jsonl"
    agent.write_text(transcript.read_text())
    payload = {
        "session_id": "s1",
        "transcript_path": str(transcript),
        "agent_id": "a1",
        "agent_type": "general-purpose",
        "agent_transcript_path": str(agent),
        "stop_hook_active": False,
    }
    run = run_hook("subagent-stop", payload, env=learner)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    argv = _wait_for(Path(learner["STUB_OUT"]))["argv"]
    assert argv[:4] == ["learn", str(agent), "--source", "subagent-stop"]


def test_subagent_stop_respects_learn_from_subagents(
    project_dir: Path, tmp_path: Path, transcript: Path, learner: dict[str, str]
) -> None:
    payload = {"session_id": "s1", "agent_transcript_path": str(transcript)}
    run = run_hook(
        "subagent-stop", payload, env={**learner, "ACECODE_LEARN_FROM_SUBAGENTS": "false"}
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert _log_lines(project_dir) == ["subagent-stop: not learning: learn_from_subagents is off"]
    assert not Path(learner["STUB_OUT"]).exists()


def test_subagent_stop_without_agent_transcript_does_nothing(
    project_dir: Path, transcript: Path, learner: dict[str, str]
) -> None:
    payload = {"session_id": "s1", "transcript_path": str(transcript)}
    run = run_hook("subagent-stop", payload, env=learner)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert _log_lines(project_dir) == [
        "subagent-stop: not learning: the hook input names no transcript"
    ]


def test_learning_hooks_are_silent_in_acecodes_own_runs(
    project_dir: Path, transcript: Path, learner: dict[str, str]
) -> None:
    env = {**learner, "ACECODE_HOOKS_DISABLED": "1"}
    for event in ("session-end", "pre-compact"):
        assert run_hook(event, _end(transcript), env=env).returncode == 0
    assert not _log(project_dir).exists()


def test_a_project_turned_off_learns_nothing_and_says_so(
    project_dir: Path, transcript: Path, no_learner: dict[str, str]
) -> None:
    config = project_dir / ".claude" / "acecode.toml"
    config.parent.mkdir()
    config.write_text("enabled = false\n")
    for event in ("session-end", "pre-compact", "subagent-stop"):
        payload = {**_end(transcript), "agent_transcript_path": str(transcript)}
        run = run_hook(event, payload, env=no_learner)
        assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    lines = _log_lines(project_dir)
    assert len(lines) == 3
    for line, event in zip(lines, ("session-end", "pre-compact", "subagent-stop"), strict=True):
        assert line.startswith(f"{event}: not learning")
        assert f"acecode is not active here: turned off for this project in {config}" in line


def test_acecode_skip_skips_learning_and_says_so_where_acecode_was_used(
    project_dir: Path, transcript: Path, no_learner: dict[str, str], playbook: Path
) -> None:
    env = {**no_learner, "ACECODE_SKIP": "1"}
    (project_dir / ".claude" / "acecode").mkdir(exist_ok=True)  # acecode was used here
    run = run_hook("session-end", _end(transcript, "prompt_input_exit"), env=env)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert _log_lines(project_dir) == [
        "session-end: not learning (reason prompt_input_exit): acecode is not active here: "
        "ACECODE_SKIP is set for this session"
    ]
    started = run_hook("session-start", {"session_id": "s1", "source": "startup"}, env=env)
    assert (started.returncode, started.stdout) == (0, "")  # and no injection either
    _assert_no_learner_was_started(started, project_dir)


def test_opt_in_leaves_no_trace_in_projects_never_turned_on(
    project_dir: Path, home_dir: Path, transcript: Path, no_learner: dict[str, str]
) -> None:
    (home_dir / ".claude").mkdir()
    (home_dir / ".claude" / "acecode.toml").write_text("opt_in = true\n")
    run = run_hook("session-end", _end(transcript), env=no_learner)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")  # no "could not start"
    assert not (project_dir / ".claude").exists()  # nor a log saying so


def test_a_learner_that_cannot_start_is_logged(
    project_dir: Path, tmp_path: Path, transcript: Path
) -> None:
    env = {"ACECODE_LEARN_COMMAND": str(tmp_path / "no-such-learner")}
    run = run_hook("session-end", _end(transcript), env=env)
    assert (run.returncode, run.stdout) == (0, "")
    assert run.stderr.startswith("acecode: could not start the background learner")
    assert _log_lines(project_dir) == [
        f"session-end: learning from {transcript} (reason logout)",
        "session-end: not learning (reason logout): could not start the learner "
        "(No such file or directory)",
    ]


def test_unwritable_project_is_one_line_not_a_failure(
    project_dir: Path, transcript: Path, learner: dict[str, str]
) -> None:
    (project_dir / ".claude").write_text("a file where a folder should be")
    run = run_hook("session-end", _end(transcript), env=learner)
    assert run.returncode == 0
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("acecode: could not start the background")


GARBAGE = [b"garbage", b"[1, 2]", b"\xff\xfe\x00", b'{"session_id": 5, "cwd": 7}']


@pytest.mark.parametrize("data", GARBAGE)
@pytest.mark.parametrize(
    "event",
    ["session-start", "user-prompt-submit", "session-end", "pre-compact", "subagent-stop", "nope"],
)
def test_garbage_input_never_exits_2(
    playbook: Path, learner: dict[str, str], event: str, data: bytes
) -> None:
    run = run_hook(event, data, env=learner)
    assert run.returncode == 0
    assert "Traceback" not in run.stderr
    assert len(run.stderr.splitlines()) <= 1
    assert run.stdout == "" or json.loads(run.stdout)["hookSpecificOutput"]


def test_no_stdin_at_all_is_harmless(playbook: Path) -> None:
    import subprocess

    proc = subprocess.run(
        [sys.executable, "-m", "acecode", "hook", "session-end"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")},
        timeout=HANG_GUARD,
    )
    assert (proc.returncode, proc.stderr) == (0, b"")
