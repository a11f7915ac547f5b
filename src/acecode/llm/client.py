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

from acecode.llm import usage
from acecode.llm.base import DEFAULT_MAX_TOKENS, Completion, LLMRequest, Provider, endpoint_of
from acecode.llm.registry import provider_spec
from acecode.llm.retry import LLMCallError, complete_with_retry
from acecode.llm.settings import ProviderChoice, ProviderConfigError, explain_provider

PASSED_REASON = "passed by the caller"

_passed: ContextVar[Provider | None] = ContextVar("acecode_provider", default=None)


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
) -> Completion:
    """Ask the configured provider once (with retries) and record the tokens spent.

    Raises :class:`~acecode.llm.settings.ProviderConfigError` when no provider
    is configured and :class:`~acecode.llm.retry.LLMCallError` when the call
    fails; roles turn both into their empty results.
    """
    provider, choice = _resolve(env)
    request = LLMRequest(
        system=system,
        prompt=prompt,
        model=choice.model,
        max_tokens=max_tokens,
        timeout=choice.timeout,
    )
    try:
        result = await complete_with_retry(
            provider, request, diagnostic_name=diagnostic_name or role, role=role
        )
    except LLMCallError as exc:
        usage.record(
            usage.CallRecord(
                role=role,
                provider=provider.name,
                model=request.model,
                input_tokens=0,
                output_tokens=0,
                estimated=False,
                attempts=exc.attempts,
                ok=False,
            )
        )
        raise
    completion = result.completion
    reported = completion.input_tokens is not None and completion.output_tokens is not None
    usage.record(
        usage.CallRecord(
            role=role,
            provider=provider.name,
            model=request.model,
            input_tokens=(
                completion.input_tokens
                if completion.input_tokens is not None
                else usage.estimate_tokens(system + prompt)
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
        )
    )
    return completion
