"""A count with its noun, in the right number: "1 entry", "2 entries", "0 sessions".

Every message that prints a count goes through :func:`counted`, so none says
"1 entries" or "entry(s)". Pure and import-free: the hooks may use it.
"""

from __future__ import annotations

_VOWELS = "aeiou"


def plural_of(noun: str) -> str:
    """The regular English plural of ``noun`` (its last word): entry -> entries,
    match -> matches, day -> days, file -> files."""
    if noun.endswith("y") and len(noun) > 1 and noun[-2] not in _VOWELS:
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` followed by ``noun`` (singular for exactly 1, else ``plural``, by default
    the regular plural), with thousands separated: ``counted(1, "entry") == "1 entry"``,
    ``counted(1200, "token") == "1,200 tokens"``."""
    word = noun if count == 1 else (plural or plural_of(noun))
    return f"{count:,} {word}"
