"""A small project for the experiment tests: a playbook whose entries have failure or
correction provenance, the user's ``experiments`` switch, and session transcripts.

Transcripts are Claude Code JSONL (``tests.impact.history.SessionWriter``), written where
Claude Code keeps them, so that ``acecode impact --rules`` finds them without ``--transcripts``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.impact.history import SessionWriter

from acecode.experiments.files import SALT, experiments_path
from hooks.hook_helpers import run_hook
from support.playbooks import written_here

LEARNED_AT = "2026-03-01T09:00:00+00:00"
# name -> (command, error) of the failure each entry was learned from
FAILURES = {
    "mis-001": ("git push", "fatal: The current branch feat has no upstream branch."),
    "mis-002": ("npm test", "Error: Cannot find module 'jest'"),
    "mis-003": ("cargo build", "error: linker `cc` not found"),
}
CORRECTION = (
    "pref-001",
    "Use the logging module, never print(), for diagnostics in src/.",
    "No, don't use print for debugging output, use the logging module instead.",
)


def entry(name: str, text: str, helpful: int = 0, harmful: int = 0) -> dict[str, Any]:
    return {"name": name, "text": text, "helpful": helpful, "harmful": harmful}


def origin(evidence: dict[str, str], at: str = LEARNED_AT) -> dict[str, Any]:
    return {
        "cycle_id": "20260301-090000-abcdef",
        "at": at,
        "how": "learned",
        "agent": "claude-code",
        "session": "learned-from",
        "reason": "test",
        "evidence": evidence,
    }


FIXED_SALT = "5a" * 16


def write_project(project: Path, extra: list[dict[str, Any]] | None = None) -> Path:
    """The playbook: three failure entries, one correction entry, one without provenance
    (``pat-001``) and ``extra`` PATTERNS entries; returns the playbook's path."""
    mistakes = [
        entry(name, f"Before `{cmd}`, avoid: {err}") for name, (cmd, err) in FAILURES.items()
    ]
    sections = {
        "PATTERNS & APPROACHES": [entry("pat-001", "Keep functions small."), *(extra or [])],
        "MISTAKES TO AVOID": mistakes,
        "USER PREFERENCES": [entry(CORRECTION[0], CORRECTION[1])],
    }
    playbook = project / ".claude" / "playbook.json"
    playbook.parent.mkdir(parents=True, exist_ok=True)
    playbook.write_text(json.dumps({"version": "1.0", "sections": sections}), encoding="utf-8")
    provenance = {
        name: {
            "origins": [origin({"kind": "failure", "tool": "Bash", "command": cmd, "error": err})]
        }
        for name, (cmd, err) in FAILURES.items()
    }
    provenance[CORRECTION[0]] = {"origins": [origin({"kind": "request", "request": CORRECTION[2]})]}
    state = playbook.parent / "acecode"
    state.mkdir(exist_ok=True)
    (state / "provenance.json").write_text(json.dumps({"version": 1, "entries": provenance}))
    # A fixed salt: the hold-back draws are random per project in use, but a test must
    # see the same draws on every run.
    salt = Path(experiments_path(state, SALT))
    salt.parent.mkdir(parents=True, exist_ok=True)
    salt.write_text(FIXED_SALT + "\n", encoding="utf-8")
    return written_here(playbook)  # learned on this machine, as its provenance says


def experiments_on(home: Path, rate: float = 0.2, most: int = 3) -> None:
    config = home / ".claude" / "acecode.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"experiments = true\nholdback_rate = {rate}\nholdback_max = {most}\n")


def sessions_folder(project: Path, home: Path) -> Path:
    from acecode.agents.claude_code.sessions import encode_project_path

    folder = home / ".claude" / "projects" / encode_project_path(project)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_session(
    folder: Path, session: str, day: float, failing: list[str], corrected: bool = False
) -> Path:
    """A transcript in which the failures of the entries ``failing`` happen (and the user
    repeats the logging correction when ``corrected``)."""
    writer = SessionWriter(folder, session, day).prompt("Carry on with the task.")
    writer.bash("ls", "README.md", error=False)
    for name in failing:
        command, error = FAILURES[name]
        writer.bash(command, f"Exit code 1\n{error}", error=True)
    if corrected:
        writer.reply("Added print calls.").prompt(
            "No, again print statements for debugging; use the logging module."
        )
    return writer.reply("Done.").write()


def start_payload(
    session: str, project: Path, transcript: Path | None = None, source: str = "startup"
) -> dict[str, Any]:
    payload: dict[str, Any] = {"session_id": session, "source": source, "cwd": str(project)}
    if transcript is not None:
        payload["transcript_path"] = str(transcript)
    return payload


def exposures(project: Path) -> list[dict[str, Any]]:
    path = project / ".claude" / "acecode" / "experiments" / "exposures.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def run_sessions(project: Path, home: Path, count: int, recurs: dict[str, str]) -> None:
    """``count`` sessions: the hook draws, then the transcript shows each entry's failure
    when ``recurs[name]`` says so: ``"held"`` (only when held back), ``"injected"`` (only
    when injected) or ``"always"``."""
    folder = sessions_folder(project, home)
    for number in range(count):
        session = f"s-{number:03d}"
        transcript = folder / f"{session}.jsonl"
        assert (
            run_hook("session-start", start_payload(session, project, transcript)).returncode == 0
        )
        held = set(exposures(project)[-1].get("held", ()))
        failing = [
            n for n, when in recurs.items() if when == "always" or (n in held) == (when == "held")
        ]
        failing_calls = [n for n in failing if n != CORRECTION[0]]
        write_session(folder, session, 2 + number / 24, failing_calls, CORRECTION[0] in failing)


def acecode(*args: str, code: int | None = 0) -> subprocess.CompletedProcess[str]:
    """Run the CLI; ``code`` is the exit status expected (None: any)."""
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args], capture_output=True, text=True, timeout=300
    )
    assert code is None or result.returncode == code, result.stderr
    return result


def state_folder(project: Path) -> Path:
    return project / ".claude" / "acecode"


def rules_measured(*args: str) -> dict[str, dict[str, Any]]:
    """``acecode impact --rules --json`` (which refreshes the classes), by entry."""
    data = json.loads(acecode("impact", "--rules", "--json", *args).stdout)
    return {item["entry"]: item for item in data["rules"]}
