"""Secret redaction for every text that leaves the machine or is written to disk.

Transcripts routinely contain credentials: a ``cat .env``, an ``export``
in a shell command, a connection string in an error message. acecode sends
condensed transcripts to an LLM, writes diagnostics and stores playbook
entries, so each of those paths runs its text through :func:`redact` first.

Design choices:

* Every pattern is compiled once at import and uses only bounded or
  possessive repetition, so a pass is linear in the text length even on
  adversarial input (long base64 runs, megabyte lines).
* Each rule names literals its matches must contain (``ghp_``, ``AKIA``,
  ``://``); a rule whose literals are absent is not run at all. Substring
  tests are far cheaper than a regex scan, so ordinary text costs a few
  ``in`` checks per rule.
* Matches from all rules are collected on the original text, overlaps are
  resolved (earliest, then longest, then most specific), and the text is
  rebuilt in one pass. Offsets stay meaningful for :func:`find_secrets`, and
  a marker is never re-scanned.
* Provider rules match the real key shapes (prefix plus length), so short
  placeholders such as ``ghp_xxx`` or ``your-api-key`` pass through unchanged.
  Name-based rules (``password = ...``) redact only values that look like a
  literal, never code such as ``token = get_token()`` or ``max_tokens=4096``.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acecode.text.secret_shapes import COMMAND_SHAPES, PROVIDER_SHAPES

MARKER = "[REDACTED:{kind}]"
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """One secret found in a text: its kind and the span to replace."""

    kind: str
    start: int
    end: int


_RULES = (*PROVIDER_SHAPES, *COMMAND_SHAPES)
_PRIORITY: dict[str, int] = {rule.kind: rank for rank, rule in enumerate(_RULES)}

# --- secret-looking names ------------------------------------------------------------------------
# Matched on the ASCII-lowercased text; offsets are the same in the original.
_SECRET_WORD = (
    r"(?:pass(?:word|wd|phrase)|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|credentials?|auth[_-]?key|session[_-]?key|signing[_-]?key)"
)
_SECRET_LITERALS = ("pass", "secret", "token", "key", "credential")
# ``MYSQL_PWD=...``: a password under its short name (a bare ``PWD`` or ``OLDPWD`` is the
# working directory, and has no underscore before it).
_PWD_ASSIGNMENT = re.compile(r"_pwd[ \t]{0,3}=[ \t]{0,3}[\"']?(?P<val>[^\s\"'`,;]{4,256})")
_ASSIGNMENT = re.compile(
    r"(?P<name>" + _SECRET_WORD + r"[a-z0-9_-]{0,40}+)"
    r"\\?[\"']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}"
    r"(?:(?P<q>\\?[\"'])(?P<qval>[^\"'\\\n]{1,512})(?P=q)"
    r"|(?P<val>[^\s\"'`,;)}\]\[(<>\\]{1,512}))"
)
# A high-entropy run shortly after a secret word, in prose or logs ("token is 3fa9...").
_NEAR_NAME = re.compile(
    r"(?:" + _SECRET_WORD + r"|bearer)s?\b"
    r"(?:[^\S\n]{1,3}(?:is|was)?[^\S\n]{0,3}|[^\S\n]{0,3}[:=][^\S\n]{0,3})"
    r"[\"'`]?(?P<val>[a-z0-9_\-+/=.~]{16,512})"
)

# A password told in prose: "the admin password is Xy7!kq2z", "the passphrase is 'a b c 58'".
_PROSE_PASSWORD = re.compile(
    r"pass(?:word|phrase)s?\b[^\S\n]{1,3}(?:is|was)[^\S\n]{1,3}"
    r"(?:(?P<q>[\"'`])(?P<qval>[^\"'`\n]{6,128})(?P=q)|(?P<val>[^\s\"'`,;]{6,128}))"
)
# Names that hold a secret only when their value is a random-looking key: ``account_key``,
# ``DD-APPLICATION-KEY``, docker's ``"auth"``, a ``sessionid`` cookie, an ``appid`` parameter.
_WEAK_NAME = re.compile(
    r"(?:key|auth|session(?:[_-]?id)?|sessid|sid|appid)"
    r"\\?[\"']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}\\?[\"']?(?P<val>[a-z0-9_\-+/=.~%]{16,512})"
)
_WEAK_LITERALS = ("key", "auth", "sess", "sid", "appid")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_HEX_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")

# Name suffixes that describe something other than the secret itself.
_NAME_SUFFIX_EXCLUDED = frozenset(
    {
        "file",
        "path",
        "url",
        "uri",
        "dir",
        "count",
        "len",
        "length",
        "type",
        "name",
        "id",
        "env",
        "var",
        "limit",
        "size",
        "prefix",
        "header",
        "field",
        "hash",
        "usage",
        "used",
        "budget",
        "base",
        "hint",
        "prompt",
        "label",
        "message",
        "text",
        "help",
        "policy",
        "pattern",
        "regex",
    }
)
_PLACEHOLDER_WORDS = ("your", "redacted", "placeholder", "changeme", "dummy", "xxxx", "****", "...")
_LITERAL_WORDS = frozenset(
    {"none", "null", "nil", "true", "false", "undefined", "string", "str", "bytes", "optional"}
    # A name standing for itself: ``postgres://USER:PASSWORD@HOST``.
    | {"password", "passwd", "pass", "pwd", "secret", "token", "key", "user", "username"}
)


def _name_is_secret(name: str) -> bool:
    """A name built on a secret word names a secret unless it is e.g. ``token_count``."""
    lowered = name.lower()
    word = re.match(_SECRET_WORD, lowered)
    if word is None:
        return False
    rest = lowered[word.end() :]
    if rest and rest[0] not in "_-":
        # ``tokens``, ``tokenizer``, ``secretary``: a different word.
        return False
    last = re.split(r"[_-]", lowered)[-1]
    return last not in _NAME_SUFFIX_EXCLUDED


def _is_placeholder(value: str) -> bool:
    """Variable references, type names and obvious placeholders are not secrets."""
    lowered = value.lower()
    if value[0] in "$%{<[" or "{{" in value or lowered in _LITERAL_WORDS:
        return True
    if _HEX_COLOR.fullmatch(value):  # a theme's ``secret: '#7c3aed'``
        return True
    if len(set(value)) <= 2:
        return True
    return any(word in lowered for word in _PLACEHOLDER_WORDS)


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _looks_random(value: str) -> bool:
    """Letters mixed with digits and a spread of characters: a key, not a word or a path."""
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    return digits >= 2 and letters >= 2 and _entropy(value) >= 3.3


_SCHEME_END = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}\Z")


def _looks_like_token(value: str) -> bool:
    """A bearer value is a credential when it is not a placeholder and carries digits."""
    return not _is_placeholder(value) and any(c.isdigit() for c in value)


def _lower_same_length(text: str) -> str:
    """``text`` lowercased with every character at its original offset.

    ``str.lower`` is fast but a few characters (``İ``) lower to two; only
    then is the slower ASCII-only translation used.
    """
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def _is_word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


_MAX_NAME_PREFIX = 30


def _word_start(text: str, index: int) -> bool:
    """The name starts a word: ``db_password`` and ``PASSWORD`` count, ``bypass`` does not;
    nor does ``PGPASSWORD``'s, an environment name that runs the words together."""
    if index == 0 or not text[index - 1].isalpha():
        return True
    # A prefix of bounded length (``PG``, ``APPDB``), so that a scan stays linear.
    start = index
    while start and index - start <= _MAX_NAME_PREFIX and text[start - 1].isalpha():
        start -= 1
    if start and text[start - 1].isalpha():
        return False
    end = index
    while end < min(len(text), index + 64) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    return text[start:end].isupper()


def _assignment_matches(text: str, lowered: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for m in _ASSIGNMENT.finditer(lowered):
        if not _word_start(text, m.start()):
            continue
        name = text[m.start("name") : m.end("name")]
        if not _name_is_secret(name):
            continue
        quoted = m.group("qval") is not None
        group = "qval" if quoted else "val"
        value = text[m.start(group) : m.end(group)].strip()
        if not value or _is_placeholder(value):
            continue
        if quoted:
            # A phrase with spaces is a passphrase in environment style (``DB_PASSWORD='a b c'``),
            # in code most likely a message (``password: "Enter it twice"``).
            phrase_ok = name.isupper() or _looks_random(value)
            keep = len(value) >= 4 and (" " not in value or phrase_ok)
        elif _code_reference(text, m.end(group), value):
            keep = False  # code: ``API_KEY = os.environ[...]``, ``token = make_token()``
        elif name.isupper():
            # Environment style (``DB_PASSWORD=hunter2``): any literal value.
            keep = len(value) >= 4
        else:
            # Code style: ``password = user_password`` is a reference, not a literal.
            reference = re.fullmatch(r"[A-Za-z_]\w*", value) is not None
            keep = len(value) >= 6 and (not reference or any(c.isdigit() for c in value))
        if keep:
            found.append(SecretMatch("secret-assignment", m.start(group), m.end(group)))
    return found


_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _code_reference(text: str, end: int, value: str) -> bool:
    """``value`` (ending at ``end``) is called or indexed, or is a dotted name: code, not a
    literal. A value cut short by a clip (``hunter2…[6 chars cut]``) is no call."""
    called = text[end : end + 1] in ("(", "[") and not value.endswith("…")
    return called or _DOTTED_NAME.fullmatch(value) is not None


def _near_name_matches(text: str, lowered: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for m in _NEAR_NAME.finditer(lowered):
        if not _word_start(text, m.start()):
            continue
        value = text[m.start("val") : m.end("val")]
        if text[m.end("val") : m.end("val") + 1] == "(" or _DOTTED_NAME.fullmatch(value):
            continue  # code: ``token = Base.url_encode64(...)``
        if _looks_random(value) and not _is_placeholder(value):
            found.append(SecretMatch("high-entropy-secret", m.start("val"), m.end("val")))
    return found


def _after_scheme(text: str, m: re.Match[str]) -> bool:
    """``://`` ends a URL scheme (``https://``), not any text."""
    return _SCHEME_END.search(text, max(0, m.start() - 22), m.start()) is not None


def _literal_value(text: str, m: re.Match[str]) -> bool:
    """The captured value is a literal, not a placeholder or a variable reference."""
    value = text[m.start(1) : m.end(1)]
    return bool(value) and not _is_placeholder(value)


# What a shape's match must also satisfy, by kind, beyond its pattern.
_CHECKS: dict[str, Callable[[str, re.Match[str]], bool]] = {
    "url-password": _after_scheme,
    "url-token": lambda text, m: (
        _after_scheme(text, m) and _literal_value(text, m) and _looks_random(m.group(1))
    ),
    "bearer-token": lambda text, m: _looks_like_token(text[m.start(1) : m.end(1)]),
    "command-line-secret": _literal_value,
    "code-credential": _literal_value,
    "netrc-password": _literal_value,
}


_SEGMENT_SEPARATORS = re.compile(r"[-_./:]")


def _composed(value: str) -> bool:
    """A name built of words (``setup-uv-1-x86_64-linux-<hash>``, a cache key): one of its
    parts is a lowercase word of five letters or more, which a random key never spells."""
    return any(
        len(part) >= 5 and part.isalpha() and part.islower()
        for part in _SEGMENT_SEPARATORS.split(value)
    )


def _weak_name_matches(text: str, lowered: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for m in _WEAK_NAME.finditer(lowered):
        if not _word_start(text, m.start()):
            continue
        value = text[m.start("val") : m.end("val")]
        if _UUID.fullmatch(value.lower()) or _is_placeholder(value) or _composed(value):
            continue  # an identifier: an idempotency key, ``setup-uv-1-x86_64-linux-<hash>``
        if _looks_random(value):
            found.append(SecretMatch("secret-assignment", m.start("val"), m.end("val")))
    return found


def _prose_password_matches(text: str, lowered: str) -> list[SecretMatch]:
    """A password named in prose is a word with a digit or a symbol in it, not a path,
    an address or a placeholder ("the password is stored in Vault" is left alone)."""
    found: list[SecretMatch] = []
    for m in _PROSE_PASSWORD.finditer(lowered):
        group = "qval" if m.group("qval") is not None else "val"
        value = text[m.start(group) : m.end(group)].rstrip(".!?)")
        mixed = any(c.isdigit() or not c.isalnum() for c in value) and any(
            c.isalpha() for c in value
        )
        if not mixed or value[0] in "/~." or "://" in value or _is_placeholder(value):
            continue
        found.append(SecretMatch("secret-in-prose", m.start(group), m.start(group) + len(value)))
    return found


def find_secrets(text: str) -> list[SecretMatch]:
    """All secrets in ``text`` as non-overlapping spans, in order of position."""
    lowered = _lower_same_length(text)
    candidates: list[SecretMatch] = []
    for rule in _RULES:
        haystack = lowered if rule.fold else text
        if not any(literal in haystack for literal in rule.literals):
            continue
        check = _CHECKS.get(rule.kind)
        for m in rule.pattern.finditer(haystack):
            if rule.left_boundary and m.start() and _is_word_char(text[m.start() - 1]):
                continue
            if check is not None and not check(text, m):
                continue
            if _is_placeholder(text[m.start(rule.group) : m.end(rule.group)] or "-"):
                continue  # ``ghp_xxxx…``, ``sk_test_XXXX…``, ``${GITHUB_TOKEN}``
            if m.end(rule.group) > m.start(rule.group):
                candidates.append(SecretMatch(rule.kind, m.start(rule.group), m.end(rule.group)))
    if "PRIVATE KEY" in text:
        candidates.extend(_orphan_key_tails(text))
    if any(literal in lowered for literal in _SECRET_LITERALS):
        candidates.extend(_assignment_matches(text, lowered))
        candidates.extend(_near_name_matches(text, lowered))
        candidates.extend(_prose_password_matches(text, lowered))
    if any(literal in lowered for literal in _WEAK_LITERALS):
        candidates.extend(_weak_name_matches(text, lowered))
    if "_pwd" in lowered:
        candidates.extend(
            SecretMatch("secret-assignment", m.start("val"), m.end("val"))
            for m in _PWD_ASSIGNMENT.finditer(lowered)
            if not _is_placeholder(text[m.start("val") : m.end("val")])
        )
    candidates.sort(key=lambda s: (s.start, -(s.end - s.start), _PRIORITY.get(s.kind, 99)))
    chosen: list[SecretMatch] = []
    for candidate in candidates:
        if chosen and candidate.start < chosen[-1].end:
            continue
        chosen.append(candidate)
    return chosen


_PEM_END = re.compile(r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# Line breaks as written, or escaped inside a JSON string.
_LINE_BREAK = re.compile(r"\r?\n|\\r?\\n")
_PEM_LINE = re.compile(r"[ \t]*(?:[A-Za-z0-9+/=]{8,}|Proc-Type:.*|DEK-Info:.*|)[ \t]*")
_PEM_PARTIAL = re.compile(r"[A-Za-z0-9+/=]{8,}[ \t]*$")
_PEM_MAX_BODY = 16_384


def _orphan_key_tails(text: str) -> list[SecretMatch]:
    """The base64 lines before an END line whose BEGIN is gone (a clipped or split key)."""
    found: list[SecretMatch] = []
    for m in _PEM_END.finditer(text):
        floor = max(0, m.start() - _PEM_MAX_BODY)
        segment = text[floor : m.start()]
        start = m.start()
        line_end = len(segment)
        for line_break in reversed(list(_LINE_BREAK.finditer(segment))):
            if not _PEM_LINE.fullmatch(segment, line_break.end(), line_end):
                # A line that only ends in key material: take that end.
                partial = _PEM_PARTIAL.search(segment, line_break.end(), line_end)
                if partial:
                    start = floor + partial.start()
                break
            start = floor + line_break.start()
            line_end = line_break.start()
        else:
            partial = _PEM_PARTIAL.search(segment, 0, line_end)
            if _PEM_LINE.fullmatch(segment, 0, line_end):
                start = floor
            elif partial:
                start = floor + partial.start()
        found.append(SecretMatch("private-key", start, m.end()))
    return found


def redact(text: str) -> str:
    """Return ``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    if not text:
        return text
    secrets = find_secrets(text)
    if not secrets:
        return text
    parts: list[str] = []
    position = 0
    for secret in secrets:
        parts.append(text[position : secret.start])
        parts.append(MARKER.format(kind=secret.kind))
        position = secret.end
    parts.append(text[position:])
    return "".join(parts)


def redact_data(value: Any) -> Any:
    """``value`` with every string inside it (dict keys and values, list items) redacted.

    For structured LLM output such as curator operations, which travel on into
    reports, the history journal and the review queue.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_data(key): redact_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_data(item) for item in value]
    return value
