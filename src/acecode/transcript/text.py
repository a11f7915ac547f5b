"""Small text helpers shared by the transcript reader and the condenser."""

from __future__ import annotations

import re

from acecode.text.redact import find_secrets

# A run of characters that may belong to a key or token. A cut never leaves a
# fragment of such a run behind, so a clipped secret cannot escape redaction.
_TOKEN_RUN_TAIL = re.compile(r"[A-Za-z0-9_\-+/=.~]{1,300}$")
_TOKEN_RUN_HEAD = re.compile(r"^[A-Za-z0-9_\-+/=.~]{1,300}")
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]")


def estimate_tokens(text: str) -> int:
    """Rough token count: 4 ASCII characters per token, 1 per other character.

    Non-ASCII text (CJK prompts, emoji) tokenises far denser than English, so a
    plain ``len/4`` would let such sessions overrun the budget.
    """
    ascii_chars = len(text.encode("ascii", "ignore"))
    return (ascii_chars + 3) // 4 + (len(text) - ascii_chars)


def strip_ansi(text: str) -> str:
    """Remove terminal colour codes, which only cost tokens."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def clip(text: str, limit: int, tail_share: float = 0.4) -> str:
    """Shorten ``text`` to about ``limit`` characters, keeping its head and tail.

    The middle is replaced by a marker that says how much was cut. Cuts never
    split a secret or a key-shaped run of characters (the partial run is
    dropped), and never keep a secret value without the name that marks it,
    so whatever is kept can still be redacted.
    """
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    tail_len = int(limit * tail_share)
    head_len, tail_start = _cut_points_around_secrets(text, limit - tail_len, len(text) - tail_len)
    tail_len = len(text) - tail_start
    head = text[:head_len]
    if head_len < len(text) and _is_token_char(text[head_len]):
        head = _TOKEN_RUN_TAIL.sub("", head)
    tail = text[len(text) - tail_len :] if tail_len else ""
    if tail and _is_token_char(text[len(text) - tail_len - 1]):
        tail = _TOKEN_RUN_HEAD.sub("", tail)
    cut = len(text) - len(head) - len(tail)
    if not tail:
        return f"{head}…[{cut} chars cut]"
    return f"{head}…[{cut} chars cut]…{tail}"


# How far a secret's evidence (``password=``) may sit before its value.
_EVIDENCE_REACH = 100
_WINDOW = 400


def _cut_points_around_secrets(text: str, head_end: int, tail_start: int) -> tuple[int, int]:
    """Move the cuts so no secret is split and no value is kept without its name.

    A value whose ``password=`` was cut away could no longer be recognised
    by redaction later, so a secret that starts shortly after the tail cut is
    dropped with the middle.
    """
    low = max(0, head_end - _WINDOW)
    for secret in find_secrets(text[low : head_end + _WINDOW]):
        start, end = low + secret.start, low + secret.end
        if start < head_end < end:
            head_end = start
    low = max(0, tail_start - _WINDOW)
    for secret in find_secrets(text[low : tail_start + _WINDOW]):
        start, end = low + secret.start, low + secret.end
        if start < tail_start + _EVIDENCE_REACH and end > tail_start:
            tail_start = max(tail_start, end)
    return head_end, min(len(text), max(tail_start, head_end))


def _is_token_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char in "_-+/=.~")


def one_line(text: str) -> str:
    """Collapse whitespace so a value fits on one rendered line."""
    return " ".join(text.split())
