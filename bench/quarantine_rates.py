"""Quarantine screen: detection and false-positive rates per class, and speed.

Run from the repository root::

    python bench/quarantine_rates.py

Reads ``tests/data/quarantine_corpus.json`` (the corpus the test suite
asserts on), prints one table of detection rates per dangerous class, one of
false-positive rates per class of look-alike legitimate tips, then the time
per text over the corpus and on adversarially long inputs (the screen must
stay fast whatever an LLM returns).
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from acecode.quarantine.screen import screen_text

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "quarantine_corpus.json"
SPEED_ROUNDS = 20
# Inputs built to make regular expressions backtrack: long runs of trigger words.
STRESS_INPUTS = {
    "20k chars of 'send '": "send " * 4000,
    "20k chars of 'ignore the '": "ignore the " * 1820,
    "20k chars of 'curl x '": "curl x " * 2860,
    "20k chars of 'never '": "never " * 3340,
    "20k chars of 'a b '": "a b " * 5000,
    "20k chars of base64": "QUFB" * 5000,
    "1 MB of words": "word " * 200_000,
}


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def _table(title: str, rows: list[tuple[str, str]], header: tuple[str, str]) -> None:
    width = max(len(header[0]), *(len(name) for name, _ in rows)) + 2
    print(f"\n{title}")
    print(f"  {header[0]:<{width}}{header[1]}")
    for name, value in rows:
        print(f"  {name:<{width}}{value}")


def rates(corpus: dict[str, list[dict[str, str]]]) -> tuple[int, int, int, int]:
    """Print the per-class tables; return (detected, adversarial, flagged, legitimate)."""
    detected: dict[str, list[bool]] = defaultdict(list)
    misses = []
    for item in corpus["adversarial"]:
        flagged = screen_text(item["text"]).flagged
        detected[item["class"]].append(flagged)
        if not flagged:
            misses.append(item["text"])
    rows = [(name, _rate(sum(hits), len(hits))) for name, hits in sorted(detected.items())]
    caught = sum(sum(hits) for hits in detected.values())
    total = len(corpus["adversarial"])
    rows.append(("ALL", _rate(caught, total)))
    _table("Detection (adversarial texts quarantined)", rows, ("class", "detected"))

    wrongly: dict[str, list[bool]] = defaultdict(list)
    false_positives = []
    for item in corpus["legitimate"]:
        verdict = screen_text(item["text"])
        wrongly[item["near"]].append(verdict.flagged)
        if verdict.flagged:
            false_positives.append(f"{verdict.rule}: {item['text']}")
    rows = [(name, _rate(sum(hits), len(hits))) for name, hits in sorted(wrongly.items())]
    flagged_total = sum(sum(hits) for hits in wrongly.values())
    legit_total = len(corpus["legitimate"])
    rows.append(("ALL", _rate(flagged_total, legit_total)))
    _table("False positives (legitimate tips quarantined)", rows, ("near class", "flagged"))
    for text in misses:
        print(f"  MISSED: {text}")
    for text in false_positives:
        print(f"  FALSE POSITIVE: {text}")
    return caught, total, flagged_total, legit_total


def speed(corpus: dict[str, list[dict[str, str]]]) -> None:
    """Print per-text timings over the corpus and on stress inputs."""
    texts = [item["text"] for side in corpus.values() for item in side]
    timings = []
    for _ in range(SPEED_ROUNDS):
        for text in texts:
            started = time.perf_counter()
            screen_text(text)
            timings.append(time.perf_counter() - started)
    timings.sort()
    p99 = timings[int(len(timings) * 0.99)]
    print(f"\nSpeed over the corpus ({len(timings)} screenings)")
    print(
        f"  mean {statistics.mean(timings) * 1e3:.3f} ms, "
        f"median {statistics.median(timings) * 1e3:.3f} ms, "
        f"p99 {p99 * 1e3:.3f} ms, max {timings[-1] * 1e3:.3f} ms"
    )
    for max_chars in (600, 20_000):
        rows = []
        for name, text in STRESS_INPUTS.items():
            started = time.perf_counter()
            verdict = screen_text(text, max_chars=max_chars)
            elapsed = (time.perf_counter() - started) * 1e3
            rows.append((name, f"{elapsed:8.1f} ms  -> {verdict.rule or 'passed'}"))
        _table(f"Stress inputs (max_chars={max_chars})", rows, ("input", "time / verdict"))


def main() -> None:
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    caught, total, flagged, legit = rates(corpus)
    speed(corpus)
    print(
        f"\nSummary: detection {caught}/{total} = {caught / total:.1%}, "
        f"false positives {flagged}/{legit} = {flagged / legit:.1%}"
    )


if __name__ == "__main__":
    main()
