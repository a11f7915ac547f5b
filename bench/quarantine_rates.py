"""Quarantine: the floor's rates per class and language, the LLM review's holds, tokens, speed.

Run from the repository root::

    python bench/quarantine_rates.py [--show-train-misses]

Prints, in order:

1. the deterministic floor on the issue-11 corpora
   (``tests/data/quarantine_dangerous.json``, ``quarantine_benign.json``):
   the share of dangerous texts held (detection) and of benign tips held
   (false positives), per class and per language, on the training part and
   on the held-out third separately. Each text is screened with its own
   language configured (``languages = "en, <its language>"``), so the class
   detectors, not the language rule, must catch it; a second table shows the
   default settings (English only), where the language rule holds every
   text in another language;
2. the issue-7 corpus (``tests/data/quarantine_corpus.json``);
3. the LLM safety review through real learning cycles (dry runs, which take
   the same triage as real runs) against a scripted Anthropic Messages
   server on 127.0.0.1: the curator proposes the corpus texts, ten per
   cycle; the scripted reviewer flags every dangerous text and every tenth
   benign one; the table counts how many flagged texts were held, and the
   tokens the review added per cycle;
4. the screen's time per text over all corpus texts (wall clock, and the
   process's CPU time, which a busy machine inflates less), and on
   adversarially long inputs (the screen must stay fast whatever an LLM
   returns).

Goals (issue 11): on the held-out third, at least 90 % of dangerous texts
held in every class and at most 5 % of benign ones; 100 % of what the
review flags held; at most 1 ms per text. Only counts are printed for the
held-out third; ``--show-train-misses`` lists the training part's misses
and false positives, for tuning.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
DATA = BENCH_DIR.parent / "tests" / "data"
GOALS = {"detection": 0.90, "false_positives": 0.05, "ms_per_text": 1.0}
OPERATIONS_PER_CYCLE = 10
BENIGN_FLAG_EVERY = 10
SPEED_ROUNDS = 10
# Inputs built to make regular expressions backtrack: long runs of trigger words.
STRESS_INPUTS = {
    "20k chars of 'send '": "send " * 4000,
    "20k chars of 'ignore the '": "ignore the " * 1820,
    "20k chars of 'delete the tests '": "delete the tests " * 1180,
    "20k chars of 'never '": "never " * 3340,
    "20k chars of 'a b '": "a b " * 5000,
    "20k chars of base64": "QUFB" * 5000,
    "1 MB of words": "word " * 200_000,
}


def _load(name: str) -> dict[str, Any]:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def _table(title: str, header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> None:
    rows = list(rows)
    widths = [max(len(row[i]) for row in [header, *rows]) + 2 for i in range(len(header))]
    print(f"\n{title}")
    for row in [header, *rows]:
        print("  " + "".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def _own_languages(item: dict[str, Any]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(("en", item["language"])))


def _held(items: list[dict[str, Any]], own_language: bool) -> list[tuple[dict[str, Any], Any]]:
    from acecode.quarantine.screen import screen_text

    return [
        (
            item,
            screen_text(item["text"], languages=_own_languages(item) if own_language else ("en",)),
        )
        for item in items
    ]


def _grouped(results: list[tuple[dict[str, Any], Any]], key: str) -> dict[str, tuple[int, int]]:
    groups: dict[str, list[bool]] = defaultdict(list)
    for item, verdict in results:
        groups[item[key]].append(verdict.flagged)
    return {name: (sum(flags), len(flags)) for name, flags in sorted(groups.items())}


def _total(results: list[tuple[dict[str, Any], Any]]) -> tuple[int, int]:
    return sum(v.flagged for _, v in results), len(results)


def floor_rates(dangerous: list[dict], benign: list[dict], show_misses: bool) -> dict[str, Any]:
    """Print the floor's tables; return the held-out figures for the summary."""
    by_split = {}
    for split in ("train", "heldout"):
        d = _held([i for i in dangerous if i["split"] == split], own_language=True)
        b = _held([i for i in benign if i["split"] == split], own_language=True)
        by_split[split] = (d, b)
    for key, label in (("class", "class"), ("language", "language")):
        names = sorted({item[key] for item in dangerous + benign})
        rows = []
        for name in [*names, "ALL"]:
            cells = [name]
            for split in ("train", "heldout"):
                d, b = by_split[split]
                if name == "ALL":
                    cells += [_rate(*_total(d)), _rate(*_total(b))]
                else:
                    cells += [
                        _rate(*_grouped(d, key).get(name, (0, 0))),
                        _rate(*_grouped(b, key).get(name, (0, 0))),
                    ]
            rows.append(tuple(cells))
        _table(
            f"Floor per {label}, each text with its own language configured "
            "(dangerous held = detection; benign held = false positives)",
            (label, "train dangerous", "train benign", "held-out dangerous", "held-out benign"),
            rows,
        )
    rows = []
    for split in ("train", "heldout"):
        d = _held([i for i in dangerous if i["split"] == split], own_language=False)
        b = _held([i for i in benign if i["split"] == split], own_language=False)
        english_b = [(i, v) for i, v in b if i["language"] == "en"]
        foreign_b = [(i, v) for i, v in b if i["language"] != "en"]
        rows.append(
            (split, _rate(*_total(d)), _rate(*_total(english_b)), _rate(*_total(foreign_b)))
        )
    _table(
        "Floor with the default settings (languages = en): other languages are held by design",
        ("split", "dangerous held", "English benign held", "other-language benign held"),
        rows,
    )
    if show_misses:
        d, b = by_split["train"]
        for item, verdict in d:
            if not verdict.flagged:
                print(f"  TRAIN MISS [{item['class']}/{item['language']}] {item['text']}")
        for item, verdict in b:
            if verdict.flagged:
                print(f"  TRAIN FALSE POSITIVE {verdict.rule}: {item['text']}")
    d, b = by_split["heldout"]
    return {"per_class": _grouped(d, "class"), "benign": _total(b)}


def issue_7_corpus() -> None:
    from acecode.quarantine.screen import screen_text

    corpus = _load("quarantine_corpus.json")
    adversarial = [screen_text(item["text"]).flagged for item in corpus["adversarial"]]
    legitimate = [screen_text(item["text"]).flagged for item in corpus["legitimate"]]
    _table(
        "Issue-7 corpus (tests/data/quarantine_corpus.json)",
        ("side", "held"),
        [
            ("adversarial", _rate(sum(adversarial), len(adversarial))),
            ("legitimate", _rate(sum(legitimate), len(legitimate))),
        ],
    )


def _transcript(path: Path, marker: str) -> Path:
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s1",
         "message": {"role": "user", "content": f"{marker}: tidy up the repository"}},
        {"type": "assistant", "uuid": "a1", "sessionId": "s1",
         "message": {"id": "m1", "role": "assistant",
                     "content": [{"type": "text", "text": "Done."}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _review_items(prompt: str) -> list[dict[str, Any]]:
    start = prompt.index("\n[") + 1
    items, _ = json.JSONDecoder().raw_decode(prompt, start)
    return items


def scripted_review(dangerous: list[dict], benign: list[dict]) -> dict[str, Any]:
    """Learning cycles against the scripted server; print flagged vs held and tokens."""
    sys.path.insert(0, str(BENCH_DIR))
    from _scripted_anthropic import ScriptedAnthropic
    from acecode.pipeline.cycle import run_cycle

    labelled = [(item["text"], True) for item in dangerous] + [
        (item["text"], False) for item in benign
    ]
    to_flag = {text for text, bad in labelled if bad}
    to_flag |= {
        text
        for index, (text, bad) in enumerate(labelled)
        if not bad and index % BENIGN_FLAG_EVERY == 0
    }
    batches = [
        labelled[i : i + OPERATIONS_PER_CYCLE]
        for i in range(0, len(labelled), OPERATIONS_PER_CYCLE)
    ]
    flagged_sent: set[str] = set()

    def router(system: str, prompt: str) -> str:
        lowered = prompt.lower()
        if "you are the safety reviewer" in lowered:
            verdicts = []
            for item in _review_items(prompt):
                if item["text"] in to_flag:
                    flagged_sent.add(item["text"])
                    verdicts.append(
                        {"id": item["id"], "verdict": "flag", "reason": "scripted flag"}
                    )
                else:
                    verdicts.append({"id": item["id"], "verdict": "safe"})
            return json.dumps({"verdicts": verdicts})
        batch = int(lowered.split("batch-", 1)[1].split(":", 1)[0].split()[0])
        if "you are the curator" in lowered:
            operations = [
                {"type": "ADD", "text": text, "section": "OTHERS"} for text, _ in batches[batch]
            ]
            return json.dumps({"reasoning": "bench", "operations": operations})
        return json.dumps({"analysis": f"BATCH-{batch}: the session tidied up.", "bullet_tags": []})

    held_flagged = 0
    review_tokens: list[tuple[int, int]] = []
    other_tokens: list[int] = []
    with tempfile.TemporaryDirectory() as tmp, ScriptedAnthropic(router) as server:
        project, home = Path(tmp) / "project", Path(tmp) / "home"
        (project / ".claude").mkdir(parents=True)
        home.mkdir()
        saved = dict(os.environ)
        os.environ.update(
            {**server.env(), "CLAUDE_PROJECT_DIR": str(project), "HOME": str(home),
             "ACECODE_LANGUAGES": "en, fr, de, es, pt, zh, ja",
             # The bench measures the safety review; the judge (issue 11) has its own bench.
             "ACECODE_JUDGE_MAX_PAIRS": "0"}
        )  # fmt: skip
        try:
            for number in range(len(batches)):
                transcript = _transcript(Path(tmp) / f"s{number}.jsonl", f"BATCH-{number}")
                report = asyncio.run(run_cycle(transcript, dry_run=True))
                held_texts = {item["text"] for item in report.held_for_review}
                held_flagged += len(held_texts & flagged_sent)
                flagged_sent -= held_texts
                roles = report.tokens.get("by_role", {})
                review = roles.get("safety_review")
                if review:
                    review_tokens.append((review["input_tokens"], review["output_tokens"]))
                other_tokens.append(
                    sum(
                        r["input_tokens"] + r["output_tokens"]
                        for n, r in roles.items()
                        if n != "safety_review"
                    )
                )
        finally:
            os.environ.clear()
            os.environ.update(saved)
    flagged_total = held_flagged + len(flagged_sent)
    _table(
        "LLM safety review through learning cycles (scripted Anthropic server on 127.0.0.1)",
        ("cycles", "texts proposed", "flagged by the review", "flagged and held"),
        [
            (
                str(len(batches)),
                str(len(labelled)),
                str(flagged_total),
                _rate(held_flagged, flagged_total),
            )
        ],
    )
    inputs = [i for i, _ in review_tokens]
    outputs = [o for _, o in review_tokens]
    _table(
        "Tokens the safety review adds per cycle (10 proposed texts; ~4 characters per token)",
        ("", "mean", "min", "max"),
        [
            ("input", f"{statistics.mean(inputs):.0f}", str(min(inputs)), str(max(inputs))),
            ("output", f"{statistics.mean(outputs):.0f}", str(min(outputs)), str(max(outputs))),
            ("reflector + curator, same cycles", f"{statistics.mean(other_tokens):.0f}", "", ""),
        ],
    )
    return {"flagged": flagged_total, "held": held_flagged, "input": statistics.mean(inputs),
            "output": statistics.mean(outputs)}  # fmt: skip


def speed(texts: list[str]) -> float:
    """Print per-text timings and the stress inputs; return the mean ms per text."""
    from acecode.quarantine.screen import screen_text

    for text in texts[:5]:
        screen_text(text)
    timings = []
    cpu = 0.0
    for _ in range(SPEED_ROUNDS):
        for text in texts:
            started, started_cpu = time.perf_counter(), time.process_time()
            screen_text(text)
            cpu += time.process_time() - started_cpu
            timings.append(time.perf_counter() - started)
    timings.sort()
    mean = statistics.mean(timings) * 1e3
    cpu_mean = cpu / len(timings) * 1e3
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    _table(
        f"Screen time per text ({len(texts)} corpus texts x {SPEED_ROUNDS}; "
        f"load average {load:.1f} on {os.cpu_count()} CPUs)",
        ("wall mean", "wall median", "wall p99", "wall max", "CPU mean"),
        [
            (
                f"{mean:.3f} ms",
                f"{statistics.median(timings) * 1e3:.3f} ms",
                f"{timings[int(len(timings) * 0.99)] * 1e3:.3f} ms",
                f"{timings[-1] * 1e3:.3f} ms",
                f"{cpu_mean:.3f} ms",
            )
        ],
    )
    for max_chars in (600, 20_000):
        rows = []
        for name, text in STRESS_INPUTS.items():
            started = time.perf_counter()
            verdict = screen_text(text, max_chars=max_chars)
            elapsed = (time.perf_counter() - started) * 1e3
            rows.append((name, f"{elapsed:8.1f} ms", verdict.rule or "passed"))
        _table(f"Stress inputs (max_chars={max_chars})", ("input", "time", "verdict"), rows)
    return mean, cpu_mean


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-train-misses", action="store_true")
    args = parser.parse_args()
    dangerous = _load("quarantine_dangerous.json")["items"]
    benign = _load("quarantine_benign.json")["items"]
    heldout = floor_rates(dangerous, benign, args.show_train_misses)
    issue_7_corpus()
    review = scripted_review(dangerous, benign)
    old = _load("quarantine_corpus.json")
    texts = [i["text"] for i in dangerous + benign] + [i["text"] for s in old.values() for i in s]
    ms, cpu_ms = speed(texts)

    worst = min(heldout["per_class"].items(), key=lambda kv: kv[1][0] / kv[1][1])
    print("\nGoals (held-out third)")
    met = worst[1][0] / worst[1][1] >= GOALS["detection"]
    print(
        f"  every class >= {GOALS['detection']:.0%} held: lowest {worst[0]} "
        f"{_rate(*worst[1])} -> {'met' if met else 'NOT met'}"
    )
    fp, total = heldout["benign"]
    print(
        f"  benign held <= {GOALS['false_positives']:.0%}: {_rate(fp, total)} -> "
        f"{'met' if fp / total <= GOALS['false_positives'] else 'NOT met'}"
    )
    print(
        f"  review flags held: {_rate(review['held'], review['flagged'])} -> "
        f"{'met' if review['held'] == review['flagged'] else 'NOT met'}"
    )
    print(
        f"  time per text <= {GOALS['ms_per_text']} ms: {ms:.3f} ms wall, {cpu_ms:.3f} ms CPU "
        f"(mean) -> {'met' if ms <= GOALS['ms_per_text'] else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
