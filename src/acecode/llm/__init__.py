"""The LLM layer: providers behind one interface, one retry policy, JSON extraction.

Importing this package is cheap: SDKs load only when a provider runs, so the
per-prompt hook path never pays for them. The layer knows nothing about
playbooks; the roles in :mod:`acecode.roles` build prompts and parse replies.
"""

from __future__ import annotations

from acecode.llm.base import Completion, LLMRequest, Provider, ProviderError
from acecode.llm.client import complete, make_provider
from acecode.llm.jsonx import extract_json
from acecode.llm.retry import LLMCallError
from acecode.llm.settings import ProviderChoice, ProviderConfigError, explain_provider

__all__ = [
    "Completion",
    "LLMCallError",
    "LLMRequest",
    "Provider",
    "ProviderChoice",
    "ProviderConfigError",
    "ProviderError",
    "complete",
    "explain_provider",
    "extract_json",
    "make_provider",
]
