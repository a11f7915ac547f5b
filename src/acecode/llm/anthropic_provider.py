"""The Anthropic Messages API through the official ``anthropic`` SDK (the default)."""

from __future__ import annotations

from typing import Any

from acecode.llm.base import CACHE_1H, Completion, HTTPProvider, LLMRequest, ProviderError
from acecode.llm.errors import from_sdk_error
from acecode.llm.settings import ANTHROPIC_DEFAULT_URL, DEFAULT_ANTHROPIC_MODEL


def user_content(request: LLMRequest) -> str | list[dict[str, Any]]:
    """The user message: the prompt as one text, or, when the request asks for a prompt
    cache, its fixed head as a block carrying ``cache_control`` and the rest after it.

    The cached prefix is the system prompt plus that head (the API caches everything
    up to the marked block); a head shorter than the model's minimum is simply not
    cached, at no extra cost. An empty or blank block is never sent: the API refuses it.
    """
    split = request.cacheable_chars
    if request.cache_ttl is None or split <= 0 or not request.prompt[:split].strip():
        return request.prompt
    control: dict[str, str] = {"type": "ephemeral"}
    if request.cache_ttl == CACHE_1H:
        control["ttl"] = CACHE_1H
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": request.prompt[:split], "cache_control": control}
    ]
    if request.prompt[split:].strip():
        blocks.append({"type": "text", "text": request.prompt[split:]})
    return blocks


class AnthropicProvider(HTTPProvider):
    """Calls ``POST {base_url}/v1/messages``; the SDK's own retries are off (ours apply)."""

    name = "anthropic"
    default_model = DEFAULT_ANTHROPIC_MODEL
    default_base_url = ANTHROPIC_DEFAULT_URL

    async def complete(self, request: LLMRequest) -> Completion:
        import anthropic  # lazy: the hook path must not pay for the SDK

        # A fresh client per call: clients hold connection pools bound to one event loop.
        client = anthropic.AsyncAnthropic(
            api_key=self._api_key,
            base_url=self._base_url,
            max_retries=0,
            timeout=request.timeout,
        )
        try:
            async with client:
                response = await client.messages.create(
                    model=request.model or self.model or "",
                    max_tokens=request.max_tokens,
                    system=request.system,
                    messages=[{"role": "user", "content": user_content(request)}],
                )
        except anthropic.AnthropicError as exc:
            translated = from_sdk_error(exc, anthropic)
            if translated is None:
                raise ProviderError(f"anthropic SDK error: {exc}", retryable=False) from exc
            raise translated from exc
        text = "".join(
            getattr(block, "text", "")
            for block in response.content
            if getattr(block, "type", None) == "text"
        )
        usage = response.usage
        # The Messages API counts cache reads and writes apart from input_tokens.
        cache_read = getattr(usage, "cache_read_input_tokens", None) or 0
        cache_write = getattr(usage, "cache_creation_input_tokens", None) or 0
        by_ttl = getattr(usage, "cache_creation", None)
        cache_write_1h = getattr(by_ttl, "ephemeral_1h_input_tokens", None) or 0
        uncached = getattr(usage, "input_tokens", None)
        return Completion(
            text=text,
            input_tokens=None if uncached is None else uncached + cache_read + cache_write,
            output_tokens=getattr(usage, "output_tokens", None),
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
            cache_write_1h_tokens=min(cache_write_1h, cache_write),
            truncated=getattr(response, "stop_reason", None) == "max_tokens",
        )
