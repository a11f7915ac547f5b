"""Simulator: does the per-rule effect estimate find the rules that help, and only those?

Usage: ``python bench/effect_sim.py [--replicates 30] [--sessions 400] [--real 60] [--seed 20]
[--holdback-rate 0.2] [--holdback-max 3] [--scenario mixed|null] [--base B]``

Each replicate is one project with 20 learned rules of known effect: base
rates 5%, 10%, 20%, 30%, 40% (the chance that a session hits the rule's
failure without the rule) crossed with true effects 0%, 20%, 50%, 80% (the
share of those failures the rule prevents when injected; ``--scenario
null`` gives every rule 0%; ``--base 0.3`` every rule a 30% base rate).
16 rules come from a failed command and count failure signatures; 4 come
from the user correcting the agent and count the user correcting the same
thing again (correction signatures). The user has ``experiments = true`` in
``~/.claude/acecode.toml``.

Every session, one after the other:

1. acecode's ``SessionStart`` hook runs for it: as a real subprocess
   (``acecode hook session-start``, ``--agent codex`` for Codex sessions) for
   the first ``--real`` sessions of the first replicate, and in-process
   (``acecode.hooks.inject.on_session_start``, the same function the
   subprocess runs, minus the interpreter start and the claim) for the
   rest: a subprocess per session would make 30 x 400 sessions take hours.
   Which rules the session got is read from the hook's output (what reaches
   the model), and checked against the exposure record the hook appended.
2. The session's failures are drawn from the rules' true rates (a held-back
   rule at its base rate, an injected one at ``base x (1 - effect)``) and the
   session is written as a real transcript: Claude Code's JSONL in
   ``~/.claude/projects/<project>/`` or a Codex rollout in
   ``~/.codex/sessions/``, half and half, with unrelated failures and
   corrections as noise.
3. The background learner's experiment step runs
   (``acecode.experiments.status.refresh_after_learning``, what ``acecode
   learn`` calls after every cycle): it reads the new transcript and updates
   the concluded classes, which stop the hold-back of a rule.

At 50, 100, 200 and 400 sessions the classes are read with ``acecode impact
--rules --json`` (a subprocess in the real part, the same function
in-process otherwise). "Ever helps" counts a no-effect rule classified
``helps`` at any session's refresh, every look included.

The real part is then replayed in-process from the same seed, and the two
exposure logs are compared record by record (without their time stamps):
the table says whether both paths recorded the same.

Cost: the expected extra recurrences from holding back rules that help (sum
of base x effect over their held-back sessions) against the recurrences
injecting every rule in every session would prevent (sum of base x effect
over all sessions).

Seeded: the same arguments print the same table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

BASES = (0.05, 0.10, 0.20, 0.30, 0.40)
EFFECTS = (0.0, 0.2, 0.5, 0.8)
LOOKS = (50, 100, 200, 400)
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LEARNED = START - timedelta(days=1)

# Failures the rules were learned from: the command and what it printed.
FAILURES = (
    ("git push", "fatal: The current branch feat has no upstream branch."),
    ("npm test", "Error: Cannot find module 'jest'"),
    ("uv run pytest", "ModuleNotFoundError: No module named 'app'"),
    ("cargo build", "error: linker `cc` not found"),
    ("make lint", "make: *** No rule to make target 'lint'.  Stop."),
    ("docker compose up", "Error response from daemon: port is already allocated"),
    ("mix test", "** (Mix) The database for Repo couldn't be created: connection refused"),
    ("go test ./...", "go: cannot find main module, but found .git/config"),
    ("terraform plan", "Error: Backend initialization required, please run terraform init"),
    ("kubectl apply -f deploy.yaml", "error: the server doesn't have a resource type deploy"),
    ("ruff check .", "error: Failed to parse pyproject.toml: invalid table header"),
    ("mypy src", "error: Cannot find implementation or library stub for module"),
    ("alembic upgrade head", "FAILED: Can't locate revision identified by head"),
    ("poetry install", "The lock file is not compatible with the current version of Poetry"),
    ("bundle exec rspec", "Bundler::GemNotFound: Could not find rake in locally installed gems"),
    ("pnpm lint", "ERR_PNPM_NO_SCRIPT Missing script: lint"),
)
# Corrections the other rules were learned from: the rule, the first correction, and how
# the user says it again.
CORRECTIONS = (
    (
        "Use the logging module, never print(), for diagnostics in src/.",
        "No, don't use print for debugging output, use the logging module instead.",
        "No, again print statements for debugging; use the logging module.",
    ),
    (
        "Keep test files next to the module they test, not in a separate tests folder.",
        "Wait, don't put the tests in a separate tests folder, keep test files next to the module.",
        "I said keep the test files next to the module, not in a tests folder.",
    ),
    (
        "Write commit messages in the imperative mood, under 72 characters.",
        "Stop writing commit messages in past tense; use the imperative mood.",
        "No, the commit message again is in past tense, use the imperative mood.",
    ),
    (
        "Write SQL keywords in upper case in the migration files.",
        "That's not how we format SQL: keywords go in upper case in the migration files.",
        "Why did you write the SQL keywords in lower case again? Upper case in migrations.",
    ),
)
NOISE_FAILURES = (
    ("python manage.py migrate", "django.db.utils.OperationalError: no such table: auth_user"),
    ("yarn build", "Error: Cannot resolve dependency tree"),
    ("pip install -e .", "ERROR: File setup.py not found."),
)
NOISE_CORRECTIONS = (
    "No, the button should be blue, not green.",
    "Actually, rename the endpoint to /status instead of /health.",
)


@dataclass(frozen=True)
class Rule:
    """One learned rule and its true effect."""

    name: str
    section: str
    text: str
    base: float
    effect: float
    kind: str  # failure | correction
    index: int  # into FAILURES or CORRECTIONS

    @property
    def cls(self) -> str:
        return f"{round(100 * self.effect)}%"

    @property
    def big(self) -> bool:
        return self.effect >= 0.5 and self.base >= 0.2


def make_rules(scenario: str, only_base: float | None = None) -> list[Rule]:
    """20 rules: every base rate crossed with every effect; one per effect is a correction.
    ``only_base`` gives every rule that base rate instead."""
    rules: list[Rule] = []
    failure = correction = 0
    for e, effect in enumerate(EFFECTS):
        for b, listed in enumerate(BASES):
            base = listed if only_base is None else only_base
            true_effect = 0.0 if scenario == "null" else effect
            if b == (e + 2) % len(BASES):
                text = CORRECTIONS[correction][0]
                rules.append(
                    Rule(
                        f"pref-{correction + 1:03d}",
                        "USER PREFERENCES",
                        text,
                        base,
                        true_effect,
                        "correction",
                        correction,
                    )
                )
                correction += 1
            else:
                command, error = FAILURES[failure]
                rules.append(
                    Rule(
                        f"mis-{failure + 1:03d}",
                        "MISTAKES TO AVOID",
                        f"Before `{command}`, avoid: {error}",
                        base,
                        true_effect,
                        "failure",
                        failure,
                    )
                )
                failure += 1
    return rules


# --- transcripts -------------------------------------------------------------------------------


class Transcript:
    """One session's events, written in Claude Code's or Codex's format."""

    def __init__(self, session: str, agent: str, at: datetime, project: Path) -> None:
        self.session, self.agent, self.at, self.project = session, agent, at, project
        self.events: list[tuple[str, str, str]] = []  # (kind, text, output)

    def prompt(self, text: str) -> None:
        self.events.append(("prompt", text, ""))

    def reply(self, text: str) -> None:
        self.events.append(("reply", text, ""))

    def shell(self, command: str, output: str, failed: bool) -> None:
        self.events.append(("fail" if failed else "ok", command, output))

    def _stamp(self, step: int) -> str:
        return (self.at + timedelta(seconds=step)).isoformat().replace("+00:00", "Z")

    def claude_records(self) -> Iterator[dict]:
        for step, (kind, text, output) in enumerate(self.events):
            base = {
                "sessionId": self.session,
                "uuid": f"{self.session}-{step}",
                "timestamp": self._stamp(step),
                "cwd": str(self.project),
                "version": "2.1.197",
            }
            if kind == "prompt":
                yield {**base, "type": "user", "message": {"role": "user", "content": text}}
            elif kind == "reply":
                content = [{"type": "text", "text": text}]
                yield {
                    **base,
                    "type": "assistant",
                    "message": {"role": "assistant", "content": content},
                }
            else:
                call = f"toolu_{step:04d}"
                use = {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": text}}
                yield {
                    **base,
                    "type": "assistant",
                    "message": {"role": "assistant", "content": [use]},
                }
                result = {"type": "tool_result", "tool_use_id": call, "content": output}
                if kind == "fail":
                    result["is_error"] = True
                yield {
                    **base,
                    "uuid": f"{self.session}-{step}-r",
                    "type": "user",
                    "message": {"role": "user", "content": [result]},
                }

    def codex_records(self) -> Iterator[dict]:
        meta = {
            "session_id": self.session,
            "id": self.session,
            "timestamp": self._stamp(0),
            "cwd": str(self.project),
            "originator": "codex_cli_rs",
            "cli_version": "0.169.0",
            "source": "cli",
        }
        yield {"timestamp": self._stamp(0), "type": "session_meta", "payload": meta}
        for step, (kind, text, output) in enumerate(self.events, start=1):
            stamp = self._stamp(step)
            if kind in ("prompt", "reply"):
                role = "user" if kind == "prompt" else "assistant"
                part = "input_text" if kind == "prompt" else "output_text"
                item = {"type": "message", "role": role, "content": [{"type": part, "text": text}]}
                yield {"timestamp": stamp, "type": "response_item", "payload": item}
                continue
            call = f"call_{step:04d}"
            arguments = json.dumps({"cmd": text})
            item = {
                "type": "function_call",
                "name": "exec_command",
                "arguments": arguments,
                "call_id": call,
            }
            yield {"timestamp": stamp, "type": "response_item", "payload": item}
            code = 1 if kind == "fail" else 0
            shown = (
                "Chunk ID: 1\nWall time: 0.1 seconds\n"
                f"Process exited with code {code}\nOutput:\n{output}\n"
            )
            item = {"type": "function_call_output", "call_id": call, "output": shown}
            yield {"timestamp": stamp, "type": "response_item", "payload": item}

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        records = self.claude_records() if self.agent == "claude-code" else self.codex_records()
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path


# --- one project ---------------------------------------------------------------------------------


@dataclass
class Tally:
    """What one replicate ended with."""

    labels: dict[int, dict[str, str]] = field(default_factory=dict)  # look -> rule -> class
    ever_helps: set[str] = field(default_factory=set)
    ever_hurts: set[str] = field(default_factory=set)
    extra: float = 0.0
    prevented: float = 0.0
    seconds: float = 0.0
    sessions: int = 0


def _clean_env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ACECODE_") and k not in {"CLAUDE_PROJECT_DIR", "CODEX_HOME"}
    }
    env["HOME"] = str(home)
    # Codex's SessionStart starts a background catch-up learner; learning is not what is
    # simulated here, so it runs a stub (as the hook tests do).
    env["ACECODE_LEARN_COMMAND"] = "true"
    return env


def _hook_command() -> list[str]:
    script = Path(sys.executable).parent / "acecode"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "acecode"]


class World:
    """A user's home and one project with the rules learned, experiments on."""

    def __init__(self, root: Path, rules: list[Rule], seed: int, rate: float, most: int) -> None:
        self.root, self.rules = root, rules
        self.home = root / "home"
        self.project = root / "project"
        self.rng = random.Random(seed)
        self.playbook = self.project / ".claude" / "playbook.json"
        (self.project / ".git").mkdir(parents=True)
        (self.home / ".claude").mkdir(parents=True)
        (self.home / ".claude" / "acecode.toml").write_text(
            f"experiments = true\nholdback_rate = {rate}\nholdback_max = {most}\n", encoding="utf-8"
        )
        self._write_playbook()
        salt = self.project / ".claude" / "acecode" / "experiments" / "salt"
        salt.parent.mkdir(parents=True)
        salt.write_text(f"{self.rng.getrandbits(128):032x}\n", encoding="utf-8")

    def _write_playbook(self) -> None:
        sections: dict[str, list[dict]] = defaultdict(list)
        provenance = {}
        for rule in self.rules:
            sections[rule.section].append(
                {"name": rule.name, "text": rule.text, "helpful": 0, "harmful": 0}
            )
            if rule.kind == "failure":
                command, error = FAILURES[rule.index]
                evidence = {"kind": "failure", "tool": "Bash", "command": command, "error": error}
            else:
                evidence = {"kind": "request", "request": CORRECTIONS[rule.index][1]}
            provenance[rule.name] = {
                "origins": [
                    {
                        "cycle_id": "20260301-090000-000000",
                        "at": LEARNED.isoformat(),
                        "how": "learned",
                        "agent": "claude-code",
                        "session": "learned-from",
                        "reason": "simulated",
                        "evidence": evidence,
                    }
                ]
            }
        self.playbook.parent.mkdir(parents=True, exist_ok=True)
        self.playbook.write_text(json.dumps({"version": "1.0", "sections": sections}))
        state = self.playbook.parent / "acecode"
        state.mkdir(exist_ok=True)
        (state / "provenance.json").write_text(
            json.dumps({"version": 1, "entries": provenance}), encoding="utf-8"
        )

    @contextlib.contextmanager
    def inside(self) -> Iterator[None]:
        """The process environment of a hook in this world (for the in-process path)."""
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(_clean_env(self.home))
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def transcript_path(self, session: str, agent: str, at: datetime) -> Path:
        if agent == "claude-code":
            from acecode.agents.claude_code.sessions import encode_project_path

            folder = self.home / ".claude" / "projects" / encode_project_path(self.project)
            return folder / f"{session}.jsonl"
        day = self.home / ".codex" / "sessions" / at.strftime("%Y/%m/%d")
        return day / f"rollout-{at.strftime('%Y-%m-%dT%H-%M-%S')}-{session}.jsonl"

    def start(self, session: str, agent: str, path: Path, real: bool) -> str:
        """Run SessionStart; the context it injected."""
        payload = {
            "session_id": session,
            "transcript_path": str(path),
            "cwd": str(self.project),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        if real:
            command = [*_hook_command(), "hook", "session-start", "--agent", agent]
            done = subprocess.run(
                command,
                input=json.dumps(payload).encode(),
                capture_output=True,
                env=_clean_env(self.home),
                cwd=self.project,
                timeout=300,
                check=True,
            )
            output = json.loads(done.stdout or b"{}")
        else:
            from acecode.hooks.inject import on_session_start

            with self.inside():
                output = on_session_start(payload, agent) or {}
        return output.get("hookSpecificOutput", {}).get("additionalContext", "")

    def session(self, number: int, agent: str, real: bool, tally: Tally) -> None:
        session = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        at = START + timedelta(hours=number)
        path = self.transcript_path(session, agent, at)
        context = self.start(session, agent, path, real)
        # Not in the context: held back by the draw, or withheld for review because a
        # verdict says it hurts (which costs its prevented failures like a hold-back).
        held = {rule.name for rule in self.rules if f"[{rule.name}] helpful=" not in context}
        self._check_record(session, held - self.withheld())
        transcript = Transcript(session, agent, at, self.project)
        transcript.prompt(f"Please carry on with task {number}.")
        transcript.reply("Looking at the project first.")
        transcript.shell("ls", "README.md\nsrc\n", failed=False)
        for rule in self.rules:
            is_held = rule.name in held
            rate = rule.base if is_held else rule.base * (1 - rule.effect)
            tally.prevented += rule.base * rule.effect
            if is_held:
                tally.extra += rule.base * rule.effect
            if self.rng.random() >= rate:
                continue
            if rule.kind == "failure":
                command, error = FAILURES[rule.index]
                transcript.shell(f"cd {self.project} && {command}", f"Exit code 1\n{error}", True)
            else:
                transcript.reply("Done.")
                transcript.prompt(CORRECTIONS[rule.index][2])
                transcript.reply("Sorry, fixing that.")
        if self.rng.random() < 0.3:
            command, error = self.rng.choice(NOISE_FAILURES)
            transcript.shell(command, error, failed=True)
        if self.rng.random() < 0.1:
            transcript.prompt(self.rng.choice(NOISE_CORRECTIONS))
        transcript.reply("All done.")
        transcript.write(path)
        from acecode.experiments.status import refresh_after_learning

        with self.inside():
            refresh_after_learning(self.playbook)
        from acecode.experiments.classes import HELPS, HURTS, read_classes

        concluded = read_classes(self.playbook.parent / "acecode")
        tally.ever_helps |= {name for name, item in concluded.items() if item["class"] == HELPS}
        tally.ever_hurts |= {name for name, item in concluded.items() if item["class"] == HURTS}

    def withheld(self) -> frozenset[str]:
        """The rules measured to hurt: not injected until the user keeps them."""
        from acecode.experiments.classes import withheld

        return withheld(self.playbook.parent / "acecode")

    def _check_record(self, session: str, held: set[str]) -> None:
        """The exposure record must say what the hook's output showed."""
        from acecode.experiments.exposure import read_exposures

        record = read_exposures(self.playbook.parent / "acecode")[-1]
        if record["session"] != session or set(record.get("held", ())) != held:
            raise SystemExit(f"exposure record {record} disagrees with the injected text")

    def look(self, real: bool) -> dict[str, str]:
        """Every rule's class, as ``acecode impact --rules --json`` reports it."""
        if real:
            done = subprocess.run(
                [*_hook_command(), "impact", "--rules", "--json"],
                capture_output=True,
                env=_clean_env(self.home),
                cwd=self.project,
                timeout=600,
                check=True,
            )
            rules = json.loads(done.stdout)["rules"]
            return {item["entry"]: item["class"] for item in rules}
        from acecode.experiments.status import measure_project
        from acecode.store import load_playbook

        with self.inside():
            measurement = measure_project(self.playbook, load_playbook(self.playbook))
        return {rule.entry: rule.label for rule in measurement.rules()}

    def exposure_log(self) -> list[dict]:
        """The exposure records, without what differs between two runs of one replicate."""
        from acecode.experiments.exposure import read_exposures

        records = read_exposures(self.playbook.parent / "acecode")
        for record in records:  # the time, and the world's folder in the transcript's path
            del record["at"]
            record["transcript"] = Path(record["transcript"]).name
        return records


def run_replicate(
    args: argparse.Namespace, replicate: int, real: int, tmp: Path
) -> tuple[Tally, World]:
    rules = make_rules(args.scenario, args.base)
    world = World(
        tmp / f"r{replicate}-{real}",
        rules,
        args.seed * 1000 + replicate,
        args.holdback_rate,
        args.holdback_max,
    )
    agents = random.Random(args.seed * 7919 + replicate)
    tally = Tally()
    started = time.perf_counter()
    for number in range(1, args.sessions + 1):
        agent = "claude-code" if agents.random() < 0.5 else "codex"
        is_real = number <= real
        world.session(number, agent, is_real, tally)
        if number in LOOKS:
            tally.labels[number] = world.look(is_real)
        if number == real:
            tally.seconds = time.perf_counter() - started
            tally.sessions = number
    if not real:
        tally.seconds = time.perf_counter() - started
        tally.sessions = args.sessions
    return tally, world


def _share(counts: Counter[str], total: int, label: str) -> str:
    return f"{100 * counts[label] / total:.0f}%" if total else "-"


def report(args: argparse.Namespace, tallies: list[Tally], rules: list[Rule]) -> None:
    labels = ("helps", "no evidence yet", "no measurable effect", "hurts")
    short = {
        "helps": "helps",
        "no evidence yet": "none yet",
        "no measurable effect": "no effect",
        "hurts": "hurts",
    }
    groups = [
        (f"effect {cls}", [r for r in rules if r.cls == cls])
        for cls in dict.fromkeys(r.cls for r in rules)
    ]
    groups.append(("goal: effect >= 50%, base >= 20%", [r for r in rules if r.big]))
    looks = [look for look in LOOKS if look <= args.sessions]
    base = "" if args.base is None else f", base rate {args.base:.0%} for every rule"
    print(
        f"{len(tallies)} replicates x {len(rules)} rules, {args.sessions} sessions each, scenario "
        f"{args.scenario}{base}, holdback_rate {args.holdback_rate}, "
        f"holdback_max {args.holdback_max}, seed {args.seed}\n"
    )
    head = " | ".join(f"{look} sessions" for look in looks)
    print(f"| true effect (entries) | {head} | ever helps | ever hurts |")
    print("|---|" + "---|" * (len(looks) + 2))
    for title, members in groups:
        if not members:
            continue
        cells = []
        for look in looks:
            counts: Counter[str] = Counter()
            for tally in tallies:
                counts.update(tally.labels[look][r.name] for r in members)
            total = sum(counts.values())
            cells.append(
                " / ".join(
                    f"{short[label]} {_share(counts, total, label)}"
                    for label in labels
                    if counts[label]
                )
            )
        names = {r.name for r in members}
        ever = sum(len(tally.ever_helps & names) for tally in tallies)
        hurts = sum(len(tally.ever_hurts & names) for tally in tallies)
        entries = len(members) * len(tallies)
        print(
            f"| {title} ({entries}) | {' | '.join(cells)} | {100 * ever / entries:.1f}% "
            f"| {100 * hurts / entries:.1f}% |"
        )
    _goals(tallies, rules, looks)


def _goals(tallies: list[Tally], rules: list[Rule], looks: list[int]) -> None:
    """The three goals of the issue, each with its figure and verdict."""

    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    print()
    big = [r for r in rules if r.big]
    look = 200 if 200 in looks else looks[-1]
    if big:
        helps = sum(t.labels[look][r.name] == "helps" for t in tallies for r in big)
        share = helps / (len(big) * len(tallies))
        print(
            f"goal 1, effect >= 50% and base >= 20% classified helps within {look} sessions: "
            f"{100 * share:.0f}% (goal >= 90%): {verdict(share >= 0.9)}"
        )
    null = [r for r in rules if r.effect == 0]
    if null:
        ever = sum(len(t.ever_helps & {r.name for r in null}) for t in tallies)
        share = ever / (len(null) * len(tallies))
        print(
            f"goal 2, no-effect entries ever classified helps (every session's refresh and "
            f"every look): {100 * share:.1f}% (goal <= 5%): {verdict(share <= 0.05)}"
        )
    extra = sum(t.extra for t in tallies)
    prevented = sum(t.prevented for t in tallies)
    if prevented:
        share = extra / prevented
        print(
            f"goal 3, cost: {extra:.1f} extra expected recurrences from holding back rules that "
            f"help, against {prevented:.1f} that injecting every rule prevents: "
            f"{100 * share:.1f}% (goal <= 5%): {verdict(share <= 0.05)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=30)
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument(
        "--real",
        type=int,
        default=60,
        help="sessions of replicate 0 run through real subprocess hooks",
    )
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--holdback-rate", type=float, default=0.2)
    parser.add_argument("--holdback-max", type=int, default=3)
    parser.add_argument("--scenario", choices=("mixed", "null"), default="mixed")
    parser.add_argument(
        "--base", type=float, default=None, help="one base rate for every rule (default: 5-40%%)"
    )
    args = parser.parse_args()
    rules = make_rules(args.scenario, args.base)
    tallies = []
    with tempfile.TemporaryDirectory(prefix="acecode-effect-sim-") as tmp:
        root = Path(tmp)
        real_tally, real_world = (
            run_replicate(args, 0, args.real, root) if args.real else (None, None)
        )
        for replicate in range(args.replicates):
            if replicate == 0 and real_tally is not None:
                replay, replay_world = run_replicate(args, 0, 0, root)
                same = real_world.exposure_log() == replay_world.exposure_log()
                same_classes = real_tally.labels == replay.labels
                tallies.append(real_tally)
                per_session = 1000 * real_tally.seconds / real_tally.sessions
                print(
                    f"real hooks: {real_tally.sessions} sessions in {real_tally.seconds:.1f} s "
                    f"({per_session:.0f} ms per session: subprocess SessionStart, the refresh, "
                    "looks through `acecode impact --rules --json`); in-process: "
                    f"{replay.sessions} sessions in {replay.seconds:.1f} s. The two paths "
                    f"recorded the same exposure log: {'yes' if same else 'NO'}; the same classes "
                    f"at every look: {'yes' if same_classes else 'NO'}\n"
                )
                continue
            tallies.append(run_replicate(args, replicate, 0, root)[0])
    report(args, tallies, rules)


if __name__ == "__main__":
    main()
