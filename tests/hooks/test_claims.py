"""Once per event whatever the number of installs: the claims of ``acecode.hooks.claim``.

Claude Code runs the hooks of every settings file and plugin in parallel, with the
same input. The racing tests start real hook processes (and real ``claim`` calls in
separate processes) released together, so the file system's ``O_EXCL`` decides; a
claim's age is set with ``os.utime``, never waited for.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shlex
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from hook_helpers import ACECODE

from acecode.hooks import claim as claims
from acecode.hooks.claim import SAME_EVENT_SECONDS, claim, claim_name, claims_folder
from support.hang_guard import HANG_GUARD

COPIES = 3  # user scope, project scope and the plugin


def _start(session: str = "s1", source: str = "startup", **extra: str) -> dict:
    return {"session_id": session, "hook_event_name": "SessionStart", "source": source, **extra}


def _prompt(session: str = "s1", prompt_id: str = "p1", prompt: str = "hi") -> dict:
    return {
        "session_id": session,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        "prompt_id": prompt_id,
    }


def _race_hooks(event: str, payload: dict, copies: int = COPIES) -> list[str]:
    """Start ``copies`` hook processes, then give them their input at once, as Claude Code
    does for the same hook in several settings files; their stdout, in start order."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
    processes = [
        subprocess.Popen(
            [*ACECODE, "hook", event],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for _ in range(copies)
    ]
    data = json.dumps(payload).encode()
    for process in processes:  # each is blocked reading its input until now
        process.stdin.write(data)
    for process in processes:
        process.stdin.close()
        process.stdin = None  # closed: communicate() must not flush it
    outputs = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=HANG_GUARD)
        assert (process.returncode, stderr) == (0, b""), stderr
        outputs.append(stdout.decode())
    return outputs


def _age(path: Path, seconds: float) -> None:
    """Make the claim at ``path`` ``seconds`` old."""
    stat = path.stat()
    os.utime(path, (stat.st_atime - seconds, stat.st_mtime - seconds))


def _claim_files(session: str = "s1") -> list[str]:
    folder = Path(claims_folder()) / session
    return sorted(p.name for p in folder.iterdir())


# --- the claim itself -----------------------------------------------------------------------


def test_a_copy_of_an_event_is_refused_and_the_next_event_is_granted() -> None:
    assert claim("SessionStart", _start())
    assert not claim("SessionStart", _start())  # the same event, from another install
    assert claim("SessionStart", _start(source="compact", prompt_id="p-compact"))
    assert not claim("SessionStart", _start(source="compact", prompt_id="p-compact"))
    assert claim("SessionStart", _start(source="compact", prompt_id="p-second-compact"))
    assert claim("SessionStart", _start("s2", source="clear", prompt_id="p-clear"))
    assert claim("UserPromptSubmit", _prompt(prompt_id="p1"))
    assert not claim("UserPromptSubmit", _prompt(prompt_id="p1"))
    assert claim("UserPromptSubmit", _prompt(prompt_id="p2"))


def test_learning_events_of_one_session_are_each_claimed_once() -> None:
    compact = {"session_id": "s1", "trigger": "manual", "prompt_id": "p-compact-1"}
    assert claim("PreCompact", compact)
    assert not claim("PreCompact", compact)
    assert claim("PreCompact", {**compact, "prompt_id": "p-compact-2"})  # a second /compact
    end = {"session_id": "s1", "reason": "prompt_input_exit", "prompt_id": "p-exit"}
    assert claim("SessionEnd", end)  # after PreCompact: its own cycle
    assert not claim("SessionEnd", end)
    subagent = {"session_id": "s1", "agent_id": "a1", "prompt_id": "p-exit"}
    assert claim("SubagentStop", subagent)
    assert claim("SubagentStop", {**subagent, "agent_id": "a2"})
    assert not claim("SubagentStop", subagent)


def test_codex_turn_ids_tell_its_events_apart() -> None:
    turn = {"session_id": "thread-1", "prompt": "go on", "turn_id": "t1"}
    assert claim("UserPromptSubmit", turn)
    assert not claim("UserPromptSubmit", turn)
    assert claim("UserPromptSubmit", {**turn, "turn_id": "t2"})  # the same words, a new turn


def test_a_prompt_without_an_id_is_told_apart_by_its_text() -> None:
    assert claim("UserPromptSubmit", {"session_id": "old", "prompt": "first"})
    assert not claim("UserPromptSubmit", {"session_id": "old", "prompt": "first"})
    assert claim("UserPromptSubmit", {"session_id": "old", "prompt": "second"})


def test_an_old_claim_is_a_finished_event_and_its_repeat_is_claimed_once() -> None:
    """A session resumed again: ``SessionStart:resume`` carries no prompt id."""
    resume = _start("s1", source="resume")
    assert claim("SessionStart", resume)
    (first,) = _claim_files()
    _age(Path(claims_folder()) / "s1" / first, SAME_EVENT_SECONDS + 1)
    assert claim("SessionStart", resume)
    assert not claim("SessionStart", resume)
    assert _claim_files() == ["SessionStart.resume.0", "SessionStart.resume.1"]


def test_without_a_session_id_every_hook_acts() -> None:
    assert claim("SessionStart", {"source": "startup"})
    assert claim("SessionStart", {"source": "startup"})
    assert not Path(claims_folder()).exists()


def test_names_are_file_names_whatever_the_input() -> None:
    folder, name = claim_name(
        "PreCompact", {"session_id": "../../etc", "trigger": "a/b c", "prompt_id": "x" * 500}
    )
    assert "/" not in folder and "/" not in name and not folder.startswith(".")
    assert len(name) < 250
    assert claim("PreCompact", {"session_id": "../../etc", "trigger": "a/b c"})


def test_claims_stay_out_of_the_project(project_dir: Path, home_dir: Path) -> None:
    assert claim("SessionStart", _start())
    assert not (project_dir / ".claude").exists()
    assert Path(claims_folder()).is_relative_to(home_dir / ".claude" / "acecode-user")
    assert (Path(claims_folder()).parent / ".gitignore").is_file()


def test_an_unwritable_claims_folder_never_costs_the_injection(home_dir: Path) -> None:
    (home_dir / ".claude").mkdir()
    (home_dir / ".claude" / "acecode-user").write_text("a file where the folder would go")
    assert claim("SessionStart", _start())
    assert claim("SessionStart", _start())  # nothing recorded, so every copy acts


def test_a_new_session_removes_the_claims_of_sessions_long_gone() -> None:
    assert claim("SessionStart", _start("old"))
    assert claim("SessionStart", _start("recent"))
    old, recent = Path(claims_folder()) / "old", Path(claims_folder()) / "recent"
    _age(old / "SessionStart.startup.0", claims.CLAIM_MAX_AGE + 60)
    _age(old, claims.CLAIM_MAX_AGE + 60)
    _age(recent, claims.CLAIM_MAX_AGE - 3600)
    assert claim("SessionStart", _start("new"))
    assert sorted(p.name for p in Path(claims_folder()).iterdir()) == ["new", "recent"]


def _claim_when_released(release: Any, payload: dict, results: Any) -> None:
    release.wait(HANG_GUARD)
    results.put(claim("SessionStart", payload))


@pytest.mark.parametrize("repeat", [False, True], ids=["first", "repeat-of-an-old-event"])
def test_processes_racing_for_one_event_get_exactly_one_claim(repeat: bool) -> None:
    payload = _start(f"race-{uuid.uuid4().hex}", source="resume")
    if repeat:  # every racer finds the old claim and competes for the next generation
        assert claim("SessionStart", payload)
        folder = Path(claims_folder()) / payload["session_id"]
        _age(folder / "SessionStart.resume.0", SAME_EVENT_SECONDS + 1)
    context = multiprocessing.get_context("spawn")
    release, results = context.Event(), context.Queue()
    racers = [
        context.Process(target=_claim_when_released, args=(release, payload, results))
        for _ in range(6)
    ]
    for racer in racers:
        racer.start()
    release.set()
    granted = [results.get(timeout=HANG_GUARD) for _ in racers]
    for racer in racers:
        racer.join(HANG_GUARD)
    assert sorted(granted) == [False] * 5 + [True]


# --- through the real hook processes --------------------------------------------------------


def test_racing_session_start_hooks_inject_once(playbook: Path) -> None:
    outputs = _race_hooks("session-start", _start("raced"))
    injected = [out for out in outputs if "additionalContext" in out]
    assert len(injected) == 1, outputs
    assert "[pat-001]" in injected[0]
    assert [out for out in outputs if out != injected[0]] == [""] * (COPIES - 1)


def test_racing_prompt_hooks_serve_the_fallback_once(playbook: Path) -> None:
    outputs = _race_hooks("user-prompt-submit", _prompt("no-start", "p1"))
    assert sum("<acecode-playbook>" in out for out in outputs) == 1, outputs
    assert sum(out == "" for out in outputs) == COPIES - 1


def test_racing_hooks_reinject_after_compaction_and_clear(playbook: Path) -> None:
    for payload in (
        _start("s1"),
        _start("s1", source="compact", prompt_id="p-compact"),
        _start("s2", source="clear", prompt_id="p-clear"),
    ):
        outputs = _race_hooks("session-start", payload)
        assert sum("additionalContext" in out for out in outputs) == 1, (payload, outputs)


def test_racing_learning_hooks_start_one_learner_per_event(
    project_dir: Path, tmp_path: Path
) -> None:
    stub = tmp_path / "stub_learner.py"
    stub.write_text("# a learner that learns nothing: the hooks' log says who started one\n")
    os.environ["ACECODE_LEARN_COMMAND"] = f"{shlex.quote(sys.executable)} {shlex.quote(str(stub))}"
    transcript = tmp_path / "session.jsonl"
    transcript.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    base = {"session_id": "s1", "transcript_path": str(transcript)}
    try:
        for event, payload in (
            ("pre-compact", {**base, "trigger": "manual", "prompt_id": "p-compact-1"}),
            ("pre-compact", {**base, "trigger": "manual", "prompt_id": "p-compact-2"}),
            ("session-end", {**base, "reason": "prompt_input_exit", "prompt_id": "p-exit"}),
        ):
            _race_hooks(event, payload)
    finally:
        del os.environ["ACECODE_LEARN_COMMAND"]
    log = (project_dir / ".claude" / "acecode" / "logs" / "learn.log").read_text()
    started = [
        event
        for line in log.splitlines()
        for event in ("pre-compact", "session-end")
        if f"{event}: learning from" in line
    ]
    assert started == ["pre-compact", "pre-compact", "session-end"], log


# --- a new context of the same session: another agent process ---------------------------------

_AGENT = """
import json, subprocess, sys
command, copies, data = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
hooks = [
    subprocess.Popen(["sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for _ in range(copies)
]
for hook in hooks:
    hook.stdin.write(data)
for hook in hooks:
    hook.stdin.close()
    hook.stdin = None
print(json.dumps([hook.communicate()[0].decode() for hook in hooks]))
"""


def _agent_runs(event: str, payload: dict, copies: int = COPIES) -> list[str]:
    """A new agent process (Claude Code started again, as ``claude --resume`` does) runs
    ``copies`` copies of the hook through ``sh -c``, their input released together; their
    stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
    command = shlex.join([*ACECODE, "hook", event])
    agent = subprocess.run(
        [sys.executable, "-c", _AGENT, command, str(copies), json.dumps(payload)],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD,
        check=True,
    )
    return json.loads(agent.stdout)


def test_a_session_resumed_again_within_the_claim_window_gets_its_playbook(
    playbook: Path,
) -> None:
    """The same session resumed twice in a row: each resume is a new Claude Code process,
    whose copies of SessionStart inject once; the second is no copy of the first (the old
    claim refused it, and that session ran without its playbook)."""
    resume = _start("resumed-twice", source="resume")
    for _ in ("first resume", "second resume"):
        outputs = _agent_runs("session-start", resume)
        assert sum("additionalContext" in out for out in outputs) == 1, outputs
    assert _claim_files("resumed-twice") == ["SessionStart.resume.0", "SessionStart.resume.1"]


def test_a_second_session_end_of_a_resumed_session_starts_a_learner(
    project_dir: Path, tmp_path: Path
) -> None:
    stub = tmp_path / "stub_learner.py"
    stub.write_text("# a learner that learns nothing: the hooks' log says who started one\n")
    os.environ["ACECODE_LEARN_COMMAND"] = f"{shlex.quote(sys.executable)} {shlex.quote(str(stub))}"
    transcript = tmp_path / "session.jsonl"
    transcript.write_text('{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    end = {"session_id": "s1", "transcript_path": str(transcript), "reason": "other"}
    try:
        for _ in ("the session", "its resumed part"):
            _agent_runs("session-end", end)
    finally:
        del os.environ["ACECODE_LEARN_COMMAND"]
    log = (project_dir / ".claude" / "acecode" / "logs" / "learn.log").read_text()
    assert log.count("session-end: learning from") == 2, log
