"""`acecode doctor` as a new user meets it in the first week (issue 29): no false
warning for a pinned user-layer entry, a missing optional extra as one note with the
command that adds it (exit 0), the provider the hooks used beside the shell's, and the
playbook's size in plain words. Real `python -m acecode` subprocesses in a fresh home."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_users import set_up_user
from test_cli_commands import run

from acecode.store import save_playbook


@pytest.fixture
def env(project_dir: Path, home_dir: Path, tmp_path: Path) -> dict[str, str]:
    """A user with a provider and acecode's hooks installed (doctor: "all good")."""
    return set_up_user(project_dir, tmp_path)


USER_ENTRY = {"name": "u-pref-001", "text": "Answer briefly.", "helpful": 1, "harmful": 0}


def _lines(out: str, start: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith(start)]


def test_a_pinned_user_layer_entry_is_not_called_missing(
    env: dict[str, str], home_dir: Path
) -> None:
    user = home_dir / ".claude" / "acecode-user" / "playbook.json"
    save_playbook({"sections": {"USER PREFERENCES": [USER_ENTRY]}}, user)
    run("pin", "u-pref-001", env=env)
    assert "u-pref-001" in run("show", "--injected", env=env).stdout

    out = run("doctor", env=env).stdout

    assert "pinned: u-pref-001" in out
    assert not _lines(out, "[warning]"), out
    assert out.rstrip().endswith("all good")


def test_a_pin_naming_no_entry_in_either_layer_is_still_a_warning(
    env: dict[str, str], home_dir: Path
) -> None:
    user = home_dir / ".claude" / "acecode-user" / "playbook.json"
    save_playbook({"sections": {"USER PREFERENCES": [USER_ENTRY]}}, user)
    run("pin", "u-pref-001", env=env)
    save_playbook({"sections": {"USER PREFERENCES": []}}, user)

    out = run("doctor", env=env).stdout

    (warning,) = _lines(out, "[warning]")
    assert warning.startswith("[warning] pinned but not in the playbook: u-pref-001")


def _without(tmp_path: Path, module: str) -> str:
    """A folder to put first on PYTHONPATH in which ``module`` cannot be imported, as in
    an install without the ``embed`` extra (Python raises exactly this when it is absent)."""
    shim = tmp_path / f"without-{module}"
    shim.mkdir()
    (shim / f"{module}.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\", name={module!r})\n"
    )
    return str(shim)


def test_without_the_embed_extra_doctor_notes_the_command_that_adds_it_and_exits_0(
    env: dict[str, str],
    tmp_path: Path,
) -> None:
    env = {**env, "PYTHONPATH": _without(tmp_path, "onnxruntime")}

    out = run("doctor", env=env, check_exit=0).stdout

    (note,) = _lines(out, "[note]")
    assert "semantic de-duplication is off" in note
    assert "onnxruntime is not installed" in note
    assert "[embed]" in note and "install" in note
    assert not _lines(out, "[problem]") and not _lines(out, "[warning]"), out
    assert out.rstrip().endswith("all good")


def test_a_changed_embedding_model_file_is_still_a_problem(
    env: dict[str, str],
) -> None:
    env = {
        **env,
        "ACECODE_EMBED_BACKEND": "sentence-transformers",
        "ACECODE_EMBED_MODEL": "/nonexistent",
    }

    out = run("doctor", env=env, check_exit=1).stdout

    (problem,) = _lines(out, "[problem]")
    assert "semantic de-duplication disabled" in problem and "is not a folder" in problem


def _hook_cycle(project: Path, **fields: object) -> None:
    """One cycle record as the learner a SessionEnd hook started writes it (through the
    learner's own writer), with Claude Code's environment, not this shell's."""
    from acecode.project import outcomes
    from acecode.project.layer import Layer

    record = {
        "cycle_id": "20260101T100000-abcdef",
        "finished_at": "2026-01-01T10:00:04+00:00",
        "source": "session-end",
        "transcript": str(project / "s.jsonl"),
        "status": "ok",
        "reason": "",
        **fields,
    }
    outcomes.record_outcome(Layer.of_project(project), record)


def test_doctor_names_the_provider_the_hooks_used_beside_the_shells(
    env: dict[str, str],
    project_dir: Path,
) -> None:
    _hook_cycle(
        project_dir,
        provider="claude",
        model="sonnet",
        provider_reason="the `claude` command is on PATH",
    )

    out = run("doctor", env=env).stdout
    section = out.split("LLM provider", 1)[1].split("nested claude runs", 1)[0]

    assert "provider: anthropic (AGENTIC_CONTEXT_API_KEY is set)" in section  # this shell's
    (hooks,) = [line.strip() for line in section.splitlines() if "hooks" in line]
    assert hooks.startswith("the hooks' last cycle here (2026-01-01T10:00:04+00:00, session-end)")
    assert "provider claude (the `claude` command is on PATH), model sonnet" in hooks
    assert "not this shell's" in hooks
    assert out.rstrip().endswith("all good")


def test_no_provider_in_this_shell_is_a_note_when_the_hooks_have_one(
    env: dict[str, str],
    project_dir: Path,
) -> None:
    shell = {k: v for k, v in env.items() if not k.startswith("AGENTIC_CONTEXT_")}
    _hook_cycle(project_dir, provider="anthropic", model="claude-sonnet-4-6")

    out = run("doctor", env=shell, check_exit=0).stdout

    notes = _lines(out, "[note]")
    assert any("no LLM provider is configured in this shell" in note for note in notes), out
    assert not _lines(out, "[problem]")


def test_no_provider_anywhere_is_still_a_problem(
    env: dict[str, str],
    project_dir: Path,
) -> None:
    shell = {k: v for k, v in env.items() if not k.startswith("AGENTIC_CONTEXT_")}
    _hook_cycle(project_dir, provider="anthropic", model="claude-sonnet-4-6")
    _hook_cycle(
        project_dir,
        status="failed",
        reason="no LLM provider is configured; run `acecode doctor` to see how to set one",
    )

    out = run("doctor", env=shell, check_exit=1).stdout

    assert _lines(out, "[problem]")[0].startswith("[problem] no LLM provider is configured")
    assert "the hooks' last cycle here" in out and "found no LLM provider" in out


def test_the_playbook_size_is_said_in_plain_words(env: dict[str, str], project_dir: Path) -> None:
    out = run("doctor", env=env).stdout
    stats = run("stats", env=env).stdout

    (line,) = [x.strip() for x in out.splitlines() if "playbook.json: 1 entry" in x]
    assert line.endswith(
        ": 1 entry (a small playbook, still growing; 50-150 entries is a healthy size)"
    )
    playbook = out.split("\nplaybook\n", 1)[1].split("\nuser layer\n", 1)[0]
    for text in (playbook, stats):
        assert "phase" not in text and "band" not in text and ": no" not in text
    assert "a small playbook, still growing" in stats
