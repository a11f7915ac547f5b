"""Fault probes of issue 28, run as a user's machine fails: one command, tables.

Usage (one command; each probe can be run alone):

    python bench/fault_probe.py [--probes hostile,kills,contention] [--kills 12]
        [--learners 24] [--entries 2000]

Every probe runs real ``python -m acecode`` processes in a fresh HOME and project
against a scripted Anthropic server on 127.0.0.1 (``tests/support/pipeline.py``):

- ``hostile``: each file of ``tests/support/hostile_files.py`` (a playbook of 100,000
  entries, of a 20 MB string, of 100,000 nested brackets, binary, a pipe, a folder;
  settings and templates of every bad kind; nested state files) read by the
  SessionStart and UserPromptSubmit hooks, ``show``, ``doctor`` and ``learn``. Per run:
  wall time, peak memory (``ru_maxrss`` of the process), exit status, whether a
  traceback was shown, and whether a refusal was one line. Goals: every hook within
  1 s and 200 MB, exit 0 with valid JSON; every command within 10 s or one line.
- ``kills``: ``acecode learn`` on a ``--entries`` playbook, SIGKILLed at random
  instants (drawn over a clean run's duration, and once the moment the playbook file
  is replaced), then the next start (``acecode history``). Counted: entries of the
  playbook without their journal change, provenance or arrival record. Goal: 0.
- ``contention``: ``--learners`` sessions ending together on a ``--entries`` playbook,
  each ``acecode learn --json`` adding 2 rules. Counted: rules that landed, learners
  that failed, runs whose ``--json`` printed nothing. Goal: every rule lands.

Timings depend on the machine and its load; the probe prints them as measured.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "faults"))

from fault_support import seed_playbook, session_transcript  # noqa: E402

from support.hostile_files import HOSTILE, Hostile, valid_playbook  # noqa: E402
from support.pipeline import is_curator, routed_servers  # noqa: E402

ACECODE = (sys.executable, "-m", "acecode")
HANG = 60.0  # seconds: a run still going then counts as a hang and is killed
HOOK_SECONDS, HOOK_MB, COMMAND_SECONDS = 1.0, 200, 10.0
MARKER = re.compile(r"MARKER-([A-Za-z0-9]+)")


def two_lessons(system: str, prompt: str) -> str:
    """Reflector: echo the session's marker. Curator: ADD two rules named after it."""
    found = MARKER.search(prompt)
    marker = found.group(1) if found else "none"
    if is_curator(system, prompt):
        operations = [
            {
                "type": "ADD",
                "section": "MISTAKES TO AVOID",
                "text": f"Rule {part} of session {marker}: {topic}.",
            }
            for part, topic in (
                ("A", f"regenerate fixture set {marker} with make fixtures before testing"),
                ("B", f"the service {marker} reads its port from SERVICE_{marker}_PORT"),
            )
        ]
        return json.dumps({"reasoning": "two lessons", "operations": operations})
    return json.dumps({"analysis": f"Session MARKER-{marker}: two lessons.", "bullet_tags": []})


def environment(project: Path, home: Path, llm_env: dict[str, str]) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(HOME=str(home), CLAUDE_PROJECT_DIR=str(project), ACECODE_EMBED_BACKEND="none")
    env.update(llm_env)
    return env


GNU_TIME = shutil.which("time") if Path("/usr/bin/time").exists() else None


def timed(args: list[str], env: dict[str, str], cwd: Path, stdin: str = "") -> dict:
    """Run ``acecode ARGS``: wall time, CPU time, peak memory, exit status and what it
    said; killed at :data:`HANG`.

    CPU time and peak memory come from GNU ``time`` (``/usr/bin/time``), a small process
    that starts acecode: a child forked from this probe would count the probe's own
    memory in its peak (Linux keeps the peak across ``exec``)."""
    import threading

    with tempfile.TemporaryDirectory() as folder:
        given, out, err, usage = (Path(folder) / name for name in ("in", "out", "err", "use"))
        given.write_text(stdin)
        command = [*ACECODE, *args]
        if GNU_TIME:
            command = ["/usr/bin/time", "-f", "%U %S %M", "-o", str(usage), *command]
        started = time.monotonic()
        with given.open("rb") as i, out.open("wb") as o, err.open("wb") as e:
            child = subprocess.Popen(command, env=env, cwd=cwd, stdin=i, stdout=o, stderr=e)
            timer = threading.Timer(HANG, child.kill)
            timer.start()
            child.wait()
            timer.cancel()
        seconds = time.monotonic() - started
        user, system, peak = usage.read_text().split()[-3:] if GNU_TIME else ("0", "0", "0")
        return {
            "seconds": seconds,
            "cpu": float(user) + float(system),
            "mb": int(peak) / 1024,
            "code": child.returncode,
            "stdout": out.read_text("utf-8", "replace"),
            "stderr": err.read_text("utf-8", "replace"),
            "hang": seconds >= HANG,
        }


# --- hostile files ------------------------------------------------------------------------------

HOOKS = ("hook session-start", "hook user-prompt-submit")
HOSTILE_COLUMNS = ["file", "run", "wall s", "CPU s", "MB", "exit", "traceback", "one-line", "goal"]
COMMANDS = ("show", "doctor", "learn")


CONTROL = Hostile("none (a valid playbook: the control)", lambda p, h: p, False)


def probe_hostile(start_server: Callable, scratch: Path) -> list[list[str]]:
    rows = []
    server = start_server(two_lessons)
    for case in (CONTROL, *HOSTILE):
        for run in (*HOOKS, *COMMANDS):
            base = scratch / "hostile"
            shutil.rmtree(base, ignore_errors=True)
            project, home = base / "project", base / "home"
            project.mkdir(parents=True)
            home.mkdir()
            os.environ["HOME"] = str(home)  # the playbook's texts marked under this home's key
            valid_playbook(project)
            case.write(project, home)
            env = environment(project, home, server.env())
            result = _hostile_run(run, env, project, base)
            rows.append([case.name, run, *_judge(run, result)])
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    return rows


def _hostile_run(run: str, env: dict[str, str], project: Path, base: Path) -> dict:
    if run.startswith("hook"):
        payload = {"session_id": "probe", "source": "startup", "cwd": str(project)}
        if run.endswith("prompt-submit"):
            payload = {"session_id": "probe", "prompt": "run the tests", "cwd": str(project)}
        return timed(run.split(), env, project, json.dumps(payload))
    if run == "learn":
        transcript = session_transcript(base / "s.jsonl", "probe")
        return timed(["learn", str(transcript)], env, project)
    return timed(run.split(), env, project)


def _judge(run: str, result: dict) -> list[str]:
    said = result["stdout"] + result["stderr"]
    traceback = "Traceback" in said
    lines = [line for line in result["stderr"].splitlines() if line.strip()]
    one_line = all(line.startswith("acecode: ") for line in lines)
    if run.startswith("hook"):
        valid = result["code"] == 0 and _valid_json_or_nothing(result["stdout"])
        ok = valid and not traceback and result["cpu"] <= HOOK_SECONDS
        ok = ok and result["mb"] <= HOOK_MB
    else:
        within = result["cpu"] <= COMMAND_SECONDS
        ok = not traceback and result["code"] in (0, 1) and (within or one_line)
        ok = ok and (run == "doctor" or one_line)
    return [
        f"{result['seconds']:.2f}",
        f"{result['cpu']:.2f}",
        f"{result['mb']:.0f}",
        "hang" if result["hang"] else str(result["code"]),
        "yes" if traceback else "no",
        "yes" if one_line else "no",
        "ok" if ok else "MISS",
    ]


def _valid_json_or_nothing(stdout: str) -> bool:
    if not stdout.strip():
        return True
    try:
        return isinstance(json.loads(stdout), dict)
    except ValueError:
        return False


def seeded(start_server: Callable, base: Path, entries: int) -> tuple[Path, Path, dict]:
    """A fresh project and HOME under ``base`` with a playbook of ``entries`` entries, and
    the environment of its learners (a scripted server of two lessons per session)."""
    server = start_server(two_lessons)
    project, home = base / "project", base / "home"
    project.mkdir(parents=True)
    home.mkdir()
    playbook = project / ".claude" / "playbook.json"
    os.environ["HOME"] = str(home)  # this machine's key (the arrival record) is read there
    seed_playbook(playbook, extra_entries=entries - 3)
    return base, playbook, environment(project, home, server.env())


# --- kills at any instant -----------------------------------------------------------------------


def probe_kills(start_server: Callable, scratch: Path, kills: int, entries: int) -> list[list[str]]:
    from commit_support import missing_records, texts

    base, playbook, env = seeded(start_server, scratch / "kills", entries)
    project = playbook.parents[1]
    clean = timed(["learn", str(session_transcript(base / "c.jsonl", "clean"))], env, project)
    rng = random.Random(28)
    rows = []
    for number in range(kills):
        before = texts(playbook)
        transcript = session_transcript(base / f"k{number}.jsonl", f"kill{number}")
        at_replace = number == 0
        delay = rng.uniform(0.0, clean["seconds"])
        child = subprocess.Popen(
            [*ACECODE, "learn", str(transcript)],
            env=env,
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if at_replace:
            inode = playbook.stat().st_ino
            while child.poll() is None and playbook.stat().st_ino == inode:
                pass
        else:
            time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        after_kill = "new" if texts(playbook) != before else "old"
        settle = timed(["history"], env, project)
        gaps = missing_records(playbook, before)
        rows.append(
            [
                str(number + 1),
                "at replace" if at_replace else f"{delay:.2f} s",
                after_kill,
                str(sum(len(v) for v in gaps.values())),
                "yes" if "Traceback" in settle["stdout"] + settle["stderr"] else "no",
            ]
        )
        print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    return rows


# --- sessions ending together -------------------------------------------------------------------


def probe_contention(
    start_server: Callable, scratch: Path, learners: int, entries: int
) -> list[list[str]]:
    base, playbook, env = seeded(start_server, scratch / "contention", entries)
    project = playbook.parents[1]
    started = time.monotonic()
    runs = []
    for number in range(learners):
        transcript = session_transcript(base / f"s{number}.jsonl", f"end{number}")
        runs.append(
            subprocess.Popen(
                [*ACECODE, "learn", "--json", str(transcript)],
                env=env,
                cwd=project,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    results = [run.communicate() for run in runs]
    seconds = time.monotonic() - started
    failed = sum(run.returncode != 0 for run in runs)
    silent = sum(not out.strip() for out, _err in results)
    text = playbook.read_text()
    landed = sum(
        f"Rule {part} of session end{number}:" in text
        for number in range(learners)
        for part in "AB"
    )
    waited = sum("waiting for" in err for _out, err in results)
    return [
        [
            str(learners),
            str(entries),
            f"{landed} of {2 * learners}",
            str(failed),
            str(silent),
            str(waited),
            f"{seconds:.0f}",
        ]
    ]


# --- tables -------------------------------------------------------------------------------------


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    """A markdown table under ``title``."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        padded = (str(cell).ljust(width) for cell, width in zip(cells, widths, strict=True))
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
    return "\n".join([f"\n{title}\n", line(header), rule, *(line(row) for row in rows)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--probes", default="hostile,kills,contention")
    parser.add_argument("--kills", type=int, default=12)
    parser.add_argument("--learners", type=int, default=24)
    parser.add_argument("--entries", type=int, default=2000)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    chosen = set(args.probes.split(","))
    misses = 0
    with tempfile.TemporaryDirectory(prefix="acecode-probe-") as folder, routed_servers() as start:
        scratch = Path(folder)
        if "hostile" in chosen:
            rows = probe_hostile(start, scratch)
            misses += sum(row[-1] == "MISS" for row in rows)
            print(
                table(
                    f"Hostile files (goal: hooks <= {HOOK_SECONDS:g} s and {HOOK_MB} MB, exit 0, "
                    f"valid output; commands <= {COMMAND_SECONDS:g} s or one line; never a "
                    "traceback; times judged on CPU time, which a loaded machine inflates "
                    "less than wall time)",
                    [
                        "file",
                        "run",
                        "wall s",
                        "CPU s",
                        "MB",
                        "exit",
                        "traceback",
                        "one-line",
                        "goal",
                    ],
                    rows,
                )
            )
        if "kills" in chosen:
            rows = probe_kills(start, scratch, args.kills, args.entries)
            misses += sum(row[3] != "0" or row[4] != "no" for row in rows)
            print(
                table(
                    f"SIGKILL during learn on a {args.entries:,}-entry playbook, then the next "
                    "start (goal: 0 records missing)",
                    ["kill", "when", "playbook", "records missing", "traceback"],
                    rows,
                )
            )
        if "contention" in chosen:
            rows = probe_contention(start, scratch, args.learners, args.entries)
            misses += sum(row[2].split(" of ")[0] != row[2].split(" of ")[1] for row in rows)
            print(
                table(
                    "Sessions ending together (goal: every rule lands, --json always prints)",
                    [
                        "learners",
                        "entries",
                        "rules landed",
                        "failed",
                        "--json silent",
                        "waited",
                        "seconds",
                    ],
                    rows,
                )
            )
    print(f"\n{misses} miss(es)" if misses else "\nall goals met")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
