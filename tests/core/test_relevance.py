"""Lexical relevance for the per-prompt top-up (acecode.playbook.relevance): pure."""

from __future__ import annotations

import json
import math

from acecode.playbook import relevance
from acecode.playbook.relevance import build_index, relevant, terms

ENTRIES = [
    "Run pytest -q before committing; the suite takes a minute.",  # 0
    "When the websocket gateway drops heartbeats, restart the reconnect supervisor.",  # 1
    "Migrations: never run alembic downgrade against the shared staging database.",  # 2
    "The user wants commit messages in the imperative mood.",  # 3
    "Docker builds: pin the base image digest so CI and laptops match.",  # 4
    "Prefer pathlib over os.path in new modules of this project.",  # 5
    "Flaky pytest fixtures usually leak state through the tmp_path_factory.",  # 6
]


def _index(candidates: list[int]) -> dict:
    return json.loads(json.dumps(build_index(ENTRIES, candidates)))  # as stored on disk


def _hits(prompt: str, candidates: list[int] | None = None) -> list[int]:
    chosen = list(range(len(ENTRIES))) if candidates is None else candidates
    return [chosen[slot] for slot, _score in relevant(_index(chosen), prompt)]


def test_terms_are_content_words() -> None:
    assert terms("Please run the Tests in tmp_path_factory, then re-run!") == [
        "run",
        "test",
        "tmp",
        "path",
        "factory",
        "run",
    ]
    assert terms("ok thanks, 42 a b") == []
    assert terms("class process status") == ["class", "process", "statu"]  # folding is blunt
    assert terms("Café naïve 日本語") == ["café", "naïve", "日本語"]


def test_the_entry_that_shares_the_prompts_words_is_found() -> None:
    prompt = "The websocket gateway keeps dropping heartbeats; how do I handle the reconnect?"
    assert _hits(prompt)[0] == 1
    assert _hits("Why are the pytest fixtures flaky?")[0] == 6


def test_nothing_relevant_means_nothing() -> None:
    for prompt in ("hi", "thanks!", "ok, continue", "", "yes please do that", "What now?"):
        assert _hits(prompt) == [], prompt


def test_one_shared_word_is_not_enough() -> None:
    """'pytest' alone appears in two entries: not evidence enough to inject either."""
    assert _hits("pytest") == []
    assert _hits("Tell me about the database") == []


def test_only_candidates_are_returned_but_idf_comes_from_every_entry() -> None:
    prompt = "Flaky pytest fixtures and the websocket gateway heartbeats"
    assert set(_hits(prompt, [6])) == {6}
    assert 1 not in _hits(prompt, [0, 6])
    # "pytest" is in two entries of the playbook, "flaky" in one: among the candidates
    # both are in one entry, but "pytest" weighs less.
    postings = build_index(ENTRIES, [6])["postings"]
    assert postings["pytest"].split("|")[0] == postings["flaky"].split("|")[0] == "0"
    assert int(postings["pytest"].split("|")[1]) < int(postings["flaky"].split("|")[1])


def _bm25(term_frequencies: list[int], df: list[int], length: int, average: float) -> float:
    """BM25 of one entry, by the textbook formula, for a prompt whose words all occur in it."""
    n, k1, b = len(ENTRIES), relevance.K1, relevance.B
    score = 0.0
    for tf, frequency in zip(term_frequencies, df, strict=True):
        idf = math.log(1 + (n - frequency + 0.5) / (frequency + 0.5))
        score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average))
    return score


def test_scores_follow_bm25() -> None:
    ((slot, score),) = relevant(_index([1]), "websocket heartbeats")
    lengths = [len(terms(text)) for text in ENTRIES]
    expected = _bm25([1, 1], [1, 1], lengths[1], sum(lengths) / len(lengths))
    assert slot == 0 and math.isclose(score, expected, abs_tol=0.002)  # thousandths stored


def test_a_huge_prompt_is_cut_not_slow() -> None:
    prompt = "websocket gateway heartbeats " + "noise " * 100_000 + "pytest fixtures"
    assert _hits(prompt) == [1]  # the tail beyond MAX_PROMPT_CHARS is ignored


def test_an_empty_playbook_has_an_empty_index() -> None:
    index = build_index([], [])
    assert index["postings"] == {} and relevant(index, "anything at all") == []
    assert build_index(ENTRIES, [])["postings"] == {}


def test_one_rare_word_is_not_enough_even_in_a_large_playbook() -> None:
    """With 500 more entries a rare word alone scores high; two shared words are still needed."""
    filler = [f"Entry {i}: keep module number {i} tidy and documented." for i in range(500)]
    texts = ENTRIES + filler
    index = json.loads(json.dumps(build_index(texts, list(range(len(texts))))))
    ((slot, score),) = relevant(index, "heartbeats and the reconnect")
    assert slot == 1 and score > 2 * relevance.MIN_SCORE
    assert relevant(index, "heartbeats") == []
