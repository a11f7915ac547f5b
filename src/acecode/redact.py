"""Secret redaction for every text that leaves the machine or is written to disk.

Transcripts routinely contain credentials: a ``cat .env``, an ``export``
in a shell command, a connection string in an error message. acecode sends
condensed transcripts to an LLM, writes diagnostics and stores playbook
entries, so each of those paths runs its text through :func:`redact` first.

Design choices:

* Every pattern is compiled once at import and uses only bounded or
  possessive repetition, so a pass is linear in the text length even on
  adversarial input (long base64 runs, megabyte lines).
* Matches from all patterns are collected on the original text, overlaps are
  resolved (earliest, then longest, then most specific), and the text is
  rebuilt in a single pass. Offsets therefore stay meaningful for
  :func:`find_secrets`, and a marker is never re-scanned.
* Provider patterns match the real key shapes (prefix plus length), so short
  placeholders such as ``ghp_xxx`` or ``your-api-key`` pass through unchanged.
  Name-based rules (``password = ...``) redact only values that look like a
  literal, never code such as ``token = get_token()`` or ``max_tokens=4096``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

MARKER = "[REDACTED:{kind}]"


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """One secret found in a text: its kind and the span to replace."""

    kind: str
    start: int
    end: int


# --- provider key shapes -------------------------------------------------------------------------
# (kind, pattern, group to replace). Group 0 is the whole match.
_NOT_WORD_BEFORE = r"(?<![A-Za-z0-9_])"
_NOT_WORD_AFTER = r"(?![A-Za-z0-9_])"

_PROVIDER_PATTERNS: tuple[tuple[str, str, int], ...] = (
    (
        "private-key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----"
        r"(?:[A-Za-z0-9+/=\s\\:,.]|-(?!----))*+"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----)?",
        0,
    ),
    (
        "aws-access-key",
        _NOT_WORD_BEFORE + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
        r"[A-Z0-9]{16}" + _NOT_WORD_AFTER,
        0,
    ),
    (
        "aws-secret-key",
        r"(?i:aws)[A-Za-z0-9_ .-]{0,30}?(?i:secret|key)[A-Za-z0-9_ .-]{0,20}?"
        r"\\?[\"']?\s{0,3}(?:=|:|=>)\s{0,3}\\?[\"']?([A-Za-z0-9/+]{40})" + _NOT_WORD_AFTER,
        1,
    ),
    (
        "github-token",
        _NOT_WORD_BEFORE
        + r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,251})"
        + _NOT_WORD_AFTER,
        0,
    ),
    ("gitlab-token", _NOT_WORD_BEFORE + r"glpat-[A-Za-z0-9_-]{20,64}", 0),
    ("anthropic-key", _NOT_WORD_BEFORE + r"sk-ant-[A-Za-z0-9_-]{20,255}", 0),
    (
        "openai-key",
        _NOT_WORD_BEFORE + r"(?:sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,255}"
        r"|sk-[A-Za-z0-9]{32,255}" + _NOT_WORD_AFTER + r")",
        0,
    ),
    ("slack-token", _NOT_WORD_BEFORE + r"xox[abposre]-[A-Za-z0-9-]{10,255}", 0),
    (
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,255}",
        0,
    ),
    (
        "stripe-key",
        _NOT_WORD_BEFORE + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}",
        0,
    ),
    ("stripe-webhook-secret", _NOT_WORD_BEFORE + r"whsec_[A-Za-z0-9]{24,255}", 0),
    ("google-api-key", _NOT_WORD_BEFORE + r"AIza[0-9A-Za-z_-]{35}" + _NOT_WORD_AFTER, 0),
    ("google-oauth-token", _NOT_WORD_BEFORE + r"ya29\.[0-9A-Za-z_-]{20,2048}", 0),
    ("huggingface-token", _NOT_WORD_BEFORE + r"hf_[A-Za-z0-9]{34,64}" + _NOT_WORD_AFTER, 0),
    ("npm-token", _NOT_WORD_BEFORE + r"npm_[A-Za-z0-9]{36}" + _NOT_WORD_AFTER, 0),
    (
        "jwt",
        _NOT_WORD_BEFORE + r"eyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,8192}"
        r"\.[A-Za-z0-9_-]{10,4096}",
        0,
    ),
    (
        # scheme://user:password@host -> only the password is replaced.
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@\"'<>\\]{1,128}:([^\s/@\"'<>\\]{1,256})@",
        1,
    ),
    (
        "bearer-token",
        r"(?:\bBearer|(?i:authorization)\\?[\"']?:[ \t]{0,3}\\?[\"']?(?:Basic|Bearer|token))"
        r"[ \t]{1,4}([A-Za-z0-9_\-+/=.~]{16,2048})",
        1,
    ),
)

_COMPILED_PROVIDERS: tuple[tuple[str, re.Pattern[str], int], ...] = tuple(
    (kind, re.compile(pattern), group) for kind, pattern, group in _PROVIDER_PATTERNS
)

# Most specific first: when two rules cover the same span, the earlier kind names it.
_PRIORITY: dict[str, int] = {kind: rank for rank, (kind, _, _) in enumerate(_PROVIDER_PATTERNS)}

# --- secret-looking names ------------------------------------------------------------------------
_SECRET_WORD = (
    r"(?:pass(?:word|wd|phrase)|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|credentials?|auth[_-]?key|session[_-]?key|signing[_-]?key)"
)
# name = letters/digits/_/- around a secret word; the word must start at a non-letter.
_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z])(?P<name>(?i:" + _SECRET_WORD + r")[A-Za-z0-9_-]{0,40}+)"
    r"\\?[\"']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}"
    r"(?:(?P<q>\\?[\"'])(?P<qval>[^\"'\\\n]{1,512})(?P=q)|(?P<val>[^\s\"'`,;)}\]\[(<>]{1,512}))"
)
# A high-entropy run shortly after a secret word, in prose or logs ("token is 3fa9...").
_NEAR_NAME = re.compile(
    r"(?<![A-Za-z])(?i:" + _SECRET_WORD + r"|bearer)s?\b[^\S\n]{0,3}(?:is|was|:|=)?[^\S\n]{0,3}"
    r"[\"'`]?(?P<val>[A-Za-z0-9_\-+/=.~]{16,512})"
)

# Name suffixes that describe something other than the secret itself.
_NAME_SUFFIX_EXCLUDED = (
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
)
_PLACEHOLDER_WORDS = ("your", "redacted", "placeholder", "changeme", "dummy", "xxxx", "****")
_LITERAL_WORDS = frozenset(
    {"none", "null", "nil", "true", "false", "undefined", "string", "str", "bytes", "optional"}
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
    if len(set(value)) <= 2:
        return True
    return any(word in lowered for word in _PLACEHOLDER_WORDS)


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def _looks_random(value: str) -> bool:
    """Letters mixed with digits and a spread of characters: a key, not a word."""
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return has_digit and has_alpha and _entropy(value) >= 3.3


def _assignment_matches(text: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for m in _ASSIGNMENT.finditer(text):
        name = m.group("name")
        if not _name_is_secret(name):
            continue
        quoted = m.group("qval")
        value = quoted if quoted is not None else m.group("val")
        stripped = value.strip()
        if not stripped or _is_placeholder(stripped):
            continue
        if quoted is not None:
            keep = len(stripped) >= 4 and (" " not in stripped or _looks_random(stripped))
        elif name.isupper():
            # Environment style (``DB_PASSWORD=hunter2``): any literal value.
            keep = len(stripped) >= 4
        else:
            # Code style: ``password = user_password`` is a reference, not a literal.
            keep = len(stripped) >= 6 and (
                any(c.isdigit() for c in stripped) or not re.fullmatch(r"[A-Za-z_][\w.]*", stripped)
            )
        if keep:
            group = "qval" if quoted is not None else "val"
            found.append(SecretMatch("secret-assignment", m.start(group), m.end(group)))
    return found


def _near_name_matches(text: str) -> list[SecretMatch]:
    found: list[SecretMatch] = []
    for m in _NEAR_NAME.finditer(text):
        value = m.group("val")
        if _looks_random(value) and not _is_placeholder(value):
            found.append(SecretMatch("high-entropy-secret", m.start("val"), m.end("val")))
    return found


_RULES: tuple[Callable[[str], list[SecretMatch]], ...] = (
    _assignment_matches,
    _near_name_matches,
)


def find_secrets(text: str) -> list[SecretMatch]:
    """All secrets in ``text`` as non-overlapping spans, in order of position."""
    candidates: list[SecretMatch] = []
    for kind, pattern, group in _COMPILED_PROVIDERS:
        for m in pattern.finditer(text):
            if m.end(group) > m.start(group):
                candidates.append(SecretMatch(kind, m.start(group), m.end(group)))
    for rule in _RULES:
        candidates.extend(rule(text))
    candidates.sort(key=lambda s: (s.start, -(s.end - s.start), _PRIORITY.get(s.kind, 99)))
    chosen: list[SecretMatch] = []
    for candidate in candidates:
        if chosen and candidate.start < chosen[-1].end:
            continue
        chosen.append(candidate)
    return chosen


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
