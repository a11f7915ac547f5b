"""Find the subagent transcripts that belong to a session.

Claude Code 2.1+ writes them to ``<session-id>/subagents/agent-<id>.jsonl``
beside the session file; older versions wrote ``agent-<id>.jsonl`` straight
beside it, linked to their session only by the ``sessionId`` in each record.
"""

from __future__ import annotations

import json
from pathlib import Path

# How many leading lines to look through for a legacy file's sessionId.
_PROBE_LINES = 20
_PROBE_LINE_BYTES = 1024 * 1024


def find_subagent_transcripts(session_path: Path, include_compaction: bool = False) -> list[Path]:
    """The subagent transcripts of ``session_path``, sorted by path.

    ``agent-acompact-*`` files are the side-agent Claude Code runs to write a
    compaction summary; they repeat the session rather than add work, so they
    are left out unless ``include_compaction`` is set.
    """
    session_path = Path(session_path)
    session_id = session_path.stem
    folder = session_path.parent
    found: list[Path] = []
    nested = folder / session_id / "subagents"
    if nested.is_dir():
        found.extend(nested.glob("agent-*.jsonl"))
    for candidate in folder.glob("agent-*.jsonl"):
        if _session_id_of(candidate) == session_id:
            found.append(candidate)
    if not include_compaction:
        found = [p for p in found if not p.name.startswith("agent-acompact")]
    return sorted(found)


def _session_id_of(path: Path) -> str | None:
    """The sessionId named by the first records of a legacy subagent file."""
    try:
        with path.open("rb") as handle:
            for _ in range(_PROBE_LINES):
                line = handle.readline(_PROBE_LINE_BYTES)
                if not line:
                    return None
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("sessionId"):
                    return str(record["sessionId"])
    except OSError:
        return None
    return None
