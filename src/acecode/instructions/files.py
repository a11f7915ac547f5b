"""Which instruction files Claude Code loads for a project, as the pinned CLI does.

Measured with Claude Code 2.1.197 (docs/claude-code.md, "Claude Code's own
memory"), at session start, in this order:

1. the user's ``~/.claude/CLAUDE.md`` and ``~/.claude/rules/**/*.md``;
2. for every folder from the filesystem root down to the project: its
   ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md`` and
   ``CLAUDE.local.md`` (each ``@path`` import after the file that names it);
3. the auto memory's ``MEMORY.md``, its first 200 lines (:mod:`.auto_memory`).

A rules file with ``paths:`` front matter is loaded later, once a matching file
is read (:mod:`.frontmatter`); it is listed here with its patterns, so callers
can tell it from what is in the context from the start. The organisation's
managed ``CLAUDE.md`` (``/etc/claude-code/CLAUDE.md``) comes first when it
exists; that one is from Claude Code's documentation, not measured here (it
needs root to write).

Text is as the model gets it: front matter and HTML comments that open a line
left out (inline or indented ones, and those inside code fences, stay),
``MEMORY.md`` clipped. A file that cannot be read or decoded is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from acecode.instructions import auto_memory
from acecode.instructions.frontmatter import split_front_matter
from acecode.project import paths

MANAGED = (
    Path("/etc/claude-code/CLAUDE.md"),
    Path("/Library/Application Support/ClaudeCode/CLAUDE.md"),
)
MAX_IMPORT_DEPTH = 5
# Kinds, as Claude Code labels them in the request.
USER, PROJECT, LOCAL, MEMORY, MANAGED_KIND = "user", "project", "local", "memory", "managed"
# A comment that opens a line (measured: an inline or indented one stays), and its line end.
MEMORY_LABEL = "auto memory (MEMORY.md)"
_COMMENT = re.compile(r"^<!--.*?-->[ \t]*\n?", re.DOTALL | re.MULTILINE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_IMPORT = re.compile(r"(?:^|(?<=\s))@((?:~/|/|\.{1,2}/)?[^\s`]+)")
_INLINE_CODE = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class InstructionFile:
    """One file Claude Code loads: where, what kind, when, and its text as loaded.

    ``paths`` are the patterns of a ``paths:``-limited rules file (empty: loaded at
    session start); ``label`` is how acecode names the file to the user
    (``CLAUDE.md``, ``.claude/rules/api.md``, ``~/.claude/CLAUDE.md``, ``auto memory``).
    """

    path: Path
    kind: str
    label: str
    text: str
    paths: tuple[str, ...] = ()
    rule: bool = False

    @property
    def at_start(self) -> bool:
        """Loaded into every session from its start (not only once a matching file is read)."""
        return not self.paths


def label_for(path: Path, project: Path) -> str:
    """``path`` relative to ``project``, or to the home folder as ``~/...``."""
    for base, prefix in ((project, ""), (Path.home(), "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def instruction_files(project: Path, *, memory: bool = True) -> list[InstructionFile]:
    """Every instruction file Claude Code loads for a session started at ``project``
    (module doc), the ``paths:``-limited rules included; ``memory`` False leaves out
    ``MEMORY.md``."""
    project = project.resolve()
    found: list[InstructionFile] = []
    seen: set[Path] = set()

    def add(path: Path, kind: str, rule: bool = False, depth: int = 0) -> None:
        real = path.resolve()
        if real in seen or not path.is_file():
            return
        raw = _read(path)
        if raw is None:
            return
        seen.add(real)
        matter = split_front_matter(raw) if rule else None
        text = strip_comments(matter.body if matter else raw)
        found.append(
            InstructionFile(
                path=real,
                kind=kind,
                label=label_for(real, project),
                text=text,
                paths=matter.paths if matter else (),
                rule=rule,
            )
        )
        if depth < MAX_IMPORT_DEPTH:
            for target in imports(text, path.parent):
                add(target, kind, False, depth + 1)

    for managed in MANAGED:
        add(managed, MANAGED_KIND)
    user = paths.user_claude_dir()
    add(user / "CLAUDE.md", USER)
    for rule in rule_files(user / "rules"):
        add(rule, USER, rule=True)
    for folder in [*reversed(project.parents), project]:
        add(folder / "CLAUDE.md", PROJECT)
        add(folder / ".claude" / "CLAUDE.md", PROJECT)
        for rule in rule_files(folder / ".claude" / "rules"):
            add(rule, PROJECT, rule=True)
        add(folder / "CLAUDE.local.md", LOCAL)
    if memory and auto_memory.disabled_by(project) is None:
        index = auto_memory.memory_folder(project) / auto_memory.INDEX_NAME
        raw = _read(index) if index.is_file() else None
        if raw is not None:
            found.append(
                InstructionFile(
                    path=index.resolve(),
                    kind=MEMORY,
                    label=MEMORY_LABEL,
                    text=auto_memory.loaded_part(raw),
                )
            )
    return found


def rule_files(folder: Path) -> list[Path]:
    """The ``*.md`` files under a rules folder, subfolders included, sorted."""
    try:
        return sorted(p for p in folder.rglob("*.md") if p.is_file())
    except OSError:
        return []


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def strip_comments(text: str) -> str:
    """``text`` without HTML comments outside code fences."""
    segments: list[tuple[bool, list[str]]] = [(False, [])]
    for line in text.split("\n"):
        opens = bool(_FENCE.match(line)) and not segments[-1][0]
        if opens:
            segments.append((True, []))
        segments[-1][1].append(line)
        if _FENCE.match(line) and segments[-1][0] and not opens:
            segments.append((False, []))
    parts = [
        "\n".join(lines) if fenced else _COMMENT.sub("", "\n".join(lines))
        for fenced, lines in segments
        if lines
    ]
    return "\n".join(parts)


def imports(text: str, base: Path) -> list[Path]:
    """The existing files ``text`` imports with ``@path`` (outside code), in order."""
    found: list[Path] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _IMPORT.finditer(_INLINE_CODE.sub("", line)):
            raw = match.group(1).rstrip(".,;:)")
            target = Path(raw).expanduser() if raw.startswith("~/") else base / raw
            if target.is_file():
                found.append(target)
    return found
