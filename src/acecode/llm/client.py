"""One entry point for a completion: choose the provider, retry, account tokens."""

from __future__ import annotations

import os
from collections.abc import Mapping

from acecode.llm import usage
from acecode.llm.base import DEFAULT_MAX_TOKENS, Completion, LLMRequest, Provider
from acecode.llm.retry import LLMCallError, complete_with_retry
from acecode.llm.settings import ProviderChoice, api_key, explain_provider


def make_provider(choice: ProviderChoice, env: Mapping[str, str] | None = None) -> Provider:
    """Build the provider ``choice`` names; SDK modules are imported only when it runs."""
    env = os.environ if env is None else env
    if choice.provider == "anthropic":
        from acecode.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider(
            model=choice.model, api_key=api_key(choice, env), base_url=choice.base_url
        )
    if choice.provider == "openai":
        from acecode.llm.openai_provider import OpenAIProvider

        return OpenAIProvider(
            model=choice.model, api_key=api_key(choice, env), base_url=choice.base_url
        )
    from acecode.llm.claude_cli import ClaudeCLIProvider

    return ClaudeCLIProvider(
        executable=choice.executable or "claude", model=choice.model, effort=choice.effort, env=env
    )


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
    choice = explain_provider(env)
    provider = make_provider(choice, env)
    request = LLMRequest(
        system=system,
        prompt=prompt,
        model=choice.model,
        max_tokens=max_tokens,
        timeout=choice.timeout,
    )
    try:
        result = await complete_with_retry(
            provider, request, diagnostic_name=diagnostic_name or role
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
