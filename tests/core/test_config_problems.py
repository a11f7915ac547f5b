"""Settings acecode cannot use are named by file (or variable) and key, and never switch
acecode on; a value that cannot be used falls back to the next layer down."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from acecode.project.config import Settings, load_settings
from acecode.project.config_check import (
    ConfigProblem,
    env_problems,
    file_problems,
    project_problems,
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_bad_value_names_its_file_and_key_and_the_users_value_applies(
    project_dir: Path, home_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(home_dir / ".claude" / "acecode.toml", "max_rule_chars = 800\n")
    project = _write(project_dir / ".claude" / "acecode.toml", 'max_rule_chars = "lots"\n')

    assert load_settings().max_rule_chars == 800
    assert capsys.readouterr().err == (
        f'acecode: {project}: max_rule_chars = "lots" is not a whole number, 0 or more; ignored\n'
    )


def test_a_bad_variable_is_named_and_the_file_applies(
    project_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(project_dir / ".claude" / "acecode.toml", "learn_from_subagents = false\n")
    monkeypatch.setenv("ACECODE_LEARN_FROM_SUBAGENTS", "sometimes")
    assert load_settings().learn_from_subagents is False
    assert 'ACECODE_LEARN_FROM_SUBAGENTS = "sometimes" is not true or false; ignored' in (
        capsys.readouterr().err
    )
    assert [p.text for p in env_problems()] == [
        'ACECODE_LEARN_FROM_SUBAGENTS = "sometimes" is not true or false; ignored'
    ]


def test_every_ignored_setting_of_a_project_file_is_named(project_dir: Path, home_dir: Path):
    path = _write(
        project_dir / ".claude" / "acecode.toml",
        'max_rul_chars = 5\nreview = "all"\ndaily_budget_usd = 9\nopt_in = true\n'
        'enabled = "perhaps"\njudge_floor = "high"\n',
    )
    user = home_dir / ".claude" / "acecode.toml"
    assert file_problems(path, "project") == [
        ConfigProblem(f"{path}: unknown key max_rul_chars ignored (did you mean max_rule_chars?)"),
        ConfigProblem(
            f"{path}: daily_budget_usd ignored: budgets are set in {user} or "
            "ACECODE_DAILY_BUDGET_USD, never by a project"
        ),
        ConfigProblem(f"{path}: opt_in ignored: it is read from {user} only"),
        ConfigProblem(f'{path}: enabled = "perhaps" is not true or false; ignored'),
        ConfigProblem(f'{path}: judge_floor = "high" is not a number from 0 to 1; ignored'),
    ]


def test_the_switch_in_the_users_file_is_named_as_ignored(home_dir: Path) -> None:
    path = _write(home_dir / ".claude" / "acecode.toml", "enabled = false\nopt_in = true\n")
    (problem,) = file_problems(path, "user")
    assert problem.text.startswith(f"{path}: enabled ignored: the on/off switch is per project")


def test_a_setting_in_the_local_switch_file_is_named(project_dir: Path) -> None:
    path = _write(project_dir / ".claude" / "acecode" / "switch.toml", "review = 'all'\n")
    assert project_problems() == [
        ConfigProblem(f"{path}: review ignored: this file holds only enabled")
    ]


def test_an_unreadable_file_is_one_problem_that_says_acecode_is_off(project_dir: Path) -> None:
    text = "enabled = false\nmax_rule_chars = = 3\n"
    path = _write(project_dir / ".claude" / "acecode.toml", text)
    with pytest.raises(tomllib.TOMLDecodeError) as parsed:
        tomllib.loads(text)
    assert project_problems() == [
        ConfigProblem(
            f"cannot read {path}: invalid TOML ({parsed.value}); "
            "acecode is off in this project until it is fixed",
            unreadable=True,
        )
    ]


def test_a_clean_configuration_has_no_problems(project_dir: Path, home_dir: Path) -> None:
    _write(project_dir / ".claude" / "acecode.toml", 'review = "all"\nenabled = true\n')
    _write(home_dir / ".claude" / "acecode.toml", "daily_budget_usd = 2\nopt_in = false\n")
    _write(project_dir / ".claude" / "acecode" / "switch.toml", "enabled = false\n")
    assert project_problems() == []
    assert file_problems(home_dir / ".claude" / "acecode.toml", "user") == []


def test_non_finite_negative_and_out_of_range_numbers_are_named_and_the_default_used(
    project_dir: Path, home_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``1e999`` overflowed into a traceback, ``nan`` turned the budget off ("$0.01 of
    $nan"): each is now one line naming file and key, and the default applies."""
    user = _write(home_dir / ".claude" / "acecode.toml", "daily_budget_usd = nan\n")
    project = _write(
        project_dir / ".claude" / "acecode.toml",
        "topup_budget_chars = 1e999\ninjection_budget_chars = -inf\nlock_timeout = -1\n"
        "max_removal_ratio = 1.5\nmax_rule_chars = 2.5\n",
    )

    settings = load_settings()

    defaults = Settings()
    for name in (
        "daily_budget_usd",
        "topup_budget_chars",
        "injection_budget_chars",
        "lock_timeout",
        "max_removal_ratio",
        "max_rule_chars",
    ):
        assert getattr(settings, name) == getattr(defaults, name), name
    said = capsys.readouterr().err.splitlines()
    assert sorted(said) == sorted(
        [
            f"acecode: {user}: daily_budget_usd = NaN is not a number, 0 or more; ignored",
            f"acecode: {project}: max_removal_ratio = 1.5 is not a number from 0 to 1; ignored",
            f"acecode: {project}: max_rule_chars = 2.5 is not a whole number, 0 or more; ignored",
            f"acecode: {project}: lock_timeout = -1 is not a number, 0 or more; ignored",
            f"acecode: {project}: injection_budget_chars = -Infinity is not a whole number, 0 or "
            "more; ignored",
            f"acecode: {project}: topup_budget_chars = Infinity is not a whole number, 0 or more; "
            "ignored",
        ]
    )


def test_a_settings_file_in_latin_1_is_read_and_said_once(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project_dir / ".claude" / "acecode.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"# r\xe8gles du caf\xe9\nmax_rule_chars = 500\n")

    assert load_settings().max_rule_chars == 500
    assert file_problems(path, "project") == [
        ConfigProblem(
            f"{path}: byte 3 is not UTF-8 (Latin-1?); read with such bytes replaced; "
            "save the file as UTF-8"
        )
    ]
