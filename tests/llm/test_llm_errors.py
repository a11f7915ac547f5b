"""Retry-after parsing and status classification."""

from __future__ import annotations

from email.utils import formatdate
from time import time

from acecode.llm.errors import is_retryable_status, parse_retry_after


def test_retryable_statuses() -> None:
    assert [
        s
        for s in (400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 529)
        if is_retryable_status(s)
    ] == [429, 500, 502, 503, 529]


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({"retry-after": "-3"}) is None
    in_ten = parse_retry_after({"retry-after": formatdate(time() + 10, usegmt=True)})
    assert in_ten is not None and 8.0 <= in_ten <= 10.5
