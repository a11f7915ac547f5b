"""Undo the tricks that hide a dangerous rule from a pattern screen.

A poisoned rule can be written so that no literal pattern matches it: Cyrillic
or Greek letters that look Latin, fullwidth forms, zero-width characters
inside words, a URL split into single letters or defanged (``hxxp``,
``[.]``), shell quoting inside a command name, leetspeak, or the whole
instruction encoded as base64, hex, percent or HTML escapes. The functions
here turn such a text into the plain lower-case forms the rules are written
against, and pull encoded payloads out so they can be screened as text too.
Everything is standard library and compiled once at import.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import html
import re
import unicodedata
from urllib.parse import unquote

# Letters of other scripts that render like Latin ones, and punctuation look-alikes.
# NFKC already folds fullwidth, mathematical and circled forms; these it leaves alone.
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a", "в": "b", "е": "e", "ё": "e", "і": "i", "ї": "i", "ј": "j", "к": "k",
        "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x",
        "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ь": "b",
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q",
        "Ԝ": "W", "Ү": "Y", "Ӏ": "I",
        # Greek
        "α": "a", "β": "b", "γ": "y", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "η": "n",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        # Armenian, IPA and small capitals
        "օ": "o", "ս": "u", "հ": "h", "ո": "n", "ı": "i", "ȷ": "j", "ɑ": "a", "ɡ": "g",
        "ɩ": "i", "ɪ": "i", "ʀ": "r", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ᴋ": "k", "ᴍ": "m",
        "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ᴢ": "z",
        "ꜱ": "s", "ʜ": "h", "ʟ": "l", "ɢ": "g", "ʏ": "y",
    }
)  # fmt: skip
_PUNCTUATION = str.maketrans(
    {
        # Quotes, dashes, slashes, dots: always folded
        "‘": "'", "’": "'", "‚": "'", "′": "'", "“": '"', "”": '"', "„": '"',
        "″": '"', "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-",
        "⁄": "/", "∕": "/", "∶": ":", "ꓸ": ".", "․": ".", "∙": ".", "·": ".",
    }
)  # fmt: skip

_CYRILLIC_GREEK = re.compile(r"[\u0370-\u03ff\u0400-\u052f]")
_LATIN_LETTER = re.compile(r"[a-zA-Z]")
_WORD = re.compile(r"\w+")
_HORIZONTAL_SPACE = re.compile(r"[^\S\n]+")

# Defanged URLs and e-mail addresses.
_HXXP = re.compile(r"\bh[x*]{2}p(s?)\b")
_BRACKET_DOT = re.compile(
    r"\s*(?:\[\s*(?:\.|dot)\s*\]|\(\s*(?:\.|dot)\s*\)|\{\s*(?:\.|dot)\s*\})\s*"
)
_BRACKET_AT = re.compile(r"\s*(?:\[\s*(?:@|at)\s*\]|\(\s*(?:@|at)\s*\)|\{\s*(?:@|at)\s*\})\s*")
_BRACKET_COLON = re.compile(r"\[\s*:\s*\]")
_SPOKEN_DOT = re.compile(
    r"(?<=\w) +(?:dot|\.) +(?=(?:com|net|org|io|ru|cn|xyz|top|info|biz|me|co|cc|dev|sh|site)\b)"
)
_SPOKEN_AT = re.compile(r"(?<=\w) +at +(?=[\w-]+\.(?:com|net|org|io|ru|cn|xyz|top|info|biz|me)\b)")
_SPLIT_SCHEME = re.compile(r"(https?|ftp)\s*:\s*/\s*/\s*")
# Five or more single characters separated by spaces: "c u r l", "h t t p s : / /".
_SPACED_LETTERS = re.compile(r"(?<!\S)(?:\S[ \t]+){4,}\S(?!\S)")
# Shell quoting that splits a word without changing it: c''url, c\url, r""m, ${IFS}.
_SHELL_SPLIT = re.compile(r"(?<=\w)(?:''|\"\"|\\)(?=\w)")
_IFS = re.compile(r"\$\{?ifs\}?")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})
_LEET_WORD = re.compile(r"\b(?=[a-z0-9]*[a-z])(?=[a-z0-9]*[013457])[a-z0-9]{3,}\b")

# Encoded payloads (searched in the case-preserving text).
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_HEX_RUN = re.compile(r"\b(?:0x)?((?:[0-9a-fA-F]{2}){6,})\b")
_HEX_SPACED = re.compile(r"(?:\b[0-9a-fA-F]{2}[ :,]){5,}[0-9a-fA-F]{2}\b")
_ESCAPED_BYTES = re.compile(r"(?:\\x[0-9a-fA-F]{2}){4,}")
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_ESCAPE_MARKERS = re.compile(r"%[0-9a-fA-F]{2}|&#?\w+;|\\u[0-9a-fA-F]{4}")

MAX_DECODE_DEPTH = 2


# Invisible characters outside the format category (Cf) that render as nothing.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _is_emoji(ch: str) -> bool:
    return unicodedata.category(ch) in ("So", "Sk") or "\U0001f000" <= ch <= "\U0001faff"


def hidden_characters(text: str) -> list[tuple[int, str]]:
    """Invisible or direction-changing characters in ``text``, as ``(index, name)`` pairs.

    Zero-width spaces and joiners, bidirectional controls, soft hyphens, tag
    characters and blank "letters" have no place in a coding tip: they hide
    words from a reader or a pattern, or reorder what is shown (Trojan
    Source). A zero-width joiner between two emoji (a family or a skin tone)
    is how emoji are written, and is not reported.
    """
    if text.isascii():
        return []
    found = []
    for index, ch in enumerate(text):
        if unicodedata.category(ch) != "Cf" and ch not in _BLANK_LETTERS:
            continue
        between_emoji = 0 < index < len(text) - 1 and (
            _is_emoji(text[index - 1]) and _is_emoji(text[index + 1])
        )
        if ch == "\u200d" and between_emoji:
            continue
        found.append((index, unicodedata.name(ch, f"U+{ord(ch):04X}")))
    return found


def strip_invisible(text: str) -> str:
    """NFKC-normalise and drop format characters (zero-width, bidi controls, soft hyphen)."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


# A word with a letter outside ASCII: a candidate for look-alike folding.
_NON_LATIN_WORD = re.compile(r"[^\W\d_]*[^\x00-\x7f][^\W\d_]*")
_CONFUSABLE_LETTERS = frozenset(chr(key) for key in _CONFUSABLES)
# A word of look-alike letters only is a spoof when it is this long; a shorter one
# is a real word of its own script ("не", "на", "как" in Russian).
MIN_SPOOFED_WORD = 5


def _unspoofed(match: re.Match[str]) -> str:
    """The word with its look-alike letters folded to Latin, when it is a spoof.

    A spoof mixes Latin with look-alikes ("сurl") or is long and made of
    look-alikes only; a Russian or Greek word is left as it is, so the
    floor can read those languages too.
    """
    word = match.group(0)
    if _LATIN_LETTER.search(word) or (
        len(word) >= MIN_SPOOFED_WORD and all(ch in _CONFUSABLE_LETTERS for ch in word)
    ):
        return word.translate(_CONFUSABLES)
    return word


def fold(text: str) -> str:
    """The base form rules match against: invisible-free, look-alikes folded, lower case.

    Look-alike letters are folded only in words that spoof Latin ones
    (``_unspoofed``); typographic quotes and dashes always become ASCII.

    Runs of spaces and tabs become two spaces at most (single letters split
    by spaces use the wider gap between words); newlines are kept because
    the structure checks and clause boundaries need them.
    """
    visible = strip_invisible(text)
    if not visible.isascii():
        visible = _NON_LATIN_WORD.sub(_unspoofed, visible.translate(_PUNCTUATION))
    folded = visible.casefold()
    # A wider gap survives as two spaces: in "g i t   p u s h" it is the only
    # word boundary left for ``deobfuscate`` to find.
    return _HORIZONTAL_SPACE.sub(lambda m: "  " if len(m.group(0)) > 1 else " ", folded)


def _join_spaced(match: re.Match[str]) -> str:
    words = re.split(r"[ \t]{2,}", match.group(0))
    return " ".join(re.sub(r"[ \t]+", "", word) for word in words)


def deobfuscate(folded: str) -> str:
    """Re-fang URLs and e-mail addresses, re-join split words, undo leetspeak.

    Takes the output of ``fold``. The result is only ever an additional form
    to screen, so a transformation that mangles an innocent text cannot hide
    anything; it could at worst create a match, which the corpus test watches.
    """
    text = _SPACED_LETTERS.sub(_join_spaced, folded)
    text = _HXXP.sub(r"http\1", text)
    text = _BRACKET_DOT.sub(".", text)
    text = _BRACKET_AT.sub("@", text)
    text = _BRACKET_COLON.sub(":", text)
    text = _SPOKEN_DOT.sub(".", text)
    text = _SPOKEN_AT.sub("@", text)
    text = _SPLIT_SCHEME.sub(r"\1://", text)
    text = _SHELL_SPLIT.sub("", text)
    text = _IFS.sub(" ", text)
    text = _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), text)
    return _HORIZONTAL_SPACE.sub(" ", text)


def _readable(raw: bytes) -> str | None:
    """``raw`` as text when it is UTF-8 and mostly printable, else None."""
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(decoded) < 4:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in decoded)
    letters = sum(ch.isalpha() for ch in decoded)
    if printable / len(decoded) < 0.9 or letters < 3:
        return None
    return decoded


def _base64_candidates(text: str) -> list[str]:
    found = []
    for match in _BASE64_RUN.finditer(text):
        run = match.group(0)
        # A word of letters only is far more likely prose than base64.
        if run.isalpha() and "=" not in run and not (run.lower() != run and run.upper() != run):
            continue
        body = run.rstrip("=")
        padded = body + "=" * (-len(body) % 4)
        for decoder in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                raw = decoder(padded.encode("ascii"))
            except (binascii.Error, ValueError):
                continue
            decoded = _readable(raw)
            if decoded is not None:
                found.append(decoded)
                break
    return found


def _hex_candidates(text: str) -> list[str]:
    runs = [m.group(1) for m in _HEX_RUN.finditer(text)]
    runs += [re.sub(r"[ :,]", "", m.group(0)) for m in _HEX_SPACED.finditer(text)]
    runs += [m.group(0).replace("\\x", "") for m in _ESCAPED_BYTES.finditer(text)]
    found = []
    for run in runs:
        try:
            decoded = _readable(bytes.fromhex(run))
        except ValueError:
            continue
        if decoded is not None:
            found.append(decoded)
    return found


def _unescaped(text: str) -> list[str]:
    if not _ESCAPE_MARKERS.search(text):
        return []
    unescaped = _UNICODE_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    unescaped = html.unescape(unquote(unescaped))
    return [unescaped] if unescaped != text else []


def decoded_payloads(text: str, depth: int = MAX_DECODE_DEPTH) -> list[tuple[str, str]]:
    """Readable texts hidden in ``text`` as ``(encoding, decoded)`` pairs.

    Looks for base64 runs, hex runs (plain, spaced or ``\\xNN``), and percent,
    HTML or ``\\uNNNN`` escapes; decodes nested payloads up to ``depth``
    levels. Binary results (a git SHA, a random ID) are not readable and are
    dropped, which is what keeps ordinary hashes from being reported.
    """
    if depth <= 0:
        return []
    visible = strip_invisible(text)
    results: list[tuple[str, str]] = []
    for encoding, candidates in (
        ("base64", _base64_candidates(visible)),
        ("hex", _hex_candidates(visible)),
        ("escapes", _unescaped(visible)),
    ):
        for decoded in candidates:
            results.append((encoding, decoded))
            results.extend(
                (f"{encoding}+{inner}", nested)
                for inner, nested in decoded_payloads(decoded, depth - 1)
            )
    return results


def mixed_script_word(text: str) -> str | None:
    """A word mixing Latin with Cyrillic or Greek letters (a look-alike attack), if any.

    Checked on the NFKC form before folding: an honest word is written in one
    script, a spoofed one swaps a few letters for identical-looking ones.
    """
    visible = strip_invisible(text)
    if visible.isascii():
        return None
    for word in _WORD.findall(visible):
        if _CYRILLIC_GREEK.search(word) and _LATIN_LETTER.search(word):
            return word
    return None


def text_key(text: str) -> str:
    """A stable hash of a text's meaning-preserving normal form.

    Folding case, look-alikes, invisible characters and whitespace means a
    rejected rule cannot come back by changing only its spelling tricks.
    """
    normal = " ".join(fold(text).split()).strip(" .")
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()
