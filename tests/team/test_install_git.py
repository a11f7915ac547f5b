"""``acecode install --git`` / ``uninstall --git`` in real repositories."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from team_support import PLAYBOOK, acecode, commit, entries, git, init_repo, playbook, status

LINE = ".claude/playbook.json merge=acecode"
BASE_ROWS = [("pat-001", "Run pytest -x before pushing", 2, 0)]


def config(repo: Path, key: str) -> str | None:
    done = git(repo, "config", "--local", "--get", key, ok=(0, 1))
    return done.stdout.strip() if done.returncode == 0 else None


def test_install_adds_the_attribute_line_and_the_local_driver_config(project_dir: Path) -> None:
    git(project_dir, "init", "-q", "-b", "main")
    (project_dir / ".gitattributes").write_text(
        "*.png binary\n*.sh text eol=lf"
    )  # no final newline

    out = acecode(project_dir, "install", "--git").stdout

    assert (
        project_dir / ".gitattributes"
    ).read_text() == f"*.png binary\n*.sh text eol=lf\n{LINE}\n"
    attr = git(project_dir, "check-attr", "merge", "--", str(PLAYBOOK)).stdout
    assert attr.strip() == ".claude/playbook.json: merge: acecode"
    driver = config(project_dir, "merge.acecode.driver")
    assert driver is not None and driver.endswith(" merge-driver %O %A %B %P")
    executable = shlex.split(driver)[0]
    assert Path(executable).is_absolute() and Path(executable).exists()
    assert config(project_dir, "merge.acecode.recursive") == "acecode-base"
    assert config(project_dir, "merge.acecode-base.driver") == (
        driver.replace("merge-driver", "merge-driver --virtual-base")
    )
    assert config(project_dir, "merge.acecode.name")
    assert (project_dir / ".claude" / "acecode" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert "git config --local merge.acecode.driver" in out
    assert "each teammate runs `acecode install --git` once" in out
    assert status(project_dir) == ["?? .gitattributes"]


def test_install_twice_changes_nothing(project_dir: Path) -> None:
    git(project_dir, "init", "-q", "-b", "main")
    acecode(project_dir, "install", "--git")
    before = (
        (project_dir / ".gitattributes").read_bytes(),
        (project_dir / ".git/config").read_bytes(),
    )

    out = acecode(project_dir, "install", "--git").stdout

    after = (
        (project_dir / ".gitattributes").read_bytes(),
        (project_dir / ".git/config").read_bytes(),
    )
    assert after == before
    assert "already has" in out and "already configured" in out


def test_a_project_in_a_subfolder_of_the_repository(project_dir: Path) -> None:
    git(project_dir, "init", "-q", "-b", "main")
    service = project_dir / "services" / "api"
    (service / ".claude").mkdir(parents=True)
    # Claude Code settings of its own make the service a project (acecode.project.project_root);
    # without them, a folder of the repository belongs to the repository's project.
    (service / ".claude" / "settings.json").write_text("{}\n")

    acecode(service, "install", "--git")

    assert (project_dir / ".gitattributes").read_text() == (
        "services/api/.claude/playbook.json merge=acecode\n"
    )
    assert (service / ".claude" / "acecode" / ".gitignore").exists()
    attr = git(project_dir, "check-attr", "merge", "--", "services/api/.claude/playbook.json")
    assert attr.stdout.strip().endswith("merge: acecode")


def test_install_warns_about_state_already_committed(project_dir: Path) -> None:
    git(project_dir, "init", "-q", "-b", "main")
    state = project_dir / ".claude" / "acecode"
    state.mkdir(parents=True)
    (state / "history.sqlite").write_bytes(b"journal committed by mistake")
    git(project_dir, "add", ".claude")
    git(project_dir, "commit", "-qm", "oops")

    out = acecode(project_dir, "install", "--git").stdout

    assert "warning: git tracks acecode's local state: .claude/acecode/history.sqlite" in out
    assert "git rm -r --cached .claude/acecode" in out


def test_uninstall_removes_the_line_and_the_config_and_keeps_the_rest(project_dir: Path) -> None:
    git(project_dir, "init", "-q", "-b", "main")
    (project_dir / ".gitattributes").write_text("*.png binary\n")
    git(project_dir, "config", "--local", "core.autocrlf", "false")
    acecode(project_dir, "install", "--git")

    out = acecode(project_dir, "uninstall", "--git").stdout

    assert (project_dir / ".gitattributes").read_text() == "*.png binary\n"
    for key in ("merge.acecode.driver", "merge.acecode.recursive", "merge.acecode-base.driver"):
        assert config(project_dir, key) is None
    assert config(project_dir, "core.autocrlf") == "false"
    assert "removed `.claude/playbook.json merge=acecode`" in out
    again = acecode(project_dir, "uninstall", "--git").stdout
    assert "has no" in again and "was not configured" in again


def test_uninstall_deletes_an_attributes_file_that_held_only_our_line(project_dir: Path) -> None:
    git(project_dir, "init", "-q", "-b", "main")
    acecode(project_dir, "install", "--git")
    acecode(project_dir, "uninstall", "--git")
    assert not (project_dir / ".gitattributes").exists()


def test_outside_a_repository_install_fails_with_one_line(project_dir: Path) -> None:
    done = acecode(project_dir, "install", "--git", ok=(1,))
    assert done.stderr.count("\n") == 1
    assert "is not inside a git work tree" in done.stderr
    assert not (project_dir / ".gitattributes").exists()


def test_the_driver_runs_without_acecode_on_path(project_dir: Path) -> None:
    """The config names this install's absolute path: git finds it with a bare PATH."""
    base = playbook(pat=BASE_ROWS)
    init_repo(project_dir, base)
    git(project_dir, "checkout", "-qb", "feature")
    commit(project_dir, playbook(pat=[*BASE_ROWS, ("pat-003", "Theirs", 0, 0)]), "f")
    git(project_dir, "checkout", "-q", "main")
    commit(project_dir, playbook(pat=[*BASE_ROWS, ("pat-003", "Ours", 0, 0)]), "m")
    git_folder = str(Path(shutil.which("git") or "/usr/bin/git").parent)
    assert shutil.which("acecode", path=git_folder) is None  # so PATH cannot find acecode

    done = git(project_dir, "merge", "--no-edit", "feature", env={"PATH": git_folder})

    assert "acecode: merged" in done.stderr
    assert entries(project_dir)["pat-004"][1]["text"] == "Theirs"


def test_without_the_driver_config_git_merges_as_text(project_dir: Path) -> None:
    """A teammate who has not run ``install --git`` gets git's usual text merge."""
    init_repo(project_dir, playbook(pat=BASE_ROWS))
    git(project_dir, "config", "--local", "--remove-section", "merge.acecode")
    git(project_dir, "checkout", "-qb", "feature")
    commit(project_dir, playbook(pat=[*BASE_ROWS, ("pat-003", "Theirs", 0, 0)]), "f")
    git(project_dir, "checkout", "-q", "main")
    commit(project_dir, playbook(pat=[*BASE_ROWS, ("pat-003", "Ours", 0, 0)]), "m")

    done = git(project_dir, "merge", "--no-edit", "feature", ok=(1,))

    assert "CONFLICT (content)" in done.stdout
    assert "<<<<<<<" in (project_dir / PLAYBOOK).read_text()
