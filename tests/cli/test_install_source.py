"""The command `acecode doctor` gives to add the optional extra, for each kind of install."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from acecode.cli.install_source import add_extra_command

REPO = Path(__file__).resolve().parents[2]


def test_this_editable_install_from_a_clone_gets_pip_with_the_clone_folder(tmp_path: Path) -> None:
    command = add_extra_command("embed", prefix=tmp_path)

    assert shlex.split(command) == [sys.executable, "-m", "pip", "install", "-e", f"{REPO}[embed]"]


def test_a_uv_tool_environment_gets_uv_tool_install(tmp_path: Path) -> None:
    (tmp_path / "uv-receipt.toml").write_text("[tool]\n")

    assert shlex.split(add_extra_command("embed", prefix=tmp_path)) == [
        "uv",
        "tool",
        "install",
        "--reinstall",
        f"{REPO}[embed]",
    ]


def test_a_pipx_environment_gets_pipx_install(tmp_path: Path) -> None:
    (tmp_path / "pipx_metadata.json").write_text("{}")

    assert shlex.split(add_extra_command("embed", prefix=tmp_path)) == [
        "pipx",
        "install",
        "--force",
        f"{REPO}[embed]",
    ]
