"""Does a learned rule's evidence point at the moment it was learned from? A blind judge says.

Three steps, each one command; a real model answers every request through
``../shared/tools/model_relay.py``, played by someone who has not seen what the
bench expects (the requests say nothing about it)::

    python bench/relay_evidence.py learn RUN --port 8770      # acecode learns each session
    python bench/relay_evidence.py judge RUN --port 8771      # the judge names the moments
    python bench/relay_evidence.py table RUN                  # the table, no model

*learn*: each multi-failure session (default: four of ``../shared/transcripts``,
10 to 23 failed calls each) is learned by ``python -m acecode learn FILE --json``
in a fresh project and home, with every role (reflector, curator, safety review,
dedup judge) answered through the relay (``RUN/learn/req-NNNN.json``, reply in
``resp-NNNN.txt``). The session's report, playbook and provenance are kept in
``RUN/sessions/<name>/``.

*judge*: one request per session (``RUN/judge/``): the session condensed as the
reflector saw it, with its failed calls numbered ``[F1]``... and the user's
messages ``[C1]``... (a larger budget, so more of the session shows), then the
rules learned from it. For each rule the judge names the moments it was
learned from, or none. It is not shown acecode's links, the curator's reasons
or anything else about them.

*table*: per session, the rules learned, those the judge says came from a
failed call, and how many of those acecode linked to a moment the judge named
(the goal: at least 90%); the same for the heuristic acecode used before issue
26 (matching each rule's text with the curator's reason, or the whole
reflection, against every failure's entire output; its code is read from git at
:data:`OLD_COMMIT`), computed on the same rules; the distinct evidence records
among the rules (the issue found 50 rules with 11); and the error lines that
read only ``Exit code N``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from relay_learn import RELAY, SHARED, environment, start_relay  # noqa: E402

SESSIONS = {
    "claude-code-log": "claude-code-log/-Users-dain-workspace-claude-code-log-sample/"
    "37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl",
    "todo-app": "claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    "spotter": "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
    "tokenizer-site": "claude-code-log/-Users-dain-workspace-danieldemmel-me-next/"
    "9e953218-585f-4692-89df-9e0747a31c68.jsonl",
}
# The last commit of main before issue 26 changed how evidence is linked.
OLD_COMMIT = "76f9ac0"
JUDGE_BUDGET_TOKENS = 40_000
JUDGE_MAX_TOKENS = 1_000
JUDGE_SYSTEM = "You judge where in a coding session a rule was learned. Answer only with JSON."
JUDGE_PROMPT = (
    "Below is a coding agent's session, condensed for review. Its failed tool calls are "
    "numbered [F1], [F2]..., the user's messages [C1], [C2].... After it come rules that a "
    "reviewer learned from this session.\n\n"
    "For each rule, name the moments of the session it was learned from: the failed call whose "
    "mistake the rule prevents, or the user's message that asked for it or corrected the agent. "
    "Name only moments the rule is clearly about, usually one. Give [] when no numbered moment "
    "shows it (the rule comes from calls that succeeded, or from the session as a whole).\n\n"
    "Answer with one JSON object mapping each rule's ID to a list of moment numbers, and "
    'nothing else, as {{"mis-001": ["F3"], "pref-001": ["C2"], "pat-002": []}}.\n\n'
    "<session>\n{session}\n</session>\n\nRules:\n{rules}\n"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("learn", "judge", "table"))
    parser.add_argument("run", type=Path, help="the run's folder")
    parser.add_argument("--port", type=int, default=8770)
    parser.add_argument("--only", nargs="*", choices=sorted(SESSIONS), help="these sessions")
    parser.add_argument("--relay", type=Path, default=RELAY)
    args = parser.parse_args()
    names = args.only or list(SESSIONS)
    if args.step == "table":
        print_table(args.run, names)
        return 0
    folder = args.run / args.step
    relay = start_relay(args.relay, args.port, folder)
    try:
        for name in names:
            if args.step == "learn":
                learn(args.run, name, args.port)
            else:
                judge(args.run, name, args.port)
    finally:
        relay.terminate()
        relay.wait(timeout=30)
    return 0


# --- learn -------------------------------------------------------------------------------------


def learn(run: Path, name: str, port: int) -> None:
    """Learn one session in a fresh project and home; keep its report and state files."""
    transcript = SHARED / "transcripts" / SESSIONS[name]
    kept = run / "sessions" / name
    kept.mkdir(parents=True, exist_ok=True)
    print(f"== learning {name} (answer the requests in {run / 'learn'})", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        (project / ".claude").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        done = subprocess.run(
            [sys.executable, "-m", "acecode", "learn", str(transcript), "--json"],
            capture_output=True,
            text=True,
            env=environment(home, project, port, None),
            cwd=project,
            check=False,
        )
        (kept / "learn-stderr.txt").write_text(done.stderr, encoding="utf-8")
        if done.returncode not in (0, 1):
            raise SystemExit(f"acecode learn failed for {name}: {done.stderr[-2000:]}")
        (kept / "reports.json").write_text(done.stdout, encoding="utf-8")
        user = home / ".claude" / "acecode-user"
        for source, target in (
            (project / ".claude" / "playbook.json", "playbook.json"),
            (project / ".claude" / "acecode" / "provenance.json", "provenance.json"),
            (user / "playbook.json", "user-playbook.json"),
            (user / "acecode" / "provenance.json", "user-provenance.json"),
        ):
            if source.exists():
                shutil.copy(source, kept / target)


# --- judge -------------------------------------------------------------------------------------


def provenance_of(run: Path, name: str) -> dict[str, Any]:
    """Both layers' provenance entries of the session's cycle (user names start ``u-``)."""
    kept = run / "sessions" / name
    found: dict[str, Any] = {}
    for file in ("provenance.json", "user-provenance.json"):
        found.update(_json(kept / file, {"entries": {}})["entries"])
    return found


def learned_entries(run: Path, name: str) -> dict[str, str]:
    """The rules the session's cycle learned (name -> text), from its provenance."""
    kept = run / "sessions" / name
    texts = {}
    for file in ("playbook.json", "user-playbook.json"):
        sections = _json(kept / file, {"sections": {}})["sections"]
        texts.update({e["name"]: e["text"] for entries in sections.values() for e in entries})
    return {entry: texts[entry] for entry in provenance_of(run, name) if entry in texts}


def judge(run: Path, name: str, port: int) -> None:
    """Ask the judge about one session's rules; keep the verdicts."""
    from acecode.transcript import load_transcript
    from acecode.transcript.condense import condense

    rules = learned_entries(run, name)
    if not rules:
        print(f"== {name}: no rule learned, nothing to judge")
        return
    transcript = SHARED / "transcripts" / SESSIONS[name]
    session = condense(load_transcript(transcript), JUDGE_BUDGET_TOKENS)
    listed = "\n".join(f"- {entry}: {text}" for entry, text in rules.items())
    prompt = JUDGE_PROMPT.format(session=session, rules=listed)
    print(f"== judging {name}: {len(rules)} rules (answer in {run / 'judge'})", flush=True)
    reply = _ask(port, prompt)
    verdicts_file = run / "judge" / "verdicts.json"
    verdicts = _json(verdicts_file, {})
    verdicts[name] = {"reply": reply, "moments": _moments(reply, rules)}
    verdicts_file.write_text(json.dumps(verdicts, indent=1, ensure_ascii=False) + "\n")


def _ask(port: int, prompt: str) -> str:
    body = {
        "model": "judge",
        "max_tokens": JUDGE_MAX_TOKENS,
        "system": JUDGE_SYSTEM,
        "messages": [{"role": "user", "content": prompt}],
    }
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/messages",
        data=json.dumps(body).encode("utf-8"),
        headers={"content-type": "application/json", "x-api-key": "relay"},
    )
    with urllib.request.urlopen(request, timeout=3600) as response:
        data = json.loads(response.read())
    return "".join(block.get("text", "") for block in data.get("content") or ())


def _moments(reply: str, rules: dict[str, str]) -> dict[str, list[str]]:
    """The judge's moments per rule (rules it left out: an empty list)."""
    from acecode.pipeline.evidence import refs_in

    start, end = reply.find("{"), reply.rfind("}")
    try:
        data = json.loads(reply[start : end + 1]) if start >= 0 else {}
    except ValueError:
        data = {}
    return {entry: refs_in(data.get(entry)) for entry in rules}


# --- table -------------------------------------------------------------------------------------


def print_table(run: Path, names: list[str]) -> None:
    verdicts = _json(run / "judge" / "verdicts.json", {})
    header = (
        f"{'session':16} {'rules':>5} {'from a failure':>14} {'new link right':>15} "
        f"{'old link right':>15} {'distinct new/old':>16} {'Exit code alone':>15}"
    )
    print(header)
    totals = [0, 0, 0, 0]
    for name in names:
        rules = learned_entries(run, name)
        judged = (verdicts.get(name) or {}).get("moments") or {}
        new = new_links(run, name)
        old = old_links(run, name, rules)
        from_failure = [e for e in rules if any(m.startswith("F") for m in judged.get(e, []))]
        new_right = sum(1 for e in from_failure if new.get(e) in judged[e])
        old_right = sum(1 for e in from_failure if old.get(e) in judged[e])
        distinct_new = len({new.get(e) for e in rules})
        distinct_old = len({old.get(e) for e in rules})
        exit_alone = exit_code_lines(run, name)
        totals = [
            t + v
            for t, v in zip(
                totals, (len(rules), len(from_failure), new_right, old_right), strict=True
            )
        ]
        print(
            f"{name:16} {len(rules):>5} {len(from_failure):>14} "
            f"{_share(new_right, len(from_failure)):>15} "
            f"{_share(old_right, len(from_failure)):>15} {f'{distinct_new}/{distinct_old}':>16} "
            f"{exit_alone:>15}"
        )
    print(
        f"{'all':16} {totals[0]:>5} {totals[1]:>14} {_share(totals[2], totals[1]):>15} "
        f"{_share(totals[3], totals[1]):>15}"
    )


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"


def new_links(run: Path, name: str) -> dict[str, str]:
    """The moment each rule's first origin links (its ``ref``; ``-`` for none)."""
    provenance = provenance_of(run, name)
    return {
        entry: (record["origins"][0].get("evidence") or {}).get("ref") or "-"
        for entry, record in provenance.items()
    }


def exit_code_lines(run: Path, name: str) -> int:
    """Rules whose evidence's error line reads only ``Exit code N``."""
    import re

    provenance = provenance_of(run, name)
    return sum(
        1
        for record in provenance.values()
        for origin in record["origins"]
        if re.fullmatch(r"Exit code \d+", (origin.get("evidence") or {}).get("error") or "")
    )


def old_links(run: Path, name: str, rules: dict[str, str]) -> dict[str, str]:
    """The moment the pre-issue heuristic would have linked each rule to (``-``: none)."""
    from acecode.agents import get_agent
    from acecode.transcript import load_transcript
    from acecode.transcript.moments import MomentCounter

    reports = json.loads((run / "sessions" / name / "reports.json").read_text() or "[]")
    if not reports:
        return {}
    report = reports[-1]
    messages = load_transcript(SHARED / "transcripts" / SESSIONS[name])
    counter = MomentCounter(get_agent().tools)
    ref_of_id: dict[str, str] = {}
    ref_of_request: dict[str, str] = {}
    for message in messages:
        ref = counter.label(message)
        if ref and message.get("kind") == "tool_result":
            ref_of_id[str(message.get("tool_use_id"))] = ref
        elif ref:
            ref_of_request.setdefault(" ".join(str(message.get("content")).split())[:150], ref)
    old = _old_evidence_module()
    original = old["_failure"]

    def failure(call: dict[str, Any], result: dict[str, Any]) -> Any:
        found = original(call, result)  # the call's id rides along in its evidence
        return type(found)({**found.evidence, "id": str(result.get("tool_use_id"))}, found.words)

    old["_failure"] = failure
    pool = old["EvidencePool"].collect(messages)
    links = {}
    for entry, text in rules.items():
        reason = _reason(report, text) or report.get("analysis") or ""
        found = pool.match(text, reason)
        if found["kind"] == "failure":
            links[entry] = ref_of_id.get(found["id"], "-")
        elif found["kind"] == "request":
            links[entry] = ref_of_request.get(found["request"][:150], "-")
        else:
            links[entry] = "-"
    return links


def _reason(report: dict[str, Any], text: str) -> str:
    """The curator's reason for the operation that proposed ``text`` (as the old cycle
    took it)."""
    for op in report.get("proposed_operations") or ():
        if isinstance(op, dict) and text in (op.get("text"), op.get("merged_text")):
            return str(op.get("reason") or "")
    return ""


def _old_evidence_module() -> dict[str, Any]:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:src/acecode/pipeline/evidence.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    import types

    module = types.ModuleType("old_evidence")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, "old_evidence.py", "exec"), module.__dict__)
    return module.__dict__


def _json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
