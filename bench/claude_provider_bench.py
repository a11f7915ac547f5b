"""The `claude` provider before and after: request size, tools, session files, wall time.

Usage: ``python bench/claude_provider_bench.py [--claude PATH] [--runs 5]``

Runs the real Claude Code CLI (``--claude``, else ``$ACECODE_CLAUDE_BIN``, else
the pinned ``tests/clients/node_modules/.bin/claude``: ``npm ci --prefix
tests/clients``) offline against the scripted Messages server of the
real-client tests, on one reflector prompt built by acecode's own template
from a real session (``tests/data/transcripts/agtrace/claude_session.jsonl``).

- ``before``: the command line acecode used until this change (``--max-turns 1
  --allowedTools "" --settings '{"disableAllHooks": true}'``, no model, no
  effort), through the same process handling;
- ``after``: :class:`acecode.llm.claude_cli.ClaudeCLIProvider` as acecode runs
  it now: flags read from ``claude --help``, child variables, sonnet at low
  effort.

The user's machine is a fresh ``HOME`` set up like a typical one: a project
``CLAUDE.md`` and a user ``~/.claude/CLAUDE.md``, one personal skill and one
auto-memory note (no MCP server: a stand-in that does not speak MCP would only
measure a connection timeout). The CLI's environment is what a user's shell
gives it: no ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC``, so the session-title
request the CLI makes on its own is counted too.

Columns: API requests per call and their total bytes; the main request (the
one carrying the prompt), its size over the prompt's (system + user prompt,
UTF-8 bytes; goal <= 2x) and its tool definitions; files added under
``~/.claude/projects`` over all runs (goal 0); median wall time of one call.
The variants alternate call by call, so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "realclient"))

from messages_server import MessagesServer, Reply  # noqa: E402

from acecode.llm.base import LLMRequest  # noqa: E402
from acecode.llm.claude_cli import NO_HOOKS_SETTINGS, ClaudeCLIProvider  # noqa: E402
from acecode.llm.claude_flags import FlagSupport  # noqa: E402
from acecode.project.session_switch import NESTED_ENV  # noqa: E402

PINNED_CLAUDE = ROOT / "tests" / "clients" / "node_modules" / ".bin" / "claude"
SESSION = ROOT / "tests" / "data" / "transcripts" / "agtrace" / "claude_session.jsonl"
GOAL_RATIO = 2.0
API_KEY = "sk-ant-api03-bench-key-00000000000000000000"
TITLE_MARKER = "Write the title in the language"
REFLECTION = {"analysis": "The agent ran the tests from the wrong folder.", "bullet_tags": []}


class LegacyClaudeCLI(ClaudeCLIProvider):
    """The provider as it ran before: no lean flags, no model or effort, no child variables."""

    def argv(self, request: LLMRequest, support: FlagSupport) -> list[str]:
        return [
            self._executable,
            "-p",
            "--output-format",
            "json",
            "--max-turns",
            "1",
            "--allowedTools",
            "",
            "--settings",
            NO_HOOKS_SETTINGS,
            "--system-prompt",
            request.system,
        ]

    def child_env(self) -> dict[str, str]:
        return {**self._env, NESTED_ENV: "1"}


@dataclass
class Row:
    """One variant's measurements over all runs."""

    label: str
    requests: list[int] = field(default_factory=list)
    total_bytes: list[int] = field(default_factory=list)
    main_bytes: list[int] = field(default_factory=list)
    tools: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    new_files: int = 0
    argv: list[str] = field(default_factory=list)


def find_claude(option: str | None) -> Path:
    for candidate in (option, os.environ.get("ACECODE_CLAUDE_BIN"), str(PINNED_CLAUDE)):
        if candidate and Path(candidate).exists():
            return Path(candidate)
    sys.exit(
        "claude_provider_bench: no Claude Code CLI; pass --claude PATH, set "
        "ACECODE_CLAUDE_BIN, or run `npm ci --prefix tests/clients`"
    )


def set_up_user(home: Path, project: Path) -> None:
    """A user's machine: onboarding done, instructions, a skill and an auto-memory note."""
    claude_dir = home / ".claude"
    (claude_dir / "skills" / "release-notes").mkdir(parents=True)
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "projects": {str(project): {"hasTrustDialogAccepted": True}},
                "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
            }
        )
    )
    (claude_dir / "CLAUDE.md").write_text(
        "# My preferences\n- Answer in short paragraphs.\n- Prefer pathlib over os.path.\n"
    )
    (claude_dir / "skills" / "release-notes" / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Draft release notes from the git log "
        "since the last tag.\n---\nRead `git log` since the last tag and group the changes.\n"
    )
    project.mkdir(parents=True)
    (project / "CLAUDE.md").write_text(
        "# Project\nPython 3.11 service. Run `pytest -q` from the repository root.\n"
        "Format with ruff; never commit to main directly.\n" * 3
    )
    encoded = "".join(c if c.isalnum() else "-" for c in str(project))
    memory = claude_dir / "projects" / encoded / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- The staging database is reset every Monday.\n")


def reflector_request() -> LLMRequest:
    """The reflector's prompt for a real session, built exactly as the role builds it."""
    from acecode.playbook.schema import empty_playbook
    from acecode.prompts.templates import load_template
    from acecode.roles.ask import SYSTEM_PROMPT
    from acecode.roles.prompt import fill_template, render_playbook, render_transcript
    from acecode.roles.reflector import reflector_mode
    from acecode.transcript import load_transcript

    prompt = fill_template(
        load_template("reflector.txt"),
        transcript=render_transcript(load_transcript(SESSION)),
        playbook=render_playbook(empty_playbook()),
        cited_ids="(none)",
        mode=reflector_mode([]),
    )
    return LLMRequest(system=SYSTEM_PROMPT, prompt=prompt, model="sonnet", timeout=300)


def files_under(folder: Path) -> set[Path]:
    return {path for path in folder.rglob("*") if path.is_file()} if folder.exists() else set()


def measure_once(
    row: Row,
    provider: ClaudeCLIProvider,
    request: LLMRequest,
    server: MessagesServer,
    projects: Path,
) -> None:
    """One call: its API requests, the main request's size and tools, files it left."""
    marker = request.prompt[:200]
    before = files_under(projects)
    server.requests.clear()
    started = time.perf_counter()
    completion = asyncio.run(provider.complete(request))
    row.seconds.append(time.perf_counter() - started)
    assert json.loads(completion.text) == REFLECTION, completion.text
    calls = [
        r for r in server.requests if r.path.startswith("/v1/messages?") or r.path == "/v1/messages"
    ]
    main = next(r for r in calls if marker in r.text and TITLE_MARKER not in r.text)
    row.requests.append(len(calls))
    row.total_bytes.append(sum(r.size for r in calls))
    row.main_bytes.append(main.size)
    row.tools.append(len(main.tool_names))
    row.new_files += len(files_under(projects) - before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claude", help="the claude executable (default: see above)")
    parser.add_argument("--runs", type=int, default=5, help="calls per variant (default 5)")
    args = parser.parse_args()
    claude = find_claude(args.claude)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    version = subprocess.run(
        [str(claude), "--version"], capture_output=True, text=True, timeout=60
    ).stdout.strip()

    server = MessagesServer(lambda _request: Reply(json.dumps(REFLECTION))).start()
    with tempfile.TemporaryDirectory(prefix="acecode-claude-bench-") as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "work" / "project"
        set_up_user(home, project)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": API_KEY,
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        os.environ["HOME"] = str(home)  # the flag cache lives in this temporary home
        os.chdir(project)
        request = reflector_request()
        prompt_bytes = len((request.system + request.prompt).encode("utf-8"))
        projects = home / ".claude" / "projects"
        rows = [Row("before"), Row("after")]
        providers = [
            LegacyClaudeCLI(executable=str(claude), env=env),
            ClaudeCLIProvider(executable=str(claude), model="sonnet", effort="low", env=env),
        ]
        for row, provider in zip(rows, providers, strict=True):
            row.argv = provider.argv(request, provider.flag_support())  # reads --help once
        try:
            for _ in range(args.runs):  # interleaved, so machine noise hits both alike
                for row, provider in zip(rows, providers, strict=True):
                    measure_once(row, provider, request, server, projects)
        finally:
            server.stop()

    print(f"claude: {claude} ({version}); {args.runs} calls per variant")
    print(f"prompt: reflector template on {SESSION.relative_to(ROOT)}, {prompt_bytes:,} bytes\n")
    print(
        "| variant | API requests per call | bytes sent per call | main request bytes "
        f"| main / prompt (goal <= {GOAL_RATIO:g}x) | tools in request "
        "| new files in ~/.claude/projects (goal 0) | median wall s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        ratio = statistics.median(row.main_bytes) / prompt_bytes
        print(
            f"| {row.label} | {statistics.median(row.requests):g} "
            f"| {statistics.median(row.total_bytes):,.0f} "
            f"| {statistics.median(row.main_bytes):,.0f} "
            f"| {ratio:.2f}x {'ok' if ratio <= GOAL_RATIO else 'MISSED'} "
            f"| {statistics.median(row.tools):g} "
            f"| {row.new_files} {'ok' if row.new_files == 0 else 'MISSED'} "
            f"| {statistics.median(row.seconds):.2f} |"
        )
    for row in rows:
        shown = [arg if len(arg) < 60 else f"<{len(arg)} chars>" for arg in row.argv[1:]]
        print(f"\n{row.label}: claude {' '.join(repr(a) if a == '' else a for a in shown)}")


if __name__ == "__main__":
    main()
