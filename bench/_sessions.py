"""A minimal Claude Code session for benchmarks whose scripted model ignores the transcript."""

from __future__ import annotations

import json
from pathlib import Path


def batch_transcript(path: Path, number: int) -> Path:
    """Write a two-record session (one request, one reply) tagged ``BATCH-<number>`` at
    ``path``: the scripted server tells the cycles apart by that tag."""
    records = [
        {"type": "user", "uuid": "u1", "sessionId": f"s{number}",
         "message": {"role": "user", "content": f"BATCH-{number}: tidy up the repository"}},
        {"type": "assistant", "uuid": "a1", "sessionId": f"s{number}",
         "message": {"id": "m1", "role": "assistant",
                     "content": [{"type": "text", "text": "Done."}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
