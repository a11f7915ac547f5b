"""The three built-in rows of the provider registry, in selection order.

Each row reads its settings from the environment (:mod:`acecode.llm.settings`)
and builds its provider object; the SDK modules are imported only when a
provider is built, so registering costs the hook path nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from acecode.llm.base import Provider
from acecode.llm.registry import ProviderSpec, provider_spec, register_provider
from acecode.llm.settings import (
    ProviderChoice,
    anthropic_enabled,
    anthropic_from_env,
    api_key,
    claude_enabled,
    claude_from_env,
    openai_enabled,
    openai_from_env,
)


def _sdk_builder(
    module: str, class_name: str
) -> Callable[[ProviderChoice, Mapping[str, str]], Provider]:
    """A builder for an SDK-backed provider class (imported when the provider is built)."""

    def build(choice: ProviderChoice, env: Mapping[str, str]) -> Provider:
        provider_class = getattr(importlib.import_module(module), class_name)
        return provider_class(
            model=choice.model,
            api_key=api_key(choice, env),
            base_url=choice.base_url,
            timeout=choice.timeout,
        )

    return build


def _build_claude(choice: ProviderChoice, env: Mapping[str, str]) -> Provider:
    from acecode.llm.claude_cli import ClaudeCLIProvider

    return ClaudeCLIProvider(
        executable=choice.executable or "claude",
        model=choice.model,
        effort=choice.effort,
        timeout=choice.timeout,
        env=env,
    )


BUILTIN_PROVIDERS = (
    ProviderSpec(
        name="anthropic",
        label="the Anthropic API key",
        detect=anthropic_enabled,
        configure=anthropic_from_env,
        build=_sdk_builder("acecode.llm.anthropic_provider", "AnthropicProvider"),
    ),
    ProviderSpec(
        name="openai",
        label="the OpenAI-compatible endpoint",
        detect=openai_enabled,
        configure=openai_from_env,
        build=_sdk_builder("acecode.llm.openai_provider", "OpenAIProvider"),
    ),
    ProviderSpec(
        name="claude",
        label="the `claude` login",
        detect=claude_enabled,
        configure=claude_from_env,
        build=_build_claude,
    ),
)

for _spec in BUILTIN_PROVIDERS:
    if provider_spec(_spec.name) is None:
        register_provider(_spec)
