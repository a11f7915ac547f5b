"""A small project history for impact and report tests: transcripts, playbook, provenance,
journal. Transcripts are written in Claude Code's JSONL shape (the records the real CLI
writes: ``user``/``assistant`` with ``message.content`` blocks), four sessions a week apart.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from acecode.agents.claude_code.sessions import sessions_dir
from acecode.store import save_playbook, update_playbook
from acecode.store.provenance import provenance_path

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday: ISO week 2026-W10
PUSH_ERROR = "fatal: The current branch {branch} has no upstream branch."


def _time(day: float) -> str:
    return (START + timedelta(days=day)).isoformat().replace("+00:00", "Z")


class SessionWriter:
    """Builds one transcript file record by record."""

    def __init__(self, folder: Path, session: str, day: float) -> None:
        self.path = folder / f"{session}.jsonl"
        self.session = session
        self.day = day
        self.records: list[dict[str, Any]] = []
        self.calls = 0

    def _record(self, kind: str, content: Any) -> None:
        self.day += 0.001
        self.records.append(
            {
                "type": kind,
                "sessionId": self.session,
                "uuid": f"{self.session}-{len(self.records)}",
                "timestamp": _time(self.day),
                "message": {"role": kind, "content": content, "id": f"m{len(self.records)}"},
            }
        )

    def prompt(self, text: str) -> SessionWriter:
        self._record("user", text)
        return self

    def reply(self, text: str) -> SessionWriter:
        self._record("assistant", [{"type": "text", "text": text}])
        return self

    def bash(self, command: str, output: str, *, error: bool) -> SessionWriter:
        self.calls += 1
        call_id = f"toolu_{self.session}_{self.calls}"
        self._record(
            "assistant",
            [{"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}],
        )
        block = {"type": "tool_result", "tool_use_id": call_id, "content": output}
        if error:
            block["is_error"] = True
        self._record("user", [block])
        return self

    def write(self) -> Path:
        self.path.write_text("".join(json.dumps(r) + "\n" for r in self.records))
        return self.path


def push_failure(writer: SessionWriter, branch: str) -> SessionWriter:
    return writer.bash(
        "git push 2>&1", f"Exit code 128\n{PUSH_ERROR.format(branch=branch)}", error=True
    )


def build_history(project: Path) -> dict[str, Any]:
    """Four sessions (days 0, 7, 14, 21); ``mis-001`` learned on day 10 from session 2's
    failed push; returns the paths and names the tests check."""
    folder = project / "sessions"
    folder.mkdir()
    s1 = push_failure(SessionWriter(folder, "s1", 0).prompt("push it"), "feat-a").write()
    s2 = push_failure(SessionWriter(folder, "s2", 7).prompt("push again"), "feat-b").write()
    s3 = (
        SessionWriter(folder, "s3", 14)
        .prompt("push the fix")
        .reply("Setting the upstream first [mis-001], as the playbook says [pat-002].")
        .bash(
            "git push -u origin fix-c",
            "branch 'fix-c' set up to track 'origin/fix-c'.",
            error=False,
        )
        .write()
    )
    s4 = (
        push_failure(SessionWriter(folder, "s4", 21).prompt("ship"), "feat-d")
        .reply("Forgot again; per [mis-001] I set the upstream.")
        .bash("npm test", "Exit code 1\nError: Cannot find module 'jest'", error=True)
        .write()
    )
    playbook = project / ".claude" / "playbook.json"
    entries = {
        "PATTERNS & APPROACHES": [
            {"name": "pat-001", "text": "Old advice nobody uses.", "helpful": 0, "harmful": 0},
            {"name": "pat-002", "text": "Cited once, long ago.", "helpful": 1, "harmful": 0},
            {"name": "pat-003", "text": "Tagged by the last cycle.", "helpful": 0, "harmful": 0},
            {"name": "pat-004", "text": "Learned yesterday.", "helpful": 0, "harmful": 0},
        ],
        "MISTAKES TO AVOID": [
            {
                "name": "mis-001",
                "text": "Use git push -u origin <branch> on a new branch.",
                "helpful": 2,
                "harmful": 0,
            }
        ],
    }
    save_playbook({"sections": entries}, playbook)
    # The cycle that learned from session 4 rated pat-003 (a journaled counter change).
    with update_playbook(playbook) as txn:
        txn.playbook["sections"]["PATTERNS & APPROACHES"][2]["helpful"] = 1
        txn.meta.update({"kind": "learn", "source": str(s4)})
    origin = {
        "cycle_id": "20260312-100000-abcdef",
        "at": _time(10),
        "how": "learned",
        "agent": "claude-code",
        "session": "s2",
        "transcript": str(s2),
        "reason": "pushes failed without an upstream",
        "evidence": {
            "kind": "failure",
            "tool": "Bash",
            "command": "git push 2>&1",
            "error": PUSH_ERROR.format(branch="feat-b"),
            "request": "",
        },
    }
    young = {**origin, "at": _time(20), "evidence": {"kind": "none"}}
    provenance = {"version": 1, "entries": {"mis-001": {"origins": [origin]}}}
    provenance["entries"]["pat-004"] = {"origins": [young]}
    provenance_path(playbook).write_text(json.dumps(provenance))
    return {"folder": folder, "playbook": playbook, "sessions": [s1, s2, s3, s4]}


def file_as_claude_code(sessions: list[Path], started_in: Path) -> None:
    """Copy ``sessions`` where Claude Code files sessions started in ``started_in``
    (its folder under ``~/.claude/projects``, each record carrying that ``cwd``)."""
    started_in.mkdir(parents=True, exist_ok=True)
    folder = sessions_dir(started_in)
    folder.mkdir(parents=True, exist_ok=True)
    for path in sessions:
        records = [json.loads(line) for line in path.read_text().splitlines()]
        copy = folder / path.name
        copy.write_text("".join(json.dumps({**r, "cwd": str(started_in)}) + "\n" for r in records))
        stat = path.stat()
        os.utime(copy, (stat.st_atime, stat.st_mtime))
