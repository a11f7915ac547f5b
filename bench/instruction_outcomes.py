"""The project's instructions in real learning cycles: repeats and contradictions kept out.

Run from the repository root (the ``dev`` extra installed)::

    python bench/instruction_outcomes.py                         # held-out third, scripted
    python bench/instruction_outcomes.py --split train --judge none
    python bench/instruction_outcomes.py --relay-dir DIR --port 8765   # a real model, blind

Corpus: ``tests/data/instruction_corpus.json``, instructions quoted from real
CLAUDE.md files of public repositories, each with a paraphrase, a rule that
contradicts it and an unrelated rule (its held-out third was drawn by
``tests/data/split_corpus.py``, seed 30, before anything was measured).

**Learning.** For every repository, three cycles in a fresh project whose
``CLAUDE.md`` lists that repository's instruction lines: in each cycle the
reflector (scripted) reports, as its findings, one text of every case of the
split, the variants rotated so that each case is proposed once as a
paraphrase, once as a contradiction and once as an unrelated rule, mixed in
every cycle. The curator and the judge are:

- ``scripted`` curator: it ADDs every finding, as a curator that ignored the
  instructions' digest would; the judge answers the labels (``--judge
  labels``: the case's instruction and its paraphrase ``same``, its
  contradiction ``conflicting``, anything else ``different``) or is never
  asked (``--judge none``: ``judge_max_pairs = 0``, near-verbatim only);
- ``--relay-dir DIR``: both the curator and the judge are a real model,
  answering through ``../shared/tools/model_relay.py`` (started here on
  ``--port``), blind to the labels: whoever answers sees acecode's own
  prompts, with the digest of the project's instructions and the findings.

Per case it counts what happened to each text: ``proposed`` (the curator
wrote an ADD/UPDATE/MERGE for it; mapped by the embedding model to the most
similar text of the cycle, at or above the judge floor), ``in playbook``,
``held`` for review, ``dropped`` as a repeat of an instruction. The goals:
paraphrases in the playbook 0 (and, for a real curator, proposed: few);
contradictions in the playbook 0; unrelated rules proposed but dropped or
held 0 (no distinct rule lost).

**Injection.** Per repository, a playbook that already holds every text of
the split's cases (as if learned before the team wrote those CLAUDE.md lines)
goes through cycles in which the curator proposes nothing, so the judge sees
the entries against the instructions; then the session-start text is
rendered as the hook does: paraphrases still injected (duplicates of a loaded
instruction: goal 0), unrelated rules missing (goal 0), and the injected
characters saved.

``--transcripts`` measures the same on the projects of the shared transcripts
(``marot/spotter``, ``daaain/claude-code-log``): the rules a real model learned
from their sessions (``bench/relay/learn-run1/after/output.txt``) against the
rule lines of their real CLAUDE.md (``projects`` of the corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench")]

import relay_review  # noqa: E402
from support.pipeline import all_safe  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "instruction_corpus.json"
LEARNED = ROOT / "bench" / "relay" / "learn-run1" / "after" / "output.txt"
DEFAULT_RELAY = ROOT.parent / "shared" / "tools" / "model_relay.py"
VARIANTS = ("paraphrase", "contradiction", "unrelated")
TRANSCRIPT_PROJECTS = {"marot/spotter": "4d5611e5", "daaain/claude-code-log": "37f83ec9"}
REQUEST = "Please finish the change and run the checks."
HEADING = "Project instructions"


def load_corpus() -> dict[str, Any]:
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def claude_md(lines: list[str]) -> str:
    return f"# {HEADING}\n\n" + "".join(f"- {line}\n" for line in lines)


class Front(relay_review.Front):
    """The scripted reflector (the cycle's findings), safety review (all safe), curator
    and judge; with a relay (``relayed``), the curator's requests while there are findings
    and the judge's go there (the HTTP plumbing is relay_review's)."""

    def __init__(self, relay_port: int | None) -> None:
        super().__init__(relay_port or 0)
        self.relayed = relay_port is not None
        self.findings: list[str] = []
        self.labels: dict[tuple[str, str], str] = {}

    def answer(self, path: str, raw: bytes) -> tuple[int, str, bytes]:
        request = json.loads(raw)
        role = _role(raw.decode("utf-8", "replace"))
        if self.relayed and (role == "judge" or (role == "curator" and self.findings)):
            return self._forward(path, raw)
        if role == "curator":
            ops = [{"type": "ADD", "text": t, "section": "OTHERS"} for t in self.findings]
            reply: dict[str, Any] = {"reasoning": "scripted", "operations": ops}
        elif role == "judge":
            reply = {"verdicts": self._verdicts(_prompt(request))}
        elif role == "safety":
            reply = json.loads(all_safe(_prompt(request)))
        else:
            findings = "\n".join(f"- {t}" for t in self.findings) or "- Nothing new."
            reply = {"analysis": findings, "bullet_tags": []}
        message = relay_review._message(request, json.dumps(reply))
        return 200, "application/json", json.dumps(message).encode()

    def _verdicts(self, prompt: str) -> list[dict[str, str]]:
        verdicts = []
        for line in prompt.splitlines():
            if not line.startswith('{"pair": '):
                continue
            pair = json.loads(line)
            first, second = (_bare(pair[side]) for side in ("A", "B"))
            label = self.labels.get((first, second)) or self.labels.get((second, first))
            verdicts.append({"pair": pair["pair"], "verdict": label or "different", "reason": "-"})
        return verdicts


def _bare(text: str) -> str:
    """An instruction without the heading a short one is given as context (``units``)."""
    return text.removeprefix(f"{HEADING}: ")


def _role(text: str) -> str:
    for role, marker in (
        ("curator", "You are the curator of acecode"),
        ("judge", "You are the judge of acecode"),
        ("safety", "You are the safety reviewer of acecode"),
    ):
        if marker in text:
            return role
    return "reflector"


def _prompt(request: dict[str, Any]) -> str:
    parts = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts += [str(block.get("text", "")) for block in content or []]
    return "\n".join(parts)


class Project:
    """A fresh project and home, with the environment pointing acecode at ``front``."""

    def __init__(self, base: Path, name: str, lines: list[str], front: Front, judge: str) -> None:
        self.root = base / name / "project"
        self.home = base / name / "home"
        (self.root / ".claude").mkdir(parents=True)
        (self.root / ".git").mkdir()
        self.home.mkdir()
        (self.root / "CLAUDE.md").write_text(claude_md(lines), encoding="utf-8")
        self.env = {
            "HOME": str(self.home),
            "CLAUDE_PROJECT_DIR": str(self.root),
            "ACECODE_PROVIDER": "anthropic",
            "AGENTIC_CONTEXT_API_KEY": "bench",
            "AGENTIC_CONTEXT_BASE_URL": front.url,
            "AGENTIC_CONTEXT_MODEL": "bench-model",
            "ACECODE_LLM_TIMEOUT": "7200",
        }
        if judge == "none":
            self.env["ACECODE_JUDGE_MAX_PAIRS"] = "0"

    def cycle(self, number: int, relearn: bool = False) -> dict[str, Any]:
        from acecode.pipeline import run_cycle_sync

        os.environ.update(self.env)
        session = self.root.parent / f"s{number}.jsonl"
        session.write_text(_session(number), encoding="utf-8")
        report = run_cycle_sync(session, ignore_budget=True, relearn=relearn)
        return report.as_dict()

    def injected(self) -> dict[str, Any]:
        from acecode.hooks import rendered

        os.environ.update(self.env)
        return rendered.session_start(str(self.root))

    def injected_without_skips(self) -> str:
        """The session-start text were no entry left out as a repeat (the same playbook,
        its overlap record set aside for the render)."""
        from acecode.instructions.overlap import OVERLAP_NAME

        record = self.root / ".claude" / "acecode" / OVERLAP_NAME
        aside = record.with_suffix(".aside")
        if record.exists():
            record.rename(aside)
        try:
            return self.injected()["text"]
        finally:
            if aside.exists():
                aside.rename(record)


def _session(number: int) -> str:
    records = [
        {"type": "user", "uuid": f"u{number}", "sessionId": f"s{number}",
         "message": {"role": "user", "content": REQUEST}},
        {"type": "assistant", "uuid": f"a{number}", "sessionId": f"s{number}",
         "message": {"id": f"m{number}", "role": "assistant",
                     "content": [{"type": "text", "text": "Done."}]}},
    ]  # fmt: skip
    return "".join(json.dumps(record) + "\n" for record in records)


def mapper(texts: list[str]) -> Any:
    """A function from a proposed text to the most similar of ``texts`` (None below the
    judge floor): a real curator rewrites what it proposes."""
    from acecode.dedup import load_backend
    from acecode.dedup.cache import embed_texts
    from acecode.dedup.similarity import similarity_matrix

    backend = load_backend()

    def closest(text: str) -> str | None:
        if text in texts:
            return text
        both = [*texts, text]
        sims = similarity_matrix(embed_texts(both, backend, None), backend.paraphrase_cosine, both)
        best = max(range(len(texts)), key=lambda i: sims[-1, i])
        return texts[best] if sims[-1, best] >= 0.55 else None

    return closest


def learning(cases: list[dict], corpus: dict, front: Front, judge: str, base: Path) -> Counter:
    """The learning part (module doc): counts by (variant, outcome)."""
    counts: Counter = Counter()
    repos = sorted({case["repo"] for case in cases})
    for repo in repos:
        mine = [case for case in cases if case["repo"] == repo]
        lines = corpus["projects"][repo]["instructions"]
        for rotation in range(len(VARIANTS)):
            chosen = {
                case[VARIANTS[(n + rotation) % 3]]: (case, VARIANTS[(n + rotation) % 3])
                for n, case in enumerate(mine)
            }
            front.findings = list(chosen)
            front.labels = {
                (case["instruction"], text): {
                    "paraphrase": "same",
                    "contradiction": "conflicting",
                }.get(variant, "different")
                for text, (case, variant) in chosen.items()
            }
            name = f"{repo.replace('/', '_')}-{rotation}"
            project = Project(base, name, lines, front, judge)
            report = project.cycle(rotation)
            closest = mapper(list(chosen))
            outcome = _outcomes(report, closest)
            for text, (_case, variant) in chosen.items():
                for what in outcome.get(text, {"not proposed"}):
                    counts[(variant, what)] += 1
                counts[(variant, "cases")] += 1
            print(f"  {name}: {report['status']}", flush=True)
    return counts


def _outcomes(report: dict[str, Any], closest: Any) -> dict[str, set[str]]:
    """Text of the cycle -> what happened to it (proposed, in playbook, held, dropped)."""
    found: dict[str, set[str]] = {}

    def mark(text: Any, what: str) -> None:
        target = closest(str(text)) if text else None
        if target is not None:
            found.setdefault(target, set()).add(what)

    for op in report["proposed_operations"]:
        mark(op.get("text") or op.get("merged_text"), "proposed")
    for op in report["operations"]:
        if op.get("applied") and (op.get("created") or op.get("updated_after")):
            mark((op.get("created") or op.get("updated_after"))["text"], "in playbook")
    for item in report["held_for_review"]:
        mark(item["text"], "held" if item["rule"] == "instructions" else "held by the screen")
    for item in report.get("instruction_repeats") or ():
        mark(item["text"], "dropped as a repeat")
    return found


def injection(
    entries: dict[str, list[tuple[str, str]]], corpus_lines: dict[str, list[str]], front: Front,
    judge: str, base: Path, labels: dict[tuple[str, str], str],
) -> Counter:  # fmt: skip
    """Per project, a playbook holding ``entries`` ((text, kind)); cycles proposing nothing;
    then what the session-start text injects (module doc)."""
    from acecode.playbook.schema import empty_playbook
    from acecode.store import save_playbook

    counts: Counter = Counter()
    front.findings = []
    front.labels = labels
    for repo, texts in entries.items():
        project = Project(
            base, "inject-" + repo.replace("/", "_"), corpus_lines[repo], front, judge
        )
        playbook = empty_playbook()
        playbook["sections"]["OTHERS"] = [
            {"name": f"oth-{n:03d}", "text": text, "helpful": 1, "harmful": 0}
            for n, (text, _kind) in enumerate(texts, start=1)
        ]
        save_playbook(playbook, project.root / ".claude" / "playbook.json")
        for number in range(3):  # judge_max_pairs per cycle: enough cycles to judge every pair
            project.cycle(100 + number, relearn=True)
        after = project.injected()
        before = project.injected_without_skips()
        counts["characters before"] += len(before)
        counts["characters after"] += len(after["text"])
        for text, kind in texts:
            counts[(kind, "entries")] += 1
            counts[(kind, "injected")] += text in after["text"]
        counts["left out as repeats"] += len(after.get("repeats") or ())
        print(f"  {repo}: {len(before):,} -> {len(after['text']):,} characters", flush=True)
    return counts


def learned_rules() -> dict[str, list[str]]:
    """The rules a real model learned from the two long shared sessions, by project."""
    text = LEARNED.read_text(encoding="utf-8")
    rules: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        session = re.match(r"== learning (\w{8})", line)
        if session:
            current = next(r for r, s in TRANSCRIPT_PROJECTS.items() if s == session.group(1))
        added = re.match(r"\s+ADD \S+: (.*)$", line)
        if added and current:
            rules.setdefault(current, []).append(added.group(1))
    return rules


def print_learning(counts: Counter) -> None:
    print("\nlearning: per variant, texts (cases) and what happened to them")
    columns = ("cases", "proposed", "in playbook", "held", "dropped as a repeat",
               "held by the screen", "not proposed")  # fmt: skip
    print("  " + f"{'variant':<14}" + "  ".join(columns))
    for variant in VARIANTS:
        cells = [f"{counts[(variant, c)]:>{len(c)}}" for c in columns]
        print("  " + f"{variant:<14}" + "  ".join(cells))


def print_injection(counts: Counter, title: str) -> None:
    print(f"\ninjection ({title}): entries injected at session start after the cycles")
    for kind in sorted({key[0] for key in counts if isinstance(key, tuple)}):
        print(f"  {kind:<14} {counts[(kind, 'injected')]}/{counts[(kind, 'entries')]} injected")
    saved = counts["characters before"] - counts["characters after"]
    print(
        f"  {counts['left out as repeats']} left out as repeats; injected text "
        f"{counts['characters before']:,} -> {counts['characters after']:,} characters "
        f"({saved:,} saved)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("heldout", "train", "all"), default="heldout")
    parser.add_argument("--judge", choices=("labels", "none"), default="labels")
    parser.add_argument("--relay-dir", type=Path, help="a real model through the relay")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--wait", type=float, default=7200.0)
    parser.add_argument("--relay", type=Path, default=DEFAULT_RELAY)
    parser.add_argument("--transcripts", action="store_true", help="the shared sessions' projects")
    parser.add_argument("--limit", type=int, default=0, help="only the first N repositories")
    args = parser.parse_args()
    for name in [key for key in os.environ if key.startswith(("ACECODE_", "ANTHROPIC_"))]:
        del os.environ[name]
    corpus = load_corpus()
    cases = [c for c in corpus["items"] if args.split in ("all", c["split"])]
    if args.limit:
        kept = sorted({c["repo"] for c in cases})[: args.limit]
        cases = [c for c in cases if c["repo"] in kept]
    relay = None
    if args.relay_dir:
        folder = args.relay_dir.resolve()
        if folder.exists() and any(folder.glob("req-*.json")):
            raise SystemExit(f"{folder} already holds relayed requests; give an empty --relay-dir")
        folder.mkdir(parents=True, exist_ok=True)
        relay = relay_review.start_relay(args.relay, args.port, folder, args.wait)
    front = Front(args.port if relay else None)
    judge = "relay" if relay else args.judge
    lines = {repo: project["instructions"] for repo, project in corpus["projects"].items()}
    print(f"{len(cases)} cases ({args.split}), curator {'relay' if relay else 'scripted'}, "
          f"judge {judge}")  # fmt: skip
    try:
        with tempfile.TemporaryDirectory(prefix="acecode-instructions-") as tmp:
            base = Path(tmp)
            if args.transcripts:
                rules = learned_rules()
                entries = {repo: [(t, "learned") for t in rules[repo]] for repo in rules}
                print_injection(
                    injection(entries, lines, front, judge, base, {}), "shared sessions"
                )
                return
            print_learning(learning(cases, corpus, front, judge, base))
            entries: dict[str, list[tuple[str, str]]] = {}
            labels: dict[tuple[str, str], str] = {}
            for case in cases:
                for variant in VARIANTS:
                    entries.setdefault(case["repo"], []).append((case[variant], variant))
                labels[(case["instruction"], case["paraphrase"])] = "same"
                labels[(case["instruction"], case["contradiction"])] = "conflicting"
            print_injection(injection(entries, lines, front, judge, base, labels), "corpus")
    finally:
        front.close()
        if relay is not None:
            relay.terminate()
            relay.wait(timeout=30)


if __name__ == "__main__":
    main()
