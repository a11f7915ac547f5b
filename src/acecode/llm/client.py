"""One entry point for a completion: choose the provider, retry, account tokens.

The provider is the one passed for the current call (:func:`using_provider`,
what :func:`acecode.learn` does with its ``provider=``), else the one the
environment selects through the registry. The passed provider lives in a
context variable, not a global: every asyncio task and thread sees its own,
so two cycles with different providers can run at once in one process.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from acecode.errors import AcecodeError
from acecode.llm import usage
from acecode.llm.base import (
    CACHE_5M,
    DEFAULT_MAX_TOKENS,
    Completion,
    LLMRequest,
    Provider,
    endpoint_of,
)
from acecode.llm.registry import provider_spec
from acecode.llm.retry import LLMCallError, complete_with_retry
from acecode.llm.settings import ProviderChoice, ProviderConfigError, explain_provider

PASSED_REASON = "passed by the caller"


class CallGuard(Protocol):
    """Told of every request: before it is sent (None lets it go, a text is why it may
    not: a budget, a ledger that cannot record it), and after, with what it cost."""

    def before(self, role: str, request: LLMRequest) -> str | None: ...

    def after(self, role: str, request: LLMRequest, call: usage.CallRecord) -> None: ...


_passed: ContextVar[Provider | None] = ContextVar("acecode_provider", default=None)
_guard: ContextVar[CallGuard | None] = ContextVar("acecode_call_guard", default=None)
_cache_ttl: ContextVar[str | None] = ContextVar("acecode_cache_ttl", default=CACHE_5M)


class CallRefused(AcecodeError, RuntimeError):
    """The call guard refused a request before it was sent (nothing was spent)."""


@contextmanager
def guarded_calls(guard: CallGuard | None) -> Iterator[None]:
    """Ask ``guard.before(role, request)`` before every request made inside the block,
    and tell ``guard.after`` what it cost once it returned.

    The cost gate uses it so that every call is recorded before the money is at risk
    and draws on what the cycle reserved (:mod:`acecode.cost.gate`).
    """
    token = _guard.set(guard)
    try:
        yield
    finally:
        _guard.reset(token)


@contextmanager
def prompt_cache(ttl: str | None) -> Iterator[None]:
    """How long the prompt-cache entries of the calls inside the block should live:
    ``"5m"`` (the default: single cycles), ``"1h"`` (cycles in a burst: bootstrap,
    ``acecode learn DIR``, catch-up), or None for no cache marker at all."""
    token = _cache_ttl.set(ttl)
    try:
        yield
    finally:
        _cache_ttl.reset(token)


def cache_ttl() -> str | None:
    """The prompt-cache lifetime the calls made now ask for."""
    return _cache_ttl.get()


@contextmanager
def using_provider(provider: Provider | None) -> Iterator[None]:
    """Make every completion inside the block (and the tasks it starts) use ``provider``.

    ``None`` leaves the choice to the environment, as outside any block.
    """
    token = _passed.set(provider)
    try:
        yield
    finally:
        _passed.reset(token)


def make_provider(choice: ProviderChoice, env: Mapping[str, str] | None = None) -> Provider:
    """Build the provider ``choice`` names through its registry row."""
    spec = provider_spec(choice.provider)
    if spec is None:
        raise ProviderConfigError(f"no provider named {choice.provider!r} is registered")
    return spec.build(choice, os.environ if env is None else env)


def current_choice(env: Mapping[str, str] | None = None) -> ProviderChoice:
    """What a completion made now would use, and why (printable, without secrets)."""
    passed = _passed.get()
    if passed is None:
        return explain_provider(env)
    return ProviderChoice(
        provider=passed.name,
        reason=PASSED_REASON,
        model=passed.model,
        timeout=passed.timeout,
        endpoint=endpoint_of(passed) or "",
    )


def _resolve(env: Mapping[str, str] | None) -> tuple[Provider, ProviderChoice]:
    """The provider object for a completion made now, with its printable choice."""
    passed = _passed.get()
    if passed is not None:
        return passed, current_choice(env)
    choice = explain_provider(env)
    return make_provider(choice, env), choice


async def complete(
    system: str,
    prompt: str,
    *,
    role: str,
    diagnostic_name: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    env: Mapping[str, str] | None = None,
    model: str | None = None,
    cacheable_chars: int = 0,
) -> Completion:
    """Ask the configured provider once (with retries) and record the tokens spent.

    ``model`` overrides the provider's model for this call (a cheaper model for one
    role); ``cacheable_chars`` is the prompt's fixed head (see :class:`LLMRequest`).
    A reply cut off at ``max_tokens`` comes back marked ``truncated``; it is not asked
    again (each role's bound is the longest reply its format allows: the roles read
    what a cut reply holds whole, :func:`acecode.llm.jsonx.salvage_json`).

    Raises :class:`~acecode.llm.settings.ProviderConfigError` when no provider
    is configured, :class:`~acecode.llm.retry.LLMCallError` when the call
    fails and :class:`CallRefused` when the call guard refuses it; roles turn
    all three into their empty results.
    """
    provider, choice = _resolve(env)
    request = LLMRequest(
        system=system,
        prompt=prompt,
        model=model or choice.model,
        max_tokens=max_tokens,
        timeout=choice.timeout,
        cacheable_chars=cacheable_chars,
        cache_ttl=_cache_ttl.get(),
    )
    return await _send(provider, request, role, diagnostic_name or role)


async def _send(
    provider: Provider, request: LLMRequest, role: str, diagnostic_name: str
) -> Completion:
    """One request under the guard and the retry policy, recorded in the open ledgers."""
    guard = _guard.get()
    refusal = guard.before(role, request) if guard is not None else None
    if refusal:
        raise CallRefused(refusal)
    try:
        result = await complete_with_retry(
            provider, request, diagnostic_name=diagnostic_name, role=role
        )
    except LLMCallError as exc:
        failed = usage.CallRecord(
            role=role,
            provider=provider.name,
            model=request.model,
            input_tokens=0,
            output_tokens=0,
            estimated=False,
            attempts=exc.attempts,
            ok=False,
        )
        usage.record(failed)
        if guard is not None:
            guard.after(role, request, failed)
        raise
    completion = result.completion
    reported = completion.input_tokens is not None and completion.output_tokens is not None
    call = usage.CallRecord(
        role=role,
        provider=provider.name,
        model=request.model,
        input_tokens=(
            completion.input_tokens
            if completion.input_tokens is not None
            else usage.estimate_tokens(request.system + request.prompt)
        ),
        output_tokens=(
            completion.output_tokens
            if completion.output_tokens is not None
            else usage.estimate_tokens(completion.text)
        ),
        estimated=not reported,
        attempts=result.attempts,
        ok=True,
        cost_usd=completion.cost_usd,
        cache_read_tokens=completion.cache_read_tokens,
        cache_write_tokens=completion.cache_write_tokens,
        cache_write_1h_tokens=completion.cache_write_1h_tokens,
        truncated=completion.truncated,
    )
    usage.record(call)
    if guard is not None:
        guard.after(role, request, call)
    return completion
