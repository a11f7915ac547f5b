"""The first screen of a large arrival when every hook is killed after 2 seconds.

Usage: ``python bench/arrival_screen_bench.py [--entries 3000] [--kill-after 2.0]
[--sessions 5] [--prompts 2]``

A fresh clone (``git init`` and ``git commit`` of a playbook of ``--entries``
ordinary coding tips none of which this machine wrote) and a fresh home, no LLM
provider (the screen is then heaviest: the floor and the "not reviewed" waits).
Each session runs the real ``SessionStart`` hook and ``--prompts``
``UserPromptSubmit`` hooks, every one a fresh process fed its JSON on stdin and
killed (SIGKILL) if it is still running ``--kill-after`` seconds of wall time after
it started, as a hook timeout would. Sessions follow each other without a pause.
Bytecode is the install's own, as pip compiles it when it installs acecode (a
fresh bytecode folder made every module compile in the first hook, about 0.7 s of
CPU no user pays).

Two runs:

- ``hooks and background``: as shipped: the ``SessionStart`` hook also starts the
  detached background screen and review (``acecode review-arrivals``), which is not
  a hook and is not killed;
- ``hooks alone``: the background job replaced by a process that does nothing
  (``ACECODE_LEARN_COMMAND``): only the hooks' time budget screens.

Per hook: its wall time, whether it finished or was killed, and how many entries had
a verdict after it (``.claude/acecode/arrival-verdicts.json``). Goals (issue 27):
each ``SessionStart`` finishes (or yields, screening what it could) within its time
budget, never killed; every entry screened after at most 5 sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
GIT = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com"]
SECTIONS = ("PATTERNS & APPROACHES", "MISTAKES TO AVOID", "PROJECT CONTEXT", "OTHERS")


def _hook_command() -> list[str]:
    script = Path(sys.executable).parent / ("acecode.exe" if os.name == "nt" else "acecode")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "acecode"]


def _clone(root: Path, entries: int) -> Path:
    sys.path.insert(0, str(BENCH_DIR))
    from _corpus import coding_tips
    from acecode.playbook.schema import SECTION_SLUGS

    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTIONS}
    for number, tip in enumerate(coding_tips(entries)):
        section = SECTIONS[number % len(SECTIONS)]
        name = f"{SECTION_SLUGS[section]}-{len(sections[section]) + 1:03d}"
        sections[section].append({"name": name, "text": tip, "helpful": 1, "harmful": 0})
    playbook = {"version": "1.0", "sections": sections}
    (project / ".claude" / "playbook.json").write_text(json.dumps(playbook), encoding="utf-8")
    for command in (["init", "-q"], ["add", ".claude"], ["commit", "-qm", "team playbook"]):
        subprocess.run([*GIT, *command], cwd=project, check=True, capture_output=True)
    return project


def _screened(project: Path) -> int:
    path = project / ".claude" / "acecode" / "arrival-verdicts.json"
    try:
        return len(json.loads(path.read_text(encoding="utf-8"))["verdicts"])
    except (OSError, ValueError, KeyError):
        return 0


def _hook(event: str, payload: dict[str, Any], env: dict[str, str], kill_after: float):
    """Run one hook, killed after ``kill_after`` s; (wall seconds, finished?)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [*_hook_command(), "hook", event],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(payload).encode())
    process.stdin.close()
    try:
        process.wait(timeout=kill_after)
        finished = True
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait()
        finished = False
    return time.monotonic() - started, finished


def run(
    entries: int, kill_after: float, sessions: int, prompts: int, background: bool
) -> list[tuple[int, str, float, bool, int]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="acecode-screen-bench-") as tmp:
        root = Path(tmp)
        project = _clone(root, entries)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ACECODE_", "ANTHROPIC_", "AGENTIC_CONTEXT_", "OPENAI_"))
            and k not in {"CLAUDE_PROJECT_DIR", "PYTHONDONTWRITEBYTECODE"}
        }
        env.update(
            HOME=str(root / "home"),
            CLAUDE_PROJECT_DIR=str(project),
            PATH=os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p),
        )
        env["ACECODE_CLAUDE_BIN"] = str(root / "no-claude")  # no provider at all
        if not background:
            env["ACECODE_LEARN_COMMAND"] = f"{sys.executable} -c pass"
        for session in range(1, sessions + 1):
            sid = uuid.uuid4().hex
            payload = {"session_id": sid, "source": "startup", "cwd": str(project)}
            wall, finished = _hook("session-start", payload, env, kill_after)
            rows.append((session, "SessionStart", wall, finished, _screened(project)))
            for number in range(prompts):
                prompt = {
                    "session_id": sid,
                    "prompt": f"Prompt {number + 1}: how do I run the tests?",
                    "prompt_id": uuid.uuid4().hex,
                    "cwd": str(project),
                }
                wall, finished = _hook("user-prompt-submit", prompt, env, kill_after)
                rows.append((session, f"prompt {number + 1}", wall, finished, _screened(project)))
        if background:  # leave no job behind in the removed folder
            lock = project / ".claude" / "acecode" / "arrival-review.json"
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline and "done" not in _state(lock):
                time.sleep(0.5)
    return rows


def _state(path: Path) -> str:
    try:
        return str(json.loads(path.read_text(encoding="utf-8")).get("state"))
    except (OSError, ValueError):
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=3000)
    parser.add_argument("--kill-after", type=float, default=2.0)
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=2)
    args = parser.parse_args()
    print(
        f"{args.entries:,} arrived entries, every hook killed after {args.kill_after:g} s "
        f"of wall time, {args.sessions} sessions of one SessionStart and {args.prompts} "
        f"prompts, no LLM provider; load average {os.getloadavg()[0]:.1f}"
    )
    for label, background in (("hooks and background", True), ("hooks alone", False)):
        rows = run(args.entries, args.kill_after, args.sessions, args.prompts, background)
        print(f"\n{label}\n")
        print("| session | hook | wall s | outcome | entries screened after it |")
        print("|--:|---|--:|---|--:|")
        for session, hook, wall, finished, screened in rows:
            outcome = "finished" if finished else "KILLED"
            print(f"| {session} | {hook} | {wall:.2f} | {outcome} | {screened:,} |")
        starts_ok = all(finished for _, hook, _, finished, _ in rows if hook == "SessionStart")
        done_at = next(
            (session for session, _, _, _, screened in rows if screened >= args.entries), None
        )
        print(
            f"\nevery SessionStart finished: {'yes' if starts_ok else 'NO'}; every entry "
            f"screened after session: {done_at if done_at is not None else 'not within the run'}"
        )


if __name__ == "__main__":
    main()
