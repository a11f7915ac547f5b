"""The budget under pressure: 12 cycles in 3 processes at once, replies as long as the bounds
allow, a daily budget of 2.6 times one cycle's worst case.

Run from the repository root (the ``dev`` extra installed)::

    python bench/budget_pressure.py                        # this checkout
    python bench/budget_pressure.py --src ../main/src      # another checkout's code, to compare

Three ``python -m acecode learn A B C D --json`` processes (``--src``: with that
checkout's ``src`` first on ``PYTHONPATH``) start together, each in its own
project, all sharing one home, hence one cost ledger, against a local server
that bills like the Anthropic API (``bench/_billing_anthropic.py``: usage from
what it really receives and sends, ``max_tokens`` enforced with
``stop_reason: "max_tokens"``), at ``claude-sonnet-4-6`` prices. Every reply is
longer than any bound: the reflector's findings, the curator's operations (more
than ten distinct ADDs), the safety review's and the judge's verdicts with
long reasons, so every call is cut at its ``max_tokens`` (a code that asks a cut
reply again gets it cut again at the bigger bound). The sessions are twelve of the
same size (seeded), so one cycle's worst case is one figure: the admission's
estimate of the first cycle of a calibration run in a throwaway home; the daily
budget is 2.6 times it.

Columns: cycles completed (status ok), refused at admission (no LLM call: they
stay due), refused or failed after their first call (the money they spent is
wasted: the goal is 0), spend (the ledger's settled cycles), the budget, and
what the cycles that did not complete spent.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from _billing_anthropic import BillingAnthropic  # noqa: E402
from cost_budget import write_session  # noqa: E402
from support.llm_env import LLM_ENV_VARS  # noqa: E402
from support.pipeline import is_curator, is_judge, is_safety_review, judged_pairs  # noqa: E402

MODEL = "claude-sonnet-4-6"
PROCESSES = 3
CYCLES = 12
BUDGET_FACTOR = 2.6
SESSION_BYTES = 30_000
# Longer than any role's bound (characters; the server counts 4 a token).
REPLY_CHARS = 60_000
VOCABULARY = (
    "run the suite from the repository root with the virtualenv active because the src "
    "layout needs the package installed in editable mode and the fixtures read the config"
)


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(VOCABULARY.split()) for _ in range(words))


def long_reply(system: str, prompt: str) -> str:
    """Every role's reply, as long as a model could make it (each item distinct)."""
    rng = random.Random(len(prompt))
    if is_safety_review(system, prompt):
        items = [{"id": n, "verdict": "safe", "reason": _sentence(rng, 40)} for n in range(1, 400)]
        return json.dumps({"verdicts": items})
    if is_judge(system, prompt):
        pairs = [pair["pair"] for pair in judged_pairs(prompt)] or ["p1"]
        items = [
            {"pair": pairs[n % len(pairs)], "verdict": "different", "reason": _sentence(rng, 40)}
            for n in range(400)
        ]
        return json.dumps({"verdicts": items})
    if is_curator(system, prompt):
        operations = [
            {
                "type": "ADD",
                "text": f"Rule {n} {rng.randrange(10**9)}: {_sentence(rng, 30)}.",
                "section": "PATTERNS & APPROACHES",
                "scope": "project",
            }
            for n in range(200)
        ]
        return json.dumps({"reasoning": _sentence(rng, 25), "operations": operations})
    findings = [f"Finding {n}: {_sentence(rng, 30)}." for n in range(400)]
    return json.dumps({"findings": findings, "tags": []})


def environment(home: Path, server: BillingAnthropic, src: Path | None) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("ACECODE_", "AGENTIC_CONTEXT_", "ANTHROPIC_", "XDG_", "CLAUDE_"))
        and name not in LLM_ENV_VARS
    }
    env.update(server.env(MODEL), HOME=str(home), ACECODE_LLM_TIMEOUT="300")
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(src), env.get("PYTHONPATH"))))
    return env


def project(root: Path, name: str) -> Path:
    folder = root / name
    (folder / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def learn(env: dict[str, str], folder: Path, transcripts: list[Path]) -> list[dict[str, Any]]:
    """One ``acecode learn`` process over ``transcripts``; its cycles' reports."""
    done = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", *map(str, transcripts), "--json"],
        env={**env, "CLAUDE_PROJECT_DIR": str(folder)},
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise SystemExit(f"acecode learn gave no report: {done.stderr[-2000:]}") from None


def worst_case(tmp: Path, server: BillingAnthropic, src: Path | None, samples: list[Path]) -> float:
    """One cycle's worst case: the admission's estimate of the first cycle of a burst (as
    in the run: several transcripts to one process ask for the one-hour cache) in a
    throwaway home."""
    home = tmp / "calibration-home"
    home.mkdir()
    learn(environment(home, server, src), project(tmp, "calibration"), samples)
    ledger = home / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
    reserve = next(
        json.loads(line) for line in ledger.read_text().splitlines() if '"reserve"' in line
    )
    return float(reserve["estimate_usd"])


def run(src: Path | None, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder, BillingAnthropic(long_reply) as server:
        tmp = Path(folder)
        sessions = tmp / "sessions"
        sessions.mkdir()
        paths = []
        for index in range(CYCLES + 2):
            path = sessions / f"session{index:02d}.jsonl"
            write_session(path, SESSION_BYTES, rng)
            paths.append(path)
        worst = worst_case(tmp, server, src, paths[CYCLES:])
        budget = BUDGET_FACTOR * worst
        home = tmp / "home"
        home.mkdir()
        env = {**environment(home, server, src), "ACECODE_DAILY_BUDGET_USD": f"{budget:.6f}"}
        calls_before = len(server.bodies)
        reports: list[dict[str, Any]] = []
        lock = threading.Lock()

        def lane(number: int) -> None:
            mine = paths[number:CYCLES:PROCESSES]
            result = learn(env, project(tmp, f"project{number}"), mine)
            with lock:
                reports.extend(result)

        threads = [threading.Thread(target=lane, args=(n,)) for n in range(PROCESSES)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        ledger = home / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
        records = [json.loads(line) for line in ledger.read_text().splitlines()]
        return summarize(reports, records, worst, budget, len(server.bodies) - calls_before)


def summarize(
    reports: list[dict[str, Any]],
    records: list[dict[str, Any]],
    worst: float,
    budget: float,
    calls: int,
) -> dict[str, Any]:
    spent = {r["cycle_id"]: r for r in records if r.get("kind") == "cycle"}
    completed = [r for r in reports if r["status"] == "ok"]
    called = [r for r in reports if r["cycle_id"] in spent]
    admission = [r for r in reports if r["cycle_id"] not in spent]
    after_first = [r for r in called if r["status"] != "ok"]
    wasted = sum(spent[r["cycle_id"]]["cost_usd"] or 0.0 for r in after_first)
    return {
        "cycles": len(reports),
        "completed": len(completed),
        "refused_at_admission": len(admission),
        "refused_after_first_call": len(after_first),
        "why": sorted({r["reason"][:90] for r in after_first}),
        "spend": sum(r["cost_usd"] or 0.0 for r in spent.values()),
        "budget": budget,
        "worst": worst,
        "wasted": wasted,
        "calls": calls,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="the src folder of the acecode to measure")
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    row = run(args.src, args.seed)
    print(
        f"{CYCLES} cycles in {PROCESSES} processes, {MODEL}, one cycle's worst case "
        f"${row['worst']:.4f}, daily budget {BUDGET_FACTOR} x that = ${row['budget']:.4f}"
    )
    print(
        f"{'completed':>9} {'refused at admission':>20} {'refused after 1st call':>22} "
        f"{'spend':>8} {'budget':>8} {'spend <= budget':>15} {'wasted':>8} {'LLM calls':>9}"
    )
    print(
        f"{row['completed']:>9} {row['refused_at_admission']:>20} "
        f"{row['refused_after_first_call']:>22} ${row['spend']:>7.4f} ${row['budget']:>7.4f} "
        f"{'yes' if row['spend'] <= row['budget'] + 1e-9 else 'NO':>15} ${row['wasted']:>7.4f} "
        f"{row['calls']:>9}"
    )
    for reason in row["why"]:
        print(f"  after its first call: {reason}")


if __name__ == "__main__":
    main()
