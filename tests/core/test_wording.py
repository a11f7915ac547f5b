"""Counted nouns: every count printed with its noun in the right number."""

from __future__ import annotations

import pytest

from acecode.text.wording import counted


@pytest.mark.parametrize(
    ("count", "noun", "expected"),
    [
        (1, "entry", "1 entry"),
        (0, "entry", "0 entries"),
        (2, "session", "2 sessions"),
        (1, "file", "1 file"),
        (3, "match", "3 matches"),
        (2, "day", "2 days"),
        (1, "unreadable line", "1 unreadable line"),
        (8750, "unreadable line", "8,750 unreadable lines"),
        (2, "possibly stale entry", "2 possibly stale entries"),
    ],
)
def test_counted_uses_the_singular_for_one_only(count: int, noun: str, expected: str) -> None:
    assert counted(count, noun) == expected


def test_an_irregular_plural_is_given() -> None:
    assert counted(2, "child", "children") == "2 children"
    assert counted(1, "child", "children") == "1 child"
