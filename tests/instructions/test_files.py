"""Finding Claude Code's instruction files as the pinned CLI loads them (docs/claude-code.md).

The real CLI's side is tests/realclient/test_real_instruction_files.py; these are the
same rules on real files, without the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acecode.instructions import auto_memory
from acecode.instructions.files import instruction_files, strip_comments
from acecode.instructions.frontmatter import render_front_matter, split_front_matter


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        ('---\npaths:\n  - "src/**/*.py"\n---\nbody\n', ("src/**/*.py",)),
        ("---\npaths: **/*.ts\n---\nbody\n", ("**/*.ts",)),  # invalid YAML, accepted
        ("---\npaths: src/**/*.ts, lib/*.ts\n---\nbody\n", ("src/**/*.ts", "lib/*.ts")),
        ('---\npaths: ["docs/*.md"]\n---\nbody\n', ("docs/*.md",)),
        ('---\npaths: "src/{a,b}/*.ts"\n---\nbody\n', ("src/{a,b}/*.ts",)),
        ("---\npaths:\n  - **/*.go\n---\nbody\n", ()),  # a broken block list: loaded at start
        ("---\npaths: []\n---\nbody\n", ()),
        ("---\nglobs: src/*.ts\n---\nbody\n", ()),
        ("no front matter\n", ()),
    ],
)
def test_paths_of_the_front_matter_as_claude_code_reads_them(
    text: str, paths: tuple[str, ...]
) -> None:
    matter = split_front_matter(text)
    assert matter.paths == paths
    assert matter.body == ("body\n" if text.startswith("---") else text)


def test_rendered_front_matter_reads_back() -> None:
    patterns = ("src/api/**", 'odd "quoted" name.py')
    assert split_front_matter(render_front_matter(patterns) + "rule\n").paths == patterns


def test_comments_that_open_a_line_go_others_stay() -> None:
    text = "a\n<!-- gone -->\nb <!-- inline --> c\n  <!-- indented -->\n```\n<!-- fenced -->\n```\n"
    assert strip_comments(text) == (
        "a\nb <!-- inline --> c\n  <!-- indented -->\n```\n<!-- fenced -->\n```\n"
    )


def test_every_kind_of_file_in_claude_codes_order(project_dir: Path, home_dir: Path) -> None:
    write(home_dir / ".claude/CLAUDE.md", "user")
    write(home_dir / ".claude/rules/a.md", "user rule")
    write(project_dir / "CLAUDE.md", "project, see @docs/x.md and `@not/code.md`")
    write(project_dir / "docs/x.md", "imported")
    write(project_dir / "not/code.md", "never imported")
    write(project_dir / ".claude/CLAUDE.md", "dot claude")
    write(project_dir / ".claude/rules/sub/b.md", "nested rule")
    write(project_dir / ".claude/rules/c.md", "---\npaths: src/**\n---\nlimited")
    write(project_dir / ".claude/rules/d.txt", "not a rule")
    write(project_dir / "CLAUDE.local.md", "local")
    found = [(f.label, f.kind, f.text, f.paths) for f in instruction_files(project_dir)]
    assert found == [
        ("~/.claude/CLAUDE.md", "user", "user", ()),
        ("~/.claude/rules/a.md", "user", "user rule", ()),
        ("CLAUDE.md", "project", "project, see @docs/x.md and `@not/code.md`", ()),
        ("docs/x.md", "project", "imported", ()),
        (".claude/CLAUDE.md", "project", "dot claude", ()),
        (".claude/rules/c.md", "project", "limited", ("src/**",)),
        (".claude/rules/sub/b.md", "project", "nested rule", ()),
        ("CLAUDE.local.md", "local", "local", ()),
    ]


def test_a_claude_md_above_the_project_and_an_import_loop(project_dir: Path) -> None:
    write(project_dir.parent / "CLAUDE.md", "above @project/CLAUDE.md")
    write(project_dir / "CLAUDE.md", "below @../CLAUDE.md")
    assert [f.text for f in instruction_files(project_dir)] == [
        "above @project/CLAUDE.md",
        "below @../CLAUDE.md",
    ]


def test_auto_memory_is_named_after_the_main_worktree(project_dir: Path, home_dir: Path) -> None:
    main = project_dir / "repo"
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    write(main / ".git" / "worktrees" / "wt" / "commondir", "../..\n")
    tree = project_dir / "wt"
    write(tree / ".git", f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    (tree / "sub").mkdir()
    assert auto_memory.repository_root(tree / "sub") == main.resolve()
    encoded = str(main.resolve()).replace("/", "-")
    assert auto_memory.memory_folder(tree) == home_dir / ".claude/projects" / encoded / "memory"


def test_memory_index_loads_200_lines_within_25000_bytes(project_dir: Path) -> None:
    short = "\n".join(f"line {n}" for n in range(1, 301))
    assert auto_memory.loaded_part(short).split("\n")[-1] == "line 200"
    long = "\n".join(f"{n:03d}" + "x" * 1000 for n in range(1, 61))
    kept = auto_memory.loaded_part(long)
    assert kept.split("\n")[-1].startswith("024") and len(kept.encode()) <= 25_000


def test_auto_memory_off_by_variable_or_settings(
    project_dir: Path, home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(auto_memory.memory_folder(project_dir) / "MEMORY.md", "- a note\n")
    assert [f.kind for f in instruction_files(project_dir)] == ["memory"]
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")
    assert instruction_files(project_dir) == []
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_AUTO_MEMORY")
    write(home_dir / ".claude/settings.json", json.dumps({"autoMemoryEnabled": False}))
    assert "autoMemoryEnabled" in (auto_memory.disabled_by(project_dir) or "")
    assert instruction_files(project_dir) == []
