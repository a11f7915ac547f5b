"""An entry's triggers: the failures and the tool calls it is about, from its provenance.

No LLM call: everything comes from what the cycle already recorded.

* A **failure trigger** for every origin whose evidence is a failed tool call:
  the failure signature ``impact`` and the experiments compute for it
  (:func:`acecode.experiments.signatures.signature_of_entry`: tool, command
  head, normalised error line), so a later failure that ``impact`` would count
  as the same one recalls the entry. For a file tool (``Read``, ``Edit``...),
  whose signature has no command head, the trigger also keeps the name of the
  file the evidence names: "File does not exist" is every missing file, and an
  entry about ``STATUS.md`` is no help for a missing ``setup.py``.
* An **input pattern** (:class:`~acecode.recall.pattern.InputPattern`) for
  every pattern in the ``when`` of the last origin that has one (the curator's,
  checked against the call the entry was learned from, or ``acecode add/edit
  --when``): a later ``when`` replaces an earlier one, an empty one leaves none.

A failure trigger whose error says nothing (no word left once paths, numbers
and quotes are placeholders, or only ``Exit code <n>``) is not kept: it would
match failures of every kind. The same quality check as at writing time keeps
patterns that would fire on every call out.

An existing playbook needs no migration: the triggers are read from the
provenance it already has whenever the recall index (:mod:`acecode.recall.index`)
is built.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from acecode.recall.pattern import SHELL_TOOLS, InputPattern, PatternError

# Tools whose failure signature is made precise by the file the call named.
FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})
_PLACEHOLDER = re.compile(r"<(?:path|q|n|url|time|id|hash|name)>|…")
_WORD = re.compile(r"[A-Za-z][A-Za-z_'-]{2,}")
_UNINFORMATIVE = frozenset({"exit", "code", "error", "errors", "failed", "failure"})
_PATH_TOKEN = re.compile(r"[\w.@+~-]*[/\\]?[\w@+~-]+\.\w{1,12}\b|[\w.@+~-]+(?:[/\\][\w.@+~-]+)+")


class FailureTrigger(NamedTuple):
    """A failure signature (``impact``'s) and, for a file tool, the file's name."""

    tool: str
    head: str
    error: str
    file: str = ""

    @property
    def key(self) -> str:
        """``impact``'s key, and the file when there is one: ``Read | File ... (status.md)``."""
        key = " | ".join(part for part in (self.tool, self.head, self.error) if part)
        return f"{key} ({self.file})" if self.file else key

    def words(self) -> list[str]:
        """The words of the error a failure's output must hold (the hooks' cheap pre-check)."""
        return list(dict.fromkeys(_WORD.findall(_PLACEHOLDER.sub(" ", self.error))))


class Triggers(NamedTuple):
    """Everything that recalls one entry."""

    failures: tuple[FailureTrigger, ...] = ()
    patterns: tuple[InputPattern, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.failures or self.patterns)

    def describe(self) -> list[str]:
        """One line per trigger, for ``show``, ``why`` and the report."""
        return [f"after a failure like {trigger.key}" for trigger in self.failures] + [
            f"before a call matching {pattern}" for pattern in self.patterns
        ]


def trigger_tools(tool: str) -> frozenset[str]:
    """The tools whose failures a trigger of ``tool`` matches: any shell tool for a shell
    tool (as :func:`acecode.impact.signature.matches` counts them), else the tool itself."""
    return SHELL_TOOLS if tool in SHELL_TOOLS else frozenset({tool})


def informative(error: str) -> bool:
    """True when ``error`` names what failed: a word beyond placeholders, exit codes and
    the bare words "error"/"failed"."""
    words = {word.lower() for word in _WORD.findall(_PLACEHOLDER.sub(" ", error))}
    return bool(words - _UNINFORMATIVE)


def file_name(command: str) -> str:
    """The name of the file a file tool's call named (the last path-like word of its
    evidence); "" when it names none."""
    found = _PATH_TOKEN.findall(command or "")
    return os.path.basename(found[-1].rstrip("/\\")) if found else ""


def _evidence(origin: Any) -> Mapping[str, Any]:
    evidence = origin.get("evidence") if isinstance(origin, Mapping) else origin.evidence
    if isinstance(evidence, Mapping):
        return evidence
    return vars(evidence) if evidence is not None else {}


def _when(origin: Any) -> Any:
    return origin.get("when") if isinstance(origin, Mapping) else getattr(origin, "when", None)


def failure_triggers(entry: Mapping[str, Any], origins: list[Any]) -> tuple[FailureTrigger, ...]:
    """The entry's failure triggers (see the module docstring)."""
    from acecode.experiments.signatures import signature_of_entry

    signatures = signature_of_entry(entry, origins).failures
    files: dict[str, list[str]] = {}
    for origin in origins:
        evidence = _evidence(origin)
        tool = str(evidence.get("tool") or "")
        if evidence.get("kind") == "failure" and tool in FILE_TOOLS:
            files.setdefault(tool, []).append(file_name(str(evidence.get("command") or "")))
    found: list[FailureTrigger] = []
    for signature in signatures:
        if informative(signature.error):
            for name in dict.fromkeys(files.get(signature.tool) or [""]):
                found.append(FailureTrigger(*signature, name))
    return tuple(dict.fromkeys(found))


def input_patterns(origins: Iterable[Any]) -> tuple[InputPattern, ...]:
    """The patterns of the last origin that has a ``when`` (an empty one: none)."""
    from acecode.recall.quality import static_problem

    kept: list[InputPattern] = []
    for origin in origins:
        when = _when(origin)
        if when is None:
            continue
        kept = []
        for item in when:
            if isinstance(item, list | tuple) and len(item) == 3:
                item = {"tool": item[0], "field": item[1], "pattern": item[2]}
            try:
                pattern = InputPattern.from_dict(item)
            except PatternError:
                continue
            if pattern not in kept and static_problem(pattern) is None:
                kept.append(pattern)
    return tuple(kept)


def triggers_of(entry: Mapping[str, Any], origins: Iterable[Any]) -> Triggers:
    """All of the entry's triggers, from its ``origins`` (Origin objects or their JSON)."""
    origins = list(origins)
    return Triggers(failure_triggers(entry, origins), input_patterns(origins))
