"""The `claude` provider with the real CLI: a learning cycle whose reflector, curator and
safety review answers come back through real nested `claude -p` runs, lean and invisible.

The user's machine carries everything a nested run must not pick up: CLAUDE.md
files, a skill, an auto-memory note, a hook and an MCP server, each leaving a
marker where it would show. A plain `claude -p` in the same setup shows every
marker (so the checks can fail); acecode's nested runs show none, send no tool,
stay within twice the prompt's size and add no file under ~/.claude/projects.
An older CLI (its --help lacks the lean flags) still learns, and the sessions
it saves are skipped by bootstrap.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from claude_driver import ClaudeHome
from messages_server import MessagesServer, Recorded
from scripted import Script, acecode_role

from acecode.roles.ask import SYSTEM_PROMPT
from support.hang_guard import HANG_GUARD

DATA = Path(__file__).resolve().parents[1] / "data"
SESSION = DATA / "transcripts" / "agtrace" / "claude_session.jsonl"
OLD_HELP = DATA / "claude_cli" / "help-old.txt"
# Every role prompt opens with "You are the <role> of acecode".
ROLE_PROMPT = re.compile(r"You are the [a-z ]+ of acecode")
DIGEST_BLOCK = re.compile(r"<project-instructions>.*?</project-instructions>", re.S)
RULE = "Run pytest from the repository root so the package imports resolve."
MARKERS = {
    "project CLAUDE.md": "PROJECT-MD-MARKER",
    "user CLAUDE.md": "USER-MD-MARKER",
    "skill": "SKILL-MARKER",
    "auto memory": "MEMORY-MARKER",
}


def set_up_user(claude: ClaudeHome, project: Path, traces: Path) -> None:
    """CLAUDE.md files, a skill, auto memory, a hook and an MCP server, each with a marker."""
    claude.trust(project)
    home = claude.home
    (project / "CLAUDE.md").write_text(f"# Project\n{MARKERS['project CLAUDE.md']}: use tabs.\n")
    (home / ".claude" / "CLAUDE.md").write_text(f"{MARKERS['user CLAUDE.md']}: be brief.\n")
    skill = home / ".claude" / "skills" / "notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: notes\ndescription: {MARKERS['skill']} drafts notes\n---\nDraft notes.\n"
    )
    memory = claude.sessions_dir(project) / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(f"- {MARKERS['auto memory']}: staging resets Mondays.\n")
    hook = f"echo fired >> {traces / 'hook'}"
    claude.settings_file.write_text(
        json.dumps(
            {
                "hooks": {
                    event: [{"hooks": [{"type": "command", "command": hook}]}]
                    for event in ("SessionStart", "UserPromptSubmit")
                }
            }
        )
    )
    state = json.loads((home / ".claude.json").read_text())
    state["mcpServers"] = {
        "marker": {"command": "sh", "args": ["-c", f"echo started >> {traces / 'mcp'}; sleep 5"]}
    }
    (home / ".claude.json").write_text(json.dumps(state))


def session_files(claude: ClaudeHome) -> set[Path]:
    projects = claude.home / ".claude" / "projects"
    return {p for p in projects.rglob("*.jsonl")} if projects.exists() else set()


def prompt_bytes(request: Recorded) -> int:
    """System prompt plus the role prompt, as acecode handed them to the CLI."""
    prompt = next(
        block["text"]
        for message in request.body["messages"]
        for block in (message["content"] if isinstance(message["content"], list) else [])
        if block.get("type") == "text" and ROLE_PROMPT.search(block.get("text", ""))
    )
    return len((SYSTEM_PROMPT + prompt).encode("utf-8"))


def acecode(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=project,
        env={**env, "CLAUDE_PROJECT_DIR": str(project)},
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )


def learn(claude: ClaudeHome, project: Path, executable: Path) -> subprocess.CompletedProcess:
    """``acecode learn`` on the stored session, its LLM being the given `claude`."""
    env = claude.env(ACECODE_PROVIDER="claude", ACECODE_CLAUDE_BIN=str(executable))
    # A user's shell does not set it; without it the CLI would title each session.
    env.pop("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")
    return acecode(project, env, "learn", str(project / "session.jsonl"))


@pytest.fixture
def script(server: MessagesServer) -> Script:
    server.responder = Script(
        roles={
            "reflector": {"analysis": "Tests ran from the wrong folder.", "bullet_tags": []},
            "curator": {
                "reasoning": "Record it.",
                "operations": [{"type": "ADD", "section": "MISTAKES TO AVOID", "text": RULE}],
            },
            "safety_review": {"verdicts": [{"id": 1, "verdict": "safe"}]},
        }
    )
    return server.responder


def test_learning_through_the_real_claude_is_lean_and_leaves_no_session(
    claude: ClaudeHome,
    server: MessagesServer,
    script: Script,
    project_dir: Path,
    tmp_path: Path,
) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    set_up_user(claude, project_dir, traces)
    shutil.copy(SESSION, project_dir / "session.jsonl")

    # Control: a plain `claude -p` here shows every marker, fires the hook, starts the server.
    plain = claude.run_print(project_dir, "hello")
    assert plain.returncode == 0, plain.stderr
    control = server.requests[-1]
    for name, marker in MARKERS.items():
        assert marker in control.text, f"the control run lacks the {name}"
    assert control.tool_names
    assert "sonnet" not in control.body["model"]  # the user's default model
    assert (traces / "hook").exists() and (traces / "mcp").exists()
    for trace in traces.iterdir():
        trace.unlink()
    server.requests.clear()
    before = session_files(claude)

    done = learn(claude, project_dir, claude.claude_bin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert RULE in (project_dir / ".claude" / "playbook.json").read_text()

    nested = [r for r in server.requests if r.path.startswith("/v1/messages")]
    roles = sorted(acecode_role(r) for r in nested)
    assert roles == ["curator", "reflector", "safety_review"]  # no title calls
    for request in nested:
        assert request.tool_names == []
        assert request.size <= 2 * prompt_bytes(request), (request.size, prompt_bytes(request))
        # acecode hands the reflector and the curator its own digest of the project's
        # instructions (acecode.instructions.digest); outside it the CLI must add nothing.
        outside = DIGEST_BLOCK.sub("", request.text)
        for name, marker in MARKERS.items():
            assert marker not in outside, f"the nested run carried the {name}"
        assert "sonnet" in request.body["model"]  # the alias, not the user's default model
        assert request.body.get("output_config", {}).get("effort") == "low"
    digests = [DIGEST_BLOCK.search(r.text) for r in nested if acecode_role(r) != "safety_review"]
    assert all(d and MARKERS["project CLAUDE.md"] in d.group() for d in digests), digests
    assert list(traces.iterdir()) == []  # no hook fired, no MCP server started
    assert session_files(claude) == before


def test_an_older_claude_still_learns_and_bootstrap_skips_what_it_saved(
    claude: ClaudeHome,
    server: MessagesServer,
    script: Script,
    project_dir: Path,
    tmp_path: Path,
) -> None:
    # The real CLI behind an older --help: acecode must leave out the flags it lacks.
    old = tmp_path / "old-bin" / "claude"
    old.parent.mkdir()
    old.write_text(
        f'#!/bin/sh\nif [ "$1" = "--help" ]; then cat "{OLD_HELP}"; exit 0; fi\n'
        f'exec "{claude.claude_bin}" "$@"\n'
    )
    old.chmod(0o755)
    shutil.copy(SESSION, project_dir / "session.jsonl")
    claude.trust(project_dir)

    done = learn(claude, project_dir, old)
    assert done.returncode == 0, done.stdout + done.stderr
    assert RULE in (project_dir / ".claude" / "playbook.json").read_text()
    nested = [r for r in server.requests if acecode_role(r) == "reflector"]
    assert nested[0].tool_names, "an old CLI without --tools sends its tools"
    saved = session_files(claude)
    assert len(saved) == 3, saved  # without --no-session-persistence, each call is saved

    env = claude.env(ACECODE_PROVIDER="anthropic", AGENTIC_CONTEXT_BASE_URL=server.url)
    server.requests.clear()
    boot = acecode(project_dir, env, "bootstrap", "--delay", "0")
    assert "skipping 3 of acecode's own nested `claude -p` sessions" in boot.stdout
    assert "no Claude Code sessions of" in boot.stderr
    assert "besides 3 of acecode's own nested runs" in boot.stderr
    assert server.requests == []
