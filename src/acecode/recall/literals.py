"""A text every match of a pattern must contain: the tool hooks' cheap pre-check.

The ``PreToolUse`` hook runs on every tool call and must cost little more than
the interpreter's start (``bench/hook_bench.py``); importing :mod:`re` alone
costs more than that budget allows. So the recall index stores, with every
pattern, the longest run of plain characters that any match must contain
(``status.md`` for ``(^|/)status\\.md$``); the hook looks for it with ``in``
(:func:`acecode.recall.gate.may_match`) and only imports ``re`` to run the
pattern when it is there. A pattern with no
such run (every character a class or an alternative) gets "", which means
"always run it".

``{cwd_name}`` (:data:`~acecode.recall.pattern.CWD_NAME`) may be part of the run:
the hook puts the folder's name in before looking. Built with ``re``'s own
parser, at index time only.
"""

from __future__ import annotations

import re

from acecode.recall.pattern import CWD_NAME

# A character no pattern holds, standing for {cwd_name} while the pattern is parsed.
_CWD_MARK = "\ue000"
MIN_LITERAL = 2


def required_literal(pattern: str) -> tuple[str, bool]:
    """The longest plain text every match of ``pattern`` contains (with ``{cwd_name}``
    where the folder's name goes), and whether it is to be compared case-insensitively;
    ``("", False)`` when there is none of :data:`MIN_LITERAL` characters or more."""
    from re import _constants, _parser  # type: ignore[attr-defined]

    source = pattern.replace(CWD_NAME, _CWD_MARK)
    try:
        parsed = _parser.parse(source)
    except re.error:
        return "", False
    fold = bool(parsed.state.flags & re.IGNORECASE)
    runs: list[str] = [""]

    def take(items: object) -> None:
        for op, arg in items:  # type: ignore[attr-defined]
            if op == _constants.LITERAL:
                runs[-1] += chr(arg)
            elif op == _constants.SUBPATTERN and len(arg[-1]) and not _flags(arg):
                take(arg[-1])  # a group of one sequence: its text continues the run
            elif op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT) and arg[0] >= 1:
                runs.append("")
                take(arg[2])  # its body appears at least once, then anything may follow
                runs.append("")
            elif op == _constants.AT:
                continue  # ^, $, \b match no character
            else:
                runs.append("")

    take(parsed)
    # The folder's name is worth more than a short word: it is rarely in a command.
    best = max(runs, key=lambda run: len(run) + 8 * (_CWD_MARK in run))
    best = best.replace(_CWD_MARK, CWD_NAME)
    if len(best.replace(CWD_NAME, "")) < MIN_LITERAL and CWD_NAME not in best:
        return "", False
    return (best.lower(), True) if fold else (best, False)


def _flags(arg: tuple) -> bool:
    """True for a group with flags of its own (``(?i:...)``): its text is not plain."""
    return bool(arg[1] or arg[2])
