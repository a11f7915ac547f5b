"""What a real model does next at a real repeat failure, with and without acecode's recall.

Usage (one command; a blind player answers the requests in RELAY_DIR meanwhile)::

    python ../shared/tools/model_relay.py 8779 RELAY_DIR &      # the model's endpoint
    python bench/relay_recall.py RELAY_DIR --port 8779

For each of two real repeat failures of the shared ``spotter`` project (a failed call
of a session whose failure signature, ``acecode impact``'s, occurred in an earlier
session):

1. **learn**: ``acecode learn`` on the earlier session, every role answered by the
   real model through the relay (reflector, curator, safety review, judge);
2. **recall**: the later session's failing call goes through the real hooks as
   installed (``PreToolUse`` then ``PostToolUseFailure``, Claude Code 2.1.197's
   payloads); what they answer is the recall, or nothing when the learned rules
   hold none for this failure;
3. **the agent**: the real model, as the coding agent, gets the context it would
   have at that moment (a coding agent's instructions, acecode's session-start text
   for the project as learned, the condensed session up to the failed call and its
   result) once without and once with the recall after the result, as Claude Code
   shows it, and says what it does next. The two requests of a case are sent in an
   order drawn by a seeded coin, so nothing in the numbering tells them apart.

The player sees only the requests. ``results.json`` and ``summary.txt`` are written
at the end: per case the recall text, both next steps, whether each repeats the
failed command (same tool and command head) and whether it cites the entry.
``--scripted`` answers every role with bench/recall_replay.py's stand-in and the
agent with a fixed line: a check of the mechanics, not a measurement.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import recall_replay as replay  # noqa: E402
from _scripted_anthropic import ScriptedAnthropic  # noqa: E402

SEED = 26
# (earlier session, later session, the later session's failing call), found by
# bench/recall_replay.py's run on the shared transcripts (see bench/relay/README.md).
CASES = (
    (
        "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        "spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
        "toolu_01Uxds48rLmddUyyYGidT1Ey",
    ),
    (
        "spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
        "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
        "toolu_01L12wsTg66D1GJZYPqCpGh4",
    ),
)
AGENT_SYSTEM = (
    "You are a coding agent working in the user's repository through tools (Bash, Read, "
    "Edit, Write, Grep, Glob). You see the session so far, condensed: the user's requests, "
    "your earlier replies and tool calls, and their results. Continue the session from its "
    "last line."
)
AGENT_TASK = (
    "What do you do next? Answer with your very next step only: either the tool call you "
    "make (the tool and its exact input, e.g. Bash: git status) or the message you write to "
    "the user, then one sentence saying why. Do not explain anything else."
)
_ID = re.compile(r"\[((?:u-)?[a-z]+-\d{3,})\]")


def _ask(port: int, system: str, prompt: str) -> str:
    body = json.dumps(
        {
            "model": "relay",
            "max_tokens": 600,
            "system": system,
            "messages": [{"role": "user", "content": prompt}],
        }
    ).encode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/messages",
        data=body,
        headers={"content-type": "application/json", "x-api-key": "relay"},
    )
    with urllib.request.urlopen(request, timeout=7200) as answer:
        reply = json.loads(answer.read())
    return "".join(block.get("text", "") for block in reply.get("content", []))


def _condensed_until(transcript: Path, call_id: str) -> str:
    """The condensed session up to and including the failing call's result."""
    from acecode.transcript import load_transcript
    from acecode.transcript.condense import condense

    messages = load_transcript(transcript)
    end = next(
        i
        for i, message in enumerate(messages)
        if message.get("kind") == "tool_result" and message.get("tool_use_id") == call_id
    )
    return condense(messages[: end + 1])


def _env_for(project: Path, home: Path, port: int | None, server: Any) -> dict[str, str]:
    env = replay._env(home, project, server)
    if port is not None:
        env.update(
            ACECODE_PROVIDER="anthropic",
            AGENTIC_CONTEXT_API_KEY="relay",
            AGENTIC_CONTEXT_BASE_URL=f"http://127.0.0.1:{port}",
            AGENTIC_CONTEXT_MODEL="claude-sonnet-4-6",
        )
    return env


def run_case(case: tuple[str, str, str], port: int | None, coin: random.Random) -> dict[str, Any]:
    earlier, later, call_id = (replay.TRANSCRIPTS / case[0], replay.TRANSCRIPTS / case[1], case[2])
    with tempfile.TemporaryDirectory() as tmp, ScriptedAnthropic(replay.Replies(False)) as server:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        (project / ".git").mkdir(parents=True)
        env = _env_for(project, home, port, server)
        learned = subprocess.run(
            [sys.executable, "-m", "acecode", "learn", str(earlier), "--ignore-budget"],
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            timeout=7200,
        )
        start = subprocess.run(
            [sys.executable, "-m", "acecode", "show", "--injected"],
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
        ).stdout
        call = next(c for c in replay.calls_of(later) if c.call_id == call_id)
        session = later.stem
        before = replay._payload("PreToolUse", session, later, call)
        warned = _hook_text("pre-tool-use", before, env)
        payload = replay._payload("PostToolUseFailure", session, later, call, error=call.output)
        recalled = _hook_text("post-tool-use-failure", payload, env)
    recall = "\n".join(text for text in (warned, recalled) if text)
    context = _condensed_until(later, call_id)
    base = f"{start}\n\n<session>\n{context}\n</session>\n\n"
    with_recall = (
        f"{start}\n\n<session>\n{context}\n<system-reminder>\n"
        f"PostToolUseFailure:Bash hook additional context: {recall}\n</system-reminder>\n"
        f"</session>\n\n"
    )
    variants = [("without", base + AGENT_TASK), ("with", with_recall + AGENT_TASK)]
    if coin.random() < 0.5:
        variants.reverse()
    answers = {}
    for label, prompt in variants:
        if port is None:
            answers[label] = "Bash: make check\nScripted: no model answered."
        else:
            asked = recall or label == "without"  # no recall: the two prompts are the same
            answers[label] = _ask(port, AGENT_SYSTEM, prompt) if asked else ""
    return {
        "earlier": case[0],
        "later": case[1],
        "call": call_id,
        "command": call.tool_input.get("command") or call.tool_input.get("file_path"),
        "learned": learned.stdout.strip().splitlines(),
        "recall": recall,
        "next_without": answers["without"],
        "next_with": answers["with"],
        "repeats_without": _repeats(answers["without"], call),
        "repeats_with": _repeats(answers["with"], call),
        "cites_with": sorted(set(_ID.findall(answers["with"])) & set(_ID.findall(recall))),
    }


def _hook_text(event: str, payload: dict[str, Any], env: dict[str, str]) -> str:
    done = subprocess.run(
        [*replay.GATE, event], input=json.dumps(payload).encode(), capture_output=True, env=env
    )
    if not done.stdout.strip():
        return ""
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def _repeats(answer: str, call: Any) -> bool:
    """True when the next step is the same call again: the same tool and command head."""
    from acecode.impact.signature import command_head

    first = answer.strip().splitlines()[0] if answer.strip() else ""
    tool, _, rest = first.partition(":")
    if tool.strip() != call.tool:
        return False
    wanted = command_head(str(call.tool_input.get("command") or ""))
    return bool(wanted) and command_head(rest.strip().strip("`")) == wanted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("relay_dir", type=Path)
    parser.add_argument("--port", type=int, default=None, help="the relay's port")
    parser.add_argument("--scripted", action="store_true", help="no model: check the mechanics")
    args = parser.parse_args()
    if args.port is None and not args.scripted:
        parser.error("--port (the relay) or --scripted")
    coin = random.Random(SEED)
    results = [run_case(case, None if args.scripted else args.port, coin) for case in CASES]
    args.relay_dir.mkdir(parents=True, exist_ok=True)
    (args.relay_dir / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = []
    for number, result in enumerate(results, 1):
        lines += [
            f"== case {number}: {result['later']} {result['call']}",
            f"failed call: {result['command']}",
            f"recall: {result['recall'] or '(none: no learned rule holds this failure)'}",
            f"next step without recall: {result['next_without']}",
            f"next step with recall:    {result['next_with']}",
            f"repeats the failed call: without {result['repeats_without']}, "
            f"with {result['repeats_with']}; cites the recalled entry: {result['cites_with']}",
            "",
        ]
    (args.relay_dir / "summary.txt").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
