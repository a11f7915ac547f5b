"""De-duplication outcomes on the rule pairs: no judge against a scripted judge.

Run from the repository root (the ``dev`` extra installed)::

    python bench/dedup_outcomes.py              # holdout: in process and via `acecode learn`
    python bench/dedup_outcomes.py --split train --no-cli
    python bench/dedup_outcomes.py --similarities --split train   # what judge_floor was chosen on
    python bench/dedup_outcomes.py --folds --split all   # a fold, then its opposite (issue 18)

Every pair of ``tests/data/rule_pairs.json`` (``a``: the rule already in the
playbook, ``b``: the rule the curator proposes) gets one learning cycle in a
fresh project whose playbook holds ``a``. A scripted LLM on 127.0.0.1 speaking
the Anthropic Messages wire protocol plays the reflector, a curator that ADDs
``b`` in ``a``'s section, and the judge. Its replies carry no token usage, so
acecode's ledger estimates every call at 4 characters per token (the same
rule for every role; the figures say so). Modes:

- ``no judge``: ``ACECODE_JUDGE_MAX_PAIRS=0``, no pair is ever sent to the
  judge, so only near-verbatim pairs may merge.
- ``judge: labels``: the judge answers each pair's label (paraphrase ->
  same, different -> different, contradicting -> conflicting).
- ``judge: rotated``: the judge answers by position, whatever the label:
  same, more_specific (B), more_specific (A), different, conflicting, ... so
  every verdict is exercised on every list.

``via acecode learn`` runs the same cycle as ``python -m acecode learn`` in a
subprocess (two at a time) for the first two modes.

``--folds`` (issue 18) runs two cycles per contradicting pair instead: the
playbook holds a more specific form ``s`` of ``a`` (``a`` plus a clause), the
first cycle proposes ``a`` and the judge folds it into ``s`` (more_specific),
the second proposes the opposite ``b``. The scripted judge then misses the
conflict on the pair it sees first, ``(s, b)``: it answers ``different``, or
worse ``more_specific`` (``s``), while ``(a, b)`` is ``conflicting``. The
table counts the conflicts that stay visible (``b`` kept and the conflict
listed in review), the ones the fold hides, and the pairs whose ``a`` or
``b`` the quarantine held (so nothing was folded, or nothing met the fold).

Columns: ``sent`` pairs the embeddings proposed to the judge (similarity at or
above ``judge_floor``; near-verbatim pairs are never sent, they merge anyway);
outcomes ``credited`` (b not added, a credited), ``replaced`` (a's text
replaced by the more specific b), ``both kept``, ``conflict listed`` (both
kept, and ``acecode review`` shows the conflict) and ``held`` (the quarantine
screen held b for review, so no de-dup step saw it); ``lost a rule`` (a or b
is not in the playbook afterwards, held texts aside: consolidation, meant for
paraphrases); ``as given``:
pairs whose outcome is exactly what their verdict (or, unsent, the lack of
one) prescribes: same -> credited, more_specific B -> replaced, more_specific
A -> credited, different -> both kept, conflicting -> both kept + listed,
none -> both kept unless near-verbatim (credited); a held b -> held.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "rule_pairs.json"
sys.path.insert(0, str(ROOT / "tests"))

from pytest_httpserver import HTTPServer  # noqa: E402

from support.llm_env import LLM_ENV_VARS  # noqa: E402
from support.pipeline import (  # noqa: E402
    RoutedLLM,
    is_curator,
    is_judge,
    judge_reply,
    write_transcript,
)

SECTION = "PATTERNS & APPROACHES"
LISTS = ("paraphrase", "different", "contradicting")
LABEL_VERDICT = {"same": "same", "different": "different", "conflicting": "conflicting"}
ROTATION: tuple[Any, ...] = (
    "same",
    {"verdict": "more_specific", "specific": "B"},
    {"verdict": "more_specific", "specific": "A"},
    "different",
    "conflicting",
)
OUTCOMES = ("credited", "replaced", "both kept", "conflict listed", "held")
PAIR_MARK = re.compile(r"PAIR-(\S+?)-END")


@dataclass(frozen=True)
class Pair:
    id: str
    kind: str
    split: str
    a: str
    b: str
    expected: str
    position: int  # index within its list, for the rotated judge


@dataclass
class Result:
    pair: Pair
    mode: str
    verdict: Any
    sent: bool
    outcome: str
    lost: bool
    as_given: bool
    tokens: dict[str, int]  # role -> input + output tokens of this cycle


def load_pairs(split: str) -> list[Pair]:
    data = json.loads(CORPUS.read_text(encoding="utf-8"))
    position: Counter[str] = Counter()
    pairs = []
    for item in data["pairs"]:
        pairs.append(
            Pair(
                item["id"],
                item["kind"],
                item["split"],
                item["a"],
                item["b"],
                item["expected"],
                position[item["kind"]],
            )
        )
        position[item["kind"]] += 1
    return [p for p in pairs if split == "all" or p.split == split]


def verdict_for(pair: Pair, mode: str) -> Any:
    """What the scripted judge answers for ``pair`` in ``mode`` (None: no judge)."""
    if mode == "judge: labels":
        return LABEL_VERDICT[pair.expected]
    if mode == "judge: rotated":
        return ROTATION[pair.position % len(ROTATION)]
    return None


def expected_outcome(verdict: Any, sent: bool, near: bool, held: bool) -> str:
    """The outcome the verdict prescribes (module doc)."""
    if held:
        return "held"
    if near:
        return "credited"
    if not sent or verdict is None:
        return "both kept"
    name = verdict if isinstance(verdict, str) else verdict["verdict"]
    if name == "same":
        return "credited"
    if name == "more_specific":
        return "replaced" if verdict["specific"] == "B" else "credited"
    return "conflict listed" if name == "conflicting" else "both kept"


class ScriptedLLM:
    """The routed wire server and what it must answer for the pair being learned."""

    def __init__(self) -> None:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.start()
        self.llm = RoutedLLM(self.server, self.route, usage=None)
        self.by_id: dict[str, Pair] = {}
        self.mode = "no judge"
        self.batch: dict[str, Any] | None = None

    def close(self) -> None:
        self.server.clear()
        self.server.stop()

    def route(self, system: str, prompt: str) -> str:
        if is_judge(system, prompt):
            return judge_reply(prompt, self.judge)
        mark = PAIR_MARK.search(prompt)
        pair_id = mark.group(1) if mark else ""
        if not is_curator(system, prompt):
            return json.dumps({"analysis": f"Session PAIR-{pair_id}-END.", "bullet_tags": []})
        if self.batch is not None:
            operations = self.batch["operations"]
        else:
            operations = [{"type": "ADD", "text": self.by_id[pair_id].b, "section": SECTION}]
        return json.dumps({"reasoning": "scripted", "operations": operations})

    def judge(self, first: str, second: str) -> Any:
        if self.batch is not None:
            return "same" if (first, second) in self.batch["same"] else "different"
        for pair in self.by_id.values():
            if (pair.a, pair.b) == (first, second):
                return verdict_for(pair, self.mode)
        return None


@contextmanager
def project_for(pair_id: str, texts: list[str]) -> Iterator[tuple[Path, Path]]:
    """A fresh project whose playbook holds ``texts`` (helpful 0), and its transcript."""
    from acecode.store import save_playbook

    with tempfile.TemporaryDirectory(prefix="acecode-outcomes-") as tmp:
        root = Path(tmp) / "project"
        (root / ".claude").mkdir(parents=True)
        (Path(tmp) / "home").mkdir()
        entries = [
            {"name": f"pat-{i:03d}", "text": text, "helpful": 0, "harmful": 0}
            for i, text in enumerate(texts, start=1)
        ]
        save_playbook({"sections": {SECTION: entries}}, root / ".claude" / "playbook.json")
        transcript = write_transcript(Path(tmp) / "s.jsonl", f"PAIR-{pair_id}-END", "done")
        yield root, transcript


def environment(llm: Any, root: Path, mode: str) -> dict[str, str]:
    """The process environment of one cycle: only the scripted provider, no developer settings."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ACECODE_", "ANTHROPIC_", "AGENTIC_CONTEXT_", "OPENAI_"))
        and k not in LLM_ENV_VARS
    }
    env.update(llm.llm.env())
    env.update({"CLAUDE_PROJECT_DIR": str(root), "HOME": str(root.parent / "home")})
    if mode == "no judge":
        env["ACECODE_JUDGE_MAX_PAIRS"] = "0"
    return env


def observe(pair: Pair, mode: str, root: Path, report: dict[str, Any], judge: Any) -> Result:
    """Classify what the cycle (its report as a dict) did to the pair."""
    from acecode.dedup.judgements import open_conflicts
    from acecode.dedup.verbatim import near_verbatim
    from acecode.store import load_playbook

    path = root / ".claude" / "playbook.json"
    playbook = load_playbook(path)
    entries = playbook["sections"][SECTION]
    texts = [entry["text"] for entry in entries]
    first = next(entry for entry in entries if entry["name"] == "pat-001")
    tokens = report["tokens"]
    judge_row = tokens.get("by_role", {}).get("judge")
    sent = judge_row is not None
    held = bool(report["held_for_review"])
    if held and pair.b not in texts and first == {**first, "text": pair.a, "helpful": 0}:
        outcome = "held"
    elif first["text"] == pair.b and texts.count(pair.b) == 1 and first["helpful"] == 1:
        outcome = "replaced"
    elif pair.b not in texts and first["helpful"] == 1:
        outcome = "credited"
    elif pair.a in texts and pair.b in texts and first["helpful"] == 0:
        conflicts = open_conflicts(playbook, path)
        listed = any({c.first_text, c.second_text} == {pair.a, pair.b} for c in conflicts)
        outcome = "conflict listed" if listed else "both kept"
    else:
        outcome = "other"
    return Result(
        pair=pair,
        mode=mode,
        verdict=judge,
        sent=sent,
        outcome=outcome,
        lost=outcome != "held" and (pair.a not in texts or pair.b not in texts),
        as_given=outcome == expected_outcome(judge, sent, near_verbatim(pair.a, pair.b), held),
        tokens={
            role: row["input_tokens"] + row["output_tokens"]
            for role, row in tokens.get("by_role", {}).items()
        },
    )


def run_in_process(llm: ScriptedLLM, pairs: list[Pair], mode: str) -> list[Result]:
    from acecode.pipeline import run_cycle

    results = []
    saved = dict(os.environ)
    try:
        for pair in pairs:
            with project_for(pair.id, [pair.a]) as (root, transcript):
                os.environ.clear()
                os.environ.update(environment(llm, root, mode))
                report = asyncio.run(run_cycle(transcript)).as_dict()
                results.append(observe(pair, mode, root, report, verdict_for(pair, mode)))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return results


def run_cli(llm: ScriptedLLM, pairs: list[Pair], mode: str) -> list[Result]:
    """Each pair's cycle as `python -m acecode learn --json` in a subprocess, two at a time."""

    def one(pair: Pair) -> Result:
        with project_for(pair.id, [pair.a]) as (root, transcript):
            done = subprocess.run(
                [sys.executable, "-m", "acecode", "learn", str(transcript), "--json"],
                env=environment(llm, root, mode),
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"acecode learn failed for {pair.id}: {done.stderr.strip()}")
            report = json.loads(done.stdout)[0]
            return observe(pair, mode, root, report, verdict_for(pair, mode))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, pairs))


def batch_tokens(llm: ScriptedLLM, pairs: list[Pair]) -> dict[str, Any]:
    """One cycle with many candidate pairs: 30 entries, the curator ADDs 10 paraphrases."""
    from acecode.pipeline import run_cycle

    chosen = [p for p in pairs if p.kind == "paraphrase"][:10]
    others = [p.a for p in pairs if p.kind != "paraphrase"][:20]
    texts = list(dict.fromkeys([p.a for p in chosen] + others))
    llm.batch = {
        "operations": [{"type": "ADD", "text": p.b, "section": SECTION} for p in chosen],
        "same": {(p.a, p.b) for p in chosen},
    }
    saved = dict(os.environ)
    try:
        with project_for("batch", texts) as (root, transcript):
            os.environ.clear()
            os.environ.update(environment(llm, root, "judge: labels"))
            report = asyncio.run(run_cycle(transcript))
    finally:
        os.environ.clear()
        os.environ.update(saved)
        llm.batch = None
    by_role = report.tokens["by_role"]
    judge = report.curation["de_duplication_results"]["judge"]
    return {"entries": len(texts), "added": len(chosen), "by_role": by_role, "judge": judge}


def print_table(title: str, results: list[Result]) -> None:
    groups: dict[tuple[str, str], list[Result]] = defaultdict(list)
    for result in results:
        groups[(result.pair.kind, result.mode)].append(result)
    print(f"\n{title}")
    header = (
        f"  {'list':<14}{'mode':<16}{'pairs':>6}{'sent':>6}"
        + "".join(f"{name:>{len(name) + 2}}" for name in OUTCOMES)
        + f"{'other':>7}{'lost a rule':>13}{'as given':>10}"
    )
    print(header)
    for kind in LISTS:
        for mode in ("no judge", "judge: labels", "judge: rotated"):
            rows = groups.get((kind, mode))
            if not rows:
                continue
            counts = Counter(r.outcome for r in rows)
            print(
                f"  {kind:<14}{mode:<16}{len(rows):>6}{sum(r.sent for r in rows):>6}"
                + "".join(f"{counts[name]:>{len(name) + 2}}" for name in OUTCOMES)
                + f"{counts['other']:>7}{sum(r.lost for r in rows):>13}"
                + f"{sum(r.as_given for r in rows):>6}/{len(rows):<3}"
            )


def _per_role(tokens: dict[str, int]) -> str:
    return ", ".join(f"{role} {count:.0f}" for role, count in sorted(tokens.items()))


def print_tokens(results: list[Result], batch: dict[str, Any] | None) -> None:
    judged = [r for r in results if r.sent]
    if judged:
        roles = {role for r in judged for role in r.tokens}
        mean = {role: statistics.mean(r.tokens.get(role, 0) for r in judged) for role in roles}
        unsent = sum(not r.sent for r in results)
        print(
            f"\nTokens (estimated, 4 chars/token, from the cycle's ledger), mean per cycle whose "
            f"judge call carries 1 pair ({len(judged)} cycles): {_per_role(mean)}. "
            f"Cycles with no candidate pair make no judge call ({unsent})."
        )
    if batch:
        roles = batch["by_role"]
        judge = roles.get("judge", {"input_tokens": 0, "output_tokens": 0, "calls": 0})
        totals = {role: row["input_tokens"] + row["output_tokens"] for role, row in roles.items()}
        print(
            f"Batch cycle ({batch['entries']} entries, curator ADDs {batch['added']}): "
            f"{judge['calls']} judge call with {batch['judge']['pairs_asked']} pairs, "
            f"{judge['input_tokens']} in + {judge['output_tokens']} out tokens; per role: "
            f"{_per_role(totals)}; verdicts {batch['judge']['verdicts']}."
        )


def unjudged(pairs: list[Pair]) -> None:
    """What the unjudged library ladder and ``run_deduplication`` would do to each pair."""
    from acecode.dedup import load_backend, run_deduplication
    from acecode.dedup.ladder import decide

    backend = load_backend()
    print("\nUnjudged, for comparison (library functions the cycle does not apply blindly)")
    print(f"  {'list':<14}{'pairs':>6}{'ladder credits a':>18}{'ladder overwrites a':>21}")
    print(f"  {'':<14}{'':>6}{'(b dropped)':>18}{'with b':>21}{'run_deduplication merges':>27}")
    for kind in LISTS:
        chosen = [p for p in pairs if p.kind == kind]
        actions: Counter[str] = Counter()
        merged = 0
        for pair in chosen:
            first = {"name": "pat-001", "text": pair.a, "helpful": 0, "harmful": 0}
            second = {**first, "name": "pat-002", "text": pair.b}
            book = {"sections": {SECTION: [first]}}
            actions[decide(pair.b, SECTION, book, backend=backend).action] += 1
            deduped = run_deduplication({"sections": {SECTION: [first, second]}}, backend=backend)
            merged += len(deduped["sections"][SECTION]) == 1
        print(
            f"  {kind:<14}{len(chosen):>6}{actions['credit']:>18}{actions['update']:>21}"
            f"{merged:>27}"
        )


def similarities(pairs: list[Pair]) -> None:
    """Calibrated similarity of each list, and how many pairs each candidate floor sends."""
    import numpy as np

    from acecode.dedup import load_backend
    from acecode.dedup.similarity import calibrate
    from acecode.dedup.verbatim import near_verbatim

    backend = load_backend()
    floors = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85)
    print(f"\nCalibrated similarity ({backend.model_id}); near-verbatim pairs excluded")
    print(
        f"  {'list':<14}{'n':>4}{'min':>7}{'p5':>7}{'median':>8}{'max':>7}"
        + "".join(f"{'>=' + str(f):>8}" for f in floors)
    )
    for kind in LISTS:
        chosen = [p for p in pairs if p.kind == kind and not near_verbatim(p.a, p.b)]
        a = backend.embed([p.a for p in chosen])
        b = backend.embed([p.b for p in chosen])
        sims = calibrate((a * b).sum(axis=1), backend.paraphrase_cosine)
        print(
            f"  {kind:<14}{len(chosen):>4}{sims.min():>7.3f}{np.percentile(sims, 5):>7.3f}"
            f"{np.median(sims):>8.3f}{sims.max():>7.3f}"
            + "".join(f"{int((sims >= f).sum()):>8}" for f in floors)
        )


FOLD_DETAIL = ", as the project's lint configuration enforces."
FOLD_MISSES: tuple[Any, ...] = ("different", {"verdict": "more_specific", "specific": "A"})


class FoldLLM:
    """The routed wire server for ``--folds``: the curator ADDs ``self.proposed``, the judge
    answers from ``self.verdicts`` (keyed by the unordered pair)."""

    def __init__(self) -> None:
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.start()
        self.llm = RoutedLLM(self.server, self.route, usage=None)
        self.proposed = ""
        self.verdicts: dict[frozenset[str], Any] = {}

    def close(self) -> None:
        self.server.clear()
        self.server.stop()

    def route(self, system: str, prompt: str) -> str:
        if is_judge(system, prompt):
            return judge_reply(prompt, lambda a, b: self._verdict(a, b))
        if is_curator(system, prompt):
            operations = [{"type": "ADD", "text": self.proposed, "section": SECTION}]
            return json.dumps({"reasoning": "scripted", "operations": operations})
        return json.dumps({"analysis": "The session touched the style rules.", "bullet_tags": []})

    def _verdict(self, first: str, second: str) -> Any:
        verdict = self.verdicts.get(frozenset((first, second)), "different")
        if isinstance(verdict, dict) and verdict.get("specific") in ("A", "B"):
            # Stored with the specific *text*; answered with the side it is on in this pair.
            return {**verdict, "specific": "A" if verdict["text"] == first else "B"}
        return verdict


def folds(pairs: list[Pair]) -> None:
    """Two cycles per contradicting pair (``--folds`` in the module doc)."""
    from acecode.dedup.judgements import open_conflicts
    from acecode.pipeline import run_cycle
    from acecode.store import load_playbook

    chosen = [pair for pair in pairs if pair.kind == "contradicting"]
    llm = FoldLLM()
    rows = []
    saved = dict(os.environ)
    try:
        for miss in FOLD_MISSES:
            counts: Counter[str] = Counter()
            hidden: list[str] = []
            for pair in chosen:
                specific = pair.a.rstrip(".") + FOLD_DETAIL
                more_specific = {"verdict": "more_specific", "specific": "A", "text": specific}
                llm.verdicts = {
                    frozenset((specific, pair.a)): more_specific,
                    frozenset((specific, pair.b)): more_specific if miss != "different" else miss,
                    frozenset((pair.a, pair.b)): {"verdict": "conflicting", "reason": "opposites"},
                }
                with project_for(pair.id, [specific]) as (root, transcript):
                    os.environ.clear()
                    os.environ.update(environment(llm, root, "judge: labels"))
                    path = root / ".claude" / "playbook.json"
                    llm.proposed = pair.a
                    first = asyncio.run(run_cycle(transcript))
                    folded = [e["text"] for e in load_playbook(path)["sections"][SECTION]]
                    llm.proposed = pair.b
                    second = write_transcript(transcript.with_name("t2.jsonl"), "again", "done")
                    held_b = bool(asyncio.run(run_cycle(second)).held_for_review)
                    playbook = load_playbook(path)
                    texts = [e["text"] for e in playbook["sections"][SECTION]]
                    listed = any(
                        pair.b in (c.first_text, c.second_text)
                        for c in open_conflicts(playbook, path)
                    )
                    if first.held_for_review:
                        counts["a held"] += 1
                    elif folded != [specific]:
                        counts["not folded"] += 1
                    elif held_b:
                        counts["b held"] += 1
                    elif pair.b in texts and listed:
                        counts["shown"] += 1
                    else:
                        counts["hidden"] += 1
                        hidden.append(pair.id)
            name = miss if isinstance(miss, str) else "more_specific (s)"
            rows.append((name, len(chosen), counts, hidden))
    finally:
        os.environ.clear()
        os.environ.update(saved)
        llm.close()
    print("\nFolds: a folded first, then its opposite b meets the specific text s")
    print(
        f"  {'judge on (s, b)':<20}{'pairs':>6}{'shown':>8}{'hidden':>8}{'not folded':>12}"
        f"{'a held':>8}{'b held':>8}"
    )
    for name, total, counts, hidden in rows:
        print(
            f"  {name:<20}{total:>6}{counts['shown']:>8}{counts['hidden']:>8}"
            f"{counts['not folded']:>12}{counts['a held']:>8}{counts['b held']:>8}  "
            f"{' '.join(hidden)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("holdout", "train", "all"), default="holdout")
    parser.add_argument("--no-cli", action="store_true", help="skip the `acecode learn` runs")
    parser.add_argument("--similarities", action="store_true", help="only the similarity table")
    parser.add_argument("--folds", action="store_true", help="only the fold-then-opposite table")
    args = parser.parse_args()
    pairs = load_pairs(args.split)
    print(f"{len(pairs)} pairs ({args.split}) from {CORPUS.relative_to(ROOT)}")
    if args.similarities:
        similarities(pairs)
        return
    if args.folds:
        folds(pairs)
        return
    from acecode.project.config import Settings

    print(f"judge_floor {Settings().judge_floor}, judge_max_pairs {Settings().judge_max_pairs}")
    unjudged(pairs)
    llm = ScriptedLLM()
    llm.by_id = {pair.id: pair for pair in pairs}
    try:
        started = time.monotonic()
        results: list[Result] = []
        for mode in ("no judge", "judge: labels", "judge: rotated"):
            llm.mode = mode
            results += run_in_process(llm, pairs, mode)
        print_table(f"In process (run_cycle), {time.monotonic() - started:.0f} s", results)
        print_tokens([r for r in results if r.mode == "judge: labels"], batch_tokens(llm, pairs))
        if not args.no_cli:
            started = time.monotonic()
            cli: list[Result] = []
            for mode in ("no judge", "judge: labels"):
                llm.mode = mode
                cli += run_cli(llm, pairs, mode)
            elapsed = time.monotonic() - started
            print_table(f"Via `acecode learn` (subprocess), {elapsed:.0f} s", cli)
    finally:
        llm.close()


if __name__ == "__main__":
    main()
