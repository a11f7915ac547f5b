"""Input patterns: which tool calls an entry is about, before or after they run.

An :class:`InputPattern` is a tool, one field of the tool's input and a regular
expression searched in that field::

    InputPattern("Bash", r"^cd\\s+{cwd_name}\\b", "command")   # cd into the folder one is in
    InputPattern("Read", r"(?i)(^|/)status\\.md$", "file_path")
    InputPattern("Edit", r"^import os$", "old_string")

Fields and the tools that have them:

* ``command``: the shell tools (Claude Code's ``Bash``; Codex's ``Bash``,
  ``shell``, ``exec_command``, ``local_shell``, whose command may be an argv list);
* ``file_path``: ``Read``, ``Edit``, ``Write``, ``MultiEdit``, ``NotebookEdit``
  (its ``notebook_path``) and Codex's ``apply_patch`` (the files its patch names);
* ``old_string``: ``Edit`` and ``MultiEdit`` (any of its edits).

A pattern's tool names a family: ``Bash`` matches every shell tool, ``Edit``
also matches ``MultiEdit`` and ``apply_patch``, ``Write`` also ``apply_patch``.
``{cwd_name}`` in a pattern stands for the last folder of the call's working
directory (the payload's ``cwd``), escaped: the only way a pattern can say
"``cd build`` while already in ``build``".

Patterns come from three places (the curator, ``acecode add --when`` and
provenance origins, ``"when": [{"tool", "field", "pattern"}]``) and are run by
the ``PreToolUse`` hook on every tool call, so
:func:`acecode.recall.quality.quality_problem` refuses those that would do harm
there: ones that do not compile, are too long, match (nearly) every call, or
backtrack catastrophically. The hook also bounds the work itself: it searches
at most :data:`MAX_INPUT_CHARS` of a field.

Only :mod:`re` and :mod:`os` are imported here: the hook path loads this module.
"""

from __future__ import annotations

import os
import re

from acecode.errors import AcecodeError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

FIELDS = ("command", "file_path", "old_string")
MAX_PATTERN_CHARS = 200
# The hook searches no more of a field than this; the quality check times a
# pattern on inputs of this length.
MAX_INPUT_CHARS = 1000
CWD_NAME = "{cwd_name}"

SHELL_TOOLS = frozenset({"Bash", "shell", "local_shell", "exec_command"})
PATCH_TOOL = "apply_patch"
# The tools each pattern tool stands for.
_FAMILIES: dict[str, frozenset[str]] = {
    **dict.fromkeys(SHELL_TOOLS, SHELL_TOOLS),
    "Read": frozenset({"Read"}),
    "Edit": frozenset({"Edit", "MultiEdit", PATCH_TOOL}),
    "MultiEdit": frozenset({"MultiEdit"}),
    "Write": frozenset({"Write", PATCH_TOOL}),
    "NotebookEdit": frozenset({"NotebookEdit"}),
    PATCH_TOOL: frozenset({PATCH_TOOL}),
}
# The fields each pattern tool has.
_TOOL_FIELDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(SHELL_TOOLS, ("command",)),
    "Read": ("file_path",),
    "Edit": ("file_path", "old_string"),
    "MultiEdit": ("file_path", "old_string"),
    "Write": ("file_path",),
    "NotebookEdit": ("file_path",),
    PATCH_TOOL: ("file_path",),
}
TOOLS = tuple(_TOOL_FIELDS)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
_SHELL_C = frozenset({"-c", "-lc", "-ic"})


class PatternError(AcecodeError, ValueError):
    """A pattern that cannot be used; the message says why, in one line."""


class InputPattern:
    """A tool, a field of its input and a regex searched in it (see the module doc)."""

    __slots__ = ("_compiled", "field", "pattern", "tool")

    def __init__(self, tool: str, pattern: str, field: str | None = None) -> None:
        if tool not in _TOOL_FIELDS:
            raise PatternError(f"unknown tool {tool!r} (one of {', '.join(TOOLS)})")
        fields = _TOOL_FIELDS[tool]
        field = field or fields[0]
        if field not in fields:
            raise PatternError(f"{tool} has no field {field!r} (it has {', '.join(fields)})")
        if not isinstance(pattern, str) or not pattern:
            raise PatternError("the pattern is empty")
        self.tool = tool
        self.pattern = pattern
        self.field = field
        self._compiled: dict[str, re.Pattern[str]] = {}

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> InputPattern:
        """``TOOL:PATTERN`` or ``TOOL.FIELD:PATTERN`` (the ``--when`` syntax); the pattern
        is everything after the first colon. Raises :class:`PatternError`."""
        spec, colon, pattern = text.partition(":")
        if not colon:
            raise PatternError(f"{text!r} is not TOOL:PATTERN (e.g. 'Bash:^make test')")
        tool, _, field = spec.strip().partition(".")
        pattern = pattern.strip()
        if not pattern:
            raise PatternError(f"{text!r} has no pattern after the colon")
        return cls(tool, pattern, field or None)

    @classmethod
    def from_dict(cls, data: Any) -> InputPattern:
        """From ``{"tool", "field", "pattern"}`` (``field`` may be left out). Raises
        :class:`PatternError` for anything else."""
        if not isinstance(data, dict):
            raise PatternError(f"an input pattern is an object, not {type(data).__name__}")
        tool, pattern, field = data.get("tool"), data.get("pattern"), data.get("field")
        if not isinstance(tool, str) or not isinstance(pattern, str):
            raise PatternError("an input pattern needs a string 'tool' and 'pattern'")
        if field is not None and not isinstance(field, str):
            raise PatternError("an input pattern's 'field' is a string")
        return cls(tool, pattern, field)

    def to_dict(self) -> dict[str, str]:
        return {"tool": self.tool, "field": self.field, "pattern": self.pattern}

    def __str__(self) -> str:
        """The ``--when`` form: ``Bash:PATTERN``, ``Edit.old_string:PATTERN``."""
        default = self.field == _TOOL_FIELDS[self.tool][0]
        return f"{self.tool}{'' if default else '.' + self.field}:{self.pattern}"

    def __repr__(self) -> str:
        return f"InputPattern({self.tool!r}, {self.pattern!r}, {self.field!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InputPattern):
            return NotImplemented
        return (self.tool, self.field, self.pattern) == (other.tool, other.field, other.pattern)

    def __hash__(self) -> int:
        return hash((self.tool, self.field, self.pattern))

    # --- matching -------------------------------------------------------------------------

    def regex(self, cwd: str = "") -> re.Pattern[str]:
        """The compiled pattern, ``{cwd_name}`` replaced by the last folder of ``cwd``."""
        name = os.path.basename(cwd.rstrip("/\\")) if CWD_NAME in self.pattern else ""
        compiled = self._compiled.get(name)
        if compiled is None:
            source = self.pattern
            if CWD_NAME in source:
                # No folder (no cwd) leaves a pattern no input can match.
                source = source.replace(CWD_NAME, re.escape(name) if name else r"(?!)")
            compiled = self._compiled[name] = re.compile(source)
        return compiled

    def tools(self) -> frozenset[str]:
        """The tool names this pattern applies to: its tool's family."""
        return _FAMILIES[self.tool]

    def applies_to(self, tool_name: str) -> bool:
        """True when ``tool_name`` is in this pattern's tool family."""
        return tool_name in _FAMILIES[self.tool]

    def matches(self, tool_name: str, tool_input: Any, cwd: str = "") -> bool:
        """True when the call's input matches. Never raises: an odd input is no match."""
        if not self.applies_to(tool_name) or not isinstance(tool_input, dict):
            return False
        try:
            compiled = self.regex(cwd if isinstance(cwd, str) else "")
        except re.error:
            return False
        return any(
            compiled.search(value[:MAX_INPUT_CHARS])
            for value in field_values(tool_name, tool_input, self.field)
        )


def field_values(tool_name: str, tool_input: Mapping[str, Any], field: str) -> Iterator[str]:
    """The strings of ``field`` in one call's input (none when it has no such field)."""
    if field == "command":
        command = tool_input.get("command")
        if isinstance(command, list):
            yield _argv_command([part for part in command if isinstance(part, str)])
        elif isinstance(command, str) and tool_name != PATCH_TOOL:
            yield command
    elif field == "file_path":
        if tool_name == PATCH_TOOL:
            patch = tool_input.get("command") or tool_input.get("input") or ""
            if isinstance(patch, str):
                yield from (path.strip() for path in _PATCH_FILE.findall(patch))
            return
        for key in ("file_path", "notebook_path"):
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                yield value
    elif field == "old_string":
        value = tool_input.get("old_string")
        if isinstance(value, str):
            yield value
        edits = tool_input.get("edits")
        if isinstance(edits, list):
            for edit in edits:
                if isinstance(edit, dict) and isinstance(edit.get("old_string"), str):
                    yield edit["old_string"]


def _argv_command(argv: list[str]) -> str:
    """Codex's ``["bash", "-lc", "make test"]`` is the command ``make test``."""
    if len(argv) >= 3 and argv[1] in _SHELL_C:
        return argv[2]
    return " ".join(argv)
