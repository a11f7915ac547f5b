"""install.py puts ``~/.local/bin`` on PATH for new shells, once, and takes it off again.

Checked in real shells (bash and sh login shells, interactive bash) started with
only HOME and a bare PATH, as a new terminal or a desktop session starts them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from installer_support import (
    BARE_PATH,
    INSTALLER,
    NEW_SHELLS,
    in_new_shell,
    load_installer,
    new_shell_path,
)

from support.hang_guard import HANG_GUARD

installer = load_installer()


def layout_for(home: Path, **environ: str):
    return installer.Layout.for_environment({"HOME": str(home), **environ})


@pytest.mark.parametrize("shell", NEW_SHELLS)
def test_an_empty_home_gets_the_bin_folder_on_path_in_every_new_shell(
    home_dir: Path, shell: str
) -> None:
    layout = layout_for(home_dir)

    changed = installer.put_on_path(layout, {})

    assert home_dir / ".profile" in changed
    path = new_shell_path(NEW_SHELLS[shell], home_dir)
    assert path.count(str(home_dir / ".local" / "bin")) == 1, path


def test_running_it_again_changes_nothing_and_path_holds_the_folder_once(
    home_dir: Path,
) -> None:
    layout = layout_for(home_dir)
    installer.put_on_path(layout, {})
    # Debian's default ~/.profile sources ~/.bashrc: a login bash reads both blocks.
    profile = home_dir / ".profile"
    profile.write_text('. "$HOME/.bashrc"\n' + profile.read_text())
    before = {file: file.read_text() for file in home_dir.iterdir() if file.is_file()}

    assert installer.put_on_path(layout, {}) == []

    assert {file: file.read_text() for file in home_dir.iterdir() if file.is_file()} == before
    for shell in NEW_SHELLS.values():
        path = new_shell_path(shell, home_dir)
        assert path.count(str(home_dir / ".local" / "bin")) == 1, (shell, path)


def test_an_existing_bash_profile_gets_the_block_because_bash_then_skips_profile(
    home_dir: Path,
) -> None:
    bash_profile = home_dir / ".bash_profile"
    bash_profile.write_text("export EDITOR=vi\n")
    layout = layout_for(home_dir)

    changed = installer.put_on_path(layout, {})

    assert bash_profile in changed
    assert str(home_dir / ".local" / "bin") in new_shell_path(NEW_SHELLS["bash login"], home_dir)
    assert bash_profile.read_text().startswith("export EDITOR=vi\n")


def test_uninstall_restores_the_users_files_exactly_and_deletes_the_ones_it_made(
    home_dir: Path,
) -> None:
    bashrc = home_dir / ".bashrc"
    original = "alias ll='ls -l'\n\n# keep this\n"
    bashrc.write_text(original)
    layout = layout_for(home_dir)
    added = installer.put_on_path(layout, {})

    removed = installer.take_off_path(layout, {})

    assert bashrc in added and home_dir / ".profile" in added
    assert set(removed) == set(added)
    assert bashrc.read_text() == original
    made = [file for file in added if file != bashrc]
    assert not any(file.exists() for file in made)  # they held nothing but the block
    assert str(home_dir / ".local" / "bin") not in new_shell_path(
        NEW_SHELLS["bash login"], home_dir
    )


def test_a_bin_folder_outside_home_is_written_as_a_quoted_absolute_path(
    home_dir: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "my $tools"
    layout = layout_for(home_dir, XDG_BIN_HOME=str(bin_dir))

    installer.put_on_path(layout, {})

    assert str(bin_dir) in new_shell_path(NEW_SHELLS["sh login"], home_dir)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_reads_the_block_from_zshenv(home_dir: Path) -> None:
    layout = layout_for(home_dir)

    installer.put_on_path(layout, {})

    for flags in (["-l", "-c"], ["-c"]):
        assert str(home_dir / ".local" / "bin") in new_shell_path(["zsh", *flags], home_dir)


def test_another_installs_command_is_never_replaced_and_nothing_is_downloaded(
    home_dir: Path, tmp_path: Path
) -> None:
    foreign = tmp_path / "uv-tools" / "acecode"
    foreign.parent.mkdir()
    foreign.write_text("#!/bin/sh\n")
    (home_dir / ".local" / "bin").mkdir(parents=True)
    (home_dir / ".local" / "bin" / "acecode").symlink_to(foreign)

    result = subprocess.run(
        [sys.executable, str(INSTALLER)],
        env={**os.environ, "HOME": str(home_dir), "PATH": BARE_PATH},
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )

    assert result.returncode == 1
    message = result.stderr.strip()
    assert "\n" not in message
    assert message.startswith(f"install.py: {home_dir / '.local' / 'bin' / 'acecode'} already")
    assert "uv tool uninstall acecode" in message
    assert not (home_dir / ".local" / "share" / "acecode").exists()
    assert os.readlink(home_dir / ".local" / "bin" / "acecode") == str(foreign)


def test_new_shells_here_start_from_a_bare_path() -> None:
    """The shells above really get no PATH from the test's own environment."""
    result = in_new_shell(["sh", "-c"], Path("/"), 'printf "%s" "$PATH"')
    assert result.stdout == BARE_PATH
