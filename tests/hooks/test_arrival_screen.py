"""The first screen of a large arrival, spread over hooks that may be killed at any moment.

A hook screens arrived entries until its time budget ends and saves the verdicts as
it reaches them; the entries it did not reach are held ("not screened yet") and the
cached state says it is incomplete, so the next hook goes on instead of serving it.
Every hook is a real process; the kill is a real SIGKILL, sent once the hook has
saved some verdicts (waited for, never timed). The background review is replaced by
a process that does nothing (``ACECODE_LEARN_COMMAND``), so only the hooks screen.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hook_helpers import ACECODE, run_hook, write_playbook

from acecode.arrivals.split import NOT_SCREENED_RULE, split_arrivals
from acecode.arrivals.verdicts import MIN_SCREENED, VERDICTS_NAME
from acecode.store import load_playbook
from support.hang_guard import HANG_GUARD, wait_until
from support.playbooks import PIPE, entry

PAT = "PATTERNS & APPROACHES"
NO_JOB = {"ACECODE_LEARN_COMMAND": f"{sys.executable} -c pass"}


@pytest.fixture(autouse=True)
def _no_provider(provider_configured: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user without an LLM provider: what the floor passes is injected."""
    for name in provider_configured:
        monkeypatch.delenv(name)


def _arrival(project: Path, count: int) -> Path:
    tips = [
        entry(f"pat-{i:03d}", f"Tip {i}: run the checks of module m{i} before you push it.", 1)
        for i in range(1, count)
    ]
    return write_playbook(project, {PAT: [*tips, entry(f"pat-{count:03d}", PIPE, 1)]}, arrived=True)


def _verdicts(project: Path) -> int:
    path = project / ".claude" / "acecode" / VERDICTS_NAME
    try:
        return len(json.loads(path.read_text(encoding="utf-8"))["verdicts"])
    except (OSError, ValueError, KeyError):
        return 0


def test_an_expired_budget_holds_what_it_did_not_reach_and_the_next_screen_goes_on(
    project_dir: Path,
) -> None:
    """Past its deadline a call still screens its first MIN_SCREENED texts (an ordinary
    playbook is screened whole at once); the rest waits, held."""
    count = MIN_SCREENED + 36
    path = _arrival(project_dir, count)
    playbook = load_playbook(path)

    cut = split_arrivals(str(path), playbook, 600, "en", deadline=time.monotonic())

    assert not cut.complete and cut.unscreened == 36
    assert [a.rule for a in cut.held] == [NOT_SCREENED_RULE] * 36  # the last, PIPE, among them
    injected = {entry["name"] for entry in cut.playbook["sections"][PAT]}
    assert len(injected) == MIN_SCREENED and f"pat-{count:03d}" not in injected
    whole = split_arrivals(str(path), playbook, 600, "en")
    assert whole.complete and [a.name for a in whole.held] == [f"pat-{count:03d}"]


def test_a_hook_out_of_time_injects_only_what_it_screened_and_says_the_rest_waits(
    project_dir: Path,
) -> None:
    count = 2 * MIN_SCREENED + 5  # more than one hook's minimum, whatever it renders
    _arrival(project_dir, count)

    first = run_hook(
        "session-start",
        {"session_id": "s1", "source": "startup"},
        env={**NO_JOB, "ACECODE_SCREEN_SECONDS": "0"},
    )

    assert (first.returncode, first.stderr) == (0, "")
    assert "Tip " in first.context() and PIPE not in first.stdout
    assert f"Tip {count - 1}:" not in first.stdout  # among the five not screened
    cache = json.loads((project_dir / ".claude/acecode/injection-cache.json").read_text())
    assert cache["incomplete"] is True  # not to be served as the whole answer
    waiting = cache["arrivals"]["unscreened"]
    assert 5 <= waiting <= count - MIN_SCREENED
    assert f"{waiting} not screened yet (held until then)" in first.output()["systemMessage"]
    second = run_hook(
        "session-start",
        {"session_id": "s2", "source": "startup"},
        env={**NO_JOB, "ACECODE_SCREEN_SECONDS": "300"},
    )
    assert PIPE not in second.context()
    cache = json.loads((project_dir / ".claude/acecode/injection-cache.json").read_text())
    assert "incomplete" not in cache and cache["arrivals"]["unscreened"] == 0


def test_a_killed_hook_keeps_the_verdicts_it_reached(project_dir: Path) -> None:
    """Each hook is killed (SIGKILL) once it has saved some verdicts; the next one starts
    from there, and the screen completes."""
    count = 600
    _arrival(project_dir, count)
    env = (
        {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
        | NO_JOB
        | {"ACECODE_SCREEN_SECONDS": "300"}
    )
    reached = []
    for number in range(2):
        hook = subprocess.Popen(
            [*ACECODE, "hook", "session-start"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert hook.stdin is not None
        hook.stdin.write(json.dumps({"session_id": f"k{number}", "source": "startup"}).encode())
        hook.stdin.close()
        before = reached[-1] if reached else 0
        wait_until(lambda before=before: _verdicts(project_dir) > before, "saved verdicts")
        hook.send_signal(signal.SIGKILL)
        hook.wait(timeout=HANG_GUARD)
        reached.append(_verdicts(project_dir))
    assert 0 < reached[0] < reached[1] <= count
    last = run_hook("session-start", {"session_id": "k9", "source": "startup"}, env=env)
    assert _verdicts(project_dir) == count
    cache = json.loads((project_dir / ".claude/acecode/injection-cache.json").read_text())
    assert cache["arrivals"]["unscreened"] == 0 and "incomplete" not in cache
    assert "Tip " in last.context() and PIPE not in last.context()
