"""The provider registry: the built-ins are its rows, and a program can add its own."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping

import pytest

from acecode.llm import (
    Completion,
    LLMRequest,
    ProviderChoice,
    ProviderConfigError,
    ProviderSpec,
    complete,
    explain_provider,
    make_provider,
    register_provider,
    unregister_provider,
)
from acecode.llm.anthropic_provider import AnthropicProvider
from acecode.llm.registry import provider_specs


class EchoProvider:
    """A provider implemented in a program: answers with the prompt it was sent."""

    name = "echo"
    timeout = 5.0

    def __init__(self, model: str | None) -> None:
        self.model = model

    async def complete(self, request: LLMRequest) -> Completion:
        return Completion(
            text=f"{request.model}: {request.prompt}", input_tokens=1, output_tokens=1
        )


def _echo_spec() -> ProviderSpec:
    def configure(env: Mapping[str, str], reason: str) -> ProviderChoice:
        return ProviderChoice(provider="echo", reason=reason, model=env.get("ECHO_MODEL", "e1"))

    return ProviderSpec(
        name="echo",
        label="the echo provider",
        detect=lambda env: "ECHO_ON is set" if env.get("ECHO_ON") else None,
        configure=configure,
        build=lambda choice, env: EchoProvider(choice.model),
    )


@pytest.fixture
def echo_registered() -> Iterator[None]:
    register_provider(_echo_spec())
    yield
    unregister_provider("echo")


def test_the_built_in_providers_are_the_first_rows_in_selection_order() -> None:
    assert [spec.name for spec in provider_specs()][:3] == ["anthropic", "openai", "claude"]


def test_an_explicit_choice_of_a_registered_provider(echo_registered, tmp_path) -> None:
    env = {"ACECODE_PROVIDER": "echo", "ECHO_MODEL": "e2", "PATH": str(tmp_path)}
    choice = explain_provider(env)
    assert (choice.provider, choice.model, choice.reason) == ("echo", "e2", "ACECODE_PROVIDER=echo")
    assert isinstance(make_provider(choice, env), EchoProvider)


def test_a_registered_provider_is_detected_after_the_built_ins(echo_registered, tmp_path) -> None:
    env = {"ECHO_ON": "1", "PATH": str(tmp_path)}
    assert explain_provider(env).provider == "echo"
    both = {**env, "ANTHROPIC_API_KEY": "k"}
    choice = explain_provider(both)
    assert choice.provider == "anthropic"
    assert "chosen over the echo provider (ECHO_ON is set)" in choice.reason


def test_completions_go_through_the_registered_row(
    echo_registered, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_PROVIDER", "echo")
    completion = asyncio.run(complete("system", "the prompt", role="test"))
    assert completion.text == "e1: the prompt"


def test_an_unknown_name_lists_the_registered_ones(echo_registered, tmp_path) -> None:
    with pytest.raises(ProviderConfigError) as info:
        explain_provider({"ACECODE_PROVIDER": "nope", "PATH": str(tmp_path)})
    assert (
        str(info.value) == "ACECODE_PROVIDER='nope' is not one of anthropic, openai, claude, echo"
    )


def test_a_name_cannot_be_registered_twice_by_accident(echo_registered) -> None:
    with pytest.raises(ProviderConfigError, match="already registered"):
        register_provider(_echo_spec())
    register_provider(_echo_spec(), replace=True)


def test_the_built_in_rows_build_the_built_in_classes() -> None:
    env = {"AGENTIC_CONTEXT_API_KEY": "secret", "AGENTIC_CONTEXT_MODEL": "m1", "PATH": ""}
    provider = make_provider(explain_provider(env), env)
    assert isinstance(provider, AnthropicProvider) and provider.model == "m1"
    assert "secret" not in repr(provider)
