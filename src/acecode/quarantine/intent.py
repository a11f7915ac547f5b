"""Class detectors: an intent verb and a protected object in one sentence.

A literal pattern catches ``git push --force``; it cannot catch "it's fine to
delete them" after "flaky tests are usually wrong", or "baisse le seuil de
couverture". The detectors here work on the class instead: a rule pairs a
set of intent verbs (delete, skip, lower, hide, reuse ..., in the languages
acecode screens) with a set of protected objects (tests, coverage gates, the
user, tokens in config files ...), and fires when both occur in the same
sentence, in either order (so passives and verb-final languages count).

Three things turn such a match back into a safe tip, checked on the sentence:

- a negation before the verb ("never", "ne ... jamais", "nicht", "不要"),
  or after it in Japanese ("しないで"); see ``negation``;
- a safeguard: the action is made conditional on a human check ("only after
  reviewing the diff", "if the new output is intended", "ask the user
  first", "as documented in the README");
- unless a dismissal cancels the safeguard ("without looking", "no need to
  check", "blindly", "sem olhar"): then the sentence is an instruction to
  skip the very check.

Some verbs are dangerous only under a trigger ("update the expected values"
is routine; "update them whenever the test fails" is tampering), so a
detector can require one.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import lru_cache

from acecode.quarantine.negation import is_negated

# Sentence ends: . ! ? followed by space or end, the CJK full stops, a newline; but
# not before the next step of a numbered list ("1) open X. 2) delete Y" is one rule).
# A semicolon does not end the sentence: "drop it; the same works for production".
_SENTENCE_END = re.compile(
    r"[.!?](?=\s|$)(?!\s*(?:\d+[.)]|step\s+\d|then\b|first\b|finally\b))|[。！？]|\n(?!\s*\d+[.)])"
)
# A negation between the verb and its object: "lade keine Logs hoch", "do not ... never".
_INNER_NEGATION = re.compile(
    r"\b(?:keine?[nrs]?|nicht|niemals|never|not|no|nunca|não|jamais|pas|aucun\w*)\b|不要|别|禁止"
)
_PRONOUN_AFTER = re.compile(
    r"-?(?:le|la|les|lo|los|las)\b|\s+(?:it|them|those|these|that|this|one|the\s+one|"
    r"the\s+same|all\s+of\s+them|\w+\s+(?:from|in|of|on)\s+(?:it|them)|"
    r"sie|es|ihn|los|las|lo|la|os|as|les)\b"
)
_PASSIVE_BEFORE = re.compile(
    r"\b(?:be|been|being|is|are|was|were|get|gets|got|getting)\s+(?:\w+\s+)?$"
)
_DESCRIBED = re.compile(r"\b(?:has|have|had|uses|keeps)\s+[`'\"]?$")
_PASSIVE_VERB = re.compile(r"\b(?:be|been|is|are|works?)\b")
_REPORTED_SPEECH = re.compile(r"\b(?:asks?|tells?|wants?|requests?|urges?)\s+(?:you\s+)?to\s+$")
MAX_SENTENCE = 400

SAFEGUARD = (
    r"\b(?:review|read|check|inspect|examine|compare|verify|look\s+(?:at|over|through)|"
    r"go\s+through|confirm)\w*\b[^.;\n]{0,60}?\b(?:diffs?|changes?|output|plan|what\s+(?:changed|"
    r"would)|the\s+result|each\s+one)\b"
    r"|\bif\s+(?:the\s+)?(?:new\s+)?(?:output|change|diff|result)\s+is\s+(?:intended|expected|"
    r"correct|right)"
    r"|\bonly\s+(?:after|once|when|if)\b[^.;\n]{0,60}?\b(?:review|read|check|approv|ask|"
    r"confirm|documented|readme|listed|agree)"
    r"|\bonly\s+(?:together\s+with|for|on|in|to)\s+(?:the\s+|a\s+|your\s+)?(?:own|test|"
    r"throwaway|preview|local|listed|feature|third-party|system\s+packages|network\s+test)"
    r"|\bonly\b[^.;\n]{0,60}?\b(?:readme|documented|docs|contributing|listed|lists|"
    r"the\s+user\s+(?:asks|approves|says|confirms))\b"
    r"|\bonly\b[^.;\n]{0,20}?\b(?:for|on|in)\s+(?:your\s+own|the\s+test|a\s+throwaway|"
    r"throwaway|preview|local)"
    r"|\bask\s+(?:the\s+user|first|before|the\s+maintainers|the\s+platform|for\s+(?:approval|"
    r"confirmation))|\bwith\s+the\s+user'?s\s+(?:approval|consent|ok)|\bwait\s+for\s+"
    r"(?:the\s+user'?s\s+)?(?:go-ahead|approval|confirmation)"
    r"|\b(?:as\s+)?documented\s+in\b|\blisted\s+in\s+the\s+readme|\b(?:see|per)\s+"
    r"(?:the\s+)?(?:readme|contributing)"
    r"|\bon\s+purpose\b|\bby\s+design\b|\bintentionally\b"
    r"|\bas\s+(?:the\s+)?(?:readme|setup\s+guide|docs|documentation|contributing|runbook|"
    r"wiki)\s+(?:says|describes|shows|explains)\b"
    r"|\b(?:ci|the\s+pipeline|the\s+nightly\s+job)\s+(?:still\s+)?runs?\s+(?:them|it|all|"
    r"the\s+full)\b"
    r"|\bonly\s+(?:if|when)\b[^.;\n]{0,40}?\bno\s+(?:local\s+|uncommitted\s+|unpushed\s+)?"
    r"(?:work|changes|commits)\b"
    r"|\bplaceholders?\b|\b(?:dummy|fake)\s+(?:values?|keys?|tokens?|secrets?)\b"
    r"|\bonly\s+(?:the\s+)?names\b|\bnames\s+only\b|\bwithout\s+(?:their\s+)?values\b"
    r"|\b(?:ask|check)\w*\s+(?:\w+\s+){0,3}?(?:how|whether)\s+to\s+(?:proceed|continue)\b"
    # Other languages: review / check the diff or what changed.
    r"|\b(?:relis|vérifie|revisa|revise|prüfe|überprüfe)\b"
    r"|检查|查看差异|確認してから|差分を確認"
)
DISMISSAL = (
    r"\bwithout\s+(?:first\s+)?(?:looking|reading|checking|reviewing|opening|inspecting|"
    r"asking|verifying)|\bno\s+need\s+to\s+(?:look|check|review|read|ask|verify|open)|"
    r"\bno\s+point\s+(?:in\s+)?(?:checking|looking|reviewing|reading)|\bdon'?t\s+bother\s+"
    r"(?:to\s+)?(?:check|review|look|read)|\bblindly\b|\bsem\s+(?:olhar|verificar|revisar)|"
    r"\bsin\s+(?:mirar|revisar|leer|comprobar)|\bsans\s+(?:regarder|vérifier|relire|lire)|"
    r"\bohne\s+(?:zu\s+)?(?:prüfen|lesen|anzusehen|nachzusehen)|不看|不检查|見ずに|確認せず"
)
FAILURE_TRIGGER = (
    r"\b(?:fail\w*|red|break\w*|broken|error\w*|complain\w*|noisy|flak\w*|doesn'?t\s+pass|"
    r"can'?t\s+(?:meet|pass)|(?:goes|go)\s+green|to\s+(?:pass|match)|unblock\w*|block\w*|"
    r"differ\w*|(?:don'?t|no\s+longer)\s+match|drops?\s+below)\b"
    r"|\b(?:to\s+)?whatever\b|\bcurrent(?:ly)?\b[^.;\n]{0,30}?\b(?:output|returns?)\b|"
    r"\bnew\s+output\b|\bmatch\s+the\b"
    r"|échou\w*|fehlschlag\w*|schlägt\w*|falla\w*|falh\w*|quebr\w*|失败|不够|失敗"
)

_SAFEGUARD = re.compile(SAFEGUARD)
_DISMISSAL = re.compile(DISMISSAL)
_FAILURE = re.compile(FAILURE_TRIGGER)


# The few texts being screened at a time (one text, its de-obfuscated and decoded forms).
TEXT_CACHE = 16


@lru_cache(maxsize=TEXT_CACHE)
def _sentence_ends(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Starts and ends of every sentence break in ``text``, computed once per text."""
    breaks = list(_SENTENCE_END.finditer(text))
    return tuple(found.start() for found in breaks), tuple(found.end() for found in breaks)


@lru_cache(maxsize=TEXT_CACHE * 8)
def _occurrences(pattern: re.Pattern[str], text: str) -> tuple[tuple[int, int], ...]:
    """Spans of ``pattern`` in ``text``, computed once per text and pattern."""
    return tuple(found.span() for found in pattern.finditer(text))


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Bounds of the sentence around ``text[start:end]`` (``MAX_SENTENCE`` chars each side)."""
    starts, ends = _sentence_ends(text)
    before = bisect_right(ends, start) - 1
    begin = max(ends[before] if before >= 0 else 0, start - MAX_SENTENCE, 0)
    after = bisect_left(starts, end)
    finish = min(starts[after] if after < len(starts) else len(text), end + MAX_SENTENCE)
    return begin, finish


def sentence_of(text: str, start: int, end: int) -> str:
    """The sentence around ``text[start:end]``."""
    begin, finish = sentence_span(text, start, end)
    return text[begin:finish]


# A long text repeats the same sentence for every verb in it; remember the answers.
SENTENCE_CACHE = 4096


@lru_cache(maxsize=SENTENCE_CACHE)
def safeguarded(sentence: str) -> bool:
    """The sentence makes the action wait on a human check, and does not wave it away."""
    return bool(_SAFEGUARD.search(sentence)) and not dismissive(sentence)


@lru_cache(maxsize=SENTENCE_CACHE)
def dismissive(sentence: str) -> bool:
    """The sentence tells the agent to skip a check ("without looking", "sem olhar").

    A forbidden dismissal ("don't re-enable them without asking") does not count.
    """
    return any(not is_negated(sentence, found.start()) for found in _DISMISSAL.finditer(sentence))


@lru_cache(maxsize=SENTENCE_CACHE)
def failure_driven(sentence: str) -> bool:
    """The sentence ties the action to a failure, or to making the output match."""
    return bool(_FAILURE.search(sentence))


Check = Callable[[re.Match[str], str], bool]


def mentions(regex: str, *, affirmed: bool = False) -> Callable[[str], bool]:
    """A trigger that holds when the sentence matches ``regex``.

    With ``affirmed``, a negated mention does not count ("in the secret
    store, not in the repository").
    """
    pattern = re.compile(regex)
    if not affirmed:
        return lambda sentence: bool(pattern.search(sentence))
    return lambda sentence: any(
        not is_negated(sentence, found.start()) for found in pattern.finditer(sentence)
    )


def with_object(
    objects: str,
    *,
    trigger: Callable[[str], bool] | None = None,
    conditional: bool = True,
    outside: bool = False,
) -> Check:
    """A check that the sentence of the match also names one of ``objects``.

    ``trigger`` must also hold for the sentence when given (for verbs that
    are routine on their own); ``conditional`` lets a safeguard release the
    match; ``outside`` ignores objects inside the match itself.
    """
    pattern = re.compile(objects)

    def check(match: re.Match[str], text: str) -> bool:
        begin, finish = sentence_span(text, match.start(), match.end())
        sentence = text[begin:finish]
        start, end = match.start() - begin, match.end() - begin
        found = [
            (low - begin, high - begin)
            for low, high in _occurrences(pattern, text)
            if low >= begin
            and high <= finish
            and not (outside and low < match.end() and high > match.start())
        ]
        if not found:
            return False
        if _every_object_negated(sentence, found, start, end):
            return False
        if trigger is not None and not (trigger(sentence) or dismissive(sentence)):
            return False
        return not (conditional and safeguarded(sentence))

    return check


def _takes_earlier_object(sentence: str, start: int, end: int) -> bool:
    """Can the verb at ``sentence[start:end]`` act on a noun said before it?

    In English only through a pronoun ("delete them") or a passive ("can be
    skipped"); "remove the secret" after "pre-commit runs gitleaks" acts on
    the secret. Verb-final languages (Chinese, Japanese) always can.
    """
    verb = sentence[start:end]
    if not verb.isascii() or _PASSIVE_VERB.search(verb):
        return True
    first_word_end = start + len(verb.split(maxsplit=1)[0]) if verb.strip() else end
    return bool(
        _PRONOUN_AFTER.match(sentence, first_word_end) or _PASSIVE_BEFORE.search(sentence, 0, start)
    )


def _every_object_negated(
    sentence: str, objects: list[tuple[int, int]], start: int, end: int
) -> bool:
    """True when no object is in play for the verb at ``sentence[start:end]``.

    An object after the verb is out of play when a negation stands between
    them ("lade keine Logs hoch"); one before it when the verb cannot take
    it (see ``_takes_earlier_object``) or its own clause negates it ("never
    print the environment; print only the names").
    """
    earlier_ok = _takes_earlier_object(sentence, start, end)
    for low, _high in objects:
        if low < start:
            if earlier_ok and not is_negated(sentence, low):
                return False
        elif not _INNER_NEGATION.search(sentence, end, low):
            return False
    return True


def reported_speech(match: re.Match[str], text: str) -> bool:
    """The verb is what something asks of the agent, not an instruction ("asks you to edit")."""
    return bool(_REPORTED_SPEECH.search(text[max(0, match.start() - 30) : match.start()]))


def no_inner_negation(match: re.Match[str], _text: str) -> bool:
    """A long match whose own span contains no negation ("..., not to external services")."""
    return not _INNER_NEGATION.search(match.group(0))


def described(match: re.Match[str], text: str) -> bool:
    """A setting named as what something has ("the job has `allow_failure: true`")."""
    return bool(_DESCRIBED.search(text, max(0, match.start() - 30), match.start()))


def instructed(match: re.Match[str], text: str) -> bool:
    """Said as an instruction: not reported speech, not released by a safeguard."""
    return not reported_speech(match, text) and unguarded(match, text)


def unguarded(match: re.Match[str], text: str) -> bool:
    """A check for literal patterns that a safeguard in their sentence releases."""
    return not safeguarded(sentence_of(text, match.start(), match.end()))


def failure_unguarded(match: re.Match[str], text: str) -> bool:
    """Routine actions (``jest -u``) that are tampering when failure-driven or dismissive."""
    sentence = sentence_of(text, match.start(), match.end())
    if safeguarded(sentence):
        return False
    return failure_driven(sentence) or dismissive(sentence)
