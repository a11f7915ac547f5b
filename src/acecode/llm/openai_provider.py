"""Any OpenAI-compatible chat-completions endpoint through the official ``openai`` SDK.

Covers Ollama, vLLM, the llama.cpp server, OpenRouter and api.openai.com.
"""

from __future__ import annotations

from acecode.llm.base import Completion, HTTPProvider, LLMRequest, ProviderError
from acecode.llm.errors import from_sdk_error
from acecode.llm.settings import OPENAI_DEFAULT_URL


class OpenAIProvider(HTTPProvider):
    """Calls ``POST {base_url}/chat/completions``; the SDK's own retries are off (ours apply)."""

    name = "openai"
    default_base_url = OPENAI_DEFAULT_URL

    async def complete(self, request: LLMRequest) -> Completion:
        model = request.model or self.model
        if not model:
            # An OpenAI-compatible server has no default model to fall back on.
            raise ProviderError("the openai provider needs a model name", retryable=False)
        import openai  # lazy: the hook path must not pay for the SDK

        client = openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self._base_url,
            max_retries=0,
            timeout=request.timeout,
        )
        try:
            async with client:
                response = await client.chat.completions.create(
                    model=model,
                    max_tokens=request.max_tokens,
                    messages=[
                        {"role": "system", "content": request.system},
                        {"role": "user", "content": request.prompt},
                    ],
                )
        except openai.OpenAIError as exc:
            translated = from_sdk_error(exc, openai)
            if translated is None:
                raise ProviderError(f"openai SDK error: {exc}", retryable=False) from exc
            raise translated from exc
        choices = response.choices or []
        text = (choices[0].message.content or "") if choices else ""
        truncated = bool(choices) and choices[0].finish_reason == "length"
        usage = response.usage
        if usage is None:
            return Completion(text=text, truncated=truncated)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) if details is not None else None
        # OpenRouter adds the charge in USD (credits) as ``usage.cost``; OpenAI itself does not.
        cost = (getattr(usage, "model_extra", None) or {}).get("cost")
        return Completion(
            text=text,
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            cost_usd=float(cost) if isinstance(cost, int | float) else None,
            cache_read_tokens=cached if isinstance(cached, int) else 0,
            truncated=truncated,
        )
