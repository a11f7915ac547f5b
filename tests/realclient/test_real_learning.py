"""A real Claude Code session teaches the next one: failed tool calls reach the reflector,
the curator's rule lands in playbook.json, and the next session's model request carries it.

The coding agent's Bash calls really run (and really fail) inside the CLI; acecode's
background learner is started by the real SessionEnd/SubagentStop hooks and talks to
the same scripted server through the Anthropic provider.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Recorded, Reply
from scripted import Script, acecode_role, bash, is_agent_turn, subagent

from support.hang_guard import HANG_GUARD, wait_until

MISSING_DIR = "ls /nonexistent-acecode-reports"
MISSING_MODULE = "python3 -c 'import acecode_missing_module'"
SUBAGENT_TASK = "SUBTASK: inspect the application log"
SUBAGENT_COMMAND = "cat /nonexistent-acecode-logs/app.log"
MAIN_RULE = "Check that a folder exists with test -d before listing it."
SUBAGENT_RULE = "The application log is not on this machine; ask the user for a copy."


SUBAGENT_ANALYSIS = "The subagent could not read the application log."


def reflection_for(request: Recorded) -> dict:
    """The reflector's answer names which transcript it read, so the curator can tell."""
    if SUBAGENT_COMMAND in request.text:
        return {"analysis": SUBAGENT_ANALYSIS, "bullet_tags": []}
    return {
        "analysis": "Commands failed because paths and modules were missing.",
        "bullet_tags": [],
    }


def curation_for(rule: str) -> dict:
    return {
        "reasoning": "Record the lesson from the failed commands.",
        "operations": [{"type": "ADD", "section": "MISTAKES TO AVOID", "text": rule}],
    }


def install(claude: ClaudeHome, project: Path) -> None:
    """``acecode install`` as a user runs it, then allow Bash so scripted calls run unprompted."""
    done = subprocess.run(
        [sys.executable, "-m", "acecode", "install"],
        cwd=project,
        env=claude.env(),
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert done.returncode == 0, done.stderr
    settings = json.loads(claude.settings_file.read_text())
    settings["permissions"] = {"allow": ["Bash"]}
    claude.settings_file.write_text(json.dumps(settings))


def wait_for_rule(project: Path, rule: str, playbook: Path | None = None) -> None:
    """Wait until ``rule`` is in ``playbook`` (default: the project's) and the cycle that
    wrote it has finished: its last write, the record in ``cycles.jsonl``, is newer than
    the playbook. A cycle writes the playbook first and its journal, provenance, report,
    learned marks and record after it, so a test that read them as soon as the rule
    appeared raced the learner. The learner's log is in the failure message."""
    playbook = playbook or project / ".claude" / "playbook.json"
    state = project / ".claude" / "acecode"
    log, cycles = state / "logs" / "learn.log", state / "cycles.jsonl"

    def done() -> bool:
        if not (playbook.exists() and rule in playbook.read_text()):
            return False
        return cycles.exists() and cycles.stat().st_mtime_ns >= playbook.stat().st_mtime_ns

    wait_until(
        done,
        lambda: (
            f"{rule!r} in {playbook} and its cycle recorded in {cycles}; learn.log:\n"
            + (log.read_text() if log.exists() else "(none)")
        ),
    )


def reflector_inputs(server: MessagesServer) -> list[str]:
    return [r.text for r in server.matching(lambda r: acecode_role(r) == "reflector")]


def test_a_finished_claude_p_session_is_learned_and_taught_to_the_next(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    server.responder = Script(
        agent=(
            Reply(tool_calls=(bash(MISSING_DIR),)),
            Reply(tool_calls=(bash(MISSING_MODULE),)),
            Reply("The reports folder does not exist here."),
        ),
        roles={"reflector": reflection_for, "curator": curation_for(MAIN_RULE)},
    )
    install(claude, project_dir)

    first = claude.run_print(project_dir, "List the reports folder and import the module.")
    assert first.returncode == 0, first.stderr
    wait_for_rule(project_dir, MAIN_RULE)

    (learned,) = reflector_inputs(server)
    assert MISSING_DIR in learned and "No such file or directory" in learned
    assert MISSING_MODULE in learned and "ModuleNotFoundError" in learned

    server.requests.clear()
    second = claude.run_print(project_dir, "Where are the reports?")
    assert second.returncode == 0, second.stderr
    assert MAIN_RULE in server.matching(is_agent_turn)[0].text


def test_a_subagent_transcript_is_learned_at_subagent_stop(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path
) -> None:
    def curation(request: Recorded) -> dict:
        from_subagent = SUBAGENT_ANALYSIS in request.text
        return curation_for(SUBAGENT_RULE if from_subagent else MAIN_RULE)

    server.responder = Script(
        agent=(Reply(tool_calls=(subagent(SUBAGENT_TASK),)), Reply("The subagent reported.")),
        subagent_task=SUBAGENT_TASK,
        subagent=(Reply(tool_calls=(bash(SUBAGENT_COMMAND),)), Reply("The log is missing.")),
        roles={"reflector": reflection_for, "curator": curation},
    )
    install(claude, project_dir)

    result = claude.run_print(project_dir, "Ask a subagent to inspect the application log.")
    assert result.returncode == 0, result.stderr
    wait_for_rule(project_dir, SUBAGENT_RULE)

    from_subagent = [text for text in reflector_inputs(server) if SUBAGENT_COMMAND in text]
    assert from_subagent, "the subagent's own transcript never reached the reflector"
    assert "No such file or directory" in from_subagent[0]
    log = (project_dir / ".claude" / "acecode" / "logs" / "learn.log").read_text()
    assert "subagent-stop: learning from" in log and "/subagents/agent-" in log
