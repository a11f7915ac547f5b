"""Recall replayed on real sequences: learn a project's earlier sessions, replay the next one
through the real hooks, and count what recall did at its repeat failures.

Usage::

    python bench/recall_replay.py [--transcripts ../shared/transcripts] [--patterns]
        [--out replay.json] [--only NAME ...]

Every folder of ``../shared/transcripts`` holding two sessions or more of one project,
of which a later one has a failed call, is a project; its sessions are taken in time
order. For each session ``k``:

1. **replay**: session ``k``'s tool calls (its subagents' after its own) go through the
   real hooks, as installed (``<python> -P -c "...recall.gate..." <event>``), with the
   payloads Claude Code 2.1.197 sends (docs/claude-code.md, "Tool hooks"):
   ``PreToolUse`` before every ``Bash``/``Read``/``Edit``/``Write``/``MultiEdit``/
   ``NotebookEdit`` call, ``PostToolUseFailure`` after every failed call, the
   session's ``SessionStart`` first and again (``compact``) at a compaction. A call
   refused by Claude Code's own checks (``<tool_use_error>``: "File has not been
   read yet", an ``old_string`` not found or not unique) fires no hook in 2.1.197,
   so none is run for it; such failures are counted apart;
2. **learn**: ``acecode learn`` on session ``k`` and its subagents' transcripts (real
   cycles, as the session's end and ``SubagentStop`` start them), against
   a scripted Anthropic server: the reflector names each failed call of the
   condensed transcript (its ``[F3]``; the first ten) in a finding, the curator adds one rule per
   finding with ``"refs": ["F3"]``; with ``--patterns`` it also gives an input pattern
   written mechanically from the failed call (the command head, or the file's name),
   which the cycle keeps only if it passes the quality check and matches that call.
   The safety review says safe, the judge "different". The replies are a stand-in
   for a model: they measure the mechanics (a failure's signature learned, the same
   signature met again), not what a model would choose to learn.

Counted per session replayed, for **repeat failures** (a failed call whose failure
signature, ``acecode impact``'s, matches one of an earlier session of the project):

- *recalled*: an entry learned from that earlier failure (its provenance evidence has
  that signature) reached the agent at this call: in the hook's answer, or already
  in this context window (shown earlier; recall shows an entry once per window);
- *false recall*: entries shown by ``PostToolUseFailure`` that were learned from
  another failure, over all entries it showed;
- *warned*: the ``PreToolUse`` answer of the failing call named such an entry;
- *noise*: ``PreToolUse`` answers before calls that then succeeded, per 100 tool calls.

The projects are split, by a seeded shuffle (seed 26), into a held-out third and the
rest before anything was tuned; the table marks the held-out ones.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from _scripted_anthropic import ScriptedAnthropic  # noqa: E402
from support.llm_env import LLM_ENV_VARS  # noqa: E402
from support.pipeline import all_safe, is_curator, is_judge, is_safety_review, judge_reply  # noqa: E402

TRANSCRIPTS = next(
    (p / "shared" / "transcripts" for p in ROOT.parents if (p / "shared" / "transcripts").is_dir()),
    ROOT.parent / "shared" / "transcripts",
)
GATE = [sys.executable, "-P", "-c", "from acecode.recall.gate import main; main()"]
PRE_TOOLS = {"Bash", "Read", "Edit", "Write", "MultiEdit", "NotebookEdit"}
SEED = 26
_ID = re.compile(r"\[((?:u-)?[a-z]+-\d{3,})\]")
_MOMENT = re.compile(r"^(?:\[subagent\] )?\[(F\d+)\] ERROR from (\w+)(?: \([^)]*\))?: (.*)$")
_CALL = re.compile(r"CALL \(failed\): (\w+)\((\w+)='(.*?)'")


# --- scripted learning ---------------------------------------------------------------------------


class Replies:
    """The scripted reflector and curator (see the module docstring)."""

    def __init__(self, patterns: bool) -> None:
        self.patterns = patterns
        self.moments: list[tuple[str, str, str, str]] = []  # ref, tool, error, call input

    def __call__(self, system: str, prompt: str) -> str:
        if is_safety_review(system, prompt):
            return all_safe(prompt)
        if is_judge(system, prompt):
            return judge_reply(prompt, lambda first, second: "different")
        if is_curator(system, prompt):
            return self.curator()
        return self.reflector(prompt)

    def reflector(self, prompt: str) -> str:
        from acecode.impact.error_line import error_line

        lines = prompt.splitlines()
        self.moments = []
        for index, line in enumerate(lines):
            found = _MOMENT.match(line.strip())
            if not found:
                continue
            ref, tool, first = found.groups()
            call = _CALL.search(lines[index - 1]) if index else None
            block = [first]
            for following in lines[index + 1 : index + 40]:
                if following.startswith(("CALL", "ASSISTANT", "USER", "[F", "[C", "[…")):
                    break
                block.append(following)
            error = error_line("\n".join(block)) or first
            self.moments.append((ref, tool, error[:100], call.group(3) if call else ""))
        findings = [
            f"[{ref}] {tool} failed with: {error}; check this before the call."
            for ref, tool, error, _ in self.moments[:10]
        ]
        return json.dumps({"findings": findings, "tags": []})

    def curator(self) -> str:
        operations = []
        for ref, tool, error, call in self.moments[:10]:
            op: dict[str, Any] = {
                "type": "ADD",
                "text": f"{tool} failed here with: {error}. Check what it needs before running it.",
                "section": "MISTAKES TO AVOID",
                "scope": "project",
                "refs": [ref],
            }
            pattern = mechanical_pattern(tool, call) if self.patterns else ""
            if pattern:
                op["when"] = pattern
            operations.append(op)
        return json.dumps({"reasoning": "One rule per failure.", "operations": operations})


def mechanical_pattern(tool: str, call: str) -> str:
    """A stand-in for the curator's input pattern: the command head of a shell call, the
    file's name for a file tool ("" when there is nothing to go on)."""
    from acecode.impact.signature import command_head

    if tool == "Bash":
        head = command_head(call)
        return f"Bash:(^|&& |; ){re.escape(head)}( |$)" if head else ""
    if tool in ("Read", "Edit", "Write", "MultiEdit") and call:
        name = os.path.basename(call.rstrip("/"))
        return f"{tool}:(^|/){re.escape(name)}$" if name else ""
    return ""


# --- projects ------------------------------------------------------------------------------------


@dataclass
class Session:
    path: Path
    started: str
    subagents: list[Path]


def projects(root: Path) -> dict[str, list[Session]]:
    """Every folder holding two sessions or more of which a later one has a failed call
    (else nothing can repeat), its sessions oldest first."""
    found: dict[str, list[Session]] = {}
    for path in sorted(root.rglob("*.jsonl")):
        if path.name.startswith("agent-") or path.parent.name == "subagents":
            continue
        started = _first_time(path)
        folder = path.with_suffix("")
        subagents = sorted((folder / "subagents").glob("agent-*.jsonl")) if folder.is_dir() else []
        subagents += sorted(
            p
            for p in path.parent.glob("agent-*.jsonl")
            if _session_of(p) == path.stem and "acompact" not in p.name
        )
        subagents = [p for p in subagents if "acompact" not in p.name]
        key = str(path.parent.relative_to(root))
        found.setdefault(key, []).append(Session(path, started, subagents))
    ordered = {name: sorted(sessions, key=lambda s: s.started) for name, sessions in found.items()}
    return {
        name: sessions
        for name, sessions in ordered.items()
        if len(sessions) > 1 and any(session_signatures(s) for s in sessions[1:])
    }


def _first_time(path: Path) -> str:
    for line in path.open(encoding="utf-8", errors="replace"):
        try:
            stamp = json.loads(line).get("timestamp")
        except ValueError:
            continue
        if stamp:
            return str(stamp)
    return ""


def _session_of(path: Path) -> str:
    for line in path.open(encoding="utf-8", errors="replace"):
        try:
            session = json.loads(line).get("sessionId")
        except ValueError:
            continue
        if session:
            return str(session)
    return ""


def held_out(names: list[str]) -> set[str]:
    """A third of the projects, by a seeded shuffle: kept apart from any tuning."""
    shuffled = sorted(names)
    random.Random(SEED).shuffle(shuffled)
    return set(shuffled[: max(1, round(len(names) / 3))])


# --- one session's calls -------------------------------------------------------------------------


@dataclass
class Call:
    tool: str
    tool_input: dict[str, Any]
    call_id: str
    cwd: str
    failed: bool = False
    refused: bool = False  # Claude Code's own check refused it: no hook fires
    output: str = ""
    compact_before: bool = False


def calls_of(path: Path) -> list[Call]:
    """The tool calls of one transcript in order, with their results."""
    from acecode.impact.signature import is_not_a_failure

    calls: dict[str, Call] = {}
    order: list[Call] = []
    compact = False
    cwd = ""
    for line in path.open(encoding="utf-8", errors="replace"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        cwd = record.get("cwd") or cwd
        if record.get("type") == "system" and record.get("subtype") == "compact_boundary":
            compact = True
        content = (record.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("id"):
                call = Call(
                    str(block.get("name")),
                    dict(block.get("input") or {}),
                    block["id"],
                    cwd,
                    compact_before=compact,
                )
                compact = False
                calls[block["id"]] = call
                order.append(call)
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in calls:
                call = calls[block["tool_use_id"]]
                text = _text(block.get("content"))
                call.output = text
                if block.get("is_error") and not is_not_a_failure(text):
                    call.failed = True
                    call.refused = text.lstrip().startswith("<tool_use_error>")
    return order


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def signature(call: Call) -> Any:
    from acecode.impact.signature import SHELL_TOOLS, shell_command, signature_of

    command = shell_command(call.tool_input) if call.tool in SHELL_TOOLS else ""
    return signature_of(call.tool, command, call.output)


# --- the hooks -----------------------------------------------------------------------------------


def run_hook(argv: list[str], payload: dict[str, Any], env: dict[str, str]) -> list[str]:
    """The entry IDs the hook's answer names ([] for no answer)."""
    done = subprocess.run(
        argv, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=120
    )
    if done.returncode != 0 or done.stderr:
        raise RuntimeError(f"{argv[-1]}: exit {done.returncode}: {done.stderr.decode()}")
    if not done.stdout.strip():
        return []
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return _ID.findall(context)


def _payload(event: str, session: str, transcript: Path, call: Call, **extra: Any) -> dict:
    return {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": call.cwd,
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": call.tool,
        "tool_input": call.tool_input,
        "tool_use_id": call.call_id,
        **extra,
    }


def start_session(session: str, source: str, env: dict[str, str], project: Path) -> None:
    payload = {"session_id": session, "source": source, "cwd": str(project)}
    subprocess.run(
        [sys.executable, "-m", "acecode", "hook", "session-start"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=120,
        check=True,
    )


# --- counting ------------------------------------------------------------------------------------


@dataclass
class Counts:
    project: str
    session: str
    held_out: bool
    calls: int = 0
    hooked_calls: int = 0
    failures: int = 0
    repeats: int = 0
    repeats_refused: int = 0  # repeat failures no hook sees
    recalled: int = 0
    recalled_at_call: int = 0
    warned: int = 0
    shown_by_recall: int = 0
    unrelated_shown: int = 0
    noise: int = 0
    entries: int = 0
    misses: list[str] = field(default_factory=list)


def related_entries(project: Path) -> dict[str, tuple[Any, ...]]:
    """Each entry's failure signatures, from the project's provenance (impact's reader)."""
    from acecode.experiments.plan import raw_provenance
    from acecode.experiments.signatures import signature_of_entry
    from acecode.project.layer import Layer
    from acecode.store import load_playbook

    playbook = load_playbook(project / ".claude" / "playbook.json")
    origins = raw_provenance((Layer.of_project(project),))
    return {
        entry["name"]: signature_of_entry(entry, origins.get(entry["name"], ())).failures
        for entries in playbook["sections"].values()
        for entry in entries
    }


def replay(
    name: str,
    session: Session,
    earlier: list[Any],
    project: Path,
    env: dict[str, str],
    held: bool,
) -> Counts:
    from acecode.impact.signature import matches

    sid = session.path.stem
    counts = Counts(name, sid, held)
    learned = related_entries(project) if (project / ".claude" / "playbook.json").exists() else {}
    counts.entries = len(learned)

    def related(sig: Any) -> set[str]:
        return {n for n, sigs in learned.items() if any(matches(sig, s) for s in sigs)}

    start_session(sid, "startup", env, project)
    shown: set[str] = set()
    for transcript in (session.path, *session.subagents):
        for call in calls_of(transcript):
            counts.calls += 1
            if call.compact_before:
                start_session(sid, "compact", env, project)
                shown.clear()
            if call.refused:  # Claude Code's own check: no hook fires
                counts.failures += 1
                sig = signature(call)
                if any(matches(sig, e) for e in earlier):
                    counts.repeats_refused += 1
                continue
            counts.hooked_calls += call.tool in PRE_TOOLS or call.failed
            warned: list[str] = []
            if call.tool in PRE_TOOLS:
                warned = run_hook(
                    [*GATE, "pre-tool-use"], _payload("PreToolUse", sid, transcript, call), env
                )
                shown.update(warned)
                if warned and not call.failed:
                    counts.noise += 1
            if not call.failed:
                continue
            counts.failures += 1
            sig = signature(call)
            recalled = run_hook(
                [*GATE, "post-tool-use-failure"],
                _payload("PostToolUseFailure", sid, transcript, call, error=call.output),
                env,
            )
            wanted = related(sig)
            counts.shown_by_recall += len(recalled)
            counts.unrelated_shown += len(set(recalled) - wanted)
            if not any(matches(sig, e) for e in earlier):
                shown.update(recalled)
                continue
            counts.repeats += 1
            at_call = wanted & (set(recalled) | set(warned))
            counts.recalled_at_call += bool(at_call)
            counts.recalled += bool(at_call or (wanted & shown))
            counts.warned += bool(wanted & set(warned))
            if not (at_call or wanted & shown):
                counts.misses.append(f"{call.tool}: {sig.key[:110]} (learned: {len(wanted)})")
            shown.update(recalled)
    return counts


def session_signatures(session: Session) -> list[Any]:
    return [
        signature(call)
        for transcript in (session.path, *session.subagents)
        for call in calls_of(transcript)
        if call.failed
    ]


# --- the run -------------------------------------------------------------------------------------


def _env(home: Path, project: Path, server: ScriptedAnthropic) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ACECODE_", "AGENTIC_CONTEXT_", "ANTHROPIC_", "XDG_", "CLAUDE_"))
        and k not in LLM_ENV_VARS
        and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(server.env(), HOME=str(home), CLAUDE_PROJECT_DIR=str(project))
    env["PYTHONPYCACHEPREFIX"] = str(home.parent / "pycache")
    return env


def run_project(
    name: str, sessions: list[Session], patterns: bool, held: bool, log: Any
) -> list[Counts]:
    rows: list[Counts] = []
    replies = Replies(patterns)
    with tempfile.TemporaryDirectory() as tmp, ScriptedAnthropic(replies) as server:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        (project / ".git").mkdir(parents=True)
        env = _env(home, project, server)
        earlier: list[Any] = []
        for index, session in enumerate(sessions):
            if index:
                started = time.monotonic()
                rows.append(replay(name, session, earlier, project, env, held))
                log(f"{name}: replayed {session.path.name} in {time.monotonic() - started:.0f} s")
            done = subprocess.run(
                [
                    *(sys.executable, "-m", "acecode", "learn", str(session.path)),
                    *map(str, session.subagents),  # as SubagentStop learns them
                    "--ignore-budget",
                ],
                capture_output=True,
                text=True,
                env=env,
                cwd=project,
                timeout=1800,
            )
            log(f"{name}: learned {session.path.name}: exit {done.returncode}")
            if done.returncode not in (0, 1):
                raise RuntimeError(f"acecode learn {session.path}: {done.stderr}")
            earlier += session_signatures(session)
    return rows


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else f"{part}/0"


def print_table(rows: list[Counts]) -> None:
    print(
        "| project | session | calls | failures | repeat failures | recalled (at the call) "
        "| warned | false recall | noise /100 calls | repeats no hook sees |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    groups: dict[str, list[Counts]] = {}
    for row in rows:
        groups.setdefault(row.project, []).append(row)
        label = f"{row.project}{' (held out)' if row.held_out else ''}"
        print(_line(label, row.session[:8], [row]))
    for name, members in groups.items():
        if len(members) > 1:
            print(_line(f"**{name}**", "all", members))
    for title, members in (
        ("**held-out projects**", [r for r in rows if r.held_out]),
        ("**other projects**", [r for r in rows if not r.held_out]),
        ("**overall**", rows),
    ):
        print(_line(title, "", members))


def _line(label: str, session: str, rows: list[Counts]) -> str:
    total = Counter()
    for row in rows:
        total.update({k: v for k, v in asdict(row).items() if isinstance(v, int)})
    noise = 100 * total["noise"] / total["calls"] if total["calls"] else 0.0
    return (
        f"| {label} | {session} | {total['calls']} | {total['failures']} | {total['repeats']} "
        f"| {_share(total['recalled'], total['repeats'])} ({total['recalled_at_call']}) "
        f"| {_share(total['warned'], total['repeats'])} "
        f"| {_share(total['unrelated_shown'], total['shown_by_recall'])} "
        f"| {noise:.1f} | {total['repeats_refused']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcripts", type=Path, default=TRANSCRIPTS)
    parser.add_argument(
        "--patterns", action="store_true", help="the curator stand-in gives patterns"
    )
    parser.add_argument("--only", nargs="*", default=None, help="project folders to run")
    parser.add_argument("--out", type=Path, default=None, help="write every count as JSON")
    args = parser.parse_args()

    found = projects(args.transcripts)
    held = held_out(list(found))
    rows: list[Counts] = []
    for name, sessions in found.items():
        if args.only and name not in args.only:
            continue
        rows += run_project(
            name, sessions, args.patterns, name in held, lambda m: print(m, file=sys.stderr)
        )
    print(f"curator stand-in: {'rules and input patterns' if args.patterns else 'rules only'}")
    print(f"held out (seed {SEED}): {', '.join(sorted(held))}\n")
    print_table(rows)
    for row in rows:
        for miss in row.misses:
            print(f"missed in {row.project}/{row.session[:8]}: {miss}")
    if args.out:
        args.out.write_text(json.dumps([asdict(row) for row in rows], indent=2) + "\n")


if __name__ == "__main__":
    main()
