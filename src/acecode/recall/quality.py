"""The quality check of input patterns: generic probe calls and a bounded worst case.

A pattern runs on every tool call (the ``PreToolUse`` hook), so it must be
specific and cheap. :func:`problem` refuses, in this order:

* a pattern over :data:`~acecode.recall.pattern.MAX_PATTERN_CHARS` characters;
* one that does not compile;
* one that matches an empty input, or more than :data:`MAX_PROBE_SHARE` of the
  generic calls below (``ls``, ``git status``, ``README.md``, ``import os``...):
  it would warn before nearly every call;
* a repetition inside an unbounded repetition (``(a+)+``, ``(\\w+\\s?)*``), the
  classic catastrophic backtracking;
* one whose search, on inputs built from its own characters at the length the
  hook searches (:data:`~acecode.recall.pattern.MAX_INPUT_CHARS`), takes more
  than :data:`CPU_BUDGET_S` of CPU time (overlapping alternatives, ``.*a.*b``).
  The work is bounded by a CPU timer (in a child process when the caller is
  not the main thread): the check itself never hangs.

Why probes rather than rules about the regex: ``.``, ``\\w``, ``e``, ``^(?!x)``
and ``.*`` all match nearly everything, and only trying them says so.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

from acecode.errors import AcecodeError
from acecode.recall.pattern import MAX_INPUT_CHARS, MAX_PATTERN_CHARS, InputPattern, PatternError

MAX_PROBE_SHARE = 0.1
CPU_BUDGET_S = 0.2
PROBE_CWD = "/home/user/project"

# Calls every project makes: a pattern that matches many of them is no trigger. The
# files are four of each common kind, so a pattern that only names a kind (\.py$) fails.
PROBES: dict[str, tuple[str, ...]] = {
    "command": (
        "ls",
        "ls -la",
        "pwd",
        "git status",
        "git diff",
        "git log --oneline -5",
        "git add -A && git commit -m 'wip'",
        "cat README.md",
        "python -m pytest -q",
        "pytest",
        "npm test",
        "npm run build",
        "make",
        "cd src && ls",
        "echo hello",
        "grep -rn TODO .",
        "find . -name '*.py'",
        "python3 script.py",
        "node index.js",
        "cargo build",
        "go test ./...",
        "mkdir -p out",
        "rm -rf dist",
        "uv run pytest tests/",
        "ruff check .",
        "head -50 main.py",
        "curl -s http://localhost:8000/health",
        "docker ps",
        "pip install -e .",
        "sed -n 1,40p src/app.py",
        "wc -l *.txt",
        "which python",
    ),
    "file_path": tuple(
        f"/home/user/project/{name}"
        for name in (
            "src/main.py",
            "tests/test_api.py",
            "app/models.py",
            "setup.py",
            "src/app.ts",
            "src/index.tsx",
            "src/components/Button.tsx",
            "vite.config.ts",
            "README.md",
            "docs/index.md",
            "CHANGELOG.md",
            "CONTRIBUTING.md",
            "package.json",
            "tsconfig.json",
            "config/settings.json",
            ".eslintrc.json",
            "main.go",
            "lib/utils.go",
            "cmd/server/main.go",
            "go.mod",
            "src/lib.rs",
            "src/main.rs",
            "Cargo.toml",
            "build.rs",
            "Makefile",
            ".github/workflows/ci.yml",
            "index.html",
            "styles/main.css",
            "scripts/build.sh",
            "Dockerfile",
            ".env",
            "app/models/user.rb",
        )
    ),
    "old_string": (
        "import os",
        "def main():",
        "    return result",
        "}",
        "const value = 1;",
        "# TODO",
        "from typing import Any",
        "    pass",
        "</div>",
        "fn main() {",
        "    if err != nil {\n        return err\n    }",
        'version = "0.1.0"',
        "## Usage",
        "export default App;",
        "print('hello')",
        "    def __init__(self):",
        "import React from 'react';",
        '  "name": "app",',
        "SELECT * FROM users;",
        "<<<<<<< HEAD",
    ),
}
_PROBE_TOOL = {"command": "Bash", "file_path": "Read", "old_string": "Edit"}

# A character that stands for what a class of the pattern matches.
_CATEGORY_CHARS = {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}
_SPARE_CHARS = "a0 /.-_x\n"
_MISS = "\x01"


def quality_problem(pattern: InputPattern) -> str | None:
    """Why ``pattern`` must not be used, in one line; None when it is fine."""
    problem = static_problem(pattern)
    if problem is None and not _within_budget(pattern.regex(PROBE_CWD).pattern):
        return f"too slow on a worst-case input of {MAX_INPUT_CHARS} characters; simplify it"
    return problem


def static_problem(pattern: InputPattern) -> str | None:
    """:func:`quality_problem` without the worst-case timing: every check that costs
    microseconds (the recall index runs it on every pattern it reads)."""
    if len(pattern.pattern) > MAX_PATTERN_CHARS:
        return f"longer than {MAX_PATTERN_CHARS} characters"
    try:
        compiled = pattern.regex(PROBE_CWD)
    except re.error as exc:
        return f"does not compile ({exc})"
    if compiled.search(""):
        return "matches an empty input (it would match every call)"
    probes = PROBES[pattern.field]
    hits = sum(1 for text in probes if compiled.search(text))
    if hits > MAX_PROBE_SHARE * len(probes):
        return (
            f"matches {hits} of {len(probes)} ordinary {pattern.field} inputs "
            "(it would fire on nearly every call); make it more specific"
        )
    if _nested_repeat(compiled.pattern):
        return "repeats a repetition, as in (a+)+ (catastrophic backtracking); simplify it"
    return None


def validated(pattern: InputPattern) -> InputPattern:
    """``pattern`` when it passes :func:`quality_problem`; :class:`PatternError` otherwise."""
    problem = quality_problem(pattern)
    if problem:
        raise PatternError(f"pattern {str(pattern)!r}: {problem}")
    return pattern


def _nodes(source: str) -> Iterator[tuple[object, object, bool]]:
    """Every node of the pattern's parse tree (``re``'s own parser) as ``(op, arg,
    inside)``, ``inside`` telling whether an unbounded repetition encloses it."""
    from re import _constants, _parser  # type: ignore[attr-defined]

    repeats = (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT)

    def walk(items: object, inside: bool) -> Iterator[tuple[object, object, bool]]:
        for op, arg in items:  # type: ignore[attr-defined]
            yield op, arg, inside
            if op in repeats:
                yield from walk(arg[2], inside or arg[1] == _constants.MAXREPEAT)
            elif op == _constants.SUBPATTERN:
                yield from walk(arg[-1], inside)
            elif op == _constants.BRANCH:
                for branch in arg[1]:
                    yield from walk(branch, inside)
            elif op in (_constants.ASSERT, _constants.ASSERT_NOT):
                yield from walk(arg[1], inside)

    yield from walk(_parser.parse(source), False)


def _nested_repeat(source: str) -> bool:
    """True when an unbounded repetition holds another repetition."""
    from re import _constants  # type: ignore[attr-defined]

    repeats = (_constants.MAX_REPEAT, _constants.MIN_REPEAT, _constants.POSSESSIVE_REPEAT)
    return any(inside and op in repeats and arg[1] > 1 for op, arg, inside in _nodes(source))


def _characters(source: str) -> str:
    """The characters the pattern asks for, in order: its literals and one per class."""
    from re import _constants  # type: ignore[attr-defined]

    found: list[str] = []
    for op, arg, _inside in _nodes(source):
        if op == _constants.LITERAL:
            found.append(chr(arg))
        elif op == _constants.ANY:
            found.append("x")
        elif op == _constants.IN:
            for inner_op, inner in arg:
                if inner_op == _constants.LITERAL:
                    found.append(chr(inner))
                elif inner_op == _constants.RANGE:
                    found.append(chr(inner[0]))
                elif inner_op == _constants.CATEGORY:
                    found.append(_CATEGORY_CHARS.get(str(inner), "a"))
    return "".join(dict.fromkeys(found))[:16]


def worst_cases(source: str) -> Iterator[str]:
    """Inputs that make a backtracking search work hardest: runs of the pattern's own
    characters (alone, in pairs and as growing prefixes), each ending in a
    character that fails the match."""
    chars = _characters(source) + _SPARE_CHARS
    chars = "".join(dict.fromkeys(chars))
    seeds = list(chars)
    seeds += [a + b for a in chars[:12] for b in chars[:12] if a != b]
    seeds += [chars[:k] for k in range(3, len(chars))]
    for seed in seeds:
        run = (seed * (MAX_INPUT_CHARS // len(seed) + 1))[: MAX_INPUT_CHARS - 1]
        yield run + _MISS
        yield _MISS + run


def _search_all(source: str) -> None:
    compiled = re.compile(source)
    for text in worst_cases(source):
        compiled.search(text)


def _within_budget(source: str) -> bool:
    """True when every worst case is searched within :data:`CPU_BUDGET_S` of CPU time."""
    import threading

    if threading.current_thread() is threading.main_thread() and _has_cpu_timer():
        return _within_budget_here(source)
    return _within_budget_in_child(source)


def _has_cpu_timer() -> bool:
    import signal

    return hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")


class _OverBudget(AcecodeError):
    """The CPU-time alarm fired inside the search: the pattern is too slow to keep."""


def _within_budget_here(source: str) -> bool:
    """The search under a CPU-time alarm (``re`` checks for signals while it works)."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise _OverBudget

    previous = signal.signal(signal.SIGPROF, stop)
    try:
        signal.setitimer(signal.ITIMER_PROF, CPU_BUDGET_S)
        try:
            _search_all(source)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
    except _OverBudget:
        return False
    finally:
        signal.signal(signal.SIGPROF, previous)
    return True


def _within_budget_in_child(source: str) -> bool:
    """The search in a child process, stopped after a generous wall time."""
    import subprocess

    code = (
        "import sys; from acecode.recall.quality import _within_budget_here as ok; "
        "sys.exit(0 if ok(sys.argv[1]) else 1)"
    )
    try:
        subprocess.run(
            [sys.executable, "-c", code, source],
            timeout=CPU_BUDGET_S * 20 + 5,  # a safety net: the child stops itself
            check=True,
            capture_output=True,
        )
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError, OSError):
        return False
    return True
