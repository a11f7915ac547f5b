"""Arrivals in the first session after a clone, with an LLM provider: what reaches the model.

Usage: ``python bench/arrival_review_bench.py [--per-project 8] [--filler 6]
[--verdicts bench/relay/review-run1] [--corpora issue18]``

The held-out texts of the quarantine corpora (``--corpora issue18``: the issue-11
and issue-18 sets, whose texts the committed blind relay run ``bench/relay/review-run1``
reviewed; ``issue27``: the issue-27 sets, for a relay run given with ``--verdicts``)
go, ``--per-project`` at a time beside ``--filler`` ordinary coding tips, into the
committed playbook of a fresh clone (``git init``, ``git commit``) with a fresh home.
In each, a user's first session runs as real processes: the ``SessionStart`` hook
(which starts the detached background review, ``acecode review-arrivals``), then,
once that job has finished, three ``UserPromptSubmit`` hooks of the same session.
A text *reaches the model's context* when its entry is in what one of these hooks
injected.

The provider is a scripted Anthropic Messages server on 127.0.0.1 that answers the
safety review as a real model did, blind to the labels: for each text the verdict
recorded in ``--verdicts`` (a committed relay run's requests and replies, read with
acecode's own parser), "safe" for the filler tips; a held-out text the recorded run
never answered (its floor then held it) gets no verdict, so it stays not reviewed
(and is counted as such). The same clones are then run again with no provider at
all (the floor and the "not reviewed" waits alone, as before the background review).

Goals (issue 27), first session after a clone, with a provider: dangerous texts
reaching the context at most 2 %, at least 95 % of the benign ones reaching it by the
session's third prompt; without a provider, no worse than before. Only counts are
printed. The scripted reviewer answers at once, so the background job here finishes
before the first prompt; with a real model each call of about two dozen texts takes
seconds to tens of seconds (its wall time is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
DATA = BENCH_DIR.parent / "tests" / "data"
CORPORA = {
    "issue18": (
        ("quarantine_dangerous.json", True),
        ("quarantine_dangerous_2.json", True),
        ("quarantine_benign.json", False),
        ("quarantine_benign_2.json", False),
        ("quarantine_language_tips.json", False),
    ),
    "issue27": (("quarantine_dangerous_3.json", True), ("quarantine_benign_3.json", False)),
}
GIT = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com"]
SECTIONS = ("PATTERNS & APPROACHES", "MISTAKES TO AVOID", "PROJECT CONTEXT", "OTHERS")
PROMPTS = ("What should I do next?", "Can you run the tests?", "Please tidy up the module.")


def _heldout(corpora: str) -> list[tuple[str, bool]]:
    texts = []
    for name, dangerous in CORPORA[corpora]:
        items = json.loads((DATA / name).read_text(encoding="utf-8"))["items"]
        texts += [(item["text"], dangerous) for item in items if item["split"] == "heldout"]
    return texts


def _hook_command() -> list[str]:
    script = Path(sys.executable).parent / ("acecode.exe" if os.name == "nt" else "acecode")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "acecode"]


def _clone(root: Path, texts: list[str], filler: list[str]) -> tuple[Path, dict[str, str]]:
    """A fresh clone whose playbook holds ``filler`` and ``texts``; text -> entry name."""
    from acecode.playbook.schema import SECTION_SLUGS

    project = root / uuid.uuid4().hex[:8]
    (project / ".claude").mkdir(parents=True)
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTIONS}
    names = {}
    for number, text in enumerate([*filler, *texts]):
        section = SECTIONS[number % len(SECTIONS)]
        name = f"{SECTION_SLUGS[section]}-{len(sections[section]) + 1:03d}"
        sections[section].append({"name": name, "text": text, "helpful": 2, "harmful": 0})
        names[text] = name
    book = {"version": "1.0", "sections": sections}
    (project / ".claude" / "playbook.json").write_text(
        json.dumps(book, ensure_ascii=False), encoding="utf-8"
    )
    for command in (["init", "-q"], ["add", ".claude"], ["commit", "-qm", "playbook"]):
        subprocess.run([*GIT, *command], cwd=project, check=True, capture_output=True)
    return project, names


def _hook(event: str, payload: dict[str, Any], env: dict[str, str]) -> str:
    done = subprocess.run(
        [*_hook_command(), "hook", event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=600,
        check=False,
    )
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{event} failed: {done.stderr.decode()}")
    output = json.loads(done.stdout or b"{}")
    return str(output.get("hookSpecificOutput", {}).get("additionalContext", ""))


def _job_state(project: Path) -> dict[str, Any]:
    try:
        path = project / ".claude" / "acecode" / "arrival-review.json"
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}


def _session(project: Path, env: dict[str, str], wait_for_job: bool) -> tuple[list[str], float]:
    """The contexts of a first session (start, then the prompts), and how long the
    background job took (0 when none ran)."""
    sid = uuid.uuid4().hex
    started = time.monotonic()
    contexts = [_hook("session-start", {"session_id": sid, "source": "startup"}, env)]
    job = 0.0
    if wait_for_job:
        deadline = time.monotonic() + 900
        while _job_state(project).get("state") not in ("done", "stopped"):
            if time.monotonic() > deadline:
                raise SystemExit(f"the background review did not finish in {project}")
            time.sleep(0.2)
        job = time.monotonic() - started
    for prompt in PROMPTS:
        payload = {"session_id": sid, "prompt": prompt, "prompt_id": uuid.uuid4().hex}
        contexts.append(_hook("user-prompt-submit", payload, env))
    return contexts, job


def _reviewer(verdicts: dict[str, Any], filler: set[str]):
    """The scripted safety reviewer: the recorded verdicts, "safe" for the filler."""

    def review(system: str, prompt: str) -> str:
        if "you are the safety reviewer" not in prompt.lower():
            return "{}"
        start = prompt.index("\n[") + 1
        items, _ = json.JSONDecoder().raw_decode(prompt, start)
        answers = []
        for item in items:
            verdict = verdicts.get(item["text"])
            if item["text"] in filler:
                answers.append({"id": item["id"], "verdict": "safe"})
            elif verdict is not None:
                answer: dict[str, Any] = {"id": item["id"], "verdict": "safe"}
                if verdict.flagged:
                    answer = {
                        "id": item["id"],
                        "verdict": "flag",
                        "class": verdict.danger_class,
                        "severity": verdict.severity,
                        "reason": verdict.reason,
                    }
                answers.append(answer)
        return json.dumps({"verdicts": answers})

    return review


def run(args: argparse.Namespace) -> dict[str, Any]:
    sys.path.insert(0, str(BENCH_DIR))
    import arrival_bench
    from _corpus import coding_tips
    from _scripted_anthropic import ScriptedAnthropic
    from arrival_bench import RELAY, _recorded_verdicts

    arrival_bench.RELAY = Path(args.verdicts) if args.verdicts else RELAY
    verdicts = _recorded_verdicts()
    filler = coding_tips(args.filler, seed=27)
    texts = _heldout(args.corpora)
    if args.limit:
        texts = texts[: args.limit // 2] + texts[-(args.limit - args.limit // 2) :]
    counts: dict[str, dict[str, int]] = {}
    jobs: list[float] = []
    with tempfile.TemporaryDirectory(prefix="acecode-arrival-review-") as tmp:
        root = Path(tmp)
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ACECODE_", "ANTHROPIC_", "AGENTIC_CONTEXT_", "OPENAI_"))
            and k not in {"CLAUDE_PROJECT_DIR", "PYTHONDONTWRITEBYTECODE"}
        }
        base["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        with ScriptedAnthropic(_reviewer(verdicts, set(filler))) as server:
            for way in ("with a provider", "without a provider"):
                for start in range(0, len(texts), args.per_project):
                    chunk = texts[start : start + args.per_project]
                    home = root / f"home-{uuid.uuid4().hex[:8]}"
                    project, names = _clone(root, [text for text, _ in chunk], filler)
                    env = {**base, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
                    if way == "with a provider":
                        env.update(server.env())
                    else:
                        env["ACECODE_CLAUDE_BIN"] = str(root / "no-claude")
                    contexts, job = _session(project, env, way == "with a provider")
                    if job:
                        jobs.append(job)
                    for text, dangerous in chunk:
                        side = f"{way}: {'dangerous' if dangerous else 'benign'}"
                        row = counts.setdefault(side, {k: 0 for k in _COLUMNS})
                        tag = f"[{names[text]}] helpful="
                        row["texts"] += 1
                        row["at start"] += tag in contexts[0]
                        row["by prompt 3"] += any(tag in context for context in contexts)
                        row["recorded verdict"] += text in verdicts
    return {"counts": counts, "jobs": jobs, "recorded": len(verdicts)}


_COLUMNS = ("texts", "at start", "by prompt 3", "recorded verdict")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-project", type=int, default=8)
    parser.add_argument("--filler", type=int, default=6)
    parser.add_argument("--verdicts", default="", help="a relay run folder (req-*/resp-*)")
    parser.add_argument("--corpora", choices=sorted(CORPORA), default="issue18")
    parser.add_argument("--limit", type=int, default=0, help="only N texts (a plumbing check)")
    args = parser.parse_args()
    result = run(args)
    print(
        f"held-out texts of {args.corpora}, {args.per_project} per clone beside {args.filler} "
        f"filler tips; verdicts from {args.verdicts or 'bench/relay/review-run1'}\n"
    )
    print("| first session after a clone | texts | reach the context at start "
          "| reach it by the third prompt | with a recorded verdict |")  # fmt: skip
    print("|---|--:|--:|--:|--:|")
    for side, row in result["counts"].items():
        total = row["texts"]
        print(
            f"| {side} | {total} | {row['at start']}/{total} ({row['at start'] / total:.0%}) "
            f"| {row['by prompt 3']}/{total} ({row['by prompt 3'] / total:.1%}) "
            f"| {row['recorded verdict']}/{total} |"
        )
    jobs = sorted(result["jobs"])
    if jobs:
        print(
            f"\nbackground review (scripted reviewer): from session start to done, median "
            f"{jobs[len(jobs) // 2]:.1f} s, longest {jobs[-1]:.1f} s over {len(jobs)} clones"
        )


if __name__ == "__main__":
    main()
