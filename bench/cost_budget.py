"""Budget guard: 50 learning cycles against a daily budget the run crosses half way.

Run from the repository root (the ``dev`` extra installed)::

    python bench/cost_budget.py                  # sequential, then 4 processes at once
    python bench/cost_budget.py --cycles 20 --budget 2 --model claude-opus-4-1

Each cycle is the real ``run_cycle`` on its own transcript (sizes 2-40 KB,
seeded), in one of several projects that share one home folder, hence one
user cost ledger. A scripted server on 127.0.0.1 speaks the Anthropic Messages
wire protocol: it plays the reflector (one helpful tag), a curator that ADDs a
rule, the safety review (all safe) and the judge, and reports usage as the
tokens of what it really received and sent, at 4 characters per token. The
model is ``claude-opus-4-1`` ($15 / $75 per million tokens in acecode's price
table), so a cycle costs about $0.1 and the default $4 budget is crossed
after about half of the cycles.

Columns: cycles run (admitted), skipped for the budget (no LLM call),
spend (settled, from the ledger), the budget, max overshoot (spend over the
budget at any point; the goal is 0), the share of the budget left unused at
the end (the price of admitting on a worst case), and how the admission estimate compared with
what admitted cycles really cost (estimate / actual, min and median).

The estimate is an upper bound of everything the cycle can send
(``acecode.cost.estimate``): prompts at 3 UTF-8 bytes per token and every
call's ``max_tokens`` as its output, the judge's planned pairs and a safety
review of the most texts the curator may write included; every call draws on
it, and the budget is not asked again after the first call. The server counts
4 characters per token, a typical ratio for English and code; text that
tokenizes denser than 3 bytes per token would make the bound too low, and the
overshoot here would then not be 0. ``bench/budget_pressure.py`` is the same
guard under pressure: replies as long as the bounds allow.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from _scripted_anthropic import ScriptedAnthropic  # noqa: E402
from support.llm_env import LLM_ENV_VARS  # noqa: E402
from support.pipeline import (  # noqa: E402
    all_safe,
    is_curator,
    is_judge,
    is_safety_review,
    judge_reply,
)

WORDS = (
    "pytest fails because the fixture reads the config from the wrong folder and the import "
    "path misses the src layout so run it from the project root with the venv"
)


def route(system: str, prompt: str) -> str:
    """Reflector, curator, safety review and judge replies of a plausible size."""
    if is_safety_review(system, prompt):
        return all_safe(prompt)
    if is_judge(system, prompt):
        return judge_reply(prompt, lambda a, b: "different")
    if is_curator(system, prompt):
        tag = abs(hash(prompt)) % 1_000_000
        text = f"Run the test suite from the project root (case {tag}) so imports resolve."
        op = {"type": "ADD", "section": "PATTERNS & APPROACHES", "text": text}
        return json.dumps({"reasoning": "The session showed how to run tests.", "operations": [op]})
    analysis = "The agent ran pytest from a subfolder; imports failed until it ran from the root."
    return json.dumps({"analysis": analysis, "bullet_tags": []})


def write_session(path: Path, size: int, rng: random.Random) -> None:
    """A session of about ``size`` bytes: requests, failing tool calls, replies."""
    records: list[dict[str, Any]] = []
    turn = 0
    while sum(len(json.dumps(r)) for r in records) < size:
        turn += 1
        words = " ".join(rng.choice(WORDS.split()) for _ in range(60))
        records += [
            {
                "type": "user",
                "uuid": f"u{turn}",
                "sessionId": "s",
                "message": {"role": "user", "content": f"Request {turn}: {words}"},
            },
            {
                "type": "assistant",
                "uuid": f"a{turn}",
                "sessionId": "s",
                "message": {
                    "id": f"m{turn}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"t{turn}",
                            "name": "Bash",
                            "input": {"command": f"pytest tests/test_{turn}.py"},
                        }
                    ],
                },
            },
            {
                "type": "user",
                "uuid": f"r{turn}",
                "sessionId": "s",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{turn}",
                            "is_error": True,
                            "content": f"ModuleNotFoundError: No module named 'app{turn}' {words}",
                        }
                    ],
                },
            },
            {
                "type": "assistant",
                "uuid": f"b{turn}",
                "sessionId": "s",
                "message": {
                    "id": f"n{turn}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"Fixed: {words}"}],
                },
            },
        ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Job:
    """One worker's share: its project and transcripts, and the shared settings."""

    home: str
    project: str
    transcripts: tuple[str, ...]
    env: dict[str, str]


def run_jobs(job: Job) -> list[dict[str, Any]]:
    """Run ``job``'s cycles one after the other in this process; one row per cycle."""
    for name in list(os.environ):
        if name.startswith(("ACECODE_", "AGENTIC_CONTEXT_", "ANTHROPIC_", "XDG_")) or (
            name in LLM_ENV_VARS
        ):
            del os.environ[name]
    os.environ.update(job.env, HOME=job.home, CLAUDE_PROJECT_DIR=job.project)
    from acecode.pipeline import run_cycle_sync

    rows = []
    for transcript in job.transcripts:
        report = run_cycle_sync(transcript, source="hook")
        rows.append(
            {
                "status": report.status,
                "reason": report.reason,
                "over_budget": bool(report.cost.get("over_budget")),
                "usd": report.cost.get("usd"),
                "estimate": (report.cost.get("estimate") or {}).get("usd"),
            }
        )
    return rows


def run(cycles: int, budget: float, model: str, workers: int, seed: int) -> dict[str, Any]:
    """One run in a fresh home: ``cycles`` cycles over ``workers`` processes."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp, ScriptedAnthropic(route) as server:
        home = Path(tmp) / "home"
        home.mkdir()
        env = {
            **server.env(),
            "AGENTIC_CONTEXT_MODEL": model,
            "ACECODE_DAILY_BUDGET_USD": str(budget),
            "ACECODE_LEARN_MIN_REQUESTS": "0",
            "ACECODE_LEARN_MIN_TOOL_CALLS": "0",
        }
        jobs = []
        for worker in range(workers):
            project = Path(tmp) / f"project{worker}"
            (project / ".claude").mkdir(parents=True)
            transcripts = []
            for index in range(worker, cycles, workers):
                path = project / f"session{index:02d}.jsonl"
                write_session(path, rng.randint(2_000, 40_000), rng)
                transcripts.append(str(path))
            jobs.append(Job(str(home), str(project), tuple(transcripts), env))
        if workers == 1:
            rows = run_jobs(jobs[0])
        else:
            with ProcessPoolExecutor(workers) as pool:
                rows = [row for result in pool.map(run_jobs, jobs) for row in result]
        ledger = home / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
        lines = ledger.read_text().splitlines() if ledger.exists() else []
        records = [json.loads(line) for line in lines]
        settled = [r for r in records if r["kind"] == "cycle"]
        spend = sum(r["cost_usd"] or 0.0 for r in settled)
        # Spend only grows as cycles settle, so its highest point is the final total.
        reserves = [r for r in records if r["kind"] == "reserve"]
        ratios = [r["estimate"] / r["usd"] for r in rows if r["usd"] and r["estimate"] is not None]
        return {
            "workers": workers,
            "run": sum(1 for r in rows if not r["over_budget"]),
            "skipped": sum(1 for r in rows if r["over_budget"]),
            "spend": spend,
            "budget": budget,
            "overshoot": max(0.0, spend - budget),
            "unused": max(0.0, budget - spend) / budget,
            "ratio_min": min(ratios) if ratios else float("nan"),
            "ratio_median": statistics.median(ratios) if ratios else float("nan"),
            "calls": server.requests,
            "reserves": len(reserves),
            "failed": sum(1 for r in rows if r["status"] == "failed"),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=50)
    parser.add_argument("--budget", type=float, default=4.0, help="daily budget, USD")
    parser.add_argument("--model", default="claude-opus-4-1")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    print(f"{args.cycles} cycles, model {args.model}, daily budget ${args.budget:.2f}")
    header = (
        f"{'processes':>9} {'run':>4} {'skipped':>7} {'failed':>6} {'spend':>8} {'budget':>7} "
        f"{'overshoot':>9} {'unused':>7} {'est/actual min':>14} {'median':>6} {'LLM calls':>9}"
    )
    print(header)
    for workers in (1, 4):
        row = run(args.cycles, args.budget, args.model, workers, args.seed)
        print(
            f"{row['workers']:>9} {row['run']:>4} {row['skipped']:>7} {row['failed']:>6} "
            f"${row['spend']:>7.4f} ${row['budget']:>6.2f} ${row['overshoot']:>8.4f} "
            f"{row['unused']:>6.0%} {row['ratio_min']:>14.1f} {row['ratio_median']:>6.1f} "
            f"{row['calls']:>9}"
        )


if __name__ == "__main__":
    main()
