"""A playbook save and its records commit together (issue 28): kills, read-only state, limits.

A learning cycle's save writes the playbook, the history journal, the provenance ledger and
the arrival record. A kill between two of them, a read-only ``.claude/acecode/`` or a
file-size limit must never leave entries in the playbook without the other three: ``why``
would say "unknown origin", ``undo`` could not find them, and the next session would
announce them as arrived with the repository. Real ``acecode`` processes throughout, killed
with SIGKILL, run without permission overrides or under ``RLIMIT_FSIZE``.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from commit_support import missing_records, run_paused, texts
from fault_support import (
    ACECODE,
    acecode_env,
    one_clear_line,
    permission_bits_enforced,
    run_acecode,
    seed_playbook,
    session_transcript,
)

from acecode.project.layer import Layer
from acecode.store.commit import STEPS, commit_file, settle_pending
from support.hang_guard import HANG_GUARD, killed_after

ENTRIES = 2_000  # the playbook: its save takes long enough to be cut


def _learn_env(project: Path, home: Path, server) -> dict[str, str]:
    return acecode_env(project, home, server.env(), ACECODE_EMBED_BACKEND="none")


def _hook_says(project: Path, env: dict[str, str]) -> str:
    """What the next session is told at its start (systemMessage), after settling."""
    payload = json.dumps({"session_id": "next", "source": "startup", "cwd": str(project)})
    hook = run_acecode(["hook", "session-start"], env, cwd=project, stdin=payload)
    assert hook.returncode == 0 and "Traceback" not in hook.stderr, hook.stderr
    return json.loads(hook.stdout).get("systemMessage", "") if hook.stdout.strip() else ""


def test_fault_kill_right_after_the_playbook_is_replaced_leaves_no_entry_without_history(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path
) -> None:
    """The issue's case, timed from outside: the test watches the playbook file and kills
    the learner the moment it is replaced (no pause point: what the old order did then)."""
    playbook = project_dir / ".claude" / "playbook.json"
    seed_playbook(playbook, extra_entries=ENTRIES - 3)
    env = _learn_env(project_dir, home_dir, llm())
    before = texts(playbook)
    inode = playbook.stat().st_ino
    child = subprocess.Popen(
        [*ACECODE, "learn", str(session_transcript(tmp_path / "s.jsonl", "cut1"))],
        env=env,
        cwd=project_dir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with killed_after(child):
        while child.poll() is None and playbook.stat().st_ino == inode:
            pass  # no sleep: the records follow within milliseconds
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=HANG_GUARD)
    assert child.returncode == -signal.SIGKILL, "the learner finished before it was killed"
    assert set(texts(playbook)) > set(before), "the new playbook is in place"

    shown = _hook_says(project_dir, env)  # the next session start finishes the save

    assert missing_records(playbook, before) == {}
    assert "arrived" not in shown, shown
    assert not commit_file(Layer(playbook)).exists()
    why = run_acecode(["why", _new_name(playbook, before)], env, cwd=project_dir)
    assert why.returncode == 0 and "unknown origin" not in why.stdout, why.stdout


def _new_name(playbook: Path, before: dict[str, str]) -> str:
    (name,) = [name for name, text in texts(playbook).items() if before.get(name) != text]
    return name


@pytest.mark.parametrize("step", STEPS)
def test_fault_kill_at_every_step_of_a_save_is_finished_or_dropped_at_the_next_start(
    project_dir: Path, home_dir: Path, tmp_path: Path, step: str
) -> None:
    """``acecode add`` killed at each step of its save: the next command settles it, and
    the rule is then fully recorded (it can be undone) or not in the playbook at all."""
    playbook = project_dir / ".claude" / "playbook.json"
    seed_playbook(playbook)
    env = acecode_env(project_dir, home_dir)
    before = texts(playbook)
    rule = "Run the database migrations with make migrate before the integration tests."

    run_paused(["add", rule, "-s", "pat"], env, project_dir, step, tmp_path)
    history = run_acecode(["history"], env, cwd=project_dir)

    assert history.returncode == 0, history.stderr
    assert "Traceback" not in history.stderr
    assert not commit_file(Layer(playbook)).exists()
    assert missing_records(playbook, before) == {}
    landed = rule in texts(playbook).values()
    assert landed == (STEPS.index(step) >= STEPS.index("replaced")), step
    if landed:
        undo = run_acecode(["undo"], env, cwd=project_dir)
        assert undo.returncode == 0, undo.stderr
        assert texts(playbook) == before


@pytest.fixture(scope="module")
def obeying_permissions():
    preexec, reason = permission_bits_enforced()
    if reason is not None:
        pytest.skip(reason)
    return preexec


def test_fault_read_only_state_folder_refuses_the_save_with_one_line(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path, obeying_permissions
) -> None:
    """A read-only ``.claude/acecode/`` (the lock file in it still writable, as it is after
    an earlier run): the old code saved the playbook and could not journal it."""
    playbook = project_dir / ".claude" / "playbook.json"
    seed_playbook(playbook)
    env = _learn_env(project_dir, home_dir, llm())
    first = run_acecode(
        ["learn", str(session_transcript(tmp_path / "a.jsonl", "ro0"))], env, cwd=project_dir
    )
    assert first.returncode == 0, first.stderr
    before = texts(playbook)
    state = playbook.parent / "acecode"
    state.chmod(0o555)
    try:
        result = run_acecode(
            ["learn", str(session_transcript(tmp_path / "b.jsonl", "ro1"))],
            env,
            cwd=project_dir,
            preexec_fn=obeying_permissions,
        )
    finally:
        state.chmod(0o755)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert str(state) in result.stderr, result.stderr
    assert texts(playbook) == before
    assert missing_records(playbook, before) == {}


def _limited(limit: int):
    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return preexec


def _learned_history(playbook: Path) -> None:
    """Provenance for every entry, as learning cycles leave it: a reason and the evidence
    excerpts of each, so the ledger is larger than the playbook (as in a real project)."""
    from acecode.store.provenance import Evidence, Ledger, Origin, provenance_path

    evidence = Evidence("failure", "Bash", "pytest -x tests/" + "a" * 150, "E   " + "b" * 190)
    ledger = Ledger()
    for name in texts(playbook):
        reason = f"the session for {name} failed until the rule was followed; " + "c" * 240
        ledger.entries[name] = [
            Origin(
                "20260101-000000-abcdef",
                "",
                "learned",
                "claude-code",
                "s1",
                "t.jsonl",
                reason,
                evidence,
            )
        ]
    provenance_path(playbook).write_text(ledger.serialize(), encoding="utf-8")


def test_fault_file_size_limit_swept_over_one_save_never_splits_playbook_and_records(
    project_dir: Path, home_dir: Path, tmp_path: Path
) -> None:
    """``acecode add`` under ``RLIMIT_FSIZE`` limits on both sides of each file its save
    writes: each run saves with all records, or refuses in one line and leaves everything as
    it was (the old code saved the playbook, then failed on the larger provenance file)."""
    template = tmp_path / "template"
    playbook = template / ".claude" / "playbook.json"
    seed_playbook(playbook, extra_entries=150, padding=150)
    _learned_history(playbook)
    sizes = {p.name: p.stat().st_size for p in (template / ".claude").rglob("*") if p.is_file()}
    limits = sorted(
        {int(size * factor) for size in sizes.values() if size > 4096 for factor in (0.9, 1.1)}
    )
    saved = []
    for number, limit in enumerate(limits):
        project = tmp_path / f"run{number}"
        shutil.copytree(template, project)
        path = project / ".claude" / "playbook.json"
        before = texts(path)
        rule = f"Rule {number}: rebuild the search index after changing analyzers."
        result = run_acecode(
            ["add", rule, "-s", "pat"],
            acecode_env(project, home_dir),
            cwd=project,
            preexec_fn=_limited(limit),
        )
        if result.returncode != 0:
            one_clear_line(result, "could not")
        settle_pending(Layer(path))  # what the next start does
        assert missing_records(path, before) == {}, (limit, sizes, result.stderr)
        landed = rule in texts(path).values()
        assert landed == (result.returncode == 0), (limit, result.stderr)
        saved.append(landed)
        shutil.rmtree(project)
    assert not all(saved) and any(saved), f"the sweep must cross the save's files: {sizes}"
