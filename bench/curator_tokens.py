"""Curator prompt tokens and total tokens per learning cycle against playbook size.

One command: ``python bench/curator_tokens.py``. For playbooks of 50, 500 and
5,000 entries (generated with ``_corpus.playbook_sections``: varied texts in
all five sections, some with counters), one real learning cycle
(``acecode.pipeline.run_cycle_sync``) on the same transcript
(``tests/data/transcripts/agtrace/claude_session.jsonl``), against a scripted
Anthropic server on 127.0.0.1 that keeps every request body. The reflector
tags two entries and the curator proposes one ADD, the same at every size.

Tokens are what the server reports, acecode's estimate of the request
(about 4 characters per token), so sizes compare within one run. Embeddings
are switched off (``ACECODE_EMBED_BACKEND=none``): the judge and the de-dup
ladder then make no call, and the table measures the reflector, the curator
and the safety review. The goal (issue 12): curator tokens at 5,000 entries
at most 1.2x those at 500.

Run it on another checkout by putting that checkout's ``src`` first on
``PYTHONPATH``; the script uses only ``run_cycle_sync`` and ``save_playbook``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _corpus import playbook_sections
from _scripted_anthropic import ScriptedAnthropic
from acecode.llm.usage import estimate_tokens

SIZES = (50, 500, 5_000)
TRANSCRIPT = Path(__file__).parent.parent / "tests/data/transcripts/agtrace/claude_session.jsonl"
REFLECTION = {
    "analysis": "The session added a CLI flag; the tests failed until the parser "
    "fixture was updated. Updating the pytest fixtures first would have saved a run.",
    "bullet_tags": [
        {"name": "pat-001", "tag": "helpful", "rationale": "the fixtures advice applied"},
        {"name": "mis-002", "tag": "neutral", "rationale": "not relevant this time"},
    ],
}
CURATION = {
    "reasoning": "One new lesson.",
    "operations": [
        {
            "type": "ADD",
            "text": "Update the CLI parser fixture in tests before adding a new flag.",
            "section": "PATTERNS & APPROACHES",
        }
    ],
}


def role_of(system: str, prompt: str) -> str:
    text = (system + prompt).lower()
    for role in ("curator", "safety reviewer", "judge"):
        if f"you are the {role}" in text:
            return role
    return "reflector"


def route(system: str, prompt: str) -> str:
    role = role_of(system, prompt)
    if role == "curator":
        return json.dumps(CURATION)
    if role == "safety reviewer":
        start = prompt.index("[")
        items, _ = json.JSONDecoder().raw_decode(prompt, start)
        return json.dumps({"verdicts": [{"id": i["id"], "verdict": "safe"} for i in items]})
    return json.dumps(REFLECTION)


def one_cycle(size: int, server: ScriptedAnthropic) -> dict[str, object]:
    from acecode.pipeline import run_cycle_sync
    from acecode.store import save_playbook

    with tempfile.TemporaryDirectory(prefix="acecode-curator-bench-") as folder:
        project = Path(folder)
        (project / ".claude").mkdir()
        playbook = project / ".claude" / "playbook.json"
        save_playbook({"sections": playbook_sections(size)}, playbook)
        transcript = project / "session.jsonl"
        shutil.copy(TRANSCRIPT, transcript)
        os.environ["CLAUDE_PROJECT_DIR"] = str(project)
        first = len(server.received)
        report = run_cycle_sync(transcript, playbook_path=playbook)
        requests = server.received[first:]
    curator = [estimate_tokens(s + p) for s, p in requests if role_of(s, p) == "curator"]
    reflector = [estimate_tokens(s + p) for s, p in requests if role_of(s, p) == "reflector"]
    return {
        "size": size,
        "status": report.status,
        "curator": sum(curator),
        "reflector": sum(reflector),
        "total": report.tokens.get("total_tokens", 0),
        "shown": (report.as_dict().get("curator_view") or {}).get("shown", "all"),
    }


def main() -> None:
    os.environ["ACECODE_EMBED_BACKEND"] = "none"
    with ScriptedAnthropic(route) as server:
        os.environ.update(server.env())
        rows = [one_cycle(size, server) for size in SIZES]
    print(
        "| entries | status | shown to curator | curator prompt tokens "
        "| reflector prompt tokens | total tokens per cycle |"
    )
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['size']:,} | {row['status']} | {row['shown']} | {row['curator']:,} "
            f"| {row['reflector']:,} | {row['total']:,} |"
        )
    by_size = {row["size"]: row for row in rows}
    ratio = int(by_size[5_000]["curator"]) / max(int(by_size[500]["curator"]), 1)
    total_ratio = int(by_size[5_000]["total"]) / max(int(by_size[500]["total"]), 1)
    print(f"\ncurator tokens 5,000 / 500: {ratio:.2f}x (goal <= 1.2x)")
    print(f"total tokens 5,000 / 500: {total_ratio:.2f}x")


if __name__ == "__main__":
    main()
