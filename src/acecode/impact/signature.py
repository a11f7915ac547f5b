"""Failure signatures: the same mistake gets the same short key in every session.

A failed tool call is reduced to ``(tool, command head, error)``:

* the *command head* is the program and its subcommands (``uv run pytest``,
  ``git push``, ``mix test``), without arguments, paths or the ``cd X &&``
  that often precedes it; only shell tools have one;
* the *error* is the one line of the output that says what went wrong (a
  Python exception, a line with ``error``/``fatal``/``not found``...), not the
  banner, warnings or progress lines before it, with everything that differs
  between two occurrences of the same failure replaced by a placeholder:
  quoted names, URLs, paths and file names, timestamps, UUIDs, hashes and
  numbers.

Provenance stores the failing command and its error line of the evidence an
entry was learned from; :func:`signature_of` gives it the same key as the
transcripts, which is how an entry is linked to the failures it addresses.
The rules were written against the failed calls of real transcripts
(``tests/data/failure_signatures.json`` keeps them with the expected keys).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any, NamedTuple

from acecode.impact.error_line import error_line

# Tools whose input is a shell command with a head worth keeping.
SHELL_TOOLS = frozenset({"Bash", "shell", "local_shell", "exec_command"})
# Results that are not failures of the call itself: the user said no, or a
# parallel call failed and Claude Code cancelled this one.
_NOT_A_FAILURE = (
    re.compile(r"^The user doesn't want to (proceed|take this action)"),
    re.compile(r"^Sibling tool call errored"),
    re.compile(r"^\[Request interrupted by user"),
)

ERROR_CHARS = 160
_HEAD_WORDS = 3

# --- command head ------------------------------------------------------------------------------

_SEPARATORS = re.compile(r"\s*(?:&&|\|\||;|\||\n)\s*")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# Commands that only set the scene for the one that matters.
_PRELUDE = frozenset({"cd", "source", ".", "export", "set", "pushd", "popd", "unset"})
# Prefixes that run another command: the command they run is the head.
_WRAPPERS = frozenset({"sudo", "time", "env", "nohup", "exec", "command", "timeout", "nice"})
# A subcommand word: lower-case, no path, not a file name.
_SUBCOMMAND = re.compile(r"^[a-z][a-z0-9_:.-]*$")
_FILE_SUFFIX = re.compile(
    r"\.(py|pyi|js|mjs|cjs|ts|tsx|jsx|json|jsonl|md|txt|sh|ex|exs|toml|ya?ml|html?|css|"
    r"rb|go|rs|c|h|cc|cpp|java|kt|swift|lock|cfg|ini|xml|csv|sql|log|env)$"
)


def command_head(command: str) -> str:
    """``uv run pytest`` from ``cd app && uv run pytest tests/x.py -v``: program and subcommands."""
    for segment in _SEPARATORS.split(command.strip().lstrip("(").strip()):
        words = _split_words(segment)
        while words and (_ENV_ASSIGNMENT.match(words[0]) or words[0] in _WRAPPERS):
            words = words[1:]
        if not words or words[0] in _PRELUDE:
            continue
        return " ".join(_head_words(words))
    return ""


def shell_command(tool_input: Any) -> str:
    """The command of a shell call: Claude Code's ``command``, Codex's ``cmd`` (a string, or
    an argument list in older Codex versions)."""
    if not isinstance(tool_input, dict):
        return ""
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, list):
        return " ".join(str(part) for part in command)
    return command if isinstance(command, str) else ""


def _split_words(segment: str) -> list[str]:
    try:
        return shlex.split(segment, comments=False)
    except ValueError:  # an unbalanced quote: the command was clipped or is odd
        return segment.split()


def _head_words(words: list[str]) -> list[str]:
    program = words[0].rstrip(")").rsplit("/", 1)[-1]
    head = [program]
    rest = words[1:]
    if program.startswith("python") and rest[:1] == ["-m"] and len(rest) > 1:
        head += ["-m", rest[1]]
        rest = rest[2:]
    for word in rest:
        word = word.rstrip(")")
        if len(head) >= _HEAD_WORDS or not _SUBCOMMAND.match(word) or _FILE_SUFFIX.search(word):
            break
        head.append(word)
    return head


# --- normalisation -----------------------------------------------------------------------------

_REPLACEMENTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]"), ""),
    (re.compile(r"\\n"), " "),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE), "<url>"),
    (
        re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"),
        "<time>",
    ),
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<id>",
    ),
    # Quoted names: 'jest', "x", `y`, ‘z’ (a quote inside a word, as in can't, is no quote).
    (re.compile(r"(?<![\w])'[^'\n]{0,200}'(?![\w])"), "<q>"),
    (re.compile(r'"[^"\n]{0,200}"'), "<q>"),
    (re.compile(r"`[^`\n]{0,200}`"), "<q>"),
    (re.compile(r"‘[^’\n]{0,200}’|“[^”\n]{0,200}”"), "<q>"),
    # Paths: anything with a slash or a backslash between name characters, ~/x, C:\x.
    (
        re.compile(
            r"(?<![\w@.+~/\\-])(?:[A-Za-z]:)?[~.]{0,2}[\\/]?[\w@.+~-]+(?:[\\/][\w@.+~-]+)+[\\/]?"
            r"(?::\d+)*"
        ),
        "<path>",
    ),
    (re.compile(r"(?<![\w<])[\\/][\w@.+~-]+(?::\d+)*"), "<path>"),
    # File names: name.ext with a known extension, with an optional :line:col.
    (re.compile(r"\b[\w.-]+" + _FILE_SUFFIX.pattern[:-1] + r"(?::\d+)*\b"), "<path>"),
    # Hashes and hex ids: 7+ hex digits with at least one digit and one letter.
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.IGNORECASE), "<hash>"),
    # Names git puts in its messages without quotes: "the current branch X has ...".
    (re.compile(r"\b(current branch|upstream branch of|the branch)\s+(?!<)[\w./-]+"), r"\1 <name>"),
    (re.compile(r"\d+(\.\d+)*"), "<n>"),
    (re.compile(r"(<(?:path|q|n)>)(\s*,?\s*\1)+"), r"\1"),
    (re.compile(r"\s+"), " "),
)


def normalise_error(line: str) -> str:
    """The error line with what varies between occurrences replaced by placeholders."""
    text = line.strip()
    for pattern, replacement in _REPLACEMENTS:
        text = pattern.sub(replacement, text)
    text = text.strip(" .:")
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


class FailureSignature(NamedTuple):
    """What a failure is, whatever session it happened in."""

    tool: str
    head: str
    error: str

    @property
    def key(self) -> str:
        """One string for tables and JSON: ``Bash | git push | fatal: ...``."""
        return " | ".join(part for part in (self.tool, self.head, self.error) if part)


def is_not_a_failure(text: str) -> bool:
    """True for results marked as errors that say nothing about the call (the user
    declined it, or a sibling call failed first)."""
    stripped = text.lstrip()
    return any(pattern.match(stripped) for pattern in _NOT_A_FAILURE)


def signature_of(tool: str, command: str, output: str) -> FailureSignature:
    """The signature of one failed call: its tool, its command (shell tools only)
    and its output (or, for provenance evidence, the error line already picked)."""
    head = command_head(command) if tool in SHELL_TOOLS and command else ""
    return FailureSignature(tool, head, normalise_error(error_line(output)))


def matches(observed: FailureSignature, wanted: FailureSignature) -> bool:
    """Same failure: same tool (any two shell tools are the same: Claude Code's ``Bash`` and
    Codex's ``exec_command`` run the same commands) and error, and the same command head when
    both have one (evidence clipped before its head still links)."""
    same_tool = observed.tool == wanted.tool or {observed.tool, wanted.tool} <= SHELL_TOOLS
    if not same_tool or observed.error != wanted.error:
        return False
    return not (observed.head and wanted.head) or observed.head == wanted.head


def evidence_signature(evidence: Any) -> FailureSignature:
    """The signature of a provenance origin's failure evidence (an ``Evidence`` or its JSON).

    Evidence recorded since the error-line reader was unified carries the signature
    computed from the whole output when the rule was learned (``head``,
    ``error_key``): that is what later failures produce. Older evidence holds only the
    error line, from which the signature is computed again.
    """
    get = evidence.get if isinstance(evidence, Mapping) else lambda key: getattr(evidence, key, "")
    tool, command = str(get("tool") or ""), str(get("command") or "")
    key = str(get("error_key") or "")
    if key:
        head = str(get("head") or "") if tool in SHELL_TOOLS else ""
        return FailureSignature(tool, head, key)
    return signature_of(tool, command, str(get("error") or ""))
