"""The one retry policy for every LLM call (spec README, "Retry").

At most ``MAX_RETRIES`` attempts. After the 0-based attempt ``n`` fails with a
retryable error (timeout, connection, 429, 5xx) we wait
``BASE_DELAY * 2**n`` times a uniform jitter in [0.75, 1.25] -- about 2 s,
then 4 s -- and try again; there is no wait after the last attempt. Other
errors (authentication, permission, not found, bad request, other 4xx) end
the call at once. A server's ``retry-after`` wins when it asks for longer
than the computed delay, capped at ``MAX_RETRY_AFTER``. Every attempt is
written to diagnostics (in diagnostic mode).

Where someone watches (:mod:`acecode.output.waiting`), an attempt that takes a while
says so ("curator waiting on anthropic (127.0.0.1:8080), attempt 2 of 3,
12 s") and a failed attempt that will be retried says when. The final
failure is not printed here: :class:`LLMCallError` names the provider and the
URL it called, and the caller reports it once.

All waiting goes through :func:`delay`, so tests replace that one function to
record the delays instead of sleeping.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

from acecode.errors import AcecodeError
from acecode.llm.base import Completion, LLMRequest, Provider, ProviderError, endpoint_of, host_of
from acecode.output import waiting
from acecode.project.diagnostics import diagnose

MAX_RETRIES = 3
BASE_DELAY = 2.0
JITTER = (0.75, 1.25)
# A retry-after longer than this is not honoured in full: a learning cycle must end.
MAX_RETRY_AFTER = 60.0


class LLMCallError(AcecodeError, RuntimeError):
    """The call failed for good: a non-retryable error, or every attempt used up."""

    def __init__(self, message: str, *, attempts: int, last_error: ProviderError) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.last_error = last_error


@dataclass(frozen=True)
class RetryResult:
    """A successful completion and the number of attempts it took."""

    completion: Completion
    attempts: int


async def delay(seconds: float) -> None:
    """Wait between attempts. Tests patch this name to record delays instead."""
    await asyncio.sleep(seconds)


def backoff_delay(attempt: int, rng: random.Random | None = None) -> float:
    """Seconds to wait after 0-based ``attempt`` failed: ``BASE_DELAY * 2**attempt`` * jitter."""
    jitter = (rng or random).uniform(*JITTER)
    return BASE_DELAY * 2**attempt * jitter


def wait_before_retry(attempt: int, error: ProviderError) -> float:
    """The computed backoff, or the server's retry-after when that is longer (capped)."""
    computed = backoff_delay(attempt)
    if error.retry_after is not None and error.retry_after > computed:
        return min(error.retry_after, MAX_RETRY_AFTER)
    return computed


def _waiting_on(provider: Provider) -> str:
    """``anthropic (127.0.0.1:8080)``: the provider and the host it calls."""
    endpoint = endpoint_of(provider)
    return f"{provider.name} ({host_of(endpoint)})" if endpoint else provider.name


async def complete_with_retry(
    provider: Provider, request: LLMRequest, *, diagnostic_name: str, role: str | None = None
) -> RetryResult:
    """Run ``request`` on ``provider`` under the retry policy; raise LLMCallError on failure.

    ``role`` names the call in progress lines (default: ``diagnostic_name``).
    """
    who = role or diagnostic_name
    on = _waiting_on(provider)
    for attempt in range(MAX_RETRIES):
        started = time.monotonic()
        attempt_text = f"attempt {attempt + 1} of {MAX_RETRIES}"
        try:
            with waiting.while_waiting(
                lambda seconds, n=attempt_text: f"{who} waiting on {on}, {n}, {seconds:.0f} s"
            ):
                # The overall bound: an SDK timeout is per read, a trickling server could
                # exceed it.
                completion = await asyncio.wait_for(provider.complete(request), request.timeout)
        except ProviderError as exc:
            error = exc
        except TimeoutError:
            error = ProviderError(f"no answer within {request.timeout:g} s", retryable=True)
        else:
            _log_attempt(diagnostic_name, provider, request, attempt, started, "ok")
            return RetryResult(completion=completion, attempts=attempt + 1)

        last = attempt == MAX_RETRIES - 1
        if not error.retryable or last:
            _log_attempt(diagnostic_name, provider, request, attempt, started, _describe(error))
            why = "not retryable" if not error.retryable else f"{MAX_RETRIES} attempts used"
            endpoint = endpoint_of(provider)
            to = f" to {endpoint}" if endpoint else ""
            raise LLMCallError(
                f"{provider.name} call{to} failed ({why}): {error}",
                attempts=attempt + 1,
                last_error=error,
            )
        wait = wait_before_retry(attempt, error)
        outcome = f"{_describe(error)}; retrying in {wait:.2f} s"
        _log_attempt(diagnostic_name, provider, request, attempt, started, outcome)
        failure = " ".join(str(error).split())
        waiting.say(f"{who}: {on}, {attempt_text} failed: {failure}; retrying in {wait:.0f} s")
        await delay(wait)
    raise AssertionError("unreachable: the loop either returns or raises")


def _describe(error: ProviderError) -> str:
    kind = "retryable" if error.retryable else "not retryable"
    after = f", retry-after {error.retry_after:g} s" if error.retry_after is not None else ""
    return f"error ({kind}{after}): {error}"


def _log_attempt(
    name: str,
    provider: Provider,
    request: LLMRequest,
    attempt: int,
    started: float,
    outcome: str,
) -> None:
    elapsed = time.monotonic() - started
    diagnose(
        f"{name}_attempt{attempt + 1}",
        f"provider: {provider.name}\nmodel: {request.model}\n"
        f"attempt: {attempt + 1}/{MAX_RETRIES}\nelapsed: {elapsed:.3f} s\n"
        f"timeout: {request.timeout:g} s\noutcome: {outcome}\n",
    )
