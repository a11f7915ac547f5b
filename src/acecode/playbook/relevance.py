"""Lexical relevance of playbook entries to a prompt: BM25 over word tokens.

The per-prompt top-up runs in the ``UserPromptSubmit`` hook, whose whole
budget is a few milliseconds above the interpreter's start, so relevance is
computed from an index prepared when the injection is rendered (after every
save, in the background learner): :func:`build_index` stores, for every
term, the candidate entries it occurs in with the finished BM25 weight of
the term in each, so that scoring a prompt is one dictionary lookup per
prompt word and one addition per entry that shares it. The BM25 libraries
on PyPI (``rank-bm25``, ``bm25s``) import numpy, which alone costs several
times that budget; the formula itself is a few lines (Robertson and
Zaragoza, "The Probabilistic Relevance Framework").

IDF comes from every entry of the playbook, while only the candidates (the
entries that did not fit at session start) get postings: a word common
across the whole playbook counts for little even if it is rare among the
left-out entries.

Noise is worse than silence: an entry is relevant only when it shares at
least ``MIN_MATCHED_TERMS`` distinct content words with the prompt and its
score reaches ``MIN_SCORE``. Stop words and one-character words never count.

Pure: no I/O; imports only ``re``, ``math``, ``collections`` and ``typing``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

K1 = 1.2
B = 0.75
MIN_MATCHED_TERMS = 2
MIN_SCORE = 3.0
# The first this many characters of a prompt are scored: a pasted log must not
# make every prompt slow, and its opening usually says what it is about.
MAX_PROMPT_CHARS = 20_000
# Weights are stored as integers in thousandths: shorter to store and to parse than floats.
WEIGHT_SCALE = 1000

_WORD = re.compile(r"[^\W_]+")
# English function words and chat filler: they say nothing about which entry matters.
_STOP_WORDS_TEXT = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during
    each either else even ever every few for from further get gets got had has have having
    he her here hers herself him himself his how however i if in into is it its itself
    just let like ll me might mine more most much must my myself need no nor not now of
    off often on once one only or other our ours ourselves out over own per please re
    same shall she should so some such than that the their theirs them themselves then
    there these they this those though through thus to too under until up upon us use
    used using ve very via was we were what when where whether which while who whom whose
    why will with within without would yet you your yours yourself yourselves
    ok okay yes thanks thank hi hello hey sure maybe still
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


def terms(text: str) -> list[str]:
    """The content words of ``text``: lower case, split at anything but letters and
    digits (so ``snake_case`` and ``kebab-case`` split), stop words, one-letter
    words and pure numbers dropped, a plain plural folded onto its singular
    (``tests`` -> ``test``). One comprehension: the learner tokenises every
    entry after each save, and a hook whose index is stale does it too."""
    return [
        word[:-1] if len(word) > 3 and word[-1] == "s" and word[-2] != "s" else word
        for word in _WORD.findall(text.lower())
        if len(word) > 1 and word not in STOP_WORDS and not word.isdigit()
    ]


def build_index(texts: Sequence[str], candidates: Sequence[int]) -> dict[str, Any]:
    """The BM25 index of the entries ``candidates`` (positions in ``texts``).

    ``texts`` are all entries of the playbook: they give the document
    frequencies and the average length. Returned, JSON-ready:
    ``{"postings": {term: "slot slot ...|weight weight ..."}}``, where ``slot``
    is a position in ``candidates`` and ``weight`` the BM25 weight of the term
    in that entry, times ``WEIGHT_SCALE``, as an integer. Postings are
    strings, not lists, so that loading the index parses only what a prompt
    looks up, and the weights are finished, so that scoring is additions.
    """
    documents = [terms(text) for text in texts]
    frequency: Counter[str] = Counter()
    for words in documents:
        frequency.update(set(words))
    count = len(documents)
    average = (sum(map(len, documents)) / count if count else 0.0) or 1.0
    # The BM25 weight without its per-entry part, times the scale: one product per term.
    scaled_idf = {
        term: WEIGHT_SCALE * (K1 + 1) * math.log(1 + (count - df + 0.5) / (df + 0.5))
        for term, df in frequency.items()
    }
    postings: dict[str, tuple[list[str], list[str]]] = {}
    for slot, position in enumerate(candidates):
        words = documents[position]
        norm = K1 * (1 - B + B * len(words) / average)
        tag = str(slot)
        for term, tf in Counter(words).items():
            weight = str(int(scaled_idf[term] * tf / (tf + norm) + 0.5))
            posting = postings.get(term)
            if posting is None:
                postings[term] = ([tag], [weight])
            else:
                posting[0].append(tag)
                posting[1].append(weight)
    return {
        "postings": {
            term: f"{' '.join(tags)}|{' '.join(weights)}"
            for term, (tags, weights) in postings.items()
        }
    }


def relevant(index: Mapping[str, Any], prompt: str) -> list[tuple[int, float]]:
    """``(slot, score)`` of the candidates relevant to ``prompt``, most relevant first.

    ``index`` is what :func:`build_index` returned. Each distinct prompt word
    counts once. Ties go to the lower slot, which is the better-ranked entry
    when candidates are given best first.
    """
    postings = index["postings"]
    scores: dict[str, int] = {}
    matched: dict[str, int] = {}
    for term in set(terms(prompt[:MAX_PROMPT_CHARS])):
        posting = postings.get(term)
        if not posting:
            continue
        tags, _, weights = posting.partition("|")
        for tag, weight in zip(tags.split(), map(int, weights.split()), strict=True):
            scores[tag] = scores.get(tag, 0) + weight
            matched[tag] = matched.get(tag, 0) + 1
    floor = MIN_SCORE * WEIGHT_SCALE
    hits = [
        (int(tag), score / WEIGHT_SCALE)
        for tag, score in scores.items()
        if matched[tag] >= MIN_MATCHED_TERMS and score >= floor
    ]
    hits.sort(key=lambda hit: (-hit[1], hit[0]))
    return hits
