"""The retry arithmetic of the spec README, independent of any transport."""

from __future__ import annotations

import random

from acecode.llm import retry
from acecode.llm.base import ProviderError


def test_constants_match_the_spec() -> None:
    assert (retry.MAX_RETRIES, retry.BASE_DELAY, retry.JITTER) == (3, 2.0, (0.75, 1.25))


def test_backoff_is_base_times_two_to_the_attempt_with_jitter() -> None:
    rng = random.Random(7)
    for _ in range(200):
        assert 1.5 <= retry.backoff_delay(0, rng) <= 2.5
        assert 3.0 <= retry.backoff_delay(1, rng) <= 5.0


def test_jitter_spreads_over_the_whole_range() -> None:
    rng = random.Random(1)
    samples = [retry.backoff_delay(0, rng) for _ in range(500)]
    assert min(samples) < 1.6
    assert max(samples) > 2.4


def test_retry_after_only_when_longer_than_the_computed_delay() -> None:
    short = ProviderError("x", retryable=True, retry_after=0.5)
    long = ProviderError("x", retryable=True, retry_after=9.0)
    huge = ProviderError("x", retryable=True, retry_after=10_000.0)
    assert 1.5 <= retry.wait_before_retry(0, short) <= 2.5
    assert retry.wait_before_retry(0, long) == 9.0
    assert retry.wait_before_retry(0, huge) == retry.MAX_RETRY_AFTER
