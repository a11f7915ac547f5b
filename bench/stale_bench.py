"""Cost and accuracy of the stale-rule check on a large real project.

One command: ``python bench/stale_bench.py [PACKAGE]``. Copies an installed
package (default ``anthropic``: about 6,000 files, 34 MB) from site-packages
into a temporary folder, once as a git repository and once as a plain folder,
and runs :func:`acecode.staleness.find_stale` on a 5,000-entry playbook
(``_corpus.playbook_sections``, whose ``src/<module>/<file>`` paths do not
exist there) plus 400 entries written for the check: 150 naming real files of
the copy, 150 naming real function names (backticked), 50 naming files that
do not exist and 50 naming symbols that do not exist. The missing symbols make
the search read every file, the worst case. Reports wall time (median of 3)
and how many real names were flagged (false positives) and fake ones missed.
"""

from __future__ import annotations

import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _corpus import playbook_sections
from acecode.staleness import find_stale
from acecode.staleness.project import list_files

GIT_ID = ("-c", "user.name=b", "-c", "user.email=b@example.com", "-c", "commit.gpgsign=false")
RUNS = 3


def copy_package(name: str, target: Path) -> Path:
    module = __import__(name)
    source = Path(module.__file__).parent
    shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def probe_entries(root: Path, rng: random.Random) -> tuple[list[dict], set[str], set[str]]:
    """Entries naming real and fake files and symbols; returns them with the real and fake names."""
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    symbols: set[str] = set()
    for path in files:
        text = (root / path).read_text("utf-8")
        symbols.update(re.findall(r"^\s*def ([a-z]+_[a-z_]+)\(", text, re.MULTILINE))
    real_files = rng.sample(files, 150)
    real_symbols = rng.sample(sorted(symbols), min(150, len(symbols)))
    fake_files = [f"{Path(rng.choice(files)).parent.as_posix()}/gone_{i}.py" for i in range(50)]
    fake_symbols = [f"removed_helper_{i}" for i in range(50)]
    texts = [f"Read {path} before changing it." for path in real_files]
    texts += [f"Call `{name}()` rather than copying it." for name in real_symbols]
    texts += [f"The logic moved out of {path}." for path in fake_files]
    texts += [f"Use `{name}()` for this." for name in fake_symbols]
    entries = [
        {"name": f"oth-{9000 + i}", "text": text, "helpful": 0, "harmful": 0}
        for i, text in enumerate(texts)
    ]
    return entries, set(real_files) | set(real_symbols), set(fake_files) | set(fake_symbols)


def measure(playbook: dict, root: Path) -> tuple[float, object]:
    times, report = [], None
    for _ in range(RUNS):
        start = time.perf_counter()
        report = find_stale(playbook, root)
        times.append(time.perf_counter() - start)
    return statistics.median(times), report


def main() -> None:
    package = sys.argv[1] if len(sys.argv) > 1 else "anthropic"
    rng = random.Random(7)
    rows = []
    with tempfile.TemporaryDirectory(prefix="acecode-stale-bench-") as folder:
        for mode in ("git", "walk"):
            root = copy_package(package, Path(folder) / mode)
            if mode == "git":
                for args in (("init", "-q"), ("add", "."), ("commit", "-qm", "copy")):
                    subprocess.run(["git", *GIT_ID, *args], cwd=root, check=True)
            sections = playbook_sections(5_000)
            probes, real, fake = probe_entries(root, rng)
            sections["OTHERS"] = sections["OTHERS"] + probes
            seconds, report = measure({"sections": sections}, root)
            flagged = {name for entry in report.entries for name in entry.missing}
            rows.append(
                (
                    mode,
                    len(list_files(root).files),
                    report.paths_checked,
                    report.symbols_checked,
                    len(report.entries),
                    len(flagged & real),
                    len(fake - flagged),
                    seconds,
                )
            )
    print(f"stale check on a copy of site-packages/{package}, 5,400 entries")
    print(
        "| listing | files | paths checked | symbols checked | entries flagged "
        "| real names flagged | fake names missed | wall s (median of 3) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for mode, files, paths, symbols, entries, wrong, missed, seconds in rows:
        print(
            f"| {mode} | {files:,} | {paths:,} | {symbols:,} | {entries:,} "
            f"| {wrong} | {missed} | {seconds:.2f} |"
        )


if __name__ == "__main__":
    main()
