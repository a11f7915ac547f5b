"""Graduated rules and CLAUDE.md in real Claude Code sessions (issue 30).

1. ``acecode graduate`` moves a pinned entry into ``.claude/rules/acecode.md`` and
   one about ``src/api/`` into a rules file limited to ``src/api/**``. In a real
   ``claude -p`` session the first is in the model's context from the start, the
   second only after the agent reads ``src/api/handler.py``; neither is still in
   acecode's injected playbook, and each graduated text reaches the model exactly
   once. ``acecode undo`` brings both back into the playbook and out of the rules
   files: the next session gets them from the playbook, once each.
2. A playbook entry that repeats a line of CLAUDE.md (so judged by a real
   ``acecode learn`` cycle, the judge scripted) is left out of the injected
   text: the model gets that instruction once, from CLAUDE.md.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Recorded, Reply, ToolCall
from scripted import PLAYBOOK_TAG, Script, acecode_role, is_agent_turn
from test_real_instruction_files import texts
from test_real_learning import install

from acecode.playbook.schema import empty_playbook
from acecode.project.pins import change_pins, pins_path
from acecode.store import load_playbook, save_playbook
from support.hang_guard import HANG_GUARD

PAT = "PATTERNS & APPROACHES"
GENERAL = "Answer with the smallest diff that fixes the problem; never reformat untouched code."
API_RULE = "In `src/api/`, validate every request body with the pydantic models in schemas.py."
OTHER = "Run database migrations with make migrate before starting the API server."
PNPM = "Use pnpm, never npm, to install packages in this repository."
PNPM_PARAPHRASE = "In this repository install packages with pnpm instead of npm."


def acecode(project: Path, claude: ClaudeHome, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=project,
        env=claude.env(),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def write_playbook(project: Path, entries: list[str]) -> None:
    playbook = empty_playbook()
    playbook["sections"][PAT] = [
        {"name": f"pat-{n:03d}", "text": text, "helpful": 2, "harmful": 0}
        for n, text in enumerate(entries, start=1)
    ]
    save_playbook(playbook, project / ".claude" / "playbook.json")


def reads(path: Path) -> Script:
    """The scripted agent reads ``path``, then answers."""
    return Script(
        agent=(Reply(tool_calls=(ToolCall("Read", {"file_path": str(path)}),)), Reply("Done."))
    )


def injected(request: Recorded) -> str:
    """acecode's injected playbook block in ``request`` ("" when there is none)."""
    text = texts(request)
    start = text.find(PLAYBOOK_TAG)
    return "" if start < 0 else text[start : text.find("</acecode-playbook>", start)]


def test_graduated_rules_reach_the_model_and_undo_brings_them_back(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    (project_dir / ".git").mkdir()
    handler = project_dir / "src" / "api" / "handler.py"
    handler.parent.mkdir(parents=True)
    handler.write_text("def handle(body):\n    return body\n")
    write_playbook(project_dir, [GENERAL, API_RULE, OTHER])
    for name in ("pat-001", "pat-002"):
        change_pins(pins_path(project_dir / ".claude" / "playbook.json"), add=name)
    install(claude, project_dir)

    shown = acecode(project_dir, claude, "graduate", "pat-001", "pat-002", "--yes").stdout
    assert "+paths:" in shown and '+  - "src/api/**"' in shown  # the diff came first
    assert (project_dir / ".claude/rules/acecode.md").read_text().count(GENERAL) == 1
    assert API_RULE in (project_dir / ".claude/rules/acecode-src-api.md").read_text()

    server.responder = reads(handler)
    result = claude.run_print(project_dir, "Look at the API handler.", "--allowedTools", "Read")
    assert result.returncode == 0, result.stderr
    first, after_read = [texts(r) for r in server.matching(is_agent_turn)][:2]
    assert first.count(GENERAL) == 1 and GENERAL not in injected(server.matching(is_agent_turn)[0])
    assert API_RULE not in first
    assert after_read.count(API_RULE) == 1  # loaded with the read of src/api/handler.py
    assert OTHER in injected(server.matching(is_agent_turn)[0])

    acecode(project_dir, claude, "undo")
    assert not (project_dir / ".claude/rules").exists()
    assert [
        e["text"] for e in load_playbook(project_dir / ".claude/playbook.json")["sections"][PAT]
    ] == [
        GENERAL,
        API_RULE,
        OTHER,
    ]
    server.requests.clear()
    result = claude.run_print(project_dir, "And now?", "--allowedTools", "Read")
    assert result.returncode == 0, result.stderr
    again = server.matching(is_agent_turn)[0]
    for rule in (GENERAL, API_RULE, OTHER):
        assert texts(again).count(rule) == 1 and rule in injected(again)


def judge_says_same(request: Recorded) -> dict:
    """The judge: the pnpm instruction and its paraphrase are the same rule, all else different."""
    pairs = [
        json.loads(line) for line in texts(request).splitlines() if line.startswith('{"pair": ')
    ]
    return {
        "verdicts": [
            {
                "pair": pair["pair"],
                "verdict": "same"
                if {pair["A"], pair["B"]} == {PNPM, PNPM_PARAPHRASE}
                else "different",
                "reason": "scripted",
            }
            for pair in pairs
        ]
    }


def test_an_entry_that_repeats_claude_md_is_not_injected_beside_it(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path, tmp_path: Path
) -> None:
    (project_dir / ".git").mkdir()
    (project_dir / "CLAUDE.md").write_text(f"# Shop\n\n- {PNPM}\n")
    write_playbook(project_dir, [PNPM_PARAPHRASE, OTHER])
    install(claude, project_dir)
    session = tmp_path / "session.jsonl"
    session.write_text(
        "\n".join(
            json.dumps({"type": kind, "uuid": f"u{n}", "sessionId": "s", "message": message})
            for n, (kind, message) in enumerate(
                [
                    ("user", {"role": "user", "content": "install the dependencies"}),
                    ("assistant", {"id": "m", "role": "assistant", "content": "Done with pnpm."}),
                ]
            )
        )
        + "\n"
    )
    server.responder = Script(
        roles={
            "reflector": {"analysis": "The project installs with pnpm.", "bullet_tags": []},
            "curator": {"reasoning": "Nothing new.", "operations": []},
            "judge": judge_says_same,
        }
    )
    acecode(project_dir, claude, "learn", str(session))
    assert {acecode_role(r) for r in server.requests} >= {"judge"}

    server.requests.clear()
    result = claude.run_print(project_dir, "How do I install?")
    assert result.returncode == 0, result.stderr
    first = server.matching(is_agent_turn)[0]
    block = injected(first)
    assert OTHER in block and PNPM_PARAPHRASE not in block
    assert texts(first).count(PNPM) == 1 and PNPM_PARAPHRASE not in texts(first)
    assert re.search(r"repeats CLAUDE\.md:3", acecode(project_dir, claude, "doctor").stdout)
