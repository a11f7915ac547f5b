"""install.py is quiet while pip works (issue 29): one progress line instead of pip's
hundred, pip's whole log when it fails, and all of it with ``--verbose``.

A stand-in for the venv's Python prints what pip prints (a real subprocess), so these
run without PyPI; the Quick start test runs the real pip.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from installer_support import load_installer

installer = load_installer()

PIP_LOG = "".join(
    f"Collecting package{n}>=1.0\\n  Downloading package{n}-1.0-py3-none-any.whl (10 kB)\\n"
    for n in range(40)
)


def _fake_pip(home: Path, code: int, tail: str = "") -> object:
    """A layout whose venv Python prints pip's log (and ``tail``) and exits with ``code``."""
    layout = installer.Layout.for_environment({"HOME": str(home)})
    python = layout.venv_python
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\nprintf '{PIP_LOG}{tail}'\nexit {code}\n")
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    return layout


def test_pip_is_one_progress_line_by_default(home_dir: Path, capfd) -> None:
    installer.install_package(_fake_pip(home_dir, 0), verbose=False)

    lines = capfd.readouterr().out.strip().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("installing acecode[embed] from ")
    assert lines[1].strip() == "done: 40 packages"
    assert "Collecting" not in "".join(lines)


def test_a_failed_pip_shows_its_log(home_dir: Path, capfd) -> None:
    layout = _fake_pip(home_dir, 1, "ERROR: No matching distribution found for package39\\n")

    with pytest.raises(installer.InstallError) as failed:
        installer.install_package(layout, verbose=False)

    out = capfd.readouterr().out
    assert "ERROR: No matching distribution found for package39" in out
    assert "Collecting package0>=1.0" in out
    assert "its output is above" in str(failed.value)


def test_verbose_passes_pip_log_through(home_dir: Path, capfd) -> None:
    installer.install_package(_fake_pip(home_dir, 0), verbose=True)

    out = capfd.readouterr().out
    assert out.count("Collecting package") == 40
