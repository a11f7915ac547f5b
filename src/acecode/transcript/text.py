"""Small text helpers shared by the transcript reader and the condenser."""

from __future__ import annotations

import re

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
    split a key-shaped run of characters (the partial run is dropped), so a
    secret is either kept whole, to be redacted later, or not kept at all.
    """
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    tail_len = int(limit * tail_share)
    head_len = limit - tail_len
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


def _is_token_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char in "_-+/=.~")


def one_line(text: str) -> str:
    """Collapse whitespace so a value fits on one rendered line."""
    return " ".join(text.split())
