"""The front matter of a rules file: which paths limit it, and the body Claude Code loads.

Measured with Claude Code 2.1.197 (docs/claude-code.md): a rules file whose
front matter has a non-empty ``paths:`` is loaded only after a matching file is
read; the patterns may be a YAML list, an inline list, or one string of
comma-separated patterns, and an unquoted ``paths: **/*.ts`` (not valid YAML)
still works. Front matter that cannot be read otherwise (a block list with an
unquoted ``- **/*.ts``), ``paths: []`` or another key (``globs:``) leave the rule
loaded at every session start, as if it had no front matter. The body the
model gets is the file without its front matter either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_FENCE = "---"
_PATHS_LINE = re.compile(r"^(paths[ \t]*:[ \t]*)(\S.*?)[ \t]*$", re.MULTILINE)
# A comma between patterns, not one inside braces (``src/{a,b}/*.ts`` is one pattern).
_COMMA = re.compile(r",(?![^{}]*\})")


@dataclass(frozen=True)
class FrontMatter:
    """A rules file split: its ``paths`` patterns (empty: loaded at start) and its body."""

    paths: tuple[str, ...]
    body: str
    raw: str = ""  # the front matter block as written, fences included ("" when none)


def split_front_matter(text: str) -> FrontMatter:
    """``text`` split into its front matter's ``paths`` and the body (module doc)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != _FENCE:
        return FrontMatter((), text)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _FENCE)
    except StopIteration:
        return FrontMatter((), text)
    block = "\n".join(lines[1:end])
    body = "\n".join(lines[end + 1 :])
    raw = "\n".join(lines[: end + 1])
    return FrontMatter(_paths(_load(block)), body, raw)


def _load(block: str) -> Any:
    """The front matter as YAML; a ``paths:`` value on its own line quoted when it is not
    valid YAML as written (Claude Code accepts ``paths: **/*.ts``); None when unreadable."""
    import yaml

    try:
        return yaml.safe_load(block)
    except yaml.YAMLError:
        pass
    quoted = _PATHS_LINE.sub(lambda m: m.group(1) + _quote(m.group(2)), block)
    try:
        return yaml.safe_load(quoted)
    except yaml.YAMLError:
        return None


def _quote(value: str) -> str:
    if value[:1] in "\"'[":
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _paths(data: Any) -> tuple[str, ...]:
    """The patterns of ``paths``: a list of strings, or a string split at commas."""
    value = data.get("paths") if isinstance(data, dict) else None
    items: list[Any]
    if isinstance(value, str):
        items = _COMMA.split(value)
    elif isinstance(value, list):
        items = [part for item in value if isinstance(item, str) for part in _COMMA.split(item)]
    else:
        items = []
    return tuple(pattern for item in items if (pattern := str(item).strip()))


def render_front_matter(paths: tuple[str, ...] | list[str]) -> str:
    """Front matter limiting a rules file to ``paths`` (a YAML list, each pattern quoted)."""
    import json

    lines = [_FENCE, "paths:", *(f"  - {json.dumps(pattern)}" for pattern in paths), _FENCE]
    return "\n".join(lines) + "\n"
