"""The `claude` provider's model, effort and timeout: defaults, variables, acecode.toml."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from acecode.llm.settings import ProviderConfigError, explain_provider


@pytest.fixture
def claude_env(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return {"ACECODE_PROVIDER": "claude", "PATH": str(bin_dir)}


def test_defaults_are_sonnet_at_low_effort_with_minutes_to_answer(
    claude_env: dict[str, str],
) -> None:
    choice = explain_provider(claude_env)
    assert (choice.model, choice.effort, choice.timeout) == ("sonnet", "low", 300.0)
    text = choice.describe()
    assert "model: sonnet (from default)" in text
    assert "effort: low (from default)" in text
    assert "timeout: 300 s" in text


def test_variables_set_model_effort_and_timeout(claude_env: dict[str, str]) -> None:
    env = {
        **claude_env,
        "ACECODE_CLAUDE_MODEL": "claude-opus-4-8",
        "ACECODE_CLAUDE_EFFORT": "HIGH",
        "ACECODE_CLAUDE_TIMEOUT": "90",
        "ACECODE_LLM_TIMEOUT": "5",  # the API request timeout: not for a CLI run
    }
    choice = explain_provider(env)
    assert (choice.model, choice.effort, choice.timeout) == ("claude-opus-4-8", "high", 90.0)
    assert choice.sources["timeout"] == "ACECODE_CLAUDE_TIMEOUT"
    assert choice.sources["model"] == "ACECODE_CLAUDE_MODEL"


def test_the_earlier_model_variable_still_applies(claude_env: dict[str, str]) -> None:
    choice = explain_provider({**claude_env, "AGENTIC_CONTEXT_MODEL": "claude-x"})
    assert choice.model == "claude-x"
    assert choice.sources["model"] == "AGENTIC_CONTEXT_MODEL"


def test_project_toml_wins_over_user_toml_and_is_named(
    claude_env: dict[str, str], project: Path
) -> None:
    home_dir = project.parent / "home"
    (home_dir / ".claude").mkdir()
    (home_dir / ".claude" / "acecode.toml").write_text(
        'claude_model = "haiku"\nclaude_timeout = 600\n'
    )
    project_toml = project / ".claude" / "acecode.toml"
    project_toml.parent.mkdir(exist_ok=True)
    project_toml.write_text('claude_model = "opus"\nclaude_effort = "medium"\n')
    choice = explain_provider(claude_env)
    assert (choice.model, choice.effort, choice.timeout) == ("opus", "medium", 600.0)
    assert choice.sources["model"] == str(project_toml)
    assert choice.sources["timeout"] == str(home_dir / ".claude" / "acecode.toml")


def test_empty_model_and_effort_leave_both_to_claude_code(claude_env: dict[str, str]) -> None:
    choice = explain_provider(
        {**claude_env, "ACECODE_CLAUDE_MODEL": "", "ACECODE_CLAUDE_EFFORT": ""}
    )
    assert (choice.model, choice.effort) == (None, None)
    assert "model: (provider default)" in choice.describe()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("ACECODE_CLAUDE_EFFORT", "fast", "claude_effort .from ACECODE_CLAUDE_EFFORT. must be one"),
        ("ACECODE_CLAUDE_TIMEOUT", "0", "claude_timeout .from ACECODE_CLAUDE_TIMEOUT. must be"),
    ],
)
def test_bad_values_are_one_clear_error(
    claude_env: dict[str, str], name: str, value: str, message: str
) -> None:
    with pytest.raises(ProviderConfigError, match=message):
        explain_provider({**claude_env, name: value})


def test_a_negative_timeout_is_named_and_the_default_used(
    claude_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Every setting is validated where it is read (issue 28): a negative number is one line
    naming the variable, and the default stands instead of failing the provider."""
    choice = explain_provider({**claude_env, "ACECODE_CLAUDE_TIMEOUT": "-5"})

    assert choice.timeout == 300.0
    assert 'ACECODE_CLAUDE_TIMEOUT = "-5" is not a number, 0 or more; ignored' in (
        capsys.readouterr().err
    )
