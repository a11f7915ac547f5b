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
Dutch ("niet", "nooit", "geen"), Spanish and Portuguese ("no", "nunca",
"não", "en lugar de"), Italian ("non ... mai"), Russian ("не", "никогда"),
Swedish, Danish and Norwegian ("aldrig", "inte", "ikke"), Polish ("nigdy nie"),
Chinese ("不要", "别", "禁止" before the verb) and Japanese, where the negation
follows the verb ("削除しないでください"). German, Dutch and the Scandinavian
languages put the negation after the verb and its object in a command or a main
clause (verb second):
"Speichere Passwörter niemals im Code", "Push nooit met --force", "Zeige dem
Nutzer keine Tokens"; such a negation later in the verb's clause counts,
unless it only sets an alternative aside ("... und nicht die Logs"). The
words that turn a prohibition into an instruction are read in every one of
these languages ("vergiss nie", "nunca olvides", "n'oublie jamais", "不要忘记",
"忘れないで", "frag nie nach"). "Prefer X over Y" negates Y, and "Y is not
available" negates Y from after it.
"""

from __future__ import annotations

import re

_CLAUSE_BREAK = re.compile(
    r"[.;:!?](?:\s|$)|,|\n|\s-{1,2}\s|[()]|[，。；！？、：]|"
    r"\b(?:but|however|then|otherwise|so|mais|aber|sondern|maar|pero|mas|ma|но)\b"
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
        "jamás", "evita", "evite", "não", "nao", "non", "mai", "evitare", "nobody",
        # Dutch
        "niet", "nooit", "geen", "nimmer", "vermijd",
        # Swedish, Danish, Norwegian, Polish
        "aldrig", "aldri", "inte", "ikke", "ingen", "inga", "undvik", "undgå", "unngå",
        "nigdy", "unikaj",
        # Russian
        "не", "ни", "никогда", "нельзя", "избегай",
    }
)  # fmt: skip
# "without sudo", "sans sudo", "ohne sudo": the word right before the match.
_WITHOUT = frozenset(
    {
        "without",
        "sans",
        "ohne",
        "zonder",
        "sin",
        "sem",
        "senza",
        "без",
        "utan",
        "uden",
        "uten",
        "bez",
    }
)
# The words that make "never X" an instruction in the other languages (the English ones
# are whole words in _BLOCKERS): forget, ask, wait, hesitate, need, worry ...
_BLOCKER_STEMS = re.compile(
    r"^(?:oubli|hésit|attend|demand|inquièt|vergiss|vergess|vergesst|frag|wart|zöger|"
    r"sorg|vergeet|vergeten|vraag|wacht|aarzel|olvid|pid|pregunt|esper|dud|preocup|"
    r"esqueç|esquec|pergunt|hesit|dimentic|chied|aspett|esit|preoccup|забыв|забуд|"
    r"спраш|жди|ждать|жд|сомнева|волну|бойся|glöm|glem|fråg|spørg|spør|vänt|vent|tvek|"
    r"nøl|tøv|behöv|behøv|oroa|bekymr|zapomin|zapomn|pyta|czeka|wahaj|martw)"
)
# Chinese negations stand right before the verb, with no spaces to count words by.
_CJK_NEGATION = re.compile(
    r"(?:不要|别|勿|禁止|不能|不可|不得|避免|切勿|绝不|不准|严禁|从不|永远不要|請勿|不应)"
    r"(?!忘|等|问|犹豫|担心|怕)[^，。；！？]{0,30}$"
)
# Japanese negations follow the verb, before the clause ends ("忘れないで", "don't
# forget", and "かまいません", "it is fine", are no negation of the verb).
_JA_NEGATION = re.compile(
    r"^[^、。！？忘]{0,24}?(?:ないで|しない|ません|禁止|ないこと|てはいけない|てはならない|"
    r"べきではない|避け|やめ)"
)
_JA_NOT_NEGATION = re.compile(r"(?:かま|構)いません$|(?:かま|構)わない$")
# German, Dutch and the Scandinavian languages put the negation after the verb (and its
# object) in a command or a main clause: "Speichere Passwörter niemals im Code", "Print
# nooit tokens", "Kör aldrig curl | sh".
_V2_NEGATION = re.compile(
    r"\b(?:nie|niemals|nimmer|nooit|niet|kein\w*|geen|aldrig|aldri|inte|ikke|ingen|inga)\b"
)
# "... und nicht die Logs", "..., maar niet ...": an alternative set aside, not the verb.
_ALTERNATIVE = re.compile(r"\b(?:und|oder|sondern|auch|en|of|maar|ook|noch|als)\s+$")
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
     "jamás", "nie", "niemals", "nicht", "kein", "keine", "niet", "nooit", "geen", "nigdy"}
)  # fmt: skip


def _word(token: str) -> str:
    return token.strip("'`\".,").replace("'", "")


def _is_negation(token: str) -> bool:
    bare = token.strip('`".,')
    # French elision: "n'utilise", "n’oublie" (a "n'oublie pas" is caught by the blockers).
    return _word(token) in _NEGATIONS or bare.endswith("n't") or bare.startswith("n'")


def _inside_concord(tokens: list[str], position: int) -> bool:
    """A word that turns the negation into an instruction between the two words of one
    negation ("non dimenticare mai", "никогда не забывай" is read as usual)."""
    for earlier in range(position - 1, max(-1, position - 4), -1):
        if _is_negation(tokens[earlier]) and _concord(tokens[earlier], tokens[position]):
            return any(_blocks(token) for token in tokens[earlier + 1 : position])
    return False


def _concord(first: str, second: str) -> bool:
    """Two negation words that, in their language, make one negation together."""
    return _word(first) in _CONCORD and (_word(second) in _CONCORD or second.startswith("n'"))


def _negated_after(text: str, end: int) -> bool:
    after = text[end : end + 60]
    if _NEGATED_AFTER.match(after):
        return True
    japanese = _JA_NEGATION.match(after)
    if japanese and not _JA_NOT_NEGATION.search(after[: japanese.end() + 4]):
        return True
    return _negated_later_in_clause(text, end)


def _negated_later_in_clause(text: str, end: int) -> bool:
    """A German or Dutch negation later in the verb's clause (verb second): "Speichere
    Passwörter niemals im Code", "Deaktiviere die Tests in der CI nie"."""
    rest = text[end : end + 80]
    stop = _CLAUSE_BREAK.search(rest)
    clause = rest[: stop.start()] if stop else rest
    for found in _V2_NEGATION.finditer(clause):
        before = clause[: found.start()]
        if _ALTERNATIVE.search(before):
            continue
        return not any(_blocks(token) for token in _TOKEN.findall(before))
    return False


def _blocks(token: str) -> bool:
    """A word that, between a negation and the verb, makes the sentence an instruction."""
    word = _word(token)
    return word in _BLOCKERS or bool(_BLOCKER_STEMS.match(word))


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
        if any(_blocks(token) for token in between):
            return False
        # The verb a negation belongs to may come first (verb second: "Vergeet nooit ...",
        # "Vergiss nie ...") or sit inside a two-word negation ("non dimenticare mai").
        if position and _blocks(tokens[position - 1]):
            return False
        if _inside_concord(tokens, position):
            return False
        # "no reason not to", "never ... not": a double negation is an instruction; but
        # "ne ... jamais", "non ... mai", "никогда не" are one negation (negative concord).
        return not any(
            _is_negation(token) and not _concord(token, tokens[position])
            for token in tokens[max(0, position - 3) : position]
        )
    return False
