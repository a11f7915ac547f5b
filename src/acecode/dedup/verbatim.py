"""Near-verbatim duplicates: the only merges acecode makes without a judge's verdict.

Two texts are *near-verbatim* when their :func:`verbatim_key` is equal. The
key keeps every word and every operator-like symbol and folds only what never
changes a rule's meaning:

1. Unicode compatibility forms (NFKC) and case (``str.casefold``).
2. Whitespace: any run of it is one separator.
3. Punctuation that only frames words:

   - sentence punctuation ``. , ; : ! ? …`` and dashes standing alone
     between words (``word - word``, ``word, word``, ``word.``);
   - closing quotes, backticks and brackets right after a word and opening
     ones right before a word (``'single'``, ```pytest -x```, ``(e.g. x)``);
   - quotes or backticks wrapped around a symbol (```==``` is ``==``).

   Any other symbol stays a token of its own: ``==`` and ``===``, ``+e`` and
   ``-e``, ``!=`` and ``=``, ``'`` and ``"`` written as symbols, ``@/``,
   ``#123``, ``--flag`` all keep their pair apart.
4. Regular English plurals of words of four letters or more: ``...ies`` ->
   ``...y``, ``...sses/ches/shes/xes/zes`` -> without ``es``, otherwise a
   final ``s`` is dropped unless the word ends in ``ss``, ``us`` or ``is``.

No word is dropped (not even "not", "a" or "the") and none is replaced by a
synonym, so two texts that differ in any content word, in word order, in a
number or in an operator are never near-verbatim: "Indent with tabs" and
"Indent with spaces", "Use single quotes" and "Use double quotes" stay apart.
Folding too little only means a duplicate waits for the judge; folding too
much would merge two rules, so every rule above errs on the side of keeping
texts apart.
"""

from __future__ import annotations

import re
import unicodedata

_TOKEN = re.compile(r"(?P<word>\w+)|(?P<symbols>[^\w\s]+)")
_WORD_CHAR = re.compile(r"\w")
_PROSE = frozenset(".,;:!?…-–—")
_CLOSERS = frozenset("'\"`)]}»”’") | _PROSE
_OPENERS = frozenset("'\"`([{«“‘")
_WRAPPERS = ("``", "''", '""')
_ASCII_WORD = re.compile(r"[a-z]{4,}")


def _singular(word: str) -> str:
    """A regular English plural reduced to its singular; other words unchanged."""
    if not _ASCII_WORD.fullmatch(word) or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def _unwrap(symbols: str) -> str:
    """``symbols`` without quote or backtick pairs wrapped around a non-empty rest."""
    while len(symbols) > 2 and any(
        symbols.startswith(pair[0]) and symbols.endswith(pair[1]) for pair in _WRAPPERS
    ):
        symbols = symbols[1:-1]
    return symbols


def _symbol_token(symbols: str, after_word: bool, before_word: bool) -> str | None:
    """What a run of symbols contributes to the key, given what touches it."""
    chars = set(symbols)
    if after_word and not before_word:
        return None if chars <= _CLOSERS else symbols
    if before_word and not after_word:
        return None if chars <= _OPENERS else symbols
    if after_word and before_word:
        return symbols  # infix: ``a.b``, ``x!=y``, ``don't`` keep their symbol
    stripped = _unwrap(symbols.rstrip("".join(_PROSE)))
    return None if not stripped or set(stripped) <= _PROSE else stripped


def verbatim_key(text: str) -> str:
    """The folded form of ``text`` that near-verbatim duplicates share (module doc)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    tokens: list[str] = []
    for match in _TOKEN.finditer(folded):
        if match.group("word"):
            tokens.append(_singular(match.group("word")))
            continue
        start, end = match.span()
        after_word = start > 0 and bool(_WORD_CHAR.match(folded, start - 1))
        before_word = end < len(folded) and bool(_WORD_CHAR.match(folded, end))
        kept = _symbol_token(match.group("symbols"), after_word, before_word)
        if kept is not None:
            tokens.append(kept)
    return " ".join(tokens)


def near_verbatim(first: str, second: str) -> bool:
    """True when the two texts are the same rule written with trivial differences."""
    return verbatim_key(first) == verbatim_key(second)
