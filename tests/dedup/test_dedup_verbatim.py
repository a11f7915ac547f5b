"""Near-verbatim duplicates (issue 11): the only merge allowed without a judge's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acecode.dedup.verbatim import _singular, near_verbatim, verbatim_key

CORPUS = json.loads((Path(__file__).parents[1] / "data" / "rule_pairs.json").read_text())["pairs"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Run the unit tests before pushing.", "run the unit tests before pushing"),
        ("Run  the tests\tbefore\npushing.", "Run the tests before pushing"),
        (
            "Keep commit messages short and in English.",
            "Keep commit messages short, and in English!",
        ),
        ("Run the workflow on pull requests.", "Run the workflow on pull request."),
        ("Use 'single' quotes for strings.", "Use single quotes for strings"),
        ("Run `pytest -x` before committing.", "Run pytest -x before committing"),
        ("Compare with `==` (never `is`).", "Compare with == never is"),
        ("Fix the dependencies (e.g. numpy).", "Fix the dependency (e.g. numpy)"),
        ("Check the processes and branches.", "Check the process and branch."),
        ("ＵＳＥ ＵＶ", "use uv"),  # NFKC: full-width letters
    ],
)
def test_near_verbatim_folds_case_space_punctuation_and_plurals(first: str, second: str) -> None:
    assert near_verbatim(first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Indent Python code with 4 spaces.", "Indent Python code with tabs."),
        ("Use single quotes for strings.", "Use double quotes for strings."),
        ("Name functions in snake_case.", "Name functions in camelCase."),
        ('Set "strict": true in tsconfig.json.', 'Set "strict": false in tsconfig.json.'),
        ("Always run the tests.", "Never run the tests."),
        ("Run the tests.", "Do not run the tests."),
        ("Run the tests before committing.", "Run the tests after committing."),
        ("Use tabs, not spaces.", "Use spaces, not tabs."),
        ("Set the timeout to 1.5 s.", "Set the timeout to 15 s."),
        ("Compare with `==`.", "Compare with `===`."),
        ("Run `set -e` first.", "Run `set +e` first."),
        ("Write x!=y.", "Write x=y."),
        ("Wrap strings in `'`.", 'Wrap strings in `"`.'),
        ("Run the tests.", "Run the test suite."),
    ],
)
def test_a_different_word_or_symbol_is_never_near_verbatim(first: str, second: str) -> None:
    assert not near_verbatim(first, second)


def test_no_different_or_contradicting_pair_of_the_corpus_is_near_verbatim() -> None:
    kept_apart = [p for p in CORPUS if p["kind"] in ("different", "contradicting")]
    assert len(kept_apart) >= 200
    assert [p["id"] for p in kept_apart if near_verbatim(p["a"], p["b"])] == []


def test_one_word_swaps_without_negation_are_in_the_corpus_and_kept_apart() -> None:
    swaps = [p for p in CORPUS if p.get("one_word_swap")]
    assert len(swaps) >= 50
    for pair in swaps:
        assert verbatim_key(pair["a"]) != verbatim_key(pair["b"]), pair["id"]


def test_plural_folding_is_regular_only() -> None:
    assert [_singular(w) for w in ("tests", "dependencies", "branches", "boxes", "classes")] == [
        "test",
        "dependency",
        "branch",
        "box",
        "class",
    ]
    # Too short, or ss / us / is endings: left alone.
    assert [_singular(w) for w in ("its", "class", "status", "analysis", "uses")] == [
        "its",
        "class",
        "status",
        "analysis",
        "use",
    ]


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)


@given(words=st.lists(WORDS, min_size=1, max_size=12), index=st.integers(0, 11), other=WORDS)
def test_changing_any_word_changes_the_key(words: list[str], index: int, other: str) -> None:
    index %= len(words)
    swapped = [*words[:index], other, *words[index + 1 :]]
    if _singular(other) == _singular(words[index]):
        return  # the same word up to a regular plural: allowed to fold
    assert not near_verbatim(" ".join(words) + ".", " ".join(swapped) + ".")
