"""Whole-process time of the injection hooks against a bare interpreter start.

Usage: ``python bench/hook_bench.py [--runs 31] [--sizes 40 300 3000] [--experiments]
[--instructions]``

Every row is a fresh process started the way Claude Code starts a hook, fed
the hook's JSON on stdin; rows are interleaved run by run so that machine
noise hits them alike. Figures are medians in milliseconds of the wall time
and of the CPU time (user + system, from ``getrusage``) of each process;
each ratio divides by the same median of ``python -c pass`` measured in the
same run. The goal from issues #5 and #10 is at most 3x of the wall time (the
goal column gives each row's: recall's are 1.5x and 2.5x); the CPU ratio says the
same with less noise on a machine shared with other work, and the table says
whether each goal is met by either.

For each playbook size:

- ``SessionStart``: the usual case, the session-start text comes from the
  injection cache (one small JSON file).
- ``SessionStart, cache miss``: both cache files are deleted before each run
  (as after a hand edit of the playbook), so the hook loads the playbook
  through the store, ranks and formats it.
- ``UserPromptSubmit top-up``: a later prompt of a served session, relevant
  to some left-out entries: the hook reads the top-up index, scores the
  prompt and injects the best matches. The session's marker is reset before
  each run so every run injects the same entries (with 40 entries everything
  fits at session start and there is nothing to top up).
- ``UserPromptSubmit top-up, index miss``: the same with both cache files
  deleted, so the hook also builds the relevance index of every entry.

These playbooks are saved through acecode, as on a machine that learned them, so
every entry is known there (``acecode.arrivals``). The same sizes are measured
again with every entry *arrived* (the file written as a clone or a pull leaves
it, none of its texts known on this machine):

- ``SessionStart, arrived``: the cache hit, as above;
- ``SessionStart, arrived, cache miss, verdicts cached``: both cache files
  deleted, the floor's verdicts cached (a changed playbook whose texts were
  screened before): the hook fingerprints every entry and reads the verdicts;
- ``SessionStart, arrived, cache miss, first screen``: the verdict cache deleted
  too (the first session after a clone): the hook loads the floor and screens
  entries for its time budget (``ACECODE_SCREEN_SECONDS``, one second from the
  interpreter's start); what it does not reach waits for the next hook and the
  background job, which is a no-op here (``ACECODE_LEARN_COMMAND``).

The tool hooks of recall (:mod:`acecode.recall`), with the command ``acecode
install`` writes for them (``<python> -P -c "...gate..." <event>``), on the same
playbooks, every entry learned from a failure of its own and every fourth with an
input pattern (``--recall``, on by default; ``--no-recall`` skips these rows):

- ``PreToolUse, no match``: a shell call no pattern names (the usual case, at
  every tool call; goal at most 1.5x);
- ``PreToolUse, warning``: a call one entry's pattern names (goal at most 2.5x);
- ``PostToolUseFailure, recall``: a failure one entry was learned from (goal at
  most 2.5x);
- ``PostToolUseFailure, no match``: another failure.

Each run is a new session, so the entry is not held back as already shown.

Every run is a new event, as in a session: each ``SessionStart`` run starts a new
session and each prompt has its own ``prompt_id``, as Claude Code sends them, so
every run also takes its claim (``acecode.hooks.claim``) instead of being
refused as another copy of the event before.

With ``--instructions`` every project also has a ``CLAUDE.md`` that says what its
first entry says, recorded as a repeat by a learning cycle
(``acecode.instructions.overlap``): the session-start text leaves that entry out,
and every cache hit re-checks the ``stat`` of the ``CLAUDE.md`` that decided it.

With ``--experiments`` the user's ``~/.claude/acecode.toml`` turns the randomised
hold-back on (``acecode.experiments``) and every entry has a failure in its
provenance, so every injected entry is in each session's draw: the cache hit
then also draws, cuts the held-back lines and records them. Without it the
hooks still append each session's exposure record.

Bytecode is cached under a temporary ``PYTHONPYCACHEPREFIX`` (and
``PYTHONDONTWRITEBYTECODE`` is cleared) so acecode's modules load from
``.pyc`` as in a normal install, not recompiled on every run. ``HOME`` is a
fresh temporary folder. With no LLM provider in the environment every
``SessionStart`` also says so in its ``systemMessage``, read from the user
checks' cache (``acecode.hooks.user_checks``), the heavier of the two cases.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
GOAL_RATIO = 3.0
# Recall's goals (issue 26): the PreToolUse hook runs at every tool call.
NO_MATCH_GOAL, HIT_GOAL = 1.5, 2.5
GATE = [sys.executable, "-P", "-c", "from acecode.recall.gate import main; main()"]


def _hook_command() -> list[str]:
    """The installed console script, as ``acecode install`` writes it."""
    script = Path(sys.executable).parent / ("acecode.exe" if os.name == "nt" else "acecode")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "acecode"]


def _write_playbook(
    project: Path, size: int, experiments: bool = False, arrived: bool = False, recall: bool = False
) -> None:
    """``size`` entries, saved through acecode (known here) or, when ``arrived``, written
    as a plain file (as a clone leaves it)."""
    sys.path.insert(0, str(BENCH_DIR))
    from _corpus import coding_tips
    from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS
    from acecode.store import save_playbook

    sections: dict[str, list[dict]] = {name: [] for name in SECTION_NAMES}
    for i, text in enumerate(coding_tips(size)):
        section = SECTION_NAMES[i % len(SECTION_NAMES)]
        name = f"{SECTION_SLUGS[section]}-{len(sections[section]) + 1:03d}"
        sections[section].append({"name": name, "text": text, "helpful": i % 4, "harmful": 0})
    folder = project / ".claude"
    folder.mkdir(parents=True, exist_ok=True)
    book = {"version": "1.0", "sections": sections}
    if arrived:
        (folder / "playbook.json").write_text(json.dumps(book, indent=2), encoding="utf-8")
    else:
        save_playbook(book, folder / "playbook.json")
    if experiments or recall:
        _write_provenance(folder, [e["name"] for items in sections.values() for e in items])


def _write_provenance(folder: Path, names: list[str]) -> None:
    """Every entry learned from a failure of its own (so every injected one is drawn with
    experiments on), every fourth with an input pattern: the recall rows' triggers."""
    origin = {"cycle_id": "c", "at": "2026-01-01T00:00:00+00:00", "how": "learned"}
    entries = {}
    for number, name in enumerate(names):
        evidence = {
            "kind": "failure",
            "tool": "Bash",
            "command": f"tool{number} run --all",
            "error": f"Error: widget{number} failed to load",
        }
        record = {**origin, "agent": "claude-code", "evidence": evidence}
        if number % 4 == 0:
            pattern = rf"^deploy{number}\b"
            record["when"] = [{"tool": "Bash", "field": "command", "pattern": pattern}]
        entries[name] = {"origins": [record]}
    (folder / "acecode").mkdir(exist_ok=True)
    (folder / "acecode" / "provenance.json").write_text(
        json.dumps({"version": 1, "entries": entries}), encoding="utf-8"
    )


class Row:
    """One measured command: label, argv, stdin (or what makes each run's), and what to do
    before each run."""

    def __init__(
        self,
        label: str,
        argv: list[str],
        stdin: bytes | Callable[[], bytes] = b"",
        before: Callable[[], None] | None = None,
        expect_context: bool = False,
        goal: float = GOAL_RATIO,
    ) -> None:
        self.label, self.argv, self.stdin = label, argv, stdin
        self.before, self.expect_context, self.goal = before, expect_context, goal
        self.times: list[float] = []
        self.cpu: list[float] = []

    def run(self, env: dict[str, str]) -> None:
        if self.before is not None:
            self.before()
        cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        stdin = self.stdin() if callable(self.stdin) else self.stdin
        started = time.perf_counter()
        proc = subprocess.run(self.argv, input=stdin, capture_output=True, env=env)
        self.times.append(time.perf_counter() - started)
        cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu.append(
            cpu_after.ru_utime - cpu_before.ru_utime + cpu_after.ru_stime - cpu_before.ru_stime
        )
        if proc.returncode != 0 or proc.stderr:
            raise SystemExit(f"{self.label}: exit {proc.returncode}: {proc.stderr.decode()}")
        if self.expect_context != (b"additionalContext" in proc.stdout):
            wanted = "something" if self.expect_context else "nothing"
            raise SystemExit(f"{self.label}: expected {wanted} to be injected, got {proc.stdout!r}")

    def median_ms(self) -> float:
        return statistics.median(self.times) * 1000

    def median_cpu_ms(self) -> float:
        return statistics.median(self.cpu) * 1000


# Relevant to the corpus of bench/_corpus.py: several left-out entries match it.
TOPUP_PROMPT = "The pytest fixtures fail only in CI after upgrading a dependency; please check."


def _size_rows(hook: list[str], project: Path, size: int, env: dict[str, str]) -> list[Row]:
    """The four rows of one playbook size (see the module docstring)."""
    state = project / ".claude" / "acecode"
    caches = [state / "injection-cache.json", state / "injection-index.json"]
    served_session = f"bench-{size}"  # session ids are unique across projects, as in real life
    marker = state / "sessions" / served_session

    def start(session: str = "") -> bytes:
        """A new session's start (``session``, else a fresh one)."""
        session = session or f"bench-{uuid.uuid4().hex}"
        return json.dumps(
            {"session_id": session, "source": "startup", "cwd": str(project)}
        ).encode()

    def prompt() -> bytes:
        """A new prompt of the served session."""
        return json.dumps(
            {
                "session_id": served_session,
                "prompt_id": uuid.uuid4().hex,
                "prompt": TOPUP_PROMPT,
                "cwd": str(project),
            }
        ).encode()

    served = subprocess.run(
        [*hook, "hook", "session-start"],
        input=start(served_session),
        capture_output=True,
        check=True,
        env=env,
    )
    marker_text = marker.read_text(encoding="utf-8")  # what SessionStart injected
    has_topup = b"did not fit" in served.stdout

    def drop_caches() -> None:
        for cache in caches:
            cache.unlink(missing_ok=True)

    def reset_marker() -> None:
        marker.write_text(marker_text, encoding="utf-8")

    def serve_index() -> None:
        """The index as the learner leaves it after a save (the miss rows delete it)."""
        if not caches[1].exists():
            subprocess.run(
                [*hook, "hook", "user-prompt-submit"], input=prompt(), env=env, capture_output=True
            )
        reset_marker()

    def reset_all() -> None:
        drop_caches()
        reset_marker()

    session_start = [*hook, "hook", "session-start"]
    user_prompt = [*hook, "hook", "user-prompt-submit"]
    return [
        Row(f"SessionStart, {size} entries", session_start, start, expect_context=True),
        Row(
            f"SessionStart, {size} entries, cache miss",
            session_start,
            start,
            before=drop_caches,
            expect_context=True,
        ),
        Row(
            f"UserPromptSubmit top-up, {size} entries",
            user_prompt,
            prompt,
            before=serve_index,
            expect_context=has_topup,
        ),
        Row(
            f"UserPromptSubmit top-up, {size} entries, index miss",
            user_prompt,
            prompt,
            before=reset_all,
            expect_context=has_topup,
        ),
    ]


def _recall_rows(project: Path, size: int) -> list[Row]:
    """The four rows of recall's tool hooks (see the module docstring)."""

    def call(event: str, command: str, **extra: str) -> Callable[[], bytes]:
        def payload() -> bytes:
            return json.dumps(
                {
                    "session_id": f"bench-{uuid.uuid4().hex}",
                    "transcript_path": str(project / "t.jsonl"),
                    "cwd": str(project),
                    "permission_mode": "default",
                    "hook_event_name": event,
                    "tool_name": "Bash",
                    "tool_input": {"command": command, "description": "bench"},
                    "tool_use_id": f"toolu_{uuid.uuid4().hex[:12]}",
                    **extra,
                }
            ).encode()

        return payload

    hit = size // 2 // 4 * 4  # an entry with a pattern, in the middle of the playbook
    error = f"Exit code 1\nError: widget{hit} failed to load\n"
    other = "Exit code 2\nls: cannot access 'nothing-here': No such file or directory\n"
    pre, failure = [*GATE, "pre-tool-use"], [*GATE, "post-tool-use-failure"]
    return [
        Row(
            f"PreToolUse, no match, {size} entries",
            pre,
            call("PreToolUse", "ls -la src && git status"),
            goal=NO_MATCH_GOAL,
        ),
        Row(
            f"PreToolUse, warning, {size} entries",
            pre,
            call("PreToolUse", f"deploy{hit} --prod"),
            expect_context=True,
            goal=HIT_GOAL,
        ),
        Row(
            f"PostToolUseFailure, recall, {size} entries",
            failure,
            call("PostToolUseFailure", f"tool{hit} run --all", error=error),
            expect_context=True,
            goal=HIT_GOAL,
        ),
        Row(
            f"PostToolUseFailure, no match, {size} entries",
            failure,
            call("PostToolUseFailure", "ls nothing-here", error=other),
            goal=NO_MATCH_GOAL,
        ),
    ]


def _arrival_rows(hook: list[str], project: Path, size: int, env: dict[str, str]) -> list[Row]:
    """The three rows of a playbook whose ``size`` entries all arrived (module docstring).

    The first screen is incremental (a hook screens for about a second, the background
    job the rest), and the "first screen" row deletes the verdicts of every round. So
    the whole screen is made once here, without a time limit, and put back before the
    other two rows (with one unmeasured hook before the cache hit to rebuild the caches):
    they measure what a user's hooks cost once the arrival has been screened.
    """
    state = project / ".claude" / "acecode"
    caches = [state / "injection-cache.json", state / "injection-index.json"]
    verdicts = state / "arrival-verdicts.json"
    whole = state / "arrival-verdicts.whole.json"

    def start() -> bytes:
        session = f"bench-{uuid.uuid4().hex}"
        return json.dumps(
            {"session_id": session, "source": "startup", "cwd": str(project)}
        ).encode()

    session_start = [*hook, "hook", "session-start"]
    unlimited = {**env, "ACECODE_SCREEN_SECONDS": "3600"}
    subprocess.run(session_start, input=start(), capture_output=True, env=unlimited, check=True)
    shutil.copyfile(verdicts, whole)

    def drop_caches() -> None:
        for cache in caches:
            cache.unlink(missing_ok=True)

    def screened_whole() -> None:
        shutil.copyfile(whole, verdicts)
        drop_caches()

    def caches_rebuilt() -> None:
        screened_whole()
        subprocess.run(session_start, input=start(), capture_output=True, env=env, check=True)

    def drop_all() -> None:
        drop_caches()
        verdicts.unlink(missing_ok=True)

    label = f"SessionStart, {size} arrived"
    return [
        Row(label, session_start, start, before=caches_rebuilt, expect_context=True),
        Row(
            f"{label}, cache miss, verdicts cached",
            session_start,
            start,
            before=screened_whole,
            expect_context=True,
        ),
        Row(
            f"{label}, cache miss, first screen",
            session_start,
            start,
            before=drop_all,
            expect_context=True,
        ),
    ]


def _repeat_first_entry(project: Path) -> None:
    """A CLAUDE.md saying what the playbook's first entry says, and the learning cycle's
    record that the entry repeats it (the writer's own functions)."""
    from acecode.instructions.files import instruction_files
    from acecode.instructions.overlap import overlap_records, write_overlap
    from acecode.instructions.relations import REPEATS, Relation
    from acecode.instructions.units import all_units
    from acecode.playbook.schema import iter_entries
    from acecode.project.layer import Layer
    from acecode.store import load_playbook

    layer = Layer.of_project(project)
    _, first = next(iter_entries(load_playbook(layer)))
    (project / "CLAUDE.md").write_text(f"# Project\n\n- {first['text']}\n", encoding="utf-8")
    [unit] = all_units(instruction_files(project, memory=False))
    relation = Relation(first["text"], unit, REPEATS, "the same rule")
    write_overlap(layer, overlap_records([(first["name"], relation)]))


def _rows(
    workdir: Path,
    sizes: list[int],
    arrival_sizes: list[int],
    env: dict[str, str],
    experiments: bool,
    recall: bool,
    instructions: bool = False,
) -> list[Row]:
    hook = _hook_command()
    rows = [Row("python -c pass", [sys.executable, "-c", "pass"])]
    for size in sizes:
        project = workdir / f"project-{size}"
        _write_playbook(project, size, experiments, recall=recall)
        if instructions:
            _repeat_first_entry(project)
        rows += _size_rows(hook, project, size, env)
        if recall:
            rows += _recall_rows(project, size)
    for size in arrival_sizes:
        project = workdir / f"arrived-{size}"
        _write_playbook(project, size, experiments, arrived=True)
        rows += _arrival_rows(hook, project, size, env)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31, help="runs per row (median reported)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 300, 3000])
    parser.add_argument(
        "--experiments", action="store_true", help="the user turned the hold-back on"
    )
    parser.add_argument(
        "--recall",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="measure recall's tool hooks too (the playbooks then have provenance)",
    )
    parser.add_argument(
        "--arrival-sizes",
        type=int,
        nargs="*",
        default=[40, 300, 3000],
        help="playbook sizes measured with every entry arrived (none: skip those rows)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="a CLAUDE.md repeats each playbook's first entry, which the injection leaves out",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="acecode-hook-bench-") as tmp:
        workdir = Path(tmp)
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in {"PYTHONDONTWRITEBYTECODE", "CLAUDE_PROJECT_DIR"}
            and not k.startswith("ACECODE_")
        }
        env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
        # The background job a SessionStart starts for arrived entries (their screen and
        # review) is a no-op here: it is not the hook, and left running it would compete
        # with the hooks measured and write into the folder removed at the end.
        env["ACECODE_LEARN_COMMAND"] = f"{sys.executable} -c pass"
        # A fresh home: nothing of this machine's ~/.claude (settings, user layer, claims,
        # the session checks' cache) changes the figures, and the bench writes nothing there.
        env["HOME"] = str(workdir / "home")
        # The playbooks saved through acecode are known under this home's machine key.
        os.environ["HOME"] = env["HOME"]
        if args.experiments:
            config = workdir / "home" / ".claude" / "acecode.toml"
            config.parent.mkdir(parents=True)
            config.write_text("experiments = true\n", encoding="utf-8")
        rows = _rows(
            workdir,
            args.sizes,
            args.arrival_sizes,
            env,
            args.experiments,
            args.recall,
            args.instructions,
        )
        for row in rows:  # warm-up: bytecode, page cache, injection cache
            row.run(env)
            row.times.clear()
            row.cpu.clear()
        for _ in range(args.runs):
            for row in rows:
                row.run(env)

    base, base_cpu = rows[0].median_ms(), rows[0].median_cpu_ms()
    print(f"hook command: {' '.join(_hook_command())} hook <event>")
    print(f"experiments: {'on (every injected entry drawn)' if args.experiments else 'off'}")
    if args.instructions:
        print("instructions: a CLAUDE.md repeats each playbook's first entry (left out)")
    print(
        f"python {sys.version.split()[0]}, {args.runs} runs per row, medians of the wall time "
        "and of the CPU time (user + system) of the process\n"
    )
    width = max(len(row.label) for row in rows)
    print(f"tool hooks: {' '.join(GATE)} <event>")
    print(
        f"| {'command':<{width}} | wall ms | ratio | CPU ms | CPU ratio | goal | met (wall) "
        "| met (CPU) |"
    )
    print(f"|{'-' * (width + 2)}|--------:|------:|-------:|----------:|-----:|:---:|:---:|")
    for row in rows:
        ratio = row.median_ms() / base
        cpu_ratio = row.median_cpu_ms() / base_cpu
        first = row is rows[0]
        wall = "-" if first else ("yes" if ratio <= row.goal else "no")
        cpu = "-" if first else ("yes" if cpu_ratio <= row.goal else "no")
        print(
            f"| {row.label:<{width}} | {row.median_ms():7.1f} | {ratio:5.2f} "
            f"| {row.median_cpu_ms():6.1f} | {cpu_ratio:9.2f} | {row.goal:g}x | {wall} | {cpu} |"
        )


if __name__ == "__main__":
    main()
