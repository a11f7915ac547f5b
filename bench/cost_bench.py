"""Cost bench: what real ``acecode learn`` cycles over the shared transcripts cost.

Run from the repository root (the ``dev`` extra installed)::

    python bench/cost_bench.py --out after.json                 # this checkout
    python bench/cost_bench.py --src ../main/src --out before.json   # another checkout's code
    python bench/cost_bench.py --compare before.json after.json      # one table, both columns

Each cycle is a real ``python -m acecode learn FILE`` subprocess (``--src``: with
that checkout's ``src`` first on ``PYTHONPATH``), in a fresh home and project, one
transcript after the other in path order, against a local server that speaks the
Anthropic Messages API and bills like it (``bench/_billing_anthropic.py``: input,
output, cache writes and reads, the 1,024-token cache minimum, 5-minute and
1-hour entries, ``max_tokens`` enforced with ``stop_reason: "max_tokens"``).
The model is ``claude-sonnet-4-6``, priced by acecode's own table
(``src/acecode/cost/prices.json``: $3 / $15 per million, cache writes 1.25x
for 5 minutes and 2x for one hour, reads 0.1x).

Three runs over every transcript under ``../shared/transcripts`` (Claude Code's
compaction helpers left out, as ``acecode learn DIR`` does):

* ``hand``: ``acecode learn FILE``, no budget: the cost of each cycle that runs,
  per role, the cache, and the reservation (the cycle's worst case, all its
  reserve records) against what it really cost;
* ``hooks``: ``acecode learn FILE --source session-end``, as the SessionEnd hook
  starts it, no budget, sessions 20 minutes apart on the server's cache clock:
  sessions skipped without a call (too small, or no signal for the triage)
  count $0 in the mean cost per session;
* ``budget``: ``acecode learn FILE`` with the default daily budget: how many
  consecutive cycles run within one day before the budget refuses one.

The replies are scripted, so their *length* is a model, not a measurement:
the reflector and curator answer with findings and rules drawn from the
transcript (its failed calls, user corrections, interruptions, first request),
written in the output format the prompt asks for: an essay when the prompt
asks for an ``analysis`` (the format before issue 19; its length calibrated on
the real-model medians quoted in issue 19: reflector 688 and curator 377
output tokens), one short line per finding when the prompt asks for
``findings`` (the lean format). The safety review says "safe" to every text,
the judge "different" to every pair. Input and output are reported apart, so
the modelled part (output) is visible. ``bench/relay_learn.py`` runs the same
cycles with a real model answering through ``../shared/tools/model_relay.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from _billing_anthropic import BillingAnthropic  # noqa: E402
from support.llm_env import LLM_ENV_VARS  # noqa: E402
from support.pipeline import (  # noqa: E402
    all_safe,
    is_curator,
    is_judge,
    is_safety_review,
    judge_reply,
)

MODEL = "claude-sonnet-4-6"
PRICE = {"input": 3.0, "output": 15.0, "read": 0.3, "write_5m": 3.75, "write_1h": 6.0}
# ../shared/transcripts beside the checkout (or beside the folder of worktrees).
TRANSCRIPTS = next(
    (p / "shared" / "transcripts" for p in ROOT.parents if (p / "shared" / "transcripts").is_dir()),
    ROOT.parent / "shared" / "transcripts",
)
# Seconds between two sessions of the ``hooks`` run (sessions end minutes apart).
HOOK_GAP_SECONDS = 20 * 60.0

_CORRECTION = re.compile(
    r"\b(no|not|don't|didn't|wrong|instead|actually|wait|stop|revert|undo|should|why)\b", re.I
)


# --- scripted replies ----------------------------------------------------------------------------


def _between(text: str, start: str, end: str) -> str:
    head = text.find(start)
    if head < 0:
        return ""
    tail = text.find(end, head + len(start))
    return text[head + len(start) : tail if tail >= 0 else len(text)]


def _words(text: str, count: int) -> str:
    return " ".join(re.sub(r"[^\w./:-]+", " ", text).split()[:count])


def findings_of(transcript: str) -> list[tuple[str, str]]:
    """(what happened, the lesson) per notable event of a condensed transcript, at most 8:
    distinct failed calls, user corrections and interruptions, then the first request."""
    lines = transcript.splitlines()
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    requests = [line[6:] for line in lines if line.startswith("USER: ")]
    for index, line in enumerate(lines):
        if line.startswith("ERROR from ") or line.startswith("FAILURE in "):
            tool = line.split(":", 1)[0].split()[-1]
            error = _words(line.split(":", 1)[-1], 12)
            key = f"{tool} {error[:30]}"
            if key in seen or len(seen) >= 4:
                continue
            seen.add(key)
            call = _words(lines[index - 1].split("(", 1)[-1], 8) if index else tool
            found.append((f"{tool} failed with {error}", f"mind {call}"))
    corrections = [r for r in requests[1:] if _CORRECTION.search(r)][:2]
    for request in corrections:
        found.append((f"the user corrected the agent: {_words(request, 14)}", "do it that way"))
    if any("interrupted" in r.lower() for r in requests):
        found.append(("the user interrupted the agent", "confirm the approach before long work"))
    if requests:
        found.append((f"the user asked: {_words(requests[0], 14)}", "keep the project's workflow"))
    return found[:8] or [("the session did routine work", "nothing new")]


def _narrative(transcript: str) -> str:
    """About 1,800 characters retelling the session (the essay format opens with one)."""
    said = [line.split(": ", 1)[-1] for line in transcript.splitlines() if ": " in line]
    words = _words(" ".join(said), 600).split()
    sentences = [" ".join(words[i : i + 22]) for i in range(0, min(len(words), 280), 22)]
    story = ". Then ".join(sentences) or "little happened"
    return f"Over the session the user and the agent worked as follows: {story}."[:1800]


def _essay(what: str, lesson: str, filler: str) -> str:
    """About 480 characters of reviewer prose about one finding (the pre-issue-19 format)."""
    return (
        f"In this session {what}. The root cause appears to be that the agent did not verify "
        f"its assumptions first ({filler}). This cost extra tool calls and time before the "
        f"work could continue, and the user had to wait. A future session in this project "
        f"should {lesson}, and should read the relevant configuration before acting, so the "
        f"same mistake is not repeated."
    )


# Rule phrasings, picked by the finding, so rules differ in form as a real curator's do
# (a handful of fixed phrasings make every new rule look like the last to the embeddings).
_RULES = (
    "{what}: {lesson}.",
    "{lesson}; otherwise {what}.",
    "Note that {what} ({lesson}).",
    "Expect this: {what}. So {lesson}.",
    "{lesson} first, because {what}.",
    "Known pitfall here, {what}; {lesson}.",
)


def playbook_ids(prompt: str) -> list[str]:
    return re.findall(r"^\[([a-z]+(?:-[a-z]+)*-\d{3,})\]", prompt, re.MULTILINE)


class Replies:
    """The scripted model: answers each role from what its prompt holds."""

    def __init__(self) -> None:
        self.findings: list[tuple[str, str]] = []
        self.tags: list[str] = []

    def __call__(self, system: str, prompt: str) -> str:
        if is_safety_review(system, prompt):
            return all_safe(prompt)
        if is_judge(system, prompt):
            return judge_reply(prompt, lambda first, second: "different")
        if is_curator(system, prompt):
            return self.curator(system + prompt)
        return self.reflector(system + prompt)

    def reflector(self, prompt: str) -> str:
        transcript = _between(prompt, "<transcript>", "</transcript>")
        self.findings = findings_of(transcript)
        self.tags = playbook_ids(prompt.replace(transcript, ""))[:2]
        filler = _words(transcript[-2000:], 14)
        if '"findings"' in prompt:  # the lean format: one short line per finding
            findings = [
                f"{what}; {lesson}; seen in this session, worth keeping for the next one."
                for what, lesson in self.findings
            ]
            tags = [
                f"{name} helpful: followed, and the step it covers worked" for name in self.tags
            ]
            return json.dumps({"findings": findings, "tags": tags})
        analysis = " ".join(
            [_narrative(transcript)]
            + [_essay(what, lesson, filler) for what, lesson in self.findings]
        )
        tags = [
            {
                "name": name,
                "tag": "helpful",
                "rationale": "The agent followed this entry and the step it covers worked.",
            }
            for name in self.tags
        ]
        return json.dumps({"analysis": analysis, "bullet_tags": tags}, indent=2)

    def curator(self, prompt: str) -> str:
        operations = []
        for what, lesson in self.findings[:3]:
            rule = _RULES[sum(map(ord, what)) % len(_RULES)]
            text = rule.format(what=what[:140], lesson=lesson)
            operations.append(
                {
                    "type": "ADD",
                    "text": text[0].upper() + text[1:],
                    "section": "MISTAKES TO AVOID" if "failed" in what else "PROJECT CONTEXT",
                    "scope": "project",
                }
            )
        if "one sentence" in prompt and "reasoning" in prompt:  # the lean curator format
            reasoning = "Adds the session's reusable lessons; no entry was wrong."
        else:
            reasoning = (
                "The reflector reported the following lessons from this session, and none of "
                "them is already covered by an entry of the current playbook, so each becomes "
                "a new key point in the section it belongs to. No existing entry was tagged "
                "harmful, so nothing is updated or deleted; the retire candidates and possibly "
                "stale entries were reviewed and can stay, as nothing in the reflection shows "
                "them to be wrong or obsolete. The new texts are short, concrete and reusable, "
                "and each names the situation it applies to, so that a future session can tell "
                "when to follow it. Merging was considered but the lessons are distinct. The "
                "conflicting pairs listed by the judge are not touched by this session: the "
                "reflection gives no evidence about which side is right, so both stay until a "
                "later session shows it. The sections were chosen by what each lesson is about: "
                "failures go to MISTAKES TO AVOID, facts about the codebase to PROJECT CONTEXT."
            )
        return json.dumps({"reasoning": reasoning, "operations": operations}, indent=2)


# --- running cycles ------------------------------------------------------------------------------


def transcripts(root: Path) -> list[Path]:
    """Every session transcript under ``root`` in path order, compaction helpers left out."""
    return sorted(p for p in root.rglob("*.jsonl") if not p.name.startswith("agent-acompact"))


def _env(home: Path, project: Path, server: BillingAnthropic, src: Path | None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ACECODE_", "AGENTIC_CONTEXT_", "ANTHROPIC_", "XDG_", "CLAUDE_"))
        and k not in LLM_ENV_VARS
    }
    env.update(server.env(MODEL), HOME=str(home), CLAUDE_PROJECT_DIR=str(project))
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(src), env.get("PYTHONPATH"))))
    return env


def run_mode(
    mode: str, files: list[Path], src: Path | None, progress: Callable[[str], None]
) -> list[dict[str, Any]]:
    """One row per transcript: the cycle's record, its ledger spend and its reservations."""
    replies = Replies()
    with tempfile.TemporaryDirectory() as tmp, BillingAnthropic(replies) as server:
        home, project = Path(tmp) / "home", Path(tmp) / "bench-project"
        home.mkdir()
        (project / ".claude").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        subprocess.run(
            ["git", "-C", str(project), "remote", "add", "origin", "https://example.org/bench.git"],
            check=True,
        )
        env = _env(home, project, server, src)
        if mode in ("hand", "hooks"):
            env["ACECODE_DAILY_BUDGET_USD"] = "0"
        for index, path in enumerate(files, 1):
            args = [sys.executable, "-m", "acecode", "learn", str(path), "--json"]
            if mode == "hooks":
                args += ["--source", "session-end"]
                server.advance(HOOK_GAP_SECONDS)
            done = subprocess.run(
                args, capture_output=True, text=True, env=env, cwd=project, timeout=900
            )
            progress(f"{mode} {index}/{len(files)} {path.name} exit {done.returncode}")
            if done.returncode not in (0, 1):
                raise RuntimeError(f"acecode learn {path} exited {done.returncode}: {done.stderr}")
        return _rows(home, project, files)


def _rows(home: Path, project: Path, files: list[Path]) -> list[dict[str, Any]]:
    ledger = home / ".local" / "state" / "acecode" / "cost-ledger.jsonl"
    records = (
        [json.loads(line) for line in ledger.read_text().splitlines()] if ledger.exists() else []
    )
    cycles_file = project / ".claude" / "acecode" / "cycles.jsonl"
    outcomes = [json.loads(line) for line in cycles_file.read_text().splitlines()]
    spent = {r["cycle_id"]: r for r in records if r["kind"] == "cycle"}
    reserved: dict[str, float] = {}
    for record in records:
        if record["kind"] == "reserve":
            reserved[record["cycle_id"]] = reserved.get(record["cycle_id"], 0.0) + float(
                record.get("estimate_usd") or 0.0
            )
    by_file = {str(path): path for path in files}
    rows = []
    for outcome in outcomes:
        cycle = spent.get(outcome["cycle_id"])
        rows.append(
            {
                "transcript": str(by_file.get(outcome["transcript"], outcome["transcript"])),
                "status": outcome["status"],
                "reason": outcome.get("reason", ""),
                "cost": cycle["cost_usd"] if cycle else 0.0,
                "operations_applied": outcome.get("operations_applied", 0),
                "reserved": reserved.get(outcome["cycle_id"]),
                "roles": cycle["roles"] if cycle else {},
            }
        )
    return rows


# --- the table -----------------------------------------------------------------------------------


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """The table's rows for one code version."""
    out: dict[str, str] = {}
    hand = runs.get("hand", [])
    ran = [row for row in hand if row["roles"]]
    if ran:
        costs = [row["cost"] for row in ran]
        out["cycles that ran (by hand)"] = f"{len(ran)} of {len(hand)}"
        out["median cost per cycle that runs"] = _usd(statistics.median(costs))
        out["mean cost per cycle that runs"] = _usd(statistics.fmean(costs))
        out["range"] = f"{_usd(min(costs))}-{_usd(max(costs))}"
        ratios = [row["reserved"] / row["cost"] for row in ran if row["reserved"] and row["cost"]]
        out["reserved / actual: median"] = f"{statistics.median(ratios):.2f}x"
        out["reserved / actual: range"] = f"{min(ratios):.2f}x-{max(ratios):.2f}x"
        out["reserved worst case: median"] = _usd(statistics.median(r["reserved"] for r in ran))
        for role in ("reflector", "curator", "safety_review", "judge"):
            rows = [row["roles"][role] for row in ran if role in row["roles"]]
            if not rows:
                out[f"{role}: calls"] = "0"
                continue
            ins = [r["input_tokens"] for r in rows]
            outs = [r["output_tokens"] for r in rows]
            calls = sum(r["calls"] for r in rows)
            out[f"{role}: cycles / calls"] = f"{len(rows)} / {calls}"
            out[f"{role}: median input / output tokens"] = (
                f"{statistics.median(ins):,.0f} / {statistics.median(outs):,.0f}"
            )
            cut = sum(r.get("truncated", 0) for r in rows)
            out[f"{role}: replies cut at max_tokens"] = f"{cut} of {calls}"
        totals = {"input": 0.0, "output": 0.0, "read": 0, "write": 0}
        for row in ran:
            for role in row["roles"].values():
                cache_read = role.get("cache_read_tokens", 0)
                cache_write = role.get("cache_write_tokens", 0) + role.get(
                    "cache_write_1h_tokens", 0
                )
                totals["read"] += cache_read
                totals["write"] += cache_write
                totals["output"] += role["output_tokens"] * PRICE["output"] / 1e6
                totals["input"] += (role["cost_usd"] or 0.0) - role["output_tokens"] * PRICE[
                    "output"
                ] / 1e6
        whole = totals["input"] + totals["output"]
        out["cost share: input / output"] = (
            f"{100 * totals['input'] / whole:.0f}% / {100 * totals['output'] / whole:.0f}%"
        )
        out["cache read / write tokens (all cycles)"] = f"{totals['read']:,} / {totals['write']:,}"
    hooks = runs.get("hooks", [])
    if hooks:
        skipped = [row for row in hooks if not row["roles"]]
        out["hooks: sessions / skipped at $0"] = f"{len(hooks)} / {len(skipped)}"
        reasons: dict[str, int] = {}
        for row in skipped:
            key = row["reason"].split(":")[0][:40] or row["status"]
            reasons[key] = reasons.get(key, 0) + 1
        out["hooks: why skipped"] = "; ".join(f"{k} x{v}" for k, v in sorted(reasons.items()))
        out["hooks: mean cost per session"] = _usd(statistics.fmean(r["cost"] for r in hooks))
        out["hooks: total spend"] = _usd(sum(r["cost"] for r in hooks))
    budget = runs.get("budget", [])
    if budget:
        refused = [i for i, row in enumerate(budget) if "budget" in row["reason"]]
        first = refused[0] if refused else len(budget)
        out["default $1/day: consecutive cycles run"] = f"{first} of {len(budget)}" + (
            f" (refused from #{first + 1})" if refused else ""
        )
        out["default $1/day: spent when refused"] = _usd(sum(r["cost"] for r in budget))
        out["30 consecutive cycles within one day"] = "yes" if first >= 30 else "no"
        stopped = [r for r in budget if r["cost"] and r["status"] not in ("ok", "nothing-new")]
        out["default $1/day: stopped after their first call"] = str(len(stopped))
    return out


def triage_lines(runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The sessions the hooks' triage skipped: what the reflector would have been given
    (the triage's counts), and what their cycles cost and changed when learned by hand
    (the changes are the scripted curator's, so they say nothing of a real model's)."""
    by_hand = {row["transcript"]: row for row in runs.get("hand", [])}
    lines = []
    for row in runs.get("hooks", []):
        if not row["reason"].startswith("nothing to learn"):
            continue
        counts = row["reason"].split(": ", 1)[1].split(" and no ")[0]
        hand = by_hand.get(row["transcript"], {})
        lines.append(
            f"  {Path(row['transcript']).name[:44]:44} {counts:36} "
            f"by hand {_usd(hand.get('cost'))}, {hand.get('operations_applied', '-')} rule(s)"
        )
    return lines


# A "small" session for the merged-call estimate: a reflector prompt under this many tokens.
SMALL_REFLECTOR_INPUT = 4_000


def merged_call_lines(rows: list[dict[str, Any]]) -> list[str]:
    """What one merged reflector+curator call would save on small sessions, estimated from
    the measured tokens of the two calls (not run): the merged prompt carries both roles'
    instructions (its head then long enough to cache) and the session once; it drops the
    curator's own data (the reflection quoted back, the playbook view, the lists)."""
    from _billing_anthropic import count_tokens
    from acecode.prompts.templates import load_template
    from acecode.roles.ask import SYSTEM_PROMPT
    from acecode.roles.prompt import split_template

    def head(name: str) -> int:
        return count_tokens(SYSTEM_PROMPT + split_template(load_template(name))[0])

    reflector_head, curator_head = head("reflector.txt"), head("curator.txt")
    small = [
        row
        for row in rows
        if {"reflector", "curator"} <= set(row["roles"])
        and row["roles"]["reflector"]["input_tokens"] < SMALL_REFLECTOR_INPUT
    ]
    if not small:
        return []
    savings, costs = [], []
    for row in small:
        curator = row["roles"]["curator"]
        data = curator["input_tokens"] - curator_head
        head_price = PRICE["read"] if curator.get("cache_read_tokens") else PRICE["input"]
        saved = data * PRICE["input"] + reflector_head * (PRICE["input"] - head_price)
        savings.append(saved / 1e6)
        costs.append(row["roles"]["reflector"]["cost_usd"] + curator["cost_usd"])
    share = statistics.median(s / c for s, c in zip(savings, costs, strict=True))
    return [
        f"  {len(small)} small sessions (reflector prompt < {SMALL_REFLECTOR_INPUT:,} tokens): "
        f"reflector + curator median {_usd(statistics.median(costs))}; one merged call would "
        f"save about {_usd(statistics.median(savings))} a cycle ({share:.0%} of the two calls)"
    ]


def print_table(columns: dict[str, dict[str, str]]) -> None:
    names = list(columns)
    keys = list(dict.fromkeys(key for column in columns.values() for key in column))
    width = max(len(key) for key in keys)
    widths = [max(len(name), *(len(columns[name].get(k, "")) for k in keys)) for name in names]
    print(f"{'':{width}}  " + "  ".join(f"{n:>{w}}" for n, w in zip(names, widths, strict=True)))
    for key in keys:
        cells = [f"{columns[n].get(key, ''):>{w}}" for n, w in zip(names, widths, strict=True)]
        print(f"{key:{width}}  " + "  ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, help="the src folder of the acecode to measure")
    parser.add_argument("--transcripts", type=Path, default=TRANSCRIPTS)
    parser.add_argument("--modes", default="hand,hooks,budget")
    parser.add_argument("--limit", type=int, default=0, help="first N transcripts only")
    parser.add_argument("--out", type=Path, help="save the rows as JSON")
    parser.add_argument("--compare", type=Path, nargs="+", help="print saved runs side by side")
    args = parser.parse_args()
    if args.compare:
        runs = {path.stem: json.loads(path.read_text()) for path in args.compare}
        print_table({name: summarize(rows) for name, rows in runs.items()})
        for name, rows in runs.items():
            print(f"\nskipped by the triage ({name}):", *triage_lines(rows), sep="\n")
        latest = list(runs.values())[-1].get("hand", [])
        print("\nmerged reflector+curator call, estimated:", *merged_call_lines(latest), sep="\n")
        return
    files = transcripts(args.transcripts)[: args.limit or None]
    if not files:
        parser.error(f"no transcripts under {args.transcripts}")
    runs = {
        mode: run_mode(mode, files, args.src, lambda line: print(line, file=sys.stderr))
        for mode in args.modes.split(",")
    }
    if args.out:
        args.out.write_text(json.dumps(runs, indent=1))
    print_table({args.out.stem if args.out else "this run": summarize(runs)})
    print("\nskipped by the triage:", *triage_lines(runs), sep="\n")
    print("\nmerged reflector+curator call, estimated:", *merged_call_lines(runs.get("hand", [])))


if __name__ == "__main__":
    main()
