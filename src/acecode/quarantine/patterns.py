"""The building blocks of the quarantine rules: patterns, rules and regex helpers.

A ``Rule`` is a class of dangerous instruction with a stable ID; its
``Pattern``s are regular expressions over the folded text (see
``normalize.fold``), each optionally vetted by a ``check`` that needs more
than a regex (is this URL remote? is there a protected object in the same
sentence?). A match is dropped when its clause negates it (``negation``),
unless the pattern is marked ``negatable=False``. Every gap inside a pattern
is bounded, so no input can make matching quadratic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from acecode.quarantine.negation import is_negated


def sentence_gap(n: int) -> str:
    """Up to ``n`` characters that do not end the sentence (a dot in a path is fine)."""
    return rf"(?:(?![.;!?](?:\s|$))[^\n]){{0,{n}}}?"


def clause_gap(n: int) -> str:
    """Up to ``n`` characters inside one clause: no sentence end, comma or dash."""
    return rf"(?:(?![.;:!?,](?:\s|$)|\s-{{1,2}}\s)[^\n]){{0,{n}}}?"


def verbs(*words: str, imperative: bool = False) -> str:
    """An alternation of ``words`` with their inflections, as whole words.

    Written out so that "print" matches "prints"/"printed"/"printing" but
    never "printer", and "read" never matches "readme", "add" never
    "address", "open" never "openai". ``imperative`` keeps only the base and
    -ing forms: "skipped tests" and "it reads .env" describe, "skip the
    tests" and "read .env" instruct.
    """
    forms = []
    for word in words:
        if word.endswith("e"):
            forms.append(word[:-1] + (r"(?:e|ing)" if imperative else r"(?:e|es|ed|ing)"))
        elif word.endswith("y") and word[-2] not in "aeiou":
            forms.append(word[:-1] + (r"(?:y|ying)" if imperative else r"(?:y|ies|ied|ying)"))
        else:
            forms.append(
                word + (r"(?:ing|\wing)?" if imperative else r"(?:s|es|ed|ing|\wed|\wing)?")
            )
    return r"\b(?:" + "|".join(forms) + r")\b"


@dataclass(frozen=True)
class Pattern:
    """One expression of a rule; ``check`` vets a match the regex alone cannot."""

    regex: re.Pattern[str]
    negatable: bool = True
    check: Callable[[re.Match[str], str], bool] | None = None


@dataclass(frozen=True)
class Rule:
    """A class of dangerous instruction with a stable ID and a one-line summary."""

    id: str
    summary: str
    patterns: tuple[Pattern, ...]

    def find(self, text: str) -> str | None:
        """The first non-negated match in ``text`` (as matched), or None."""
        for pattern in self.patterns:
            for match in pattern.regex.finditer(text):
                if pattern.check is not None and not pattern.check(match, text):
                    continue
                if pattern.negatable and is_negated(text, match.start(), match.end()):
                    continue
                return match.group(0).strip()
        return None


def p(
    regex: str,
    *,
    negatable: bool = True,
    check: Callable[[re.Match[str], str], bool] | None = None,
) -> Pattern:
    return Pattern(re.compile(regex), negatable, check)
