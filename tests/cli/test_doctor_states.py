"""`acecode doctor` on the states that stop injection or learning: each named with its
file (and line or key) and what to do, each counted once, and nothing written in the
folder it runs from. Real `python -m acecode` subprocesses in a fresh home.

Each test starts from a setup doctor calls "all good" (a provider set, the hooks
installed), breaks one thing, and expects exactly one problem.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from cli_users import set_up_user
from test_cli_commands import ENTRY, run

from acecode.store import save_playbook


@pytest.fixture
def env(project_dir: Path, home_dir: Path, tmp_path: Path) -> dict[str, str]:
    """A user with a provider and acecode's hooks installed, in a project with a playbook."""
    values = set_up_user(project_dir, tmp_path)
    assert run("doctor", env=values).stdout.rstrip().endswith("all good")
    return values


def _playbook(project: Path) -> Path:
    return project / ".claude" / "playbook.json"


def _problems(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith("[problem]")]


def test_invalid_settings_json_is_named_with_its_line_not_called_not_installed(
    env: dict[str, str], home_dir: Path
) -> None:
    settings = home_dir / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace('"hooks": {', '"hooks": {,', 1))

    out = run("doctor", env=env, check_exit=1).stdout

    (problem,) = _problems(out)
    assert problem.startswith(f"[problem] {settings}: invalid JSON at line 2 column 13")
    assert "fix the file, then run `acecode install`" in problem
    assert f"{settings.with_name('settings.json.bak')}" not in problem  # none was made
    assert "not installed" not in out
    assert out.rstrip().endswith("1 problem found")
    refused = run("install", env=env, check_exit=1)
    assert f"{settings}: invalid JSON at line 2 column 13" in refused.stderr


def test_a_corrupt_playbook_is_one_problem(env: dict[str, str], project_dir: Path) -> None:
    _playbook(project_dir).write_text('{"sections": [1, 2', encoding="utf-8")

    out = run("doctor", env=env, check_exit=1).stdout

    (problem,) = _problems(out)
    assert problem.startswith(f"[problem] {_playbook(project_dir)}: invalid JSON at line 1")
    assert out.count("not checked: the playbook cannot be read (see playbook above)") == 2
    assert out.rstrip().endswith("1 problem found")


def test_every_ignored_setting_is_named_by_file_and_key(
    env: dict[str, str], project_dir: Path, home_dir: Path
) -> None:
    project_file = project_dir / ".claude" / "acecode.toml"
    project_file.write_text('max_rule_chars = "lots"\ndaily_budget_usd = 9\n')
    user_file = home_dir / ".claude" / "acecode.toml"
    user_file.write_text('judge_max_pairs = "many"\n')
    env = {**env, "ACECODE_LOCK_TIMEOUT": "soon"}

    out = run("doctor", env=env).stdout  # warnings alone: exit status 0

    for line in (
        f'[warning] {project_file}: max_rule_chars = "lots" is not a whole number, 0 or more; '
        "ignored",
        f"[warning] {project_file}: daily_budget_usd ignored: budgets are set in {user_file}",
        f'[warning] {user_file}: judge_max_pairs = "many" is not a whole number, 0 or more; '
        "ignored",
        '[warning] ACECODE_LOCK_TIMEOUT = "soon" is not a number, 0 or more; ignored',
    ):
        assert line in out
    assert out.rstrip().endswith("all good")


def test_an_unreadable_switch_file_is_a_problem_and_injection_says_acecode_is_off(
    env: dict[str, str], project_dir: Path
) -> None:
    text = "enabled = false\nbroken = \n"
    path = project_dir / ".claude" / "acecode.toml"
    path.write_text(text)
    with pytest.raises(tomllib.TOMLDecodeError) as parsed:
        tomllib.loads(text)

    out = run("doctor", env=env, check_exit=1).stdout

    reason = (
        f"cannot read {path}: invalid TOML ({parsed.value}); "
        "acecode is off in this project until it is fixed"
    )
    assert _problems(out) == [f"[problem] {reason}"]
    assert f"nothing is injected: acecode is off here ({reason})" in out


def test_doctor_writes_nothing_in_the_folder_it_runs_from(
    env: dict[str, str], project_dir: Path, home_dir: Path
) -> None:
    """With a user layer every folder has something to inject; doctor still writes no
    injection cache (or anything else) there."""
    user_layer = home_dir / ".claude" / "acecode-user" / "playbook.json"
    save_playbook({"sections": {"OTHERS": [{**ENTRY, "name": "u-oth-001"}]}}, user_layer)
    elsewhere = project_dir.parent / "elsewhere"
    elsewhere.mkdir()
    for folder in (project_dir, elsewhere):
        before = sorted(folder.rglob("*"))
        run("doctor", env={**env, "CLAUDE_PROJECT_DIR": str(folder)})
        assert sorted(folder.rglob("*")) == before


def test_install_names_the_provider_or_how_to_configure_one(
    env: dict[str, str], project_dir: Path
) -> None:
    named = run("install", env=env).stdout
    assert (
        "learning will call anthropic (claude-sonnet-4-6): AGENTIC_CONTEXT_API_KEY is set" in named
    )
    assert "every session is learned from however it ends" in named

    bare = {k: v for k, v in env.items() if not k.startswith("AGENTIC_")}
    missing = run("install", env=bare).stdout
    assert (
        "no LLM provider is configured, so sessions will not be learned from until one is "
        "(the playbook is still injected). Choose one:" in missing
    )
    assert "set AGENTIC_CONTEXT_API_KEY (or ANTHROPIC_API_KEY)" in missing
    assert "every session is learned from" not in missing
