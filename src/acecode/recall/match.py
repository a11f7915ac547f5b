"""Which entries a tool call is about: the recall index's triggers run on one call.

* After a failed call, :func:`recalled` computes the call's failure signature the
  way ``impact`` does (:func:`acecode.impact.signature.signature_of`) and keeps
  the entries whose failure trigger is the same failure
  (:func:`acecode.impact.signature.matches`), and, for a file tool, names the
  same file.
* Before a call, :func:`warned` keeps the entries with an input pattern that
  matches it (:meth:`acecode.recall.pattern.InputPattern.matches`).

Both order the entries best first: the more specific trigger (a file named, a
command head), then the entry's helpful minus harmful count, then its name.
"""

from __future__ import annotations

import os

from acecode.recall.pattern import InputPattern, PatternError, field_values

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from typing import Any


def _ranked(index: dict[str, Any], found: dict[str, int]) -> list[str]:
    entries = index.get("entries") or {}

    def key(name: str) -> tuple[int, int, str]:
        return (-found[name], -int((entries.get(name) or {}).get("score") or 0), name)

    return sorted((name for name in found if name in entries), key=key)


def call_file(tool: str, tool_input: Any) -> str:
    """The name of the file a file tool's call names ("" for none)."""
    for path in field_values(tool, tool_input if isinstance(tool_input, dict) else {}, "file_path"):
        return os.path.basename(path.rstrip("/\\"))
    return ""


def call_command(tool: str, tool_input: Any) -> str:
    """The command of a shell call ("" for any other)."""
    values = field_values(tool, tool_input if isinstance(tool_input, dict) else {}, "command")
    return next(values, "")


def recalled(index: dict[str, Any], tool: str, tool_input: Any, output: str) -> list[str]:
    """The entries whose failure trigger this failed call matches, best first."""
    from acecode.impact.signature import FailureSignature, matches, signature_of

    observed = signature_of(tool, call_command(tool, tool_input), output)
    file = call_file(tool, tool_input)
    found: dict[str, int] = {}
    for tools, trigger_tool, head, error, trigger_file, name, _words in index.get("failures") or ():
        if tool not in tools or (trigger_file and trigger_file != file):
            continue
        if matches(observed, FailureSignature(trigger_tool, head, error)):
            found[name] = max(found.get(name, 0), 2 * bool(trigger_file) + bool(head))
    return _ranked(index, found)


def failure_key(tool: str, tool_input: Any, output: str) -> str:
    """The failure signature's key of a failed call, for the exposure log."""
    from acecode.impact.signature import signature_of

    return signature_of(tool, call_command(tool, tool_input), output).key


def warned(index: dict[str, Any], tool: str, tool_input: Any, cwd: str) -> list[str]:
    """The entries with an input pattern this call matches, best first."""
    found: dict[str, int] = {}
    for tools, pattern_tool, field, source, name, _literal, _fold in index.get("patterns") or ():
        if tool not in tools:
            continue
        try:
            pattern = InputPattern(pattern_tool, source, field)
        except PatternError:
            continue
        if pattern.matches(tool, tool_input, cwd):
            found[name] = 1
    return _ranked(index, found)
