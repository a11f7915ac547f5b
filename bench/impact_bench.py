"""``acecode impact`` benchmark: time and peak memory on a folder of real transcripts.

Run ``python bench/impact_bench.py [--transcripts DIR] [--repeat N]``. The
folder defaults to ``../shared/transcripts`` beside the repository (falling
back to ``tests/data/transcripts``). Each row runs the command a user runs,
``python -m acecode impact --json --transcripts DIR``, as a subprocess, N
times, and reports the median wall time, the CPU time and the peak resident
memory of the slowest run. The second row reads the same files copied four
times over, so the ratio of the two rows shows how time and memory grow
with the amount of history (streamed: memory should stay nearly flat).
Goal: at most 10 s on the shared transcripts.

The last two rows run ``acecode impact --rules --json`` on the same folder for a
project of 300 entries, each learned from one of the real failed calls of
``tests/data/failure_signatures.json`` (cycled), with experiments on and one
hold-back draw (all 300 entries drawn, 3 held back) recorded for every main
transcript of the folder: "cold" deletes the outcome cache before each run (every
experiment session's transcript is read again), "warm" keeps it (the usual case:
the background learner has read each session when it ended). Same goal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = (ROOT.parent / "shared" / "transcripts", ROOT / "tests" / "data" / "transcripts")
GOAL_SECONDS = 10.0


def _size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*.jsonl") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


RULES_ENTRIES = 300
SIGNATURES = ROOT / "tests" / "data" / "failure_signatures.json"


def _run_once(
    folder: Path, extra: tuple[str, ...] = (), before_run: Path | None = None
) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of one ``acecode impact`` subprocess; ``before_run`` is
    a file deleted first (the outcome cache of the cold rows)."""
    if before_run is not None:
        before_run.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "impact", "--json", "--transcripts", str(folder), *extra],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"acecode impact failed on {folder}: {result.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # ru_maxrss of children is the largest any child reached so far (KiB on Linux).
    return wall, cpu, after.ru_maxrss


def _row(
    label: str,
    folder: Path,
    repeat: int,
    extra: tuple[str, ...] = (),
    before_run: Path | None = None,
) -> dict[str, float | int | str]:
    runs = [_run_once(folder, extra, before_run) for _ in range(repeat)]
    files, size = _size(folder)
    return {
        "label": label,
        "files": files,
        "mb": size / 1e6,
        "wall": statistics.median(run[0] for run in runs),
        "cpu": statistics.median(run[1] for run in runs),
        "rss": max(run[2] for run in runs) / 1024,
    }


def _experiment_project(project: Path, folder: Path) -> Path:
    """A 300-entry playbook learned from real failures, with experiments on and one draw per
    main transcript of ``folder``; returns the playbook's path."""
    cases = json.loads(SIGNATURES.read_text(encoding="utf-8"))["cases"]
    failures = [case for case in cases if not case.get("not_a_failure")]
    rng = random.Random(20)
    entries, origins = [], {}
    for number in range(RULES_ENTRIES):
        case = failures[number % len(failures)]
        name = f"mis-{number + 1:03d}"
        entries.append(
            {"name": name, "text": f"Avoid: {case['output'][:120]}", "helpful": 0, "harmful": 0}
        )
        evidence = {
            "kind": "failure",
            "tool": case["tool"],
            "command": case["command"],
            "error": case["output"],
        }
        origins[name] = {
            "origins": [
                {
                    "cycle_id": "20250101-000000-000000",
                    "at": "2025-01-01T00:00:00+00:00",
                    "how": "learned",
                    "agent": "claude-code",
                    "evidence": evidence,
                }
            ]
        }
    playbook = project / ".claude" / "playbook.json"
    state = playbook.parent / "acecode" / "experiments"
    state.mkdir(parents=True)
    playbook.write_text(json.dumps({"version": "1.0", "sections": {"MISTAKES TO AVOID": entries}}))
    (playbook.parent / "acecode" / "provenance.json").write_text(
        json.dumps({"version": 1, "entries": origins})
    )
    names = [entry["name"] for entry in entries]
    mains = [
        p
        for p in sorted(folder.rglob("*.jsonl"))
        if p.parent.name != "subagents" and not p.name.startswith("agent-")
    ]
    records = [
        {
            "at": "2026-03-02T09:00:00Z",
            "session": path.stem,
            "agent": "claude-code",
            "event": "start",
            "transcript": str(path),
            "entries": [],
            "drawn": names,
            "held": rng.sample(names, 3),
            "rate": 0.2,
            "max": 3,
        }
        for path in mains
    ]
    (state / "exposures.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return playbook


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=Path, help="folder of transcripts to read")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row (median)")
    args = parser.parse_args()
    folder = args.transcripts or next((c for c in CANDIDATES if c.is_dir()), None)
    if folder is None or not folder.is_dir():
        print("no transcripts folder found; pass --transcripts DIR", file=sys.stderr)
        return 1
    env_home = tempfile.mkdtemp(prefix="acecode-impact-bench-")
    os.environ["HOME"] = env_home  # never read the developer's own playbook or sessions
    os.environ["CLAUDE_PROJECT_DIR"] = env_home
    try:
        rows = [_row("as given", folder, args.repeat)]
        copies = Path(env_home) / "x4"
        for n in range(4):
            shutil.copytree(folder, copies / f"copy{n}")
        rows.append(_row("copied 4x", copies, args.repeat))
        project = Path(env_home) / "project"
        playbook = _experiment_project(project, folder)
        (Path(env_home) / ".claude").mkdir(exist_ok=True)
        (Path(env_home) / ".claude" / "acecode.toml").write_text("experiments = true\n")
        rules = ("--rules", "--playbook", str(playbook))
        cache = playbook.parent / "acecode" / "experiments" / "outcomes.jsonl"
        rows.append(_row("--rules cold", folder, args.repeat, rules, cache))
        rows.append(_row("--rules warm", folder, args.repeat, rules))
    finally:
        shutil.rmtree(env_home, ignore_errors=True)
    print(f"acecode impact on {folder} (median of {args.repeat} runs; peak RSS of the largest)")
    print(f"{'input':<13} {'files':>6} {'MB':>7} {'wall s':>7} {'CPU s':>7} {'peak RSS MB':>12}")
    for row in rows:
        print(
            f"{row['label']:<13} {row['files']:>6} {row['mb']:>7.1f} {row['wall']:>7.2f} "
            f"{row['cpu']:>7.2f} {row['rss']:>12.1f}"
        )
    base, big, cold, warm = rows
    print(
        f"4x input: {big['wall'] / base['wall']:.1f}x the time, "
        f"{big['rss'] / base['rss']:.2f}x the peak memory"
    )
    for row in (base, cold, warm):
        verdict = "met" if row["wall"] <= GOAL_SECONDS else "MISSED"
        print(f"goal <= {GOAL_SECONDS:.0f} s, {row['label']}: {verdict} ({row['wall']:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
