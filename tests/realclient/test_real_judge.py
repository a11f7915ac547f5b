"""Issue 11 through the real client: a session teaches a rule that contradicts one already
in the playbook. The judge (scripted) calls the pair conflicting, so neither rule is
credited to the other, the next session is shown both, ``acecode review`` lists the
conflict and the next curator call sees it.

The learner is started by the real SessionEnd hook of Claude Code 2.1.197 and talks to
the same scripted Messages server as the coding agent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Recorded, Reply
from scripted import Script, acecode_role, is_agent_turn
from test_real_learning import install, wait_for_rule

from acecode.store import load_playbook, save_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import message_text

SECTION = "USER PREFERENCES"
SINGLE = "Use single quotes for string literals in the TypeScript code."
DOUBLE = "Use double quotes for string literals in the TypeScript code."
REASON = "single against double quotes"


def judge_answer(request: Recorded) -> dict:
    """Conflicting for every pair the judge prompt carries (one JSON object per line)."""
    prompt = message_text(request.body["messages"][0]["content"])
    pairs = [json.loads(line) for line in prompt.splitlines() if line.startswith('{"pair": ')]
    assert [(p["A"], p["B"]) for p in pairs] == [(SINGLE, DOUBLE)]
    return {"verdicts": [{"pair": "p1", "verdict": "conflicting", "reason": REASON}]}


def role_requests(server: MessagesServer, role: str) -> list[Recorded]:
    return server.matching(lambda r: acecode_role(r) == role)


def test_a_contradicting_rule_is_kept_shown_as_a_conflict_and_sent_to_the_curator(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    (project_dir / ".claude").mkdir(exist_ok=True)
    playbook = project_dir / ".claude" / "playbook.json"
    seeded = {"name": "pref-001", "text": SINGLE, "helpful": 0, "harmful": 0}
    save_playbook({"sections": {SECTION: [seeded]}}, playbook)
    server.responder = Script(
        agent=(Reply("The strings now use double quotes."),),
        roles={
            "reflector": {"analysis": "The user asked for double quotes.", "bullet_tags": []},
            "curator": {
                "reasoning": "The user prefers double quotes.",
                "operations": [{"type": "ADD", "section": SECTION, "text": DOUBLE}],
            },
            "judge": judge_answer,
        },
    )
    install(claude, project_dir)
    # A one-request chat is below the default session-size floor and holds no signal for
    # the triage (no failure, correction or stated preference); this user learns from all.
    (claude.home / ".claude" / "acecode.toml").write_text(
        "learn_min_requests = 0\nlearn_min_tool_calls = 0\ntriage = false\n"
    )

    first = claude.run_print(project_dir, "Switch the string literals to double quotes.")
    assert first.returncode == 0, first.stderr
    wait_for_rule(project_dir, DOUBLE)

    entries = load_playbook(playbook)["sections"][SECTION]
    assert [(e["name"], e["text"], e["helpful"]) for e in entries] == [
        ("pref-001", SINGLE, 0),  # never credited with its opposite
        ("pref-002", DOUBLE, 0),
    ]
    assert len(role_requests(server, "judge")) == 1
    review = subprocess.run(
        [sys.executable, "-m", "acecode", "review"],
        cwd=project_dir,
        env=claude.env(COLUMNS="200"),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert review.returncode == 0, review.stderr
    for expected in ("Conflicting rules", "pref-001", "pref-002", SINGLE, DOUBLE, REASON):
        assert expected in review.stdout

    server.requests.clear()
    second = claude.run_print(project_dir, "Add a greeting string.")
    assert second.returncode == 0, second.stderr
    shown = server.matching(is_agent_turn)[0].text
    assert SINGLE in shown and DOUBLE in shown
    (curator,) = server.wait_for(lambda r: acecode_role(r) == "curator", timeout=HANG_GUARD)
    prompt = message_text(curator.body["messages"][0]["content"])
    assert f"- [pref-001] and [pref-002]: {REASON}" in prompt
    assert role_requests(server, "judge") == []  # the pair was judged once, its verdict kept
