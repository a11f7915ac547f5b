"""With ``experiments = true`` a real Claude Code session does without one learned rule.

The user's ``~/.claude/acecode.toml`` turns experiments on with ``holdback_rate = 1`` and
``holdback_max = 1``, so every session holds back exactly one of the four entries that have
a failure or correction signature. Asserted on what the real CLI sent the model, on the
exposure record the hook wrote, on the screen (the one-time notice), and on the outcome the
background learner read from the session's transcript after it ended.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from claude_driver import ClaudeHome, squash
from messages_server import MessagesServer, Recorded
from scripted import PLAYBOOK_TAG, Script, is_agent_turn
from test_real_learning import install
from tests.experiments.world import (
    CORRECTION,
    FAILURES,
    experiments_on,
    exposures,
    write_project,
)

ELIGIBLE = {*FAILURES, CORRECTION[0]}
NOTICE = "SessionStart:startup says: acecode: experiments are on"
FIRST = "What should I keep in mind in this project?"
# Every eligible entry's own words: a top-up would bring a left-out one it is about.
SECOND = "Again: " + " ".join(f"{cmd} {err}" for cmd, err in FAILURES.values()) + CORRECTION[1]


def _line(name: str, request: Recorded) -> bool:
    return f"[{name}] helpful=" in request.text


def _turn(server: MessagesServer, prompt: str) -> Recorded:
    return server.wait_for(lambda r: is_agent_turn(r) and prompt in r.text)[-1]


def _outcomes(project: Path) -> str:
    path = project / ".claude" / "acecode" / "experiments" / "outcomes.jsonl"
    return path.read_text() if path.exists() else ""


def test_a_held_back_entry_never_reaches_the_model_and_the_record_says_so(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script()
    write_project(project_dir)
    experiments_on(claude.home, rate=1.0, most=1)
    install(claude, project_dir)

    session = claude.interactive(project_dir)
    try:
        session.wait_screen(NOTICE)
        session.wait_screen("`acecode impact --rules` shows the results")
        session.submit(FIRST)
        first = _turn(server, FIRST)
        session.submit(SECOND)
        second = _turn(server, SECOND)
        session.submit("/exit", wait=False)
        assert session.wait_exit() == 0
    finally:
        session.close()

    (record,) = [r for r in exposures(project_dir) if r["event"] == "start"]
    (held,) = record["held"]
    assert held in ELIGIBLE and sorted(record["drawn"]) == sorted(ELIGIBLE)
    transcript = Path(record["transcript"])
    assert transcript == claude.sessions_dir(project_dir) / f"{record['session']}.jsonl"
    assert transcript.exists()  # the record names the real session
    # The model got the playbook without the held-back entry, and never got it later.
    assert first.text.count(PLAYBOOK_TAG) == 1
    assert not _line(held, first) and not _line(held, second)
    assert all(_line(name, first) for name in ELIGIBLE - {held} | {"pat-001"})
    assert held not in {item.partition("@")[0] for item in record["entries"]}
    assert all(held not in r.get("entries", ()) for r in exposures(project_dir))

    # The background learner, started by the real SessionEnd hook, read the transcript.
    deadline = time.monotonic() + 120  # a hang guard, not a measurement
    while record["session"] not in _outcomes(project_dir) and time.monotonic() < deadline:
        time.sleep(0.25)
    outcome = [json.loads(line) for line in _outcomes(project_dir).splitlines()]
    assert [item["session"] for item in outcome] == [record["session"]]

    # The next session is told nothing: the notice is for the first time only.
    again = claude.interactive(project_dir)
    try:
        again.submit("Hello again.")
        _turn(server, "Hello again.")
        assert squash("experiments are on") not in again.screen()
        again.submit("/exit", wait=False)
        again.wait_exit()
    finally:
        again.close()
    starts = [r for r in exposures(project_dir) if r["event"] == "start"]
    assert len(starts) == 2 and len(starts[1]["held"]) == 1
    deadline = time.monotonic() + 120  # its learner too: leave nothing running
    while starts[1]["session"] not in _outcomes(project_dir) and time.monotonic() < deadline:
        time.sleep(0.25)
    assert starts[1]["session"] in _outcomes(project_dir)
