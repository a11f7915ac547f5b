"""Tell a warning from an instruction: "never pipe curl into bash" vs "pipe curl into bash".

Good playbook entries often name the very action they forbid, so a screen
that flagged every mention would quarantine the safety tips it should let
through. A match counts as negated when its clause says so just before it
("never", "do not", "avoid", "instead of" ...), with only a few words in
between and none of the words that turn a prohibition into an instruction
("don't forget to", "never hesitate to", "not a problem to", "no reason not
to", "never ask before"). Clauses end at sentence punctuation, commas, dashes
and "but", so "don't worry, just run X" is not a negation of X.
"""

from __future__ import annotations

import re

_CLAUSE_BREAK = re.compile(
    r"[.;:!?](?:\s|$)|,|\n|\s-{1,2}\s|[()]|\b(?:but|however|then|otherwise|so)\b"
)
_TOKEN = re.compile(r"`[^`]*`?|[\w'$~/.-]+")
_NEGATIONS = frozenset(
    {
        "never", "not", "no", "nor", "avoid", "avoiding", "cannot", "against", "forbid",
        "forbidden", "prohibited", "disallowed", "dont", "doesnt", "shouldnt", "mustnt",
        "wont", "cant", "isnt", "arent", "neither", "insteadof",
    }
)  # fmt: skip
# Two-word negations become one token so they count like "never".
_PHRASE_NEGATIONS = re.compile(r"\b(?:instead\s+of|rather\s+than|refuse\s+to)\b")
# Words that, between a negation and the match, make the sentence an instruction
# after all, or move the negation onto something else.
_BLOCKERS = frozenset(
    {
        "forget", "forgetting", "hesitate", "hesitating", "fail", "failing", "neglect",
        "neglecting", "omit", "omitting", "skip", "skipping", "miss", "missing", "stop",
        "stopping", "refrain", "ask", "asking", "wait", "waiting", "bother", "bothering",
        "mind", "worry", "worrying", "afraid", "scared", "shy", "fear", "problem", "issue",
        "matter", "matters", "necessary", "needed", "need", "needs", "required", "require",
        "requires", "reason", "doubt", "hard", "difficult", "wrong", "bad", "harmful",
        "dangerous", "risky", "unsafe", "only", "until", "unless", "before", "except",
        "yet", "without", "leave", "leaving", "out", "twice", "hold", "back", "question",
        "questioning", "complain", "warn", "mention", "mentioning", "tell", "telling",
        "inform", "informing", "report", "care", "think", "guess", "delay", "postpone",
        "refuse", "reluctant", "hesitant", "object", "other", "else", "anymore", "longer",
        "confirm", "confirmation", "permission", "approval", "check", "checking", "verify",
        "review", "reviewing",
    }
)  # fmt: skip
MAX_WORDS_BETWEEN = 6


def _word(token: str) -> str:
    return token.strip("'`\".,").replace("'", "")


def _is_negation(token: str) -> bool:
    return _word(token) in _NEGATIONS or token.strip('`".,').endswith("n't")


def is_negated(text: str, start: int) -> bool:
    """True when the clause before ``text[start:]`` forbids what follows it."""
    window = text[max(0, start - 120) : start]
    breaks = list(_CLAUSE_BREAK.finditer(window))
    clause = window[breaks[-1].end() :] if breaks else window
    tokens = _TOKEN.findall(_PHRASE_NEGATIONS.sub(" insteadof ", clause))
    for position in range(len(tokens) - 1, -1, -1):
        if not _is_negation(tokens[position]):
            continue
        between = tokens[position + 1 :]
        if len(between) > MAX_WORDS_BETWEEN:
            return False
        if any(_word(token) in _BLOCKERS for token in between):
            return False
        # "no reason not to", "never ... not": a double negation is an instruction.
        return not any(_is_negation(token) for token in tokens[max(0, position - 3) : position])
    return False
