"""Provider selection: explicit choice, then API key, then OpenAI settings, then `claude`."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from acecode.llm.settings import (
    DEFAULT_ANTHROPIC_MODEL,
    PLACEHOLDER_KEY,
    ProviderConfigError,
    api_key,
    explain_provider,
)


def fake_claude(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def test_nothing_configured_raises_one_error_explaining_every_option(tmp_path: Path) -> None:
    with pytest.raises(ProviderConfigError) as info:
        explain_provider({"PATH": str(tmp_path)})
    message = str(info.value)
    for hint in (
        "AGENTIC_CONTEXT_API_KEY",
        "ACECODE_OPENAI_BASE_URL",
        "claude",
        "ACECODE_PROVIDER",
    ):
        assert hint in message


def test_anthropic_key_selects_anthropic_with_the_default_model(tmp_path: Path) -> None:
    choice = explain_provider({"ANTHROPIC_API_KEY": "sk-ant-secret", "PATH": str(tmp_path)})
    assert choice.provider == "anthropic"
    assert choice.model == DEFAULT_ANTHROPIC_MODEL
    assert choice.api_key_var == "ANTHROPIC_API_KEY"
    assert "ANTHROPIC_API_KEY is set" in choice.reason
    assert choice.timeout == 30.0


def test_the_reason_names_what_was_available_but_not_chosen(tmp_path: Path) -> None:
    fake_claude(tmp_path / "bin")
    path = str(tmp_path / "bin")
    alone = explain_provider({"ANTHROPIC_API_KEY": "sk-ant-secret", "PATH": str(tmp_path)})
    assert alone.reason == "ANTHROPIC_API_KEY is set"
    both = explain_provider({"ANTHROPIC_API_KEY": "sk-ant-secret", "PATH": path})
    assert both.provider == "anthropic"
    assert both.reason == (
        "ANTHROPIC_API_KEY is set, chosen over the `claude` login (`claude` found on PATH); "
        "set ACECODE_PROVIDER to choose"
    )
    three = explain_provider(
        {"ANTHROPIC_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "PATH": path}
    )
    assert "the OpenAI-compatible endpoint (OPENAI_BASE_URL is set)" in three.reason
    assert "the `claude` login" in three.reason
    assert "sk-ant-secret" not in both.describe()


def test_fallback_order_of_the_earlier_system() -> None:
    env = {
        "AGENTIC_CONTEXT_API_KEY": "k1",
        "ANTHROPIC_AUTH_TOKEN": "k2",
        "ANTHROPIC_API_KEY": "k3",
        "ANTHROPIC_MODEL": "m2",
        "ANTHROPIC_DEFAULT_SONNET_MODEL": "m3",
        "ANTHROPIC_BASE_URL": "http://b2",
    }
    choice = explain_provider(env)
    assert (choice.api_key_var, choice.model, choice.base_url) == (
        "AGENTIC_CONTEXT_API_KEY",
        "m2",
        "http://b2",
    )
    assert api_key(choice, env) == "k1"
    env.pop("AGENTIC_CONTEXT_API_KEY")
    env.pop("ANTHROPIC_MODEL")
    env["AGENTIC_CONTEXT_MODEL"] = "m1"
    env["AGENTIC_CONTEXT_BASE_URL"] = "http://b1"
    choice = explain_provider(env)
    assert (choice.api_key_var, choice.model, choice.base_url) == (
        "ANTHROPIC_AUTH_TOKEN",
        "m1",
        "http://b1",
    )


def test_anthropic_key_wins_over_openai_settings_and_claude(tmp_path: Path) -> None:
    fake_claude(tmp_path / "bin")
    env = {
        "AGENTIC_CONTEXT_API_KEY": "k",
        "OPENAI_API_KEY": "o",
        "PATH": str(tmp_path / "bin"),
    }
    assert explain_provider(env).provider == "anthropic"


def test_openai_settings_win_over_claude_on_path(tmp_path: Path) -> None:
    fake_claude(tmp_path / "bin")
    env = {
        "ACECODE_OPENAI_BASE_URL": "http://127.0.0.1:11434/v1",
        "ACECODE_OPENAI_MODEL": "qwen",
        "PATH": str(tmp_path / "bin"),
    }
    choice = explain_provider(env)
    assert (choice.provider, choice.model, choice.base_url) == (
        "openai",
        "qwen",
        "http://127.0.0.1:11434/v1",
    )
    assert api_key(choice, env) == PLACEHOLDER_KEY  # keyless local server


def test_claude_on_path_is_the_last_resort(tmp_path: Path) -> None:
    exe = fake_claude(tmp_path / "bin")
    choice = explain_provider({"PATH": str(tmp_path / "bin")})
    assert choice.provider == "claude"
    assert choice.executable == str(exe)
    assert "PATH" in choice.reason


def test_explicit_provider_comes_first(tmp_path: Path) -> None:
    exe = fake_claude(tmp_path / "bin")
    env = {"ACECODE_PROVIDER": "claude", "ANTHROPIC_API_KEY": "k", "PATH": str(tmp_path / "bin")}
    choice = explain_provider(env)
    assert choice.provider == "claude"
    # what else was available is named, so nobody is billed on a key without knowing
    assert choice.reason == (
        "ACECODE_PROVIDER=claude, chosen over the Anthropic API key (ANTHROPIC_API_KEY is set)"
    )
    env = {"ACECODE_PROVIDER": "claude", "ACECODE_CLAUDE_BIN": str(exe), "PATH": ""}
    assert explain_provider(env).executable == str(exe)


def test_explicit_provider_missing_its_settings_says_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(ProviderConfigError, match="ACECODE_OPENAI_MODEL"):
        explain_provider({"ACECODE_PROVIDER": "openai", "OPENAI_BASE_URL": "http://x/v1"})
    with pytest.raises(ProviderConfigError, match="AGENTIC_CONTEXT_API_KEY"):
        explain_provider({"ACECODE_PROVIDER": "anthropic"})
    with pytest.raises(ProviderConfigError, match="claude"):
        explain_provider({"ACECODE_PROVIDER": "claude", "PATH": str(tmp_path)})
    with pytest.raises(ProviderConfigError, match="not one of"):
        explain_provider({"ACECODE_PROVIDER": "gemini"})


def test_openai_key_alone_targets_the_sdk_default_endpoint() -> None:
    choice = explain_provider({"OPENAI_API_KEY": "sk-o", "OPENAI_MODEL": "gpt-x"})
    assert (choice.provider, choice.base_url, choice.api_key_var) == (
        "openai",
        None,
        "OPENAI_API_KEY",
    )


def test_timeout_override_and_validation() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ACECODE_LLM_TIMEOUT": "2.5"}
    assert explain_provider(env).timeout == 2.5
    for bad in ("soon", "0", "-1"):
        with pytest.raises(ProviderConfigError, match="ACECODE_LLM_TIMEOUT"):
            explain_provider({"ANTHROPIC_API_KEY": "k", "ACECODE_LLM_TIMEOUT": bad})


def test_describe_names_sources_and_never_prints_the_secret() -> None:
    env = {
        "AGENTIC_CONTEXT_API_KEY": "sk-ant-very-secret-value",
        "AGENTIC_CONTEXT_MODEL": "claude-x",
        "AGENTIC_CONTEXT_BASE_URL": "http://127.0.0.1:9",
    }
    text = explain_provider(env).describe()
    assert "sk-ant-very-secret-value" not in text
    assert "provider: anthropic" in text
    assert "AGENTIC_CONTEXT_API_KEY" in text
    assert "claude-x (from AGENTIC_CONTEXT_MODEL)" in text
    assert "http://127.0.0.1:9 (from AGENTIC_CONTEXT_BASE_URL)" in text


def test_reads_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC", "AGENTIC", "OPENAI", "ACECODE")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "tok")
    assert explain_provider().api_key_var == "ANTHROPIC_AUTH_TOKEN"
