"""The one interface every LLM provider implements.

Roles and the retry loop only see :class:`LLMRequest`, :class:`Completion` and
:class:`ProviderError`, so swapping Anthropic for an OpenAI-compatible server
or the ``claude`` command line changes nothing above this layer.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Protocol

from acecode.errors import AcecodeError, ProviderInterfaceError

# Spec (Retry): a 30 s per-request timeout.
REQUEST_TIMEOUT = 30.0
DEFAULT_MAX_TOKENS = 4096
# Prompt-cache lifetimes a request may ask for (Anthropic's ``cache_control.ttl``).
CACHE_5M = "5m"
CACHE_1H = "1h"


@dataclass(frozen=True)
class LLMRequest:
    """One completion request: a system prompt, a user prompt and its limits.

    ``cacheable_chars``: the prompt's first characters that are the same from call to
    call (a role's instructions, which come first); a provider with a prompt cache
    marks their end so later calls read them from the cache. ``cache_ttl`` is how
    long that entry should live (:data:`CACHE_5M`, :data:`CACHE_1H`), None for no
    marker. Providers without such a marker send the same text in the same order.
    """

    system: str
    prompt: str
    model: str | None
    max_tokens: int = DEFAULT_MAX_TOKENS
    timeout: float = REQUEST_TIMEOUT
    cacheable_chars: int = 0
    cache_ttl: str | None = None


@dataclass(frozen=True)
class Completion:
    """A provider's answer; token counts are None when the provider did not report them.

    ``input_tokens`` counts every input token, cached or not; ``cache_read_tokens``
    and ``cache_write_tokens`` are the parts of it read from or written to a prompt
    cache, which providers bill at other prices (:mod:`acecode.cost.pricing`).
    ``cache_write_1h_tokens`` is the part of the writes made for an hour, billed
    higher than 5-minute ones. ``cost_usd`` is set only when the provider itself
    reported the cost. ``truncated``: the reply stopped at ``max_tokens``
    (Anthropic's ``stop_reason: "max_tokens"``, OpenAI's ``finish_reason: "length"``).
    """

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    truncated: bool = False


class ProviderError(AcecodeError):
    """A failed completion, already classified for the retry policy.

    Providers translate their own exceptions into this one, so the single
    retry loop decides with ``retryable`` and ``retry_after`` alone.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class Provider(Protocol):
    """What a provider offers: a name for logs, a default model, a per-request
    timeout in seconds, one async call.

    Any object with these attributes can be passed to :func:`acecode.learn`. One
    that also has an ``endpoint`` (the URL it calls, or the command it runs) is
    named by it in progress lines and errors (:func:`endpoint_of`).
    """

    name: str
    model: str | None
    timeout: float

    async def complete(self, request: LLMRequest) -> Completion:
        """Return the completion or raise :class:`ProviderError`."""
        ...


_PROVIDER_ATTRIBUTES = ("name", "model", "timeout", "complete")


def _is_async(call: Any) -> bool:
    """True for ``async def`` functions and methods, and objects whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(type(call).__call__)


def _interface_problem(provider: object) -> str | None:
    missing = [key for key in _PROVIDER_ATTRIBUTES if not hasattr(provider, key)]
    if missing:
        listed = ", ".join(missing[:-1]) + (" and " if len(missing) > 1 else "") + missing[-1]
        return f"it lacks {listed}"
    name, model, timeout = provider.name, provider.model, provider.timeout  # type: ignore[attr-defined]
    if not isinstance(name, str) or not name:
        return f"name must be a non-empty string, not {name!r}"
    if model is not None and not isinstance(model, str):
        return f"model must be a string or None, not {type(model).__name__}"
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        return f"timeout must be a positive number of seconds, not {timeout!r}"
    complete = provider.complete  # type: ignore[attr-defined]
    if not callable(complete):
        return f"complete must be a method, not {type(complete).__name__}"
    if not _is_async(complete):
        return "complete must be async (async def complete(self, request)), not a plain function"
    return None


def check_provider(provider: object) -> None:
    """Refuse, before any work, an object that cannot serve as :class:`Provider`.

    Without this check a wrong object surfaces deep in the cycle: a bare
    ``AttributeError``, or a cycle that merely reports "failed". Raises
    :class:`~acecode.errors.ProviderInterfaceError` with one line naming what
    is missing or wrong (``name``, ``model``, ``timeout``, an async ``complete``).
    """
    problem = _interface_problem(provider)
    if problem is not None:
        what = type(provider).__name__
        raise ProviderInterfaceError(
            f"provider: {what} is not an LLM provider: {problem} (see acecode.Provider)"
        )


def endpoint_of(provider: object) -> str | None:
    """Where ``provider`` sends its requests (its ``endpoint``), or None when it does not say."""
    endpoint = getattr(provider, "endpoint", None)
    return endpoint if isinstance(endpoint, str) and endpoint else None


def host_of(endpoint: str) -> str:
    """``127.0.0.1:8080`` of ``http://127.0.0.1:8080/v1``; anything else (a command) as is."""
    from urllib.parse import urlsplit

    return urlsplit(endpoint).netloc or endpoint


class HTTPProvider:
    """What the two SDK-backed providers share: a model, a key, an endpoint, a timeout.

    The key is kept out of ``repr`` so a provider object can be logged.
    """

    name = "http"
    # The model used when none is given (None: the caller must name one).
    default_model: str | None = None
    # Where the SDK sends requests when no base URL is given.
    default_base_url = ""

    def __init__(
        self,
        *,
        api_key: str,
        model: str | None = None,
        base_url: str | None = None,
        timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self.model = model or self.default_model
        self.timeout = timeout
        self._api_key = api_key
        self._base_url = base_url

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (the SDK's default when none was given)."""
        return self._base_url or self.default_base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self._base_url!r})"
