"""Spend that a hostile machine would hide from the budget, at the real boundaries.

A real ``acecode learn`` process against a scripted Anthropic server that holds
one of its calls: killed there with SIGKILL (what an out-of-memory kill sends),
or stopped with SIGSTOP (a laptop's lid closed) and looked at hours later. A
real file-size limit (RLIMIT_FSIZE: the kernel cuts the write and raises
SIGXFSZ) under the ledger's append. A cost ledger or state folder that cannot be
written, said as such by ``learn``, the next session start and doctor.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from fault_support import ACECODE, acecode_env, run_acecode, session_transcript

from acecode.cost.ledger import Ledger, now, stamp
from support.hang_guard import HANG_GUARD, killed_after, wait_until
from support.pipeline import curator_says, is_curator

PRICED = "claude-sonnet-4-6"
ADD = {"type": "ADD", "section": "OTHERS", "text": "Install PyYAML before running the tests."}


def _held_curator(release: threading.Event):
    """Every role answers at once but the curator, which waits for ``release``."""
    route = curator_says(ADD)

    def router(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            release.wait(HANG_GUARD)
        return route(system, prompt)

    return router


def _start_learner(project: Path, home: Path, server, marker: str) -> subprocess.Popen[str]:
    env = acecode_env(
        project,
        home,
        server.env(),
        AGENTIC_CONTEXT_MODEL=PRICED,
        ACECODE_LLM_TIMEOUT=str(HANG_GUARD),  # a held call must not time out and retry
    )
    transcript = session_transcript(project.parent / "sessions" / f"{marker}.jsonl", marker)
    return subprocess.Popen(
        [*ACECODE, "learn", str(transcript)],
        env=env,
        cwd=project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _records(home: Path) -> list[dict]:
    path = home / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _curator_sent(server) -> bool:
    return any("curator of acecode" in body for body in server.bodies)


def test_a_cycle_killed_mid_call_counts_what_it_paid_and_the_call_at_risk(
    project_dir: Path, home_dir: Path, llm
) -> None:
    """SIGKILL while the curator's reply is on its way: the reflector's paid cost and the
    curator's bound count against today's budget at once, and the next admission writes
    them down as the killed cycle's spend, releasing the rest of its reservation."""

    release = threading.Event()
    server = llm(_held_curator(release))
    learner = _start_learner(project_dir, home_dir, server, "killed")
    try:
        with killed_after(learner):
            wait_until(lambda: _curator_sent(server), "the curator's request to reach the server")
            learner.send_signal(signal.SIGKILL)
            learner.wait(HANG_GUARD)
    finally:
        release.set()
    records = _records(home_dir)
    (admitted,) = [r for r in records if r["kind"] == "reserve"]
    kinds = [r["kind"] for r in records if r["cycle_id"] == admitted["cycle_id"]]
    assert kinds == ["reserve", "call", "paid", "call"]  # the curator never reported back
    reflector_paid = next(r for r in records if r["kind"] == "paid")["usd"]
    curator_bound = [r for r in records if r["kind"] == "call"][-1]["usd"]
    assert reflector_paid > 0 and curator_bound > 0
    env = acecode_env(project_dir, home_dir)
    today = json.loads(run_acecode(["cost", "--json"], env, cwd=project_dir).stdout)
    today = today["budget"]["today"]
    assert today["usd"] == pytest.approx(reflector_paid + curator_bound)
    assert today["reserved_usd"] == 0  # the rest of its reservation is free again

    # The next learner settles the killed cycle before its own admission.
    release.set()
    second = _start_learner(project_dir, home_dir, server, "next")
    with killed_after(second):
        assert second.wait(HANG_GUARD) == 0, second.stderr.read()
    settled = {r["cycle_id"]: r for r in _records(home_dir) if r["kind"] == "cycle"}
    killed = settled[admitted["cycle_id"]]
    assert killed["status"] == "killed"
    assert killed["cost_usd"] == pytest.approx(reflector_paid + curator_bound)
    assert killed["unreported_calls"] == 1
    assert not Path(admitted["lock"]).exists()


def test_a_learner_asleep_for_hours_keeps_its_hold_on_the_budget(
    project_dir: Path, home_dir: Path, llm
) -> None:
    """SIGSTOP mid-call, as a closed laptop stops every process: looked at seven hours
    later (past any staleness rule), the cycle still holds its reservation, so nothing
    else is admitted into money it may still spend when it wakes."""
    from acecode.cost.holds import spend_since

    release = threading.Event()
    server = llm(_held_curator(release))
    learner = _start_learner(project_dir, home_dir, server, "asleep")
    try:
        with killed_after(learner):
            wait_until(lambda: _curator_sent(server), "the curator's request to reach the server")
            learner.send_signal(signal.SIGSTOP)
            try:
                records = _records(home_dir)
                (admitted,) = [r for r in records if r["kind"] == "reserve"]
                later = now() + timedelta(hours=7)
                held = spend_since(records, now().date(), later)
                assert held.reserved_usd == pytest.approx(admitted["estimate_usd"])
            finally:
                learner.send_signal(signal.SIGCONT)
            release.set()
            assert learner.wait(HANG_GUARD) == 0, learner.stderr.read()
    finally:
        release.set()
    settled = [r for r in _records(home_dir) if r["kind"] == "cycle"]
    assert [r["status"] for r in settled] == ["ok"]


_APPEND = """
import sys
from pathlib import Path
from acecode.cost.ledger import Ledger, LedgerError
try:
    record = {"kind": "cycle", "cycle_id": "big", "note": "x" * int(sys.argv[2])}
    Ledger(Path(sys.argv[1])).append(record)
except LedgerError as exc:
    print("refused:", exc)
"""


def _append_under_limit(ledger: Path, padding: int, limit: int) -> str:
    """Append one record of about ``padding`` bytes in a child whose files may not grow
    past ``limit`` bytes (the kernel cuts the write short, then raises SIGXFSZ)."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-c", _APPEND, str(ledger), str(padding)],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_ledger_line_is_written_whole_or_not_at_all_under_a_file_size_limit(
    tmp_path: Path,
) -> None:
    ledger = tmp_path / "cost-ledger.jsonl"
    first = {"kind": "cycle", "cycle_id": "paid", "time": stamp(), "cost_usd": 0.25}
    ledger.write_text(json.dumps(first) + "\n")
    size = ledger.stat().st_size
    out = _append_under_limit(ledger, padding=400, limit=size + 100)
    assert "refused:" in out and str(ledger) in out
    assert ledger.stat().st_size == size  # nothing of the cut line is left
    assert Ledger(ledger).records() == [first]
    # A record that fits is written whole, and the next one after it.
    assert _append_under_limit(ledger, padding=10, limit=size + 100) == ""
    assert [r["cycle_id"] for r in Ledger(ledger).records()] == ["paid", "big"]


def test_a_torn_last_line_is_cut_off_before_the_next_append(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line a crash left without its end would glue the next record to itself, and
    both would be skipped as unreadable."""
    ledger = tmp_path / "cost-ledger.jsonl"
    whole = {"kind": "cycle", "cycle_id": "a", "time": stamp(), "cost_usd": 0.1}
    ledger.write_text(json.dumps(whole) + '\n{"kind": "paid", "cycle_id": "b", "us')
    Ledger(ledger).append({"kind": "cycle", "cycle_id": "c", "time": stamp(), "cost_usd": 0.2})
    assert [r["cycle_id"] for r in Ledger(ledger).records()] == ["a", "c"]
    assert "removed a torn last line" in capsys.readouterr().err


def test_a_cycle_whose_reservation_cannot_be_written_makes_no_call_and_names_the_ledger(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path
) -> None:
    """The file-size limit under a whole learning cycle: the ledger (long, from earlier
    days) cannot grow by a reservation, so the cycle stops before its first call, and
    the line names the ledger, not a budget; nothing torn is left behind."""
    server = llm(curator_says(ADD))
    ledger = home_dir / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
    ledger.parent.mkdir(parents=True)
    old = {"kind": "cycle", "cycle_id": "old", "time": "2020-01-01T10:00:00+00:00"}
    ledger.write_text("".join(json.dumps({**old, "n": n}) + "\n" for n in range(400)))
    size = ledger.stat().st_size

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 64, size + 64))

    transcript = session_transcript(tmp_path / "s.jsonl", "limited")
    result = run_acecode(
        ["learn", str(transcript)],
        acecode_env(project_dir, home_dir, server.env(), AGENTIC_CONTEXT_MODEL=PRICED),
        cwd=project_dir,
        preexec_fn=limited,
    )
    assert result.returncode == 1
    assert "cost ledger cannot be written" in result.stdout + result.stderr
    assert "for your budget" not in result.stdout + result.stderr
    assert server.bodies == []
    assert ledger.stat().st_size == size
    assert len(Ledger(ledger).records()) == 400


def test_an_unwritable_ledger_is_named_by_learn_the_next_session_start_and_doctor(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path
) -> None:
    """A folder where the ledger file should be: no call, and every place the user looks
    names the ledger as what cannot be written, never the budget."""
    server = llm(curator_says(ADD))
    env = acecode_env(project_dir, home_dir, server.env(), AGENTIC_CONTEXT_MODEL=PRICED)
    ledger = home_dir / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
    ledger.mkdir(parents=True)
    learned = run_acecode(
        ["learn", str(session_transcript(tmp_path / "s.jsonl", "noledger"))], env, cwd=project_dir
    )
    said = learned.stdout + learned.stderr
    assert learned.returncode == 1
    assert "cost ledger cannot be written" in said and str(ledger) in said
    assert "for your budget" not in said
    assert server.bodies == []

    payload = json.dumps({"session_id": "s1", "source": "startup", "cwd": str(project_dir)})
    hook = run_acecode(["hook", "session-start"], env, cwd=project_dir, stdin=payload)
    assert hook.returncode == 0
    message = json.loads(hook.stdout)["systemMessage"]
    assert "the cost ledger cannot be written" in message and str(ledger) in message
    assert "budget" not in message.replace("--ignore-budget", "")

    doctor = run_acecode(["doctor"], {**env, "COLUMNS": "300"}, cwd=project_dir)
    assert doctor.returncode == 1
    assert "[problem] the cost ledger cannot be written" in doctor.stdout
    assert str(ledger) in doctor.stdout


def test_a_read_only_state_folder_stops_the_cycle_before_its_first_call_and_is_named(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path, obeying_permissions
) -> None:
    """``.claude/acecode`` read-only: on 0.3.0 the cycle paid for its calls and then
    failed on the lock file; now it looks first, and the session start and doctor say
    which folder stops learning."""
    server = llm(curator_says(ADD))
    env = acecode_env(project_dir, home_dir, server.env(), AGENTIC_CONTEXT_MODEL=PRICED)
    state = project_dir / ".claude" / "acecode"
    state.mkdir(parents=True)
    (state / ".gitignore").write_text("*\n")  # a folder earlier cycles created
    state.chmod(0o555)
    try:
        learned = run_acecode(
            ["learn", str(session_transcript(tmp_path / "s.jsonl", "ro"))],
            env,
            cwd=project_dir,
            preexec_fn=obeying_permissions,
        )
        said = learned.stdout + learned.stderr
        assert learned.returncode == 1
        assert f"cannot write in {state}" in said
        assert server.bodies == []
        payload = json.dumps({"session_id": "s2", "source": "startup", "cwd": str(project_dir)})
        hook = run_acecode(
            ["hook", "session-start"],
            env,
            cwd=project_dir,
            stdin=payload,
            preexec_fn=obeying_permissions,
        )
        assert hook.returncode == 0
        message = json.loads(hook.stdout)["systemMessage"]
        assert f"{state} is not writable" in message and "not learned from" in message
        doctor = run_acecode(
            ["doctor"], {**env, "COLUMNS": "300"}, cwd=project_dir, preexec_fn=obeying_permissions
        )
        assert "[problem] the state folder cannot be written" in doctor.stdout
    finally:
        state.chmod(0o755)
