"""Real-model learning cycles through a relay: what a model learns, and what it costs.

The cost bench (``bench/cost_bench.py``) scripts the replies; this script lets a
real model answer instead, through ``../shared/tools/model_relay.py``: each
request acecode sends is written to ``RELAY_DIR/req-NNNN.json`` and the
relay waits for whoever plays the model (someone who has not seen the
expected answers) to write ``RELAY_DIR/resp-NNNN.txt``. Run it once on each
checkout to compare, each in a fresh temporary project and home::

    python bench/relay_learn.py /tmp/relay-main --port 8765 --src ../main/src --label main
    python bench/relay_learn.py /tmp/relay-branch --port 8766 --label branch

Default transcripts: two long sessions of ``../shared/transcripts`` (a
session with many failed calls and user corrections, and a compacted one);
``--transcripts`` names others, and ``--shared tune`` (or ``held-out``, ``all``) the
parts of the shared sessions ``bench/relay_split.py`` set apart, for the reply
lengths the role bounds are set from (``bench/reply_lengths.py``). Every role
is played by the model: reflector, curator, safety review and, when the
embeddings propose similar pairs, the judge. Each cycle is ``python -m acecode
learn FILE`` (by hand: learned whatever its size, no triage, no budget), with
the Anthropic provider pointed at the relay and a one-hour request timeout (the player needs time).

It prints, per cycle, the rules learned (operations applied, with their
text), the tokens and cost per role as the relay reports them (its usage is
characters / 4 of the request body, without a prompt cache: a real API
bills somewhat differently), and at the end the playbook; and it writes all
of it to ``RELAY_DIR/summary-LABEL.json`` for a side-by-side comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p / "shared" for p in ROOT.parents if (p / "shared").is_dir()), ROOT / "shared")
RELAY = SHARED / "tools" / "model_relay.py"
DEFAULT_TRANSCRIPTS = (
    SHARED
    / "transcripts/claude-code-log/-Users-dain-workspace-claude-code-log-sample"
    / "37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl",
    SHARED / "transcripts/spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
)
MODEL = "claude-sonnet-4-6"
# The relay waits for a person or a model to answer: an hour per request.
REQUEST_TIMEOUT = 3600


def start_relay(relay: Path, port: int, folder: Path) -> subprocess.Popen[bytes]:
    """The relay on 127.0.0.1:``port``, once it accepts connections."""
    folder.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [sys.executable, str(relay), str(port), str(folder), "--wait", str(REQUEST_TIMEOUT)]
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"the relay exited with status {process.returncode}") from None
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the relay did not listen on port {port} within 30 s")


def environment(home: Path, project: Path, port: int, src: Path | None) -> dict[str, str]:
    """A clean environment: no key, setting or prompt override of the machine."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ACECODE_", "AGENTIC_CONTEXT_", "ANTHROPIC_", "OPENAI_", "CLAUDE_"))
    }
    env.update(
        HOME=str(home),
        CLAUDE_PROJECT_DIR=str(project),
        ACECODE_PROVIDER="anthropic",
        AGENTIC_CONTEXT_API_KEY="relay",
        AGENTIC_CONTEXT_BASE_URL=f"http://127.0.0.1:{port}",
        AGENTIC_CONTEXT_MODEL=MODEL,
        ACECODE_LLM_TIMEOUT=str(REQUEST_TIMEOUT),
        ACECODE_DAILY_BUDGET_USD="0",
    )
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(src), env.get("PYTHONPATH"))))
    return env


def shared_part(part: str) -> list[Path]:
    """The shared sessions of ``part`` of the committed split (``bench/relay_split.py``)."""
    split = json.loads((ROOT / "bench" / "relay" / "shared-split.json").read_text())
    names = split["tune"] + split["held-out"] if part == "all" else split[part]
    return [SHARED / "transcripts" / name for name in names]


def learned(report: dict[str, Any]) -> list[str]:
    """The operations a cycle applied, one line each, and what it held for review."""
    lines = []
    for op in report.get("operations", []):
        if not op.get("applied"):
            continue
        entry = op.get("created") or op.get("updated_after") or (op.get("removed") or [{}])[0]
        entry = entry.get("entry", entry)
        lines.append(f"{op['type']} {entry.get('name', '?')}: {entry.get('text', '')}")
    lines += [f"HELD {item.get('text', '')}" for item in report.get("held_for_review", [])]
    return lines


def cycle_costs(home: Path) -> dict[str, dict[str, Any]]:
    """The ledger's ``cycle`` records by cycle ID."""
    ledger = home / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
    if not ledger.exists():
        return {}
    records = [json.loads(line) for line in ledger.read_text().splitlines() if line.strip()]
    return {r["cycle_id"]: r for r in records if r.get("kind") == "cycle"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("relay_dir", type=Path, help="folder of the relay's requests and replies")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--transcripts", type=Path, nargs="+", default=list(DEFAULT_TRANSCRIPTS))
    parser.add_argument(
        "--shared",
        choices=("tune", "held-out", "all"),
        help="learn a part of the shared sessions (bench/relay/shared-split.json) instead",
    )
    parser.add_argument("--src", type=Path, help="the src folder of the acecode to run")
    parser.add_argument("--label", default="run", help="names the summary file")
    parser.add_argument("--relay", type=Path, default=RELAY, help="model_relay.py")
    args = parser.parse_args()
    if args.shared:
        args.transcripts = shared_part(args.shared)
    relay = start_relay(args.relay, args.port, args.relay_dir)
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, project = Path(tmp) / "home", Path(tmp) / "project"
            home.mkdir()
            (project / ".claude").mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(project)], check=True)
            env = environment(home, project, args.port, args.src)
            for transcript in args.transcripts:
                print(f"== learning {transcript.name} (answer the requests in {args.relay_dir})")
                done = subprocess.run(
                    [sys.executable, "-m", "acecode", "learn", str(transcript), "--json"],
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=project,
                    check=False,
                )
                if done.returncode not in (0, 1):
                    print(done.stderr, file=sys.stderr)
                    return done.returncode
                for report in json.loads(done.stdout):
                    cost = cycle_costs(home).get(report["cycle_id"], {})
                    row = {
                        "transcript": transcript.name,
                        "status": report["status"],
                        "reason": report["reason"],
                        "learned": learned(report),
                        "roles": cost.get("roles", {}),
                        "cost_usd": cost.get("cost_usd"),
                        "reserved_usd": cost.get("reserved_usd"),
                    }
                    rows.append(row)
                    print_cycle(row)
            playbook = (project / ".claude" / "playbook.json").read_text(encoding="utf-8")
            print("== playbook\n" + playbook)
            summary = {"label": args.label, "cycles": rows, "playbook": json.loads(playbook)}
            out = args.relay_dir / f"summary-{args.label}.json"
            out.write_text(json.dumps(summary, indent=2, ensure_ascii=False))
            print(f"summary written to {out}")
    finally:
        relay.terminate()
        relay.wait(timeout=30)
    return 0


def print_cycle(row: dict[str, Any]) -> None:
    print(f"status {row['status']}" + (f": {row['reason']}" if row["reason"] else ""))
    for line in row["learned"]:
        print(f"  {line}")
    for role, spent in row["roles"].items():
        print(
            f"  {role:14} {spent['calls']} call(s) {spent['input_tokens']:>7,} in "
            f"{spent['output_tokens']:>6,} out  ${spent['cost_usd'] or 0:.4f}"
            + (f"  ({spent['truncated']} cut off at max_tokens)" if spent.get("truncated") else "")
        )
    if row["cost_usd"] is not None:
        print(f"  cycle ${row['cost_usd']:.4f} (reserved ${row['reserved_usd'] or 0:.4f})")


if __name__ == "__main__":
    raise SystemExit(main())
