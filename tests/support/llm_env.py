"""Every environment variable the LLM layer reads, taken from the code that reads it.

Fixtures clear these before configuring a provider, so the machine's own
configuration can never leak in; deriving the list from
:mod:`acecode.llm.settings` keeps it complete when a variable is added there.
"""

from __future__ import annotations

from acecode.llm import settings
from acecode.project.session_switch import NESTED_ENV

LLM_ENV_VARS: tuple[str, ...] = tuple(
    dict.fromkeys(
        (
            settings.PROVIDER_VAR,
            settings.TIMEOUT_VAR,
            *settings.ANTHROPIC_MODEL_VARS,
            *settings.ANTHROPIC_KEY_VARS,
            *settings.ANTHROPIC_URL_VARS,
            *settings.OPENAI_MODEL_VARS,
            *settings.OPENAI_KEY_VARS,
            *settings.OPENAI_URL_VARS,
            *settings.CLAUDE_MODEL_VARS,
            settings.CLAUDE_BIN_VAR,
            NESTED_ENV,
        )
    )
)
