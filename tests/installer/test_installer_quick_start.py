"""The README's Quick start install line, run verbatim on a stock machine.

"Stock": a fresh, empty HOME, a copy of the repository as a clone has it, and a
PATH with python3 and the system folders only: no uv, no pipx, no virtualenv
active. The line must install acecode, hook it into Claude Code, and leave
``acecode`` callable in a NEW login shell (one that starts from a bare PATH, as a
new terminal does). Running it again is an upgrade that changes nothing else, and
the README's uninstall command takes it all out again.

The line is read from README.md, so the README and this test cannot drift apart.
These tests need PyPI (pip downloads acecode's dependencies). pip's download cache
is the developer's, so that a rerun does not download everything again: it
changes where wheels come from, not what is installed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from installer_support import BARE_PATH, INSTALLER, NEW_SHELLS, REPO, in_new_shell

import acecode
from acecode.agents.claude_code.install import HOOK_EVENTS
from support.hang_guard import HANG_GUARD, LONG_HANG_GUARD

pytestmark = pytest.mark.slow

README = REPO / "README.md"
UNINSTALL = "python3 install.py --uninstall"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# Read before the autouse fixture points HOME at a fresh folder.
PIP_CACHE = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
# Variables that would make the run less than stock, or point it at another install.
_NOT_STOCK = ("HOME", "PATH", "VIRTUAL_ENV", "PYTHON", "UV_", "PIPX_", "CONDA", "ZDOTDIR", "XDG_")


def quick_start_lines() -> list[str]:
    """The lines of the first bash block under README's "## Quick start", comments cut."""
    section = README.read_text(encoding="utf-8").split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, "README's Quick start has no bash block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]


def quick_start_install_line() -> str:
    """The Quick start's first line: the install."""
    return quick_start_lines()[0]


def check_line_in_a_new_terminal(home: Path, project: Path) -> subprocess.CompletedProcess[str]:
    """The Quick start's second line (the check), run as a user runs it: in a new terminal
    (an interactive bash that reads ~/.bashrc), in a project, with Claude Code's `claude`
    (the pinned CLI) on PATH, as a Claude Code user has it."""
    (_install, check) = quick_start_lines()  # exactly two lines: install, then check
    claude = REPO / "tests" / "clients" / "node_modules" / ".bin" / "claude"
    node = shutil.which("node")
    if not claude.exists() or node is None:
        pytest.skip("the pinned Claude Code CLI is not installed (npm ci --prefix tests/clients)")
    path = os.pathsep.join([str(claude.parent), str(Path(node).parent), BARE_PATH])
    return subprocess.run(
        ["bash", "-i", "-c", check],
        env={"HOME": str(home), "PATH": path},
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )


def copy_of_the_clone(destination: Path) -> Path:
    """The repository's files as a clone holds them (tracked and new, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        timeout=HANG_GUARD,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if not source.exists():
            continue  # deleted in the work tree, not yet in git
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    return destination


def python_at_least_3_11(python: str) -> bool:
    probe = "import sys; sys.exit(sys.version_info < (3, 11))"
    return subprocess.run([python, "-c", probe], timeout=HANG_GUARD, check=False).returncode == 0


def stock_path(tmp_path: Path) -> str:
    """The system folders, plus a python3 >= 3.11 in front when the system has none."""
    system_python = shutil.which("python3", path=SYSTEM_PATH)
    if system_python and python_at_least_3_11(system_python):
        path = SYSTEM_PATH
    else:
        shim = tmp_path / "python-only"
        shim.mkdir()
        base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
        (shim / "python3").write_text(f'#!/bin/sh\nexec "{base}" "$@"\n')
        (shim / "python3").chmod(0o755)
        path = f"{shim}:{SYSTEM_PATH}"
    for tool in ("uv", "pipx"):
        if shutil.which(tool, path=path):
            pytest.skip(f"{tool} is installed in a system folder: this machine is not stock")
    return path


def stock_environment(home: Path, path: str) -> dict[str, str]:
    """This process's environment (proxies, pip's index settings) made stock."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(_NOT_STOCK)}
    return {**kept, "HOME": str(home), "PATH": path, "PIP_CACHE_DIR": PIP_CACHE}


def run_line(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["bash", "-c", line],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=LONG_HANG_GUARD,
        check=False,
    )
    assert result.returncode == 0, f"`{line}` failed:\n{result.stdout}\n{result.stderr}"
    return result


def startup_files(home: Path) -> dict[str, str]:
    return {f.name: f.read_text() for f in home.iterdir() if f.is_file() and f.name.startswith(".")}


def session_start_context(command: str, home: Path, project: Path) -> str:
    """Run the installed SessionStart hook command as Claude Code does, off ~/.local/bin."""
    event = {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"}
    result = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps({**event, "cwd": str(project)}),
        env={"HOME": str(home), "PATH": BARE_PATH, "CLAUDE_PROJECT_DIR": str(project)},
        cwd=project,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_quick_start_line_installs_hooks_and_works_in_a_new_login_shell(
    home_dir: Path, tmp_path: Path
) -> None:
    line = quick_start_install_line()
    clone = copy_of_the_clone(tmp_path / "acecode")
    env = stock_environment(home_dir, stock_path(tmp_path))
    venv_acecode = home_dir / ".local" / "share" / "acecode" / "venv" / "bin" / "acecode"

    installed = run_line(line, clone, env)

    # pip's hundred lines stay out of the way: one progress line, then the summary.
    assert "Collecting" not in installed.stdout and "Downloading" not in installed.stdout
    assert len(installed.stdout.splitlines()) < 40, installed.stdout
    for name, shell in NEW_SHELLS.items():
        found = in_new_shell(shell, home_dir, "command -v acecode && acecode --version")
        assert found.returncode == 0, (name, found.stderr)
        assert found.stdout.split() == [
            str(home_dir / ".local" / "bin" / "acecode"),
            "acecode",
            acecode.__version__,
        ], name
    settings = json.loads((home_dir / ".claude" / "settings.json").read_text())
    for hook in HOOK_EVENTS:
        (group,) = settings["hooks"][hook.event]
        command = group["hooks"][0]["command"]
        if hook.per_call:  # recall's fast path, with the venv's interpreter
            words = shlex.split(command)
            assert Path(words[0]).parent == venv_acecode.parent and words[-1] == hook.argument
        else:
            assert command == f"{venv_acecode} hook {hook.argument}"
    # The hooks name the venv's command by its full path: they work where Claude
    # Code's PATH lacks ~/.local/bin (an app started from the desktop).
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    entry = {"name": "oth-001", "text": "installed hooks inject this rule"}
    (project / ".claude" / "playbook.json").write_text(
        json.dumps({"sections": {"OTHERS": [entry]}})
    )
    start = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert "installed hooks inject this rule" in session_start_context(start, home_dir, project)

    # The second line: the check, all good for a Claude Code user, not a false warning.
    checked = check_line_in_a_new_terminal(home_dir, project)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.rstrip().endswith("all good"), checked.stdout
    assert "[warning]" not in checked.stdout and "[problem]" not in checked.stdout
    assert "provider: claude" in checked.stdout

    # Again: an upgrade in place that leaves the startup files and the settings alone.
    files, settings_text = startup_files(home_dir), (home_dir / ".claude/settings.json").read_text()
    rerun = run_line(line, clone, env)
    assert "upgrading the existing install" in rerun.stdout
    assert startup_files(home_dir) == files
    assert (home_dir / ".claude" / "settings.json").read_text() == settings_text
    bash_login = in_new_shell(NEW_SHELLS["bash login"], home_dir, "acecode --version")
    assert bash_login.stdout.split() == ["acecode", acecode.__version__]

    # The README's way back out.
    assert UNINSTALL in README.read_text(encoding="utf-8")
    run_line(UNINSTALL, clone, env)
    assert not (home_dir / ".local" / "bin" / "acecode").exists()
    assert not (home_dir / ".local" / "share" / "acecode").exists()
    assert all("acecode" not in text for text in startup_files(home_dir).values())
    # The settings file held only acecode's hooks: the home is as it was before.
    assert not (home_dir / ".claude" / "settings.json").exists()
    gone = in_new_shell(NEW_SHELLS["bash login"], home_dir, "command -v acecode")
    assert gone.returncode != 0


def python_without_ensurepip(root: Path) -> Path:
    """This Python's binary in a prefix whose standard library lacks ensurepip, as on
    Debian without python3-venv (every other stdlib entry is a link to the real one)."""
    base = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    (root / "bin").mkdir(parents=True)
    library = root / "lib" / stdlib.name
    library.mkdir(parents=True)
    for entry in stdlib.iterdir():
        if entry.name != "ensurepip":
            (library / entry.name).symlink_to(entry)
    python = root / "bin" / "python3"
    shutil.copy2(base, python)
    return python


def test_without_ensurepip_the_venv_gets_pip_from_the_pythons_own_pip(
    home_dir: Path, tmp_path: Path
) -> None:
    python = python_without_ensurepip(tmp_path / "debian-without-venv")
    lacks = subprocess.run([str(python), "-c", "import ensurepip"], timeout=HANG_GUARD)
    assert lacks.returncode != 0, "the stripped Python still has ensurepip"
    has_pip = subprocess.run([str(python), "-m", "pip", "--version"], timeout=HANG_GUARD)
    if has_pip.returncode != 0:
        pytest.skip("this Python keeps pip outside its standard library folder")
    venv = tmp_path / "venv"
    make = f"import runpy, pathlib; runpy.run_path({str(INSTALLER)!r})['create_venv']"
    env = stock_environment(home_dir, f"{python.parent}:{SYSTEM_PATH}")

    made = subprocess.run(
        [str(python), "-c", f"{make}(pathlib.Path({str(venv)!r}))"],
        env=env,
        capture_output=True,
        text=True,
        timeout=LONG_HANG_GUARD,
        check=False,
    )

    assert made.returncode == 0, made.stderr
    assert "ensurepip is not available" in made.stdout
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "--version"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )
    assert pip.returncode == 0 and str(venv) in pip.stdout, pip.stderr
