"""acecode finds the instruction files the real Claude Code loads, and knows when it loads them.

One ``claude -p`` session in a project holding every kind of instruction file
(each with its own marker): the user's CLAUDE.md and rules, a CLAUDE.md above the
project, the project's CLAUDE.md with an ``@`` import, ``.claude/CLAUDE.md``,
rules with and without ``paths:`` front matter (in the forms the CLI accepts
and one it does not), ``CLAUDE.local.md`` and a 300-line ``MEMORY.md``. The
scripted model reads one file that matches a ``paths:`` rule. The test then
compares :func:`acecode.instructions.files.instruction_files` with the requests
the model received: every file acecode says is loaded at start is in the first
request, as acecode gives its text; no ``paths:`` rule is, and the one whose
pattern matches the file read is in the request after the read; nothing acecode
leaves out reaches the model; and the auto memory is cut where acecode cuts
it. A second session with auto memory turned off in the project's settings
loads no ``MEMORY.md``, as acecode says.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from claude_driver import ClaudeHome
from messages_server import MessagesServer, Recorded, Reply, ToolCall

from acecode.instructions import auto_memory
from acecode.instructions.files import instruction_files


class ReadOnce:
    """The scripted agent: first a Read of ``path``, then a plain answer."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, request: Recorded) -> Reply:
        if not request.tool_names:  # the CLI's own small calls
            return Reply('{"title": "x"}')
        done = any(
            block.get("type") == "tool_result"
            for message in request.body.get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
        )
        if done:
            return Reply("Done.")
        return Reply(tool_calls=(ToolCall("Read", {"file_path": str(self.path)}),))


def texts(request: Recorded) -> str:
    """Every text the model reads in ``request``, unescaped."""
    parts = [request.system_text]
    for message in request.body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
            continue
        for block in content or []:
            inner = block.get("text") or block.get("content") or ""
            parts.append(inner if isinstance(inner, str) else json.dumps(inner))
    return "\n".join(parts)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def build(project: Path, home: Path) -> dict[str, str]:
    """Every kind of instruction file; returns marker -> file written."""
    files = {
        "MARK_USER": (home / ".claude/CLAUDE.md", "# Mine\n- MARK_USER answer briefly\n"),
        "MARK_USER_RULE": (home / ".claude/rules/style.md", "MARK_USER_RULE no emoji\n"),
        "MARK_ABOVE": (project.parent / "CLAUDE.md", "MARK_ABOVE shared by a parent folder\n"),
        "MARK_PROJECT": (
            project / "CLAUDE.md",
            "# Project\n- MARK_PROJECT use pnpm\n<!-- MARK_COMMENT hidden -->\nSee @docs/more.md\n",
        ),
        "MARK_IMPORTED": (project / "docs/more.md", "MARK_IMPORTED imported text\n"),
        "MARK_DOT_CLAUDE": (project / ".claude/CLAUDE.md", "MARK_DOT_CLAUDE run make test\n"),
        "MARK_RULE": (project / ".claude/rules/general.md", "MARK_RULE keep functions short\n"),
        "MARK_NESTED_RULE": (project / ".claude/rules/db/sql.md", "MARK_NESTED_RULE no ORM\n"),
        "MARK_PY_RULE": (
            project / ".claude/rules/python.md",
            '---\npaths:\n  - "src/**/*.py"\n---\nMARK_PY_RULE type hints everywhere\n',
        ),
        "MARK_TS_RULE": (
            project / ".claude/rules/ts.md",
            "---\npaths: **/*.ts\n---\nMARK_TS_RULE strict mode\n",
        ),
        "MARK_BAD_LIST": (
            project / ".claude/rules/bad.md",
            "---\npaths:\n  - **/*.go\n---\nMARK_BAD_LIST gofmt\n",
        ),
        "MARK_TXT_RULE": (project / ".claude/rules/notes.txt", "MARK_TXT_RULE ignored\n"),
        "MARK_LOCAL": (project / "CLAUDE.local.md", "MARK_LOCAL my sandbox URL\n"),
    }
    for path, text in files.values():
        write(path, text)
    write(project / "src/app/main.py", "print('hi')\n")
    memory = auto_memory.memory_folder(project)
    lines = [f"- memory note {n:03d} MEMLINE{n:03d}" for n in range(1, 301)]
    write(memory / auto_memory.INDEX_NAME, "# Memory\n" + "\n".join(lines) + "\n")
    write(memory / "topic.md", "MARK_TOPIC a topic file\n")
    return {marker: str(path) for marker, (path, _text) in files.items()}


def test_acecode_finds_what_the_real_cli_loads_and_when(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path, home_dir: Path
) -> None:
    (project_dir / ".git").mkdir()  # the memory folder is named after the repository root
    markers = build(project_dir, home_dir)
    server.responder = ReadOnce(project_dir / "src/app/main.py")

    result = claude.run_print(project_dir, "Look at the app.", "--allowedTools", "Read")
    assert result.returncode == 0, result.stderr
    agent = [request for request in server.requests if request.tool_names]
    assert len(agent) == 2, [r.body.get("messages", [])[-1:] for r in agent]
    first, after_read = texts(agent[0]), texts(agent[1])

    found = instruction_files(project_dir)
    by_path = {str(f.path): f for f in found}
    for marker, path in markers.items():
        listed = by_path.get(str(Path(path).resolve()))
        if listed is None:
            assert marker not in after_read, f"{marker}: loaded, but acecode does not list it"
        elif listed.at_start:
            assert listed.text.strip() in first, f"{marker}: acecode says loaded at start"
        else:
            assert marker not in first, f"{marker}: acecode says it waits for a matching read"
    # src/app/main.py was read: it matches the Python rule's pattern, not the TypeScript one's.
    python_rule = next(f for f in found if f.paths == ("src/**/*.py",))
    assert python_rule.text.strip() in after_read
    assert "MARK_TS_RULE" not in after_read
    listed_markers = {m for m, p in markers.items() if str(Path(p).resolve()) in by_path}
    assert listed_markers == set(markers) - {"MARK_TXT_RULE"}
    assert sorted(f.paths for f in found if not f.at_start) == [("**/*.ts",), ("src/**/*.py",)]
    assert "MARK_COMMENT" not in first
    assert "MARK_COMMENT" not in next(f.text for f in found if f.label == "CLAUDE.md")
    assert "MARK_TOPIC" not in after_read

    memory = next(f for f in found if f.kind == "memory")
    shown = [int(n) for n in re.findall(r"MEMLINE(\d{3})", first)]
    assert memory.text.strip() in first
    assert max(shown) == int(re.findall(r"MEMLINE(\d{3})", memory.text)[-1]) == 199


def test_auto_memory_turned_off_in_the_project_settings_is_not_loaded(
    claude: ClaudeHome, server: MessagesServer, project_dir: Path, home_dir: Path
) -> None:
    write(auto_memory.memory_folder(project_dir) / auto_memory.INDEX_NAME, "- MARK_MEMORY note\n")
    write(project_dir / ".claude/settings.json", json.dumps({"autoMemoryEnabled": False}))
    server.responder = ReadOnce(project_dir / "nothing.txt")

    result = claude.run_print(project_dir, "Hello.")
    assert result.returncode == 0, result.stderr
    agent = [request for request in server.requests if request.tool_names]
    assert "MARK_MEMORY" not in texts(agent[0])
    assert auto_memory.disabled_by(project_dir) is not None
    assert not [f for f in instruction_files(project_dir) if f.kind == "memory"]
