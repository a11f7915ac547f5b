"""The project root is found the way git finds a repository, from any subfolder.

The folder layouts are real (``git init``, ``git worktree add``); the CLI and the hooks
run as real subprocesses from a subfolder, with ``CLAUDE_PROJECT_DIR`` unset (a
terminal) or set to the subfolder (what Claude Code sets when started there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hook_helpers import run_hook

from acecode.agents.claude_code.sessions import find_sessions, sessions_dir
from acecode.project import paths
from acecode.project.project_root import find_project_root, resolve_project
from acecode_cli import run_acecode
from support.hang_guard import HANG_GUARD
from support.pipeline import write_transcript


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=HANG_GUARD)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``tree/proj/sub/deeper``: a project below an unmarked folder, nothing marked yet."""
    deeper = tmp_path / "tree" / "proj" / "sub" / "deeper"
    deeper.mkdir(parents=True)
    return tmp_path / "tree"


@pytest.fixture
def in_subfolder(tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git project whose shell is in ``proj/sub/deeper``, no CLAUDE_PROJECT_DIR set."""
    git("init", "-q", cwd=tree / "proj")
    deeper = tree / "proj" / "sub" / "deeper"
    monkeypatch.delenv("CLAUDE_PROJECT_DIR")
    monkeypatch.chdir(deeper)
    return deeper


def _root(start: Path, home: Path | None = None) -> Path:
    return Path(find_project_root(str(start), None if home is None else str(home)))


# --- the walk ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "marker",
    [
        ".git/",
        ".git",  # a worktree's or a submodule's .git file
        ".claude/playbook.json",
        ".claude/acecode/",
        ".claude/acecode.toml",
        ".claude/settings.json",
        ".claude/settings.local.json",
    ],
)
def test_a_subfolder_finds_the_nearest_marked_folder(tree: Path, marker: str) -> None:
    target = tree / "proj" / marker.rstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if marker.endswith("/"):
        target.mkdir()
    else:
        target.write_text("gitdir: elsewhere\n" if marker == ".git" else "{}\n")
    assert _root(tree / "proj" / "sub" / "deeper") == tree / "proj"
    assert _root(tree / "proj") == tree / "proj"


def test_a_claude_folder_without_acecode_or_settings_is_not_a_root(tree: Path) -> None:
    (tree / "proj" / "sub" / ".claude" / "commands").mkdir(parents=True)
    (tree / "proj" / ".git").mkdir()
    assert _root(tree / "proj" / "sub" / "deeper") == tree / "proj"


def test_without_any_marker_the_start_folder_is_the_project(tree: Path) -> None:
    start = tree / "proj" / "sub" / "deeper"
    assert _root(start) == start


def test_the_nearest_marker_wins(tree: Path) -> None:
    (tree / "proj" / ".claude").mkdir()
    (tree / "proj" / ".claude" / "playbook.json").write_text("{}")
    (tree / "proj" / "sub" / ".git").write_text("gitdir: ../.git/modules/sub\n")  # a submodule
    assert _root(tree / "proj" / "sub" / "deeper") == tree / "proj" / "sub"


def test_a_git_worktree_is_its_own_project(tree: Path) -> None:
    main = tree / "proj"
    git("init", "-q", "-b", "main", cwd=main)
    (main / "README").write_text("x\n")
    git("add", "README", cwd=main)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", cwd=main)
    worktree = tree / "feature"
    git("worktree", "add", "-q", str(worktree), cwd=main)
    assert (worktree / ".git").is_file()
    (worktree / "src" / "pkg").mkdir(parents=True)
    assert _root(worktree / "src" / "pkg") == worktree


def test_home_is_never_a_root_and_the_walk_stops_there(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}")  # the user's settings
    (home / ".claude" / "playbook.json").write_text("{}")
    (home / ".git").mkdir()  # a dotfiles repository
    (tmp_path / ".git").mkdir()  # above the home folder
    start = home / "work" / "notes"
    start.mkdir(parents=True)
    assert _root(start, home) == start
    (home / "work" / ".git").mkdir()
    assert _root(start, home) == home / "work"
    assert _root(home, home) == home  # started in the home folder itself: that folder


# --- the CLI and the hooks agree ------------------------------------------------------------


@pytest.mark.parametrize("claude_project_dir", [None, "deeper", "elsewhere"])
def test_cli_and_hooks_resolve_the_same_root(
    in_subfolder: Path, tree: Path, monkeypatch: pytest.MonkeyPatch, claude_project_dir: str
) -> None:
    elsewhere = tree / "elsewhere" / "inner"
    elsewhere.mkdir(parents=True)
    (tree / "elsewhere" / ".git").mkdir()
    expected = tree / "proj"
    if claude_project_dir == "deeper":  # what Claude Code sets when started in the subfolder
        monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(in_subfolder))
    elif claude_project_dir == "elsewhere":  # set, it wins over the current folder
        monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(elsewhere))
        expected = tree / "elsewhere"
    cli = paths.project_dir()
    hook = resolve_project({"cwd": str(in_subfolder)})
    assert cli == expected
    assert hook == str(expected)


def test_the_hook_finds_the_root_from_the_input_cwd_without_the_variable(
    in_subfolder: Path, tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex sets no CLAUDE_PROJECT_DIR: its hooks start from the input's cwd."""
    monkeypatch.chdir(tree)
    assert resolve_project({"cwd": str(in_subfolder)}) == str(tree / "proj")


# --- commands from a subfolder ------------------------------------------------------------


def test_add_and_show_in_a_subfolder_use_the_projects_playbook(
    in_subfolder: Path, tree: Path
) -> None:
    root = tree / "proj"
    run_acecode("add", "Run make lint before pushing.", "--section", "pat")
    assert "Run make lint" in (root / ".claude" / "playbook.json").read_text()
    assert not (tree / "proj" / "sub" / "deeper" / ".claude").exists()
    assert not (tree / "proj" / "sub" / ".claude").exists()
    assert "Run make lint before pushing." in run_acecode("show").stdout


def test_switch_and_install_in_a_subfolder_write_the_projects_files(
    in_subfolder: Path, tree: Path
) -> None:
    root = tree / "proj"
    run_acecode("off")
    assert "enabled = false" in (root / ".claude" / "acecode" / "switch.toml").read_text()
    run_acecode("on")
    run_acecode("install", "--scope", "project")
    assert "acecode hook" in (root / ".claude" / "settings.json").read_text()
    run_acecode("install", "--scope", "local")
    assert "acecode hook" in (root / ".claude" / "settings.local.json").read_text()
    run_acecode("install", "--git")
    assert ".claude/playbook.json merge=acecode" in (root / ".gitattributes").read_text()
    assert not any(in_subfolder.iterdir())


def test_bootstrap_in_a_subfolder_looks_for_the_projects_sessions(
    in_subfolder: Path, tree: Path
) -> None:
    failed = run_acecode("bootstrap", code=1)
    folder = sessions_dir(tree / "proj")
    assert f"sessions of {tree / 'proj'} found in {folder}" in " ".join(failed.stderr.split())


def _session(folder: Path, name: str, cwd: Path) -> Path:
    path = folder / f"{name}.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    write_transcript(path, f"work in {cwd}", "done")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps({**r, "cwd": str(cwd)}) + "\n" for r in records))
    return path


def test_sessions_started_in_subfolders_belong_to_the_project(tree: Path) -> None:
    root = tree / "proj"
    git("init", "-q", cwd=root)
    nested = root / "vendor" / "lib"  # a nested repository: a project of its own
    nested.mkdir(parents=True)
    git("init", "-q", cwd=nested)
    sibling = tree / "proj" / "sub" / "deeper"
    lookalike = tree / "proj-sub"  # encodes like proj/sub
    lookalike.mkdir()
    at_root = _session(sessions_dir(root), "at-root", root)
    in_sub = _session(sessions_dir(sibling), "in-sub", sibling)
    _session(sessions_dir(nested), "in-nested", nested)
    _session(sessions_dir(lookalike), "lookalike", lookalike)
    os.utime(at_root, (1_700_000_000, 1_700_000_000))
    os.utime(in_sub, (1_700_000_060, 1_700_000_060))
    assert find_sessions(root) == [at_root, in_sub]


def test_a_hook_in_a_subfolder_session_injects_and_learns_for_the_project(
    in_subfolder: Path, tree: Path, tmp_path: Path
) -> None:
    root = tree / "proj"
    run_acecode("add", "Run make lint before pushing.", "--section", "pat")
    env = {"CLAUDE_PROJECT_DIR": str(in_subfolder)}  # as Claude Code sets it
    start = {"session_id": "sub-1", "source": "startup", "cwd": str(in_subfolder)}
    assert "Run make lint before pushing." in run_hook("session-start", start, env=env).context()
    stub = tmp_path / "stub_learner.py"
    stub.write_text("# learns nothing: the hook's log line says where it was started for\n")
    transcript = tmp_path / "t.jsonl"
    write_transcript(transcript, "some work", "done")
    end = {"session_id": "sub-1", "reason": "other", "transcript_path": str(transcript)}
    learner = {**env, "ACECODE_LEARN_COMMAND": f"{sys.executable} {stub}"}
    assert run_hook("session-end", end, env=learner).returncode == 0
    log = (root / ".claude" / "acecode" / "logs" / "learn.log").read_text()
    assert f"session-end: learning from {transcript}" in log
    assert not (in_subfolder / ".claude").exists()
