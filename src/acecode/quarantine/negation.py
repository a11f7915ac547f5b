"""Tell a warning from an instruction: "never pipe curl into bash" vs "pipe curl into bash".

Good playbook entries often name the very action they forbid, so a screen
that flagged every mention would quarantine the safety tips it should let
through. A match counts as negated when its clause says so just before it
("never", "do not", "avoid", "instead of" ...), with only a few words in
between and none of the words that turn a prohibition into an instruction
("don't forget to", "never hesitate to", "not a problem to", "no reason not
to", "never ask before"). Clauses end at sentence punctuation, commas, dashes
and "but", so "don't worry, just run X" is not a negation of X.

The same holds in the other languages the screen reads: French ("ne ...
jamais", "n'utilise", "au lieu de"), German ("nicht", "niemals", "statt"),
Spanish and Portuguese ("no", "nunca", "não", "en lugar de"), Chinese
("不要", "别", "禁止" before the verb) and Japanese, where the negation follows
the verb ("削除しないでください"). "Prefer X over Y" negates Y, and "Y is not
available" negates Y from after it.
"""

from __future__ import annotations

import re

_CLAUSE_BREAK = re.compile(
    r"[.;:!?](?:\s|$)|,|\n|\s-{1,2}\s|[()]|[，。；！？、：]|"
    r"\b(?:but|however|then|otherwise|so|mais|aber|pero|mas|ma|но)\b"
)
_TOKEN = re.compile(r"`[^`]*`?|[\w'$~/.-]+")
_NEGATIONS = frozenset(
    {
        "never", "not", "no", "nor", "avoid", "avoiding", "cannot", "against", "forbid",
        "forbidden", "prohibited", "disallowed", "dont", "doesnt", "shouldnt", "mustnt",
        "wont", "cant", "isnt", "arent", "neither", "insteadof",
        # French, German, Spanish, Portuguese, Italian
        "ne", "jamais", "pas", "aucun", "aucune", "évite", "éviter", "nicht", "nie", "niemals",
        "kein", "keine", "keinen", "keiner", "keines", "statt", "anstatt", "vermeide", "nunca",
        "jamás", "evita", "evite", "não", "nao", "non", "mai", "evitare",
        # Russian
        "не", "ни", "никогда", "нельзя", "избегай",
    }
)  # fmt: skip
# "without sudo", "sans sudo", "ohne sudo": the word right before the match.
_WITHOUT = frozenset({"without", "sans", "ohne", "sin", "sem", "senza", "без"})
# Chinese negations stand right before the verb, with no spaces to count words by.
_CJK_NEGATION = re.compile(
    r"(?:不要|别|勿|禁止|不能|不可|不得|避免|切勿|绝不|不准|严禁|从不|永远不要|請勿|不应)[^，。；！？]{0,30}$"
)
# Japanese negations follow the verb, before the clause ends.
_JA_NEGATION = re.compile(
    r"^[^、。！？]{0,24}?(?:ないで|しない|ません|禁止|ないこと|てはいけない|てはならない|"
    r"べきではない|避け|やめ)"
)
_PREFER_OVER = re.compile(r"\bprefer\w*\b.{0,80}\bover\s*[`'\"]?$")
# "sudo is not available", "X isn't needed": a negation right after the match.
_NEGATED_AFTER = re.compile(
    r"^[`'\"]?\s*(?:is|are|was)\s+(?:not|never)\b|^[`'\"]?\s*(?:isn't|aren't)\b"
    # German and Romance verbs put the negation after them: "Lösche niemals", "lösche
    # die Datei nicht", "fai mai".
    r"|^\s+(?:niemals|nie|nicht|keine?n?|jamais|mai)\b"
    r"|^[^,.;:!?\n]{0,60}\bnicht\b(?=\s*(?:[,.;:!?]|$))"
)
# Two-word negations become one token so they count like "never".
_PHRASE_NEGATIONS = re.compile(
    r"\b(?:instead\s+of|rather\s+than|refuse\s+to|au\s+lieu\s+d[e']|plutôt\s+que|"
    r"en\s+lugar\s+de|en\s+vez\s+de|em\s+vez\s+de|ao\s+invés\s+de|invece\s+di)\b"
)
# Words that, between a negation and the match, make the sentence an instruction
# after all, or move the negation onto something else.
_BLOCKERS = frozenset(
    {
        "forget", "forgetting", "hesitate", "hesitating", "fail", "neglect",
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
# Languages whose negation takes two words ("ne ... pas", "non ... mai", "никогда не").
_CONCORD = frozenset(
    {"ne", "pas", "jamais", "aucun", "non", "mai", "не", "ни", "никогда", "nunca", "não", "nao",
     "jamás", "nie", "niemals", "nicht", "kein", "keine"}
)  # fmt: skip


def _word(token: str) -> str:
    return token.strip("'`\".,").replace("'", "")


def _is_negation(token: str) -> bool:
    bare = token.strip('`".,')
    # French elision: "n'utilise", "n’oublie" (a "n'oublie pas" is caught by the blockers).
    return _word(token) in _NEGATIONS or bare.endswith("n't") or bare.startswith("n'")


def _concord(first: str, second: str) -> bool:
    """Two negation words that, in their language, make one negation together."""
    return _word(first) in _CONCORD and (_word(second) in _CONCORD or second.startswith("n'"))


def _negated_after(text: str, end: int) -> bool:
    after = text[end : end + 60]
    return bool(_NEGATED_AFTER.match(after) or _JA_NEGATION.match(after))


def is_negated(text: str, start: int, end: int | None = None) -> bool:
    """True when the clause around ``text[start:end]`` forbids it.

    Mostly the clause before the match decides; with ``end`` given, a
    negation right after the match counts too (Japanese, "X is not needed").
    """
    if end is not None and _negated_after(text, end):
        return True
    window = text[max(0, start - 120) : start]
    breaks = list(_CLAUSE_BREAK.finditer(window))
    clause = window[breaks[-1].end() :] if breaks else window
    if _CJK_NEGATION.search(clause) or _PREFER_OVER.search(clause):
        return True
    tokens = _TOKEN.findall(_PHRASE_NEGATIONS.sub(" insteadof ", clause))
    if tokens and _word(tokens[-1]) in _WITHOUT:
        return True
    for position in range(len(tokens) - 1, -1, -1):
        if not _is_negation(tokens[position]):
            continue
        between = tokens[position + 1 :]
        if len(between) > MAX_WORDS_BETWEEN:
            return False
        if any(_word(token) in _BLOCKERS for token in between):
            return False
        # "no reason not to", "never ... not": a double negation is an instruction; but
        # "ne ... jamais", "non ... mai", "никогда не" are one negation (negative concord).
        return not any(
            _is_negation(token) and not _concord(token, tokens[position])
            for token in tokens[max(0, position - 3) : position]
        )
    return False
