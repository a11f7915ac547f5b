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
"""

from __future__ import annotations

import argparse
import os
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


def _run_once(folder: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, peak RSS KiB) of one ``acecode impact`` subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "acecode", "impact", "--json", "--transcripts", str(folder)],
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


def _row(label: str, folder: Path, repeat: int) -> dict[str, float | int | str]:
    runs = [_run_once(folder) for _ in range(repeat)]
    files, size = _size(folder)
    return {
        "label": label,
        "files": files,
        "mb": size / 1e6,
        "wall": statistics.median(run[0] for run in runs),
        "cpu": statistics.median(run[1] for run in runs),
        "rss": max(run[2] for run in runs) / 1024,
    }


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
    finally:
        shutil.rmtree(env_home, ignore_errors=True)
    print(f"acecode impact on {folder} (median of {args.repeat} runs; peak RSS of the largest)")
    print(f"{'input':<10} {'files':>6} {'MB':>7} {'wall s':>7} {'CPU s':>7} {'peak RSS MB':>12}")
    for row in rows:
        print(
            f"{row['label']:<10} {row['files']:>6} {row['mb']:>7.1f} {row['wall']:>7.2f} "
            f"{row['cpu']:>7.2f} {row['rss']:>12.1f}"
        )
    base, big = rows
    print(
        f"4x input: {big['wall'] / base['wall']:.1f}x the time, "
        f"{big['rss'] / base['rss']:.2f}x the peak memory"
    )
    verdict = "met" if base["wall"] <= GOAL_SECONDS else "MISSED"
    print(f"goal <= {GOAL_SECONDS:.0f} s on the given folder: {verdict} ({base['wall']:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
