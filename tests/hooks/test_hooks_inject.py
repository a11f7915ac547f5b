"""Injection hooks end to end: SessionStart and the UserPromptSubmit fallback."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

import pytest
from hook_helpers import ACECODE, run_hook, write_playbook

from acecode.hooks import context
from acecode.project import paths
from acecode.project.layer import Layer
from support.playbooks import entry, written_here


def _start(session: str = "s1", source: str = "startup", **extra) -> dict:
    return {"session_id": session, "hook_event_name": "SessionStart", "source": source, **extra}


def _prompt(session: str = "s1", **extra) -> dict:
    """A prompt's input as Claude Code sends it: every prompt has its own ``prompt_id``."""
    return {
        "session_id": session,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "hi",
        "prompt_id": uuid.uuid4().hex,
        **extra,
    }


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact"])
def test_session_start_injects_playbook_for_every_source(playbook: Path, source: str) -> None:
    run = run_hook("session-start", _start(source=source))
    assert run.returncode == 0
    assert run.stderr == ""
    out = run.output()["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "## PATTERNS & APPROACHES" in out["additionalContext"]
    assert (
        "[pat-001] helpful=3 harmful=0 :: Run pytest -q before committing"
        in (out["additionalContext"])
    )
    assert (
        "[mis-001] helpful=1 harmful=1 :: Never edit generated files by hand"
        in (out["additionalContext"])
    )


def test_claude_code_event_names_are_accepted(playbook: Path) -> None:
    assert run_hook("SessionStart", _start()).context()
    assert run_hook("UserPromptSubmit", _prompt("other")).context()


def test_event_name_from_input_when_no_argument(playbook: Path) -> None:
    run = run_hook("", _start(), command=[*ACECODE, "hook"])
    assert run.output()["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_compact_session_start_reinjects_and_prompt_fallback_stays_quiet(playbook: Path) -> None:
    first = run_hook("session-start", _start(source="startup"))
    assert first.context()
    assert run_hook("user-prompt-submit", _prompt()).stdout == ""
    compacted = run_hook("session-start", _start(source="compact"))
    assert compacted.context() == first.context()
    assert run_hook("user-prompt-submit", _prompt()).stdout == ""


def test_user_prompt_submit_fallback_injects_exactly_once_per_session(playbook: Path) -> None:
    first = run_hook("user-prompt-submit", _prompt("s9"))
    assert first.returncode == 0
    out = first.output()["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    assert "[pat-001]" in out["additionalContext"]
    for _ in range(2):
        again = run_hook("user-prompt-submit", _prompt("s9"))
        assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    assert run_hook("user-prompt-submit", _prompt("s10")).context() == out["additionalContext"]


def test_prompt_without_session_id_is_not_injected(playbook: Path) -> None:
    run = run_hook("user-prompt-submit", {"prompt": "hi"})
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_empty_playbook_injects_nothing(project_dir: Path) -> None:
    write_playbook(project_dir, {"PATTERNS & APPROACHES": [], "OTHERS": []})
    for event, payload in (("session-start", _start()), ("user-prompt-submit", _prompt("s2"))):
        run = run_hook(event, payload)
        assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_missing_playbook_injects_nothing_and_leaves_no_files(project_dir: Path) -> None:
    for event, payload in (("session-start", _start()), ("user-prompt-submit", _prompt())):
        run = run_hook(event, payload)
        assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert not (project_dir / ".claude").exists()


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[1, 2]", b'{"sections": {"OTHERS": [{"name": "oth-001"}]}}', b"\xff\xfe"],
)
def test_a_corrupt_playbook_is_named_to_the_user_and_left_untouched(
    project_dir: Path, content: bytes
) -> None:
    """Claude Code does not show a hook's stderr: the SessionStart notice names the file;
    a prompt injects nothing; the file is never touched."""
    path = project_dir / ".claude" / "playbook.json"
    path.parent.mkdir()
    path.write_bytes(content)
    for session in ("s1", "s2"):  # rendered, then from the cache
        run = run_hook("session-start", _start(session))
        assert (run.returncode, run.stderr) == (0, "")
        output = run.output()
        assert list(output) == ["systemMessage"]  # nothing injected
        (line,) = output["systemMessage"].splitlines()
        assert line.startswith(
            f"acecode: the playbook was not injected and sessions are not learned from: {path}"
        )
        assert line.endswith("fix the file or move it aside (`acecode doctor`)")
    prompt = run_hook("user-prompt-submit", _prompt())
    assert (prompt.returncode, prompt.stdout, prompt.stderr) == (0, "", "")
    assert path.read_bytes() == content


@pytest.mark.parametrize("variable", ["ACECODE_HOOKS_DISABLED", "ACECODE_SKIP"])
def test_hooks_disabled_env_does_nothing(playbook: Path, project_dir: Path, variable: str) -> None:
    state = project_dir / ".claude" / "acecode"
    before = sorted(state.rglob("*"))
    for event, payload in (("session-start", _start()), ("user-prompt-submit", _prompt())):
        run = run_hook(event, payload, env={variable: "1"})
        assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
    assert sorted(state.rglob("*")) == before  # no marker, no cache


def test_project_comes_from_input_cwd_without_claude_project_dir(
    tmp_path: Path, home_dir: Path
) -> None:
    other = tmp_path / "elsewhere"
    write_playbook(other, {"OTHERS": [entry("oth-001", "Project from the cwd field")]})
    run = run_hook("session-start", _start(cwd=str(other)), drop_env=("CLAUDE_PROJECT_DIR",))
    assert "Project from the cwd field" in run.context()


def test_playbook_changes_reach_the_next_injection(project_dir: Path) -> None:
    path = write_playbook(project_dir, {"OTHERS": [entry("oth-001", "first version")]})
    assert "first version" in run_hook("session-start", _start()).context()
    assert "first version" in run_hook("session-start", _start("s2")).context()  # cached
    tmp = path.with_suffix(".tmp")  # replaced like the store does: a new inode
    tmp.write_text(
        json.dumps({"sections": {"OTHERS": [entry("oth-001", "second version")]}}),
        encoding="utf-8",
    )
    os.replace(tmp, path)
    written_here(path)  # the user's own edit (one from git would be an arrival)
    text = run_hook("session-start", _start("s3")).context()
    assert "second version" in text
    assert "first version" not in text


def test_user_template_override_is_used_and_invalidates_cache(
    playbook: Path, home_dir: Path
) -> None:
    assert "<acecode-playbook>" in run_hook("session-start", _start()).context()
    override = home_dir / ".claude" / "prompts" / "playbook.txt"
    override.parent.mkdir(parents=True)
    override.write_text("MY PLAYBOOK\n{key_points}\n", encoding="utf-8")
    text = run_hook("session-start", _start("s2")).context()
    assert text.startswith("MY PLAYBOOK\n## PATTERNS & APPROACHES")


def test_stale_markers_are_removed(playbook: Path, project_dir: Path) -> None:
    sessions = project_dir / ".claude" / "acecode" / "sessions"
    sessions.mkdir(parents=True)
    old, recent = sessions / "old-session", sessions / "recent-session"
    for marker in (old, recent):
        marker.write_text("SessionStart:startup\n")
    four_days_ago = time.time() - 4 * 24 * 3600
    os.utime(old, (four_days_ago, four_days_ago))
    run_hook("session-start", _start("new-session"))
    assert sorted(p.name for p in sessions.iterdir()) == ["new-session", "recent-session"]


def test_session_ids_cannot_escape_the_marker_folder(playbook: Path, project_dir: Path) -> None:
    run = run_hook("session-start", _start("../../../escape"))
    assert run.context()
    sessions = project_dir / ".claude" / "acecode" / "sessions"
    markers = list(sessions.iterdir())
    assert len(markers) == 1
    assert markers[0].parent == sessions
    assert not (project_dir.parent / "escape").exists()


_HEAVY = ("typer", "rich", "anthropic", "openai", "numpy", "filelock", "acecode.store", "httpx")


def _imported_modules(run_stderr: str) -> set[str]:
    names = set()
    for line in run_stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


@pytest.mark.parametrize("event", ["session-start", "user-prompt-submit"])
def test_injection_hot_path_imports_nothing_heavy(playbook: Path, event: str) -> None:
    import sys

    run_hook("session-start", _start("warm"))  # renders once and fills the cache
    run_hook("user-prompt-submit", _prompt("warm"))  # builds the top-up index
    command = [sys.executable, "-X", "importtime", "-m", "acecode", "hook", event]
    payload = _start("s5") if event == "session-start" else _prompt("warm")
    run = run_hook(event, payload, command=command)
    modules = _imported_modules(run.stderr)
    assert "acecode.hooks.inject" in modules
    heavy = sorted(m for m in modules if m.split(".")[0] in _HEAVY or m.startswith(_HEAVY))
    assert heavy == []


def test_context_paths_mirror_acecode_paths(project_dir: Path) -> None:
    project = str(project_dir)
    # What the hooks build from the project's root string is what the CLI finds.
    layer = Layer.of_project(project)
    assert layer.playbook == str(paths.playbook_path(project_dir))
    assert layer.state_file("x") == str(paths.state_dir(project_dir) / "x")
    assert context.user_template_override("playbook.txt") == str(
        paths.user_claude_dir() / "prompts" / "playbook.txt"
    )


def test_only_a_cache_miss_loads_the_store(playbook: Path) -> None:
    """The control for the test above: the import scan does see the store when it is used."""
    import sys

    command = [sys.executable, "-X", "importtime", "-m", "acecode", "hook", "session-start"]
    modules = _imported_modules(run_hook("session-start", _start(), command=command).stderr)
    assert "acecode.store" in modules


def test_cache_miss_imports_only_the_reading_part_of_the_store(
    playbook: Path, project_dir: Path
) -> None:
    """A miss reads and formats the playbook without the lock, atomic-write and pathlib."""
    import sys

    assert run_hook("session-start", _start("first")).context()  # fills the user checks' cache
    (project_dir / ".claude" / "acecode" / "injection-cache.json").unlink()
    command = [sys.executable, "-X", "importtime", "-m", "acecode", "hook", "session-start"]
    run = run_hook("session-start", _start("second"), command=command)
    assert run.context()
    modules = _imported_modules(run.stderr)
    assert "acecode.store.reading" in modules
    assert {"acecode.store.playbook_file", "acecode.store.atomic", "pathlib"} & modules == set()


def test_torn_cache_is_a_miss(playbook: Path, project_dir: Path) -> None:
    """The cache is written without fsync: a torn file must just be rendered again."""
    expected = run_hook("session-start", _start("first")).context()
    cache = project_dir / ".claude" / "acecode" / "injection-cache.json"
    cache.write_text(cache.read_text(encoding="utf-8")[:40], encoding="utf-8")
    assert run_hook("session-start", _start("second")).context() == expected
    assert json.loads(cache.read_text(encoding="utf-8"))["text"] == expected
