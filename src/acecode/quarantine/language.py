"""Which natural language is a proposed rule written in?

A project's playbook is written in the languages its team reads (the
``languages`` setting, English by default). A rule in another language is
one a reviewer of this project cannot easily judge, and one the pattern
screen, written mostly for English, is weakest on; so it waits for a human.

Detection runs offline in microseconds. Code spans, URLs, paths, flags and
identifiers are removed first, since ``npm install --save-dev`` says nothing
about the prose around it. Then:

1. the writing system decides when most of the prose is not Latin: Han,
   kana, Hangul, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Thai ...
   (CLD2 names the exact language when it can);
2. for Latin-script prose, CLD2 (the ``pycld2`` package, Google's compact
   language detector with its tables compiled in) answers when it is sure;
3. CLD2 defaults to English on short texts, so a short text it calls
   English is checked against the function words of the Latin-script
   languages acecode knows best ("le", "der", "el", "não" ...): when
   another language's function words clearly outnumber English ones, that
   language wins.

The answer is a guess, and only ever used to hold a text for review.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

DEFAULT_LANGUAGES = ("en",)

# What is not prose: code spans, then whitespace-separated tokens that look like
# URLs, e-mail addresses, paths, file names, flags, numbers or identifiers.
_CODE_SPAN = re.compile(r"`[^`\n]*`?")
_CODE_TOKEN = re.compile(r"[/\\=_$#{}<>|~@\d()\[\]]|^[\"']*--?\w|\w\.\w|[a-z][A-Z]")
# Fewer Latin words than this is too little prose to call a language; a one-letter
# "word" ("x y z", "a b c") is not prose at all.
MIN_PROSE_WORDS = 3
# Calling Latin-script prose another language than English takes this many words.
MIN_FOREIGN_WORDS = 4
_WORD = re.compile(r"[^\W\d_]+")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_ASCII_RUN = re.compile(r"[\x00-\x7f]+")

# Script of a letter, from the first word of its Unicode name.
_SCRIPT_LANGUAGE = {
    "CJK": "zh", "HIRAGANA": "ja", "KATAKANA": "ja", "HANGUL": "ko", "CYRILLIC": "ru",
    "GREEK": "el", "ARABIC": "ar", "HEBREW": "he", "DEVANAGARI": "hi", "THAI": "th",
    "BENGALI": "bn", "TAMIL": "ta", "GEORGIAN": "ka", "ARMENIAN": "hy",
}  # fmt: skip
# One Han or kana character carries about as much as a short Latin word.
_WORDS_PER_IDEOGRAPH = 0.7

# Function words: frequent, short, and rare in the other languages listed here
# (words shared by two of them, like "de" or "a", are left out).
_FUNCTION_WORDS = {
    "en": "the a an to and of for with when before after is are it this that you your not never "
    "don't use only each every from by instead than into over if then be should in on or at as "
    "do so up out its can all any run",
    "fr": "le la les des du et est pour avec dans une sur pas ne jamais qui au aux ce cette "
    "quand avant après plutôt toujours puis",
    "de": "der die das dem und nicht mit für vor zu ist ein eine auf statt von wenn dann "
    "niemals keine kein immer oder sich auch",
    "es": "el los las del y para con por una que nunca antes cuando al sus es siempre cada luego",
    "pt": "dos das nos nas para com em na uma não nunca antes quando ao à sempre sem cada depois",
    "it": "il lo gli della delle nel mai prima quando sempre ogni dopo",
    "nl": "het een voor niet nooit altijd wanneer daarna",
}
_WORD_LANGUAGES: dict[str, set[str]] = {}
for _language, _words in _FUNCTION_WORDS.items():
    for _word in _words.split():
        _WORD_LANGUAGES.setdefault(_word, set()).add(_language)
# A function-word verdict needs at least this many hits, and this lead over English.
MIN_FUNCTION_WORDS = 1
FUNCTION_WORD_LEAD = 1


@dataclass(frozen=True)
class Language:
    """The dominant language of a text and the share of its prose that language covers."""

    code: str
    share: float


def prose(text: str) -> str:
    """``text`` without code spans, URLs, paths, flags and identifiers.

    A token with letters of an unspaced script (Chinese, Japanese) is a whole
    clause: only its ASCII parts ("72", "API") are dropped, never the clause.
    """
    spans_removed = _CODE_SPAN.sub(" ", unicodedata.normalize("NFKC", text))
    kept = []
    for token in spans_removed.split():
        if not token.isascii():
            kept.append(_ASCII_RUN.sub(" ", token) if _UNSPACED.search(token) else token)
        elif not _CODE_TOKEN.search(token):
            kept.append(token)
    return " ".join(kept)


def _script_counts(text: str) -> tuple[float, dict[str, float]]:
    """Latin words, and other languages' letters weighted as words, by script.

    Japanese mixes kana with Han characters, so Han counts as Japanese
    whenever kana is present.
    """
    latin = 0.0
    others: dict[str, float] = {}
    for word in _WORD.findall(text):
        if word.isascii():
            latin += len(word) > 1
            continue
        scripts: dict[str, int] = {}
        for ch in word:
            script = unicodedata.name(ch, "").split(" ", 1)[0]
            scripts[script] = scripts.get(script, 0) + 1
        for script, count in scripts.items():
            if script == "LATIN":
                latin += 1
            elif script in _SCRIPT_LANGUAGE:
                weight = (
                    count * _WORDS_PER_IDEOGRAPH if script in ("CJK", "HIRAGANA", "KATAKANA") else 1
                )
                language = _SCRIPT_LANGUAGE[script]
                others[language] = others.get(language, 0.0) + weight
    if "ja" in others and "zh" in others:
        others["ja"] += others.pop("zh")
    return latin, others


def _cld2(text: str) -> tuple[str, int, bool] | None:
    """CLD2's top language, its percentage and reliability; None when it cannot say."""
    import pycld2

    # A transcript can carry lone surrogates (broken UTF-16 from a terminal); CLD2 reads bytes.
    safe = text.encode("utf-8", "replace").decode("utf-8")
    try:
        reliable, _bytes, details = pycld2.detect(safe)
    except (pycld2.error, ValueError):
        return None
    code, percent = details[0][1], details[0][2]
    if code in ("un", "xxx"):
        return None
    return code.split("-")[0], percent, reliable


def _function_word_language(text: str) -> str | None:
    """A Latin-script language whose function words clearly outnumber English ones."""
    counts: dict[str, int] = {}
    for word in _WORD.findall(text.lower()):
        for language in _WORD_LANGUAGES.get(word, ()):
            counts[language] = counts.get(language, 0) + 1
    english = counts.pop("en", 0)
    if not counts:
        return None
    best = max(counts, key=lambda language: counts[language])
    if counts[best] >= MIN_FUNCTION_WORDS and counts[best] >= english + FUNCTION_WORD_LEAD:
        return best
    return None


def detect_language(text: str) -> Language | None:
    """The dominant language of ``text``'s prose, or None when there is too little to tell."""
    body = prose(text)
    latin, others = _script_counts(body)
    total = latin + sum(others.values())
    if total == 0:
        return None
    if others:
        language = max(others, key=lambda name: others[name])
        if others[language] > latin:
            found = _cld2(body)
            code = found[0] if found and found[0] != "en" else language
            return Language(code, others[language] / total)
    if latin < MIN_PROSE_WORDS:
        return None
    if latin < MIN_FOREIGN_WORDS:
        return Language("en", latin / total)
    found = _cld2(body)
    if found is not None and found[0] != "en" and found[2]:
        return Language(found[0], latin / total)
    guessed = _function_word_language(body)
    if guessed is not None:
        return Language(guessed, latin / total)
    return Language("en", latin / total)


def parse_languages(value: str) -> tuple[str, ...]:
    """The configured language codes: ``"en"``, ``"en, fr"`` or ``"en fr"`` (lower case)."""
    codes = tuple(dict.fromkeys(re.findall(r"[a-z]{2,3}", value.lower())))
    return codes or DEFAULT_LANGUAGES


def foreign_language(text: str, languages: tuple[str, ...] = DEFAULT_LANGUAGES) -> Language | None:
    """The language ``text`` is mostly written in, when it is not one of ``languages``."""
    found = detect_language(text)
    if found is None or found.code in languages:
        return None
    # Chinese is configured as "zh"; CLD2 may say "zh" for traditional script too.
    if found.code.split("-")[0] in languages:
        return None
    return found
