"""Helpers for the tests of ``install.py``: the script as a module, and new shells.

``install.py`` sits at the repository root (it must run before acecode is
installed), so it is loaded from its file. A "new shell" is what a user gets
after installing: a login (or interactive) shell started with nothing but
``HOME`` and a bare ``PATH``, so that only ``/etc/profile`` and the startup files
in ``HOME`` decide what ``PATH`` holds.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from support.hang_guard import HANG_GUARD

REPO = Path(__file__).resolve().parents[2]
INSTALLER = REPO / "install.py"
BARE_PATH = "/usr/bin:/bin"

# (how it is started, what it reads): the shells a user opens after installing.
NEW_SHELLS = {
    "bash login": ["bash", "-l", "-c"],  # /etc/profile, then ~/.bash_profile or ~/.profile
    "sh login": ["sh", "-l", "-c"],  # /etc/profile, then ~/.profile
    "bash interactive": ["bash", "-i", "-c"],  # ~/.bashrc
}
if shutil.which("zsh"):
    NEW_SHELLS["zsh login"] = ["zsh", "-l", "-c"]  # ~/.zshenv, /etc/zsh/zprofile, ~/.zprofile


def load_installer() -> ModuleType:
    """``install.py`` as a module (its ``main`` does not run)."""
    spec = importlib.util.spec_from_file_location("acecode_install_script", INSTALLER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def in_new_shell(shell: list[str], home: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a new ``shell`` whose environment is only HOME and a bare PATH."""
    return subprocess.run(
        [*shell, script],
        env={"HOME": str(home), "PATH": BARE_PATH},
        cwd=home,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )


def new_shell_path(shell: list[str], home: Path) -> list[str]:
    """The PATH entries a new ``shell`` ends up with."""
    result = in_new_shell(shell, home, 'printf "%s" "$PATH"')
    assert result.returncode == 0, result.stderr
    return result.stdout.split(":")
