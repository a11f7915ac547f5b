"""The LLM layer: providers behind one interface, one retry policy, JSON extraction.

Importing this package is cheap: SDKs load only when a provider runs, so the
per-prompt hook path never pays for them. The layer knows nothing about
playbooks; the roles in :mod:`acecode.roles` build prompts and parse replies.
"""

from __future__ import annotations

from acecode.llm import builtin_providers  # noqa: F401  (registers the built-in providers)
from acecode.llm.base import Completion, LLMRequest, Provider, ProviderError
from acecode.llm.client import (
    CallRefused,
    complete,
    current_choice,
    guarded_calls,
    make_provider,
    prompt_cache,
    using_provider,
)
from acecode.llm.jsonx import extract_json
from acecode.llm.registry import ProviderSpec, register_provider, unregister_provider
from acecode.llm.retry import LLMCallError
from acecode.llm.settings import ProviderChoice, ProviderConfigError, explain_provider

__all__ = [
    "CallRefused",
    "Completion",
    "LLMCallError",
    "LLMRequest",
    "Provider",
    "ProviderChoice",
    "ProviderConfigError",
    "ProviderError",
    "ProviderSpec",
    "complete",
    "current_choice",
    "explain_provider",
    "extract_json",
    "guarded_calls",
    "make_provider",
    "prompt_cache",
    "register_provider",
    "unregister_provider",
    "using_provider",
]
