"""The tool hooks' fast path: most tool calls are ruled out before anything is imported.

``PreToolUse`` runs before every tool call (Codex's ``PostToolUse`` after every
one), so its usual answer, "nothing to say", must cost little more than the
interpreter's start: the goal is at most 1.5x ``python -c pass``
(``bench/hook_bench.py``). ``import json`` or ``typing`` alone would spend most
of that (both import ``re``), so this module imports only ``os``, ``sys``,
:mod:`acecode.text.lean_json` and two ``os``-only modules of
:mod:`acecode.project`, and acecode installs these hooks as
``<python> -P -c "from acecode.recall.gate import main; main()" <event>`` rather
than through the ``acecode`` script (which imports ``re`` first thing); the
``acecode hook <event>`` form works the same way, only slower.

It reads the payload and the project's recall index (:mod:`acecode.recall.index`),
checks that the index is current (the ``stat`` of every file it lists, the value
of every variable), and looks for a candidate with plain ``in``: a failure
trigger's error words in the failed call's output, an input pattern's required
text (:mod:`acecode.recall.literals`) in the call's field. Only when one is there,
or when the index is missing or stale, does it hand the payload to the full
hook (:func:`acecode.hooks.tools.handle`), which runs the patterns, claims the
call and answers. A project with no playbook at all ends here too.

Like every hook it never breaks the session: any problem is one stderr line
and exit 0 (:func:`acecode.hooks.tools.handle` reports it).
"""

from __future__ import annotations

import os
import sys

from acecode.project.project_root import resolve_project
from acecode.project.session_switch import session_skipped
from acecode.recall.payload import failure_output

# The recall index's place (acecode.recall.index.index_file; a test keeps them equal).
STATE_PARTS = (".claude", "acecode", "recall-index.json")
PROJECT_PLAYBOOK = (".claude", "playbook.json")
USER_PLAYBOOK = (".claude", "acecode-user", "playbook.json")
FORMAT = 1  # acecode.recall.index.FORMAT
# The tool events and the name each has in ``acecode hook`` (acecode.hooks.EVENT_ARGUMENTS).
EVENTS = {
    "pretooluse": "PreToolUse",
    "posttoolusefailure": "PostToolUseFailure",
    "posttooluse": "PostToolUse",
}
# The fields each pattern field is read from (acecode.recall.pattern.field_values reads
# them exactly; here only their text is searched).
_FIELD_KEYS = {
    "command": ("command", "cmd"),
    "file_path": ("file_path", "notebook_path", "command", "input"),
    "old_string": ("old_string", "edits"),
}


def main(argv: list[str] | None = None) -> None:
    """``python -P -c "from acecode.recall.gate import main; main()" EVENT [--agent NAME]``."""
    sys.exit(run(sys.argv[1:] if argv is None else argv))


def run(argv: list[str]) -> int:
    """Decide cheaply; hand the call to the full hook when it may have something to say."""
    if session_skipped():
        return 0  # ACECODE_SKIP or one of acecode's own runs: tool hooks say nothing
    event, agent = _event_and_agent(argv)
    try:
        payload = _payload()
    except ValueError as exc:
        return _full(event, None, agent, problem=str(exc))
    if event is None or payload is None:
        return 0
    may, index = _may_answer(event, payload)
    if not may:
        return 0
    return _full(event, payload, agent, index=index)


def _event_and_agent(argv: list[str]) -> tuple[str | None, str]:
    words = [word for word in argv if word != "hook"]
    agent = "claude-code"
    rest = []
    for position, word in enumerate(words):
        if word == "--agent" and position + 1 < len(words):
            agent = words[position + 1]
        elif word.startswith("--agent="):
            agent = word.partition("=")[2]
        elif position == 0 or words[position - 1] != "--agent":
            rest.append(word)
    name = rest[0] if rest else ""
    return EVENTS.get(name.replace("-", "").replace("_", "").lower()), agent


def _payload() -> dict | None:
    """The hook input; None for an empty stdin; ValueError when it is not a JSON object."""
    from acecode.text.lean_json import loads

    stream = sys.stdin
    if stream is None or stream.isatty():
        return None
    text = stream.buffer.read().decode("utf-8", errors="replace").strip()
    if not text:
        return None
    payload = loads(text)
    if not isinstance(payload, dict):
        raise ValueError(f"hook input is a JSON {type(payload).__name__}, expected an object")
    return payload


def _full(
    event: str | None,
    payload: dict | None,
    agent: str,
    problem: str = "",
    index: dict | None = None,
) -> int:
    """The full hook (:mod:`acecode.hooks.tools`), which imports what it needs; ``index``
    is the recall index when this path found it current (else the full hook builds it)."""
    from acecode.hooks.tools import handle

    return handle(event, payload, agent, problem, index)


def _read_index(project: str) -> dict | None:
    from acecode.text.lean_json import loads

    try:
        with open(os.path.join(project, *STATE_PARTS), encoding="utf-8") as handle:
            index = loads(handle.read())
    except (OSError, ValueError):
        return None
    return index if isinstance(index, dict) else None


def _stat(path: str) -> list[int] | None:
    """:func:`acecode.project.file_stat.stat_key` (imported only on this path, it is cheap)."""
    from acecode.project.file_stat import stat_key

    return stat_key(path)


def is_current(index: dict) -> bool:
    """The index's own check of its inputs (see :mod:`acecode.recall.index`)."""
    import acecode

    if index.get("format") != FORMAT or index.get("acecode") != acecode.__version__:
        return False
    files, env = index.get("inputs"), index.get("env")
    if not isinstance(files, list) or not isinstance(env, list):
        return False
    try:
        return all(_stat(path) == stat for path, stat in files) and all(
            os.environ.get(name) == value for name, value in env
        )
    except (TypeError, ValueError):
        return False


def _has_playbook(project: str) -> bool:
    return os.path.exists(os.path.join(project, *PROJECT_PLAYBOOK)) or os.path.exists(
        os.path.join(os.path.expanduser("~"), *USER_PLAYBOOK)
    )


def _may_answer(event: str, payload: dict) -> tuple[bool, dict | None]:
    """Whether the full hook must look at this call (False: it certainly gets no answer),
    and the recall index when it is current."""
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        return True, None  # a malformed payload: the full hook says so in one line
    project = resolve_project(payload)
    index = _read_index(project)
    if index is None or not is_current(index):
        return _has_playbook(project), None  # build it (once), or nothing is here at all
    if not index.get("active"):
        return False, index
    if event == "PreToolUse":
        may = bool(index.get("recall_before")) and _pattern_candidate(index, tool, payload)
    else:
        may = bool(index.get("recall")) and _failure_candidate(index, tool, payload)
    return may, index


def _text_of(tool_input: object, field: str) -> str:
    """All the text of the input's keys for ``field`` (over-inclusive: only a pre-check)."""
    if not isinstance(tool_input, dict):
        return ""
    parts: list[str] = []
    for key in _FIELD_KEYS[field]:
        value = tool_input.get(key)
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, str):
                    parts.append(item)
                elif isinstance(item, dict) and isinstance(item.get("old_string"), str):
                    parts.append(item["old_string"])
    return "\n".join(parts)


def may_match(text: str, literal: str, fold: bool, cwd: str = "") -> bool:
    """True when ``text`` holds ``literal`` (:func:`acecode.recall.literals.required_literal`),
    with ``{cwd_name}`` as the last folder of ``cwd``; always True for no literal."""
    if not literal:
        return True
    if "{cwd_name}" in literal:
        name = os.path.basename(cwd.rstrip("/\\"))
        if not name:
            return False
        literal = literal.replace("{cwd_name}", name.lower() if fold else name)
    return literal in (text.lower() if fold else text)


def _pattern_candidate(index: dict, tool: str, payload: dict) -> bool:
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else ""
    tool_input = payload.get("tool_input")
    texts: dict[str, str] = {}
    for row in index.get("patterns") or ():
        try:
            tools, _tool, field, _pattern, _name, literal, fold = row
            if tool not in tools:
                continue
            if field not in texts:
                texts[field] = _text_of(tool_input, field)
            if texts[field] and may_match(texts[field], literal, fold, cwd):
                return True
        except (TypeError, ValueError, KeyError):
            return True  # an odd row: let the full hook decide
    return False


def _failure_candidate(index: dict, tool: str, payload: dict) -> bool:
    output = failure_output(payload)
    if not output:
        return False
    for row in index.get("failures") or ():
        try:
            if tool in row[0] and all(word in output for word in row[6]):
                return True
        except (TypeError, IndexError):
            return True
    return False
