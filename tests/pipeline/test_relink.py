"""`acecode bootstrap --relink`: provenance written by the old heuristic re-linked, no LLM."""

from __future__ import annotations

import json
from pathlib import Path

from test_provenance_cycle import session

from acecode.store.provenance import load_provenance
from acecode_cli import run_acecode as acecode
from support.pipeline import make_playbook

CMAKE_LOG = "\n".join(
    ["Exit code 1", "-- Configuring incomplete, errors occurred!"]
    + [
        f"-- Looking for the status header {n}: STATUS.md not found in include path"
        for n in range(40)
    ]
    + ["CMake Error at CMakeLists.txt:3 (find_package):"]
)
FAILURES = [
    ("cmake -S . -B build", CMAKE_LOG),
    ("cat status.md", "Exit code 1\ncat: status.md: No such file or directory"),
]
RULE = "The status file is STATUS.md in capitals; `cat status.md` finds nothing."


def old_origin(transcript: str, evidence: dict, how: str = "learned") -> dict:
    """An origin as acecode 0.3 wrote it: no ref, no link, no signature."""
    return {
        "cycle_id": "20260101T000000-aaaa",
        "at": "2026-01-01T00:00:00+00:00",
        "how": how,
        "agent": "claude-code",
        "session": Path(transcript).stem,
        "transcript": transcript,
        "reason": "the session showed it",
        "evidence": evidence,
    }


def test_old_provenance_is_relinked_to_the_failure_its_text_names(project_dir, tmp_path):
    playbook = project_dir / ".claude" / "playbook.json"
    make_playbook(playbook, [RULE, "Prefer small commits.", "Keep the README short."])
    transcript = str(session(tmp_path / "s1.jsonl", ["fix the build"], FAILURES).resolve())
    wrong = {
        "kind": "failure",
        "tool": "Bash",
        "command": "cmake -S . -B build",
        "error": "Exit code 1",
    }
    named = {**wrong, "ref": "F1", "link": "named"}
    state = playbook.parent / "acecode"
    state.mkdir(exist_ok=True)
    ledger = {
        "version": 1,
        "entries": {
            "pat-001": {"origins": [old_origin(transcript, wrong)]},
            "pat-002": {"origins": [old_origin(str(tmp_path / "gone.jsonl"), wrong)]},
            "pat-003": {"origins": [old_origin(transcript, named)]},
        },
    }
    (state / "provenance.json").write_text(json.dumps(ledger), encoding="utf-8")

    done = acecode("bootstrap", "--relink")

    assert done.stdout.strip() == (
        "relinked 1, unchanged 0, already linked 1, transcript gone 1, not from a session 0"
    )
    origins = load_provenance(playbook)
    evidence = origins["pat-001"][0].evidence
    assert (evidence.command, evidence.error, evidence.link) == (
        "cat status.md",
        "cat: status.md: No such file or directory",
        "relinked",
    )
    assert (evidence.head, evidence.error_key) == ("cat", "cat: <path>: No such file or directory")
    assert origins["pat-002"][0].evidence.error == "Exit code 1"  # its session is gone
    assert origins["pat-003"][0].evidence.link == "named"
    again = acecode("bootstrap", "--relink").stdout.strip()
    assert again.startswith("relinked 0, unchanged 0, already linked 2")
