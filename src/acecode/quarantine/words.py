"""How the detectors' vocabularies are written: word lists turned into patterns.

A vocabulary is long (nine languages) and mostly lists of words or stems, so
a list is one string of them separated by white space (``"send post upload"``,
``r"envoi\\w* sende\\w*"``); a space inside an entry is escaped (``check\\ in``).
"""

from __future__ import annotations

import re

# Right before a verb, these make it part of a flag, a path or a name
# ("--ignore-missing-imports", "eslint-disable", "pre-commit", "#[ignore]").
NOT_AFTER = r"(?<![-\w\[#@./])"

# A vocabulary for the learned screen (``learned``): each concept's name, its kind
# (action, object, command or qualifier) and its pattern.
Concepts = dict[str, tuple[str, re.Pattern[str]]]


def _group(words: list[str]) -> str:
    return r"\b(?:" + "|".join(words) + r")\b"


def _split(lists: tuple[str, ...]) -> list[str]:
    """The entries of ``lists``, split at white space not escaped by a backslash."""
    entries = (entry for words in lists for entry in re.split(r"(?<!\\)\s+", words.strip()))
    return [entry.replace("\\ ", " ") for entry in entries if entry]


def alternation(*lists: str) -> str:
    """``\\b(?:w1|w2|...)\\b``: a group of the words or stems (``supprim\\w*``) of ``lists``."""
    return _group(_split(lists))


def verbs(*lists: str, imperative: bool = False) -> str:
    """The English verbs of ``lists`` with their inflections, as whole words.

    "print" matches "prints", "printed", "printing" but never "printer";
    "add" never "address"; none matches inside a flag or a name
    ("eslint-disable", "pre-commit"). ``imperative`` keeps the base and
    -ing forms only: "edit the playbook" instructs, "when the Makefile
    changes" describes.
    """
    forms = []
    for word in _split(lists):
        if word.endswith("e"):
            forms.append(word[:-1] + (r"(?:e|ing)" if imperative else r"(?:e|es|ed|ing)"))
        elif word.endswith("y") and word[-2] not in "aeiou":
            forms.append(word[:-1] + (r"(?:y|ying)" if imperative else r"(?:y|ies|ied|ying)"))
        else:
            forms.append(
                word + (r"(?:ing|\wing)?" if imperative else r"(?:s|es|ed|ing|\wed|\wing)?")
            )
    return NOT_AFTER + _group(forms)


def compile_any(*parts: str) -> re.Pattern[str]:
    """One pattern matching any of ``parts`` (each a regex source)."""
    return re.compile("|".join(f"(?:{part})" for part in parts if part))


def concepts(**kinds: dict[str, re.Pattern[str]]) -> Concepts:
    """``concepts(action={"pipe": P})`` is ``{"pipe": ("action", P)}``."""
    return {name: (kind, found) for kind, named in kinds.items() for name, found in named.items()}
