"""De-duplication time for 50, 500 and 2,000 entries, cold and warm.

Usage: ``python bench/dedup_bench.py [--sizes 50 500 2000]`` (needs ``acecode[embed]``).

Every measurement runs in a fresh child process, so nothing is shared but the
cache file on disk:

- import: ``import acecode.dedup`` plus numpy, onnxruntime and tokenizers, the
  modules a pass needs (shown separately, paid once per process).
- cold: empty cache; the pass loads the model and embeds every entry.
- warm: cache filled by the cold run, 5 entries replaced by new texts; the
  pass loads the model (a fresh process has to) and embeds those 5.
- warm, model loaded: a second warm pass (5 other new texts) in the same
  process, as in ``acecode bootstrap`` running many cycles in one process.

CPU is ``time.process_time()`` (all threads of the process); wall is
``time.perf_counter()``. The goal from issue #6 is a warm 500-entry pass under
0.3 s of CPU.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
NEW_PER_WARM = 5


def _playbook(texts: list[str]) -> dict:
    from acecode.playbook.schema import SECTION_NAMES

    sections: dict[str, list[dict]] = {name: [] for name in SECTION_NAMES}
    for i, text in enumerate(texts):
        section = SECTION_NAMES[i % len(SECTION_NAMES)]
        sections[section].append({"name": f"e-{i:04d}", "text": text, "helpful": 1, "harmful": 0})
    return {"version": "1.0", "last_updated": None, "sections": sections}


def _timed(fn):  # type: ignore[no-untyped-def]
    w0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.process_time() - c0, time.perf_counter() - w0


def _child(size: int, cache_path: str, phase: str) -> dict[str, float]:
    """One measurement in this fresh process; prints JSON figures."""
    sys.path.insert(0, str(BENCH_DIR))
    from _corpus import coding_tips

    def do_imports() -> None:
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401

        import acecode.dedup  # noqa: F401

    _, import_cpu, import_wall = _timed(do_imports)
    from acecode.dedup import EmbeddingCache, deduplicate

    cache = EmbeddingCache(Path(cache_path))
    texts = coding_tips(size + 2 * NEW_PER_WARM)
    base, extra = texts[:size], texts[size:]
    figures = {"import_cpu": import_cpu, "import_wall": import_wall}
    if phase == "cold":
        result, cpu, wall = _timed(lambda: deduplicate(_playbook(base), cache=cache))
        figures.update(cold_cpu=cpu, cold_wall=wall, merged=result.removed)
        return figures
    first = base[: size - NEW_PER_WARM] + extra[:NEW_PER_WARM]
    second = base[: size - NEW_PER_WARM] + extra[NEW_PER_WARM:]
    _, cpu, wall = _timed(lambda: deduplicate(_playbook(first), cache=cache))
    figures.update(warm_cpu=cpu, warm_wall=wall)
    _, cpu, wall = _timed(lambda: deduplicate(_playbook(second), cache=cache))
    figures.update(loaded_cpu=cpu, loaded_wall=wall)
    return figures


def _run_child(size: int, cache_path: Path, phase: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(size), str(cache_path), phase],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 500, 2000])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        size, cache_path, phase = args.child
        print(json.dumps(_child(int(size), cache_path, phase)))
        return
    header = (
        f"{'entries':>7}  {'import cpu/wall s':>17}  {'cold cpu/wall s':>15}  "
        f"{'warm cpu/wall s':>15}  {'warm+loaded cpu/wall s':>22}  {'merged':>6}"
    )
    print(header)
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            cache_path = Path(tmp) / "embeddings.sqlite"
            cold = _run_child(size, cache_path, "cold")
            warm = _run_child(size, cache_path, "warm")
        print(
            f"{size:>7}  {cold['import_cpu']:>8.3f}/{cold['import_wall']:<8.3f}  "
            f"{cold['cold_cpu']:>7.3f}/{cold['cold_wall']:<7.3f}  "
            f"{warm['warm_cpu']:>7.3f}/{warm['warm_wall']:<7.3f}  "
            f"{warm['loaded_cpu']:>11.3f}/{warm['loaded_wall']:<10.3f}  {cold['merged']:>6}"
        )


if __name__ == "__main__":
    main()
