"""Install acecode from this clone with nothing but python3 (3.11+): ``python3 install.py``.

Why a script and not ``pip install``: on a stock machine ``pip install --user`` is
often refused (Debian's Python is "externally managed", PEP 668), and uv or pipx may
not be there. So this script, standard library only:

1. makes a private virtualenv, ``${XDG_DATA_HOME:-~/.local/share}/acecode/venv``
   (with ensurepip, or, where ensurepip is missing as on Debian without
   python3-venv, with this Python's own pip), and installs ``.[embed]`` into it;
2. links the ``acecode`` command into ``${XDG_BIN_HOME:-~/.local/bin}``;
3. makes sure new shells find that folder: a marked block in ``~/.profile`` (sh,
   and bash logins when there is no ``~/.bash_profile``), in ``~/.bash_profile`` or
   ``~/.bash_login`` when one exists, in ``~/.bashrc`` and, where zsh is used or
   installed, in ``~/.zshenv``;
4. runs ``acecode install``, whose hooks name the venv's ``acecode`` by its full
   path, so they work even when Claude Code's PATH lacks ``~/.local/bin``.

Running it again upgrades in place (same paths, so the hooks stay valid).
``python3 install.py --uninstall`` undoes all four steps and keeps the playbooks.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent
EXTRA = "embed"
MIN_PYTHON = (3, 11)
BLOCK_START = "# >>> acecode: put the acecode command on PATH"
BLOCK_END = "# <<< acecode <<<"


class InstallError(Exception):
    """A step failed; the message is the one line the user sees."""


@dataclass(frozen=True)
class Layout:
    """Where the install lives: the private venv, the command's folder and its link."""

    home: Path
    venv: Path
    bin_dir: Path

    @classmethod
    def for_environment(cls, environ: Mapping[str, str]) -> Layout:
        """The XDG base folders when set (as uv and pipx use them), else their defaults."""
        home = Path(environ.get("HOME") or Path.home())
        data = Path(environ.get("XDG_DATA_HOME") or home / ".local" / "share")
        bin_dir = Path(environ.get("XDG_BIN_HOME") or home / ".local" / "bin")
        return cls(home=home, venv=data / "acecode" / "venv", bin_dir=bin_dir)

    @property
    def venv_python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def venv_acecode(self) -> Path:
        return self.venv / "bin" / "acecode"

    @property
    def link(self) -> Path:
        return self.bin_dir / "acecode"

    def shown(self, path: Path) -> str:
        """``path`` with the home folder written as ``~``, for messages."""
        try:
            return "~/" + str(path.relative_to(self.home))
        except ValueError:
            return str(path)


# ----------------------------------------------------------------- the virtualenv


def _run(command: list[str], capture: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``command``; its output goes to the user's terminal unless ``capture``."""
    return subprocess.run(command, text=True, check=False, capture_output=capture)


def venv_works(layout: Layout) -> bool:
    """True when the venv's Python starts and is new enough (a removed base Python breaks it)."""
    if not layout.venv_python.exists():
        return False
    probe = f"import sys; sys.exit(0 if sys.version_info >= {MIN_PYTHON!r} else 1)"
    result = _run([str(layout.venv_python), "-c", probe], capture=True)
    return result.returncode == 0


def create_venv(venv: Path) -> None:
    """A fresh venv at ``venv`` with pip in it.

    ensurepip first; where it is missing (Debian without python3-venv) the venv is
    made without pip and this Python's own pip installs pip into it.
    """
    if venv.exists():
        shutil.rmtree(venv)
    venv.parent.mkdir(parents=True, exist_ok=True)
    with_ensurepip = _run([sys.executable, "-m", "venv", str(venv)], capture=True)
    if with_ensurepip.returncode == 0:
        return
    shutil.rmtree(venv, ignore_errors=True)
    bare = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture=True)
    pip = None
    if bare.returncode == 0:
        print("ensurepip is not available: installing pip into the venv with this Python's pip")
        python = str(venv / "bin" / "python")
        pip = _run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "pip"])
    if pip is None or pip.returncode != 0:
        shutil.rmtree(venv, ignore_errors=True)
        reason = (with_ensurepip.stdout or with_ensurepip.stderr or "").strip().splitlines()
        raise InstallError(
            f"cannot make a virtualenv with {sys.executable} ({reason[-1] if reason else 'no pip'})"
            "; on Debian/Ubuntu run `sudo apt install python3-venv`, then run this again"
        )


def install_package(layout: Layout, verbose: bool = False) -> None:
    """Install (or upgrade) this clone with its ``embed`` extra into the venv.

    pip's log (about a hundred lines) is shown only with ``verbose`` or when pip fails;
    otherwise one line counts the packages as pip goes (rewritten in place on a terminal).
    """
    print(f"installing acecode[{EXTRA}] from {REPO} into {layout.shown(layout.venv)} ...")
    command = [
        str(layout.venv_python),
        *("-m", "pip", "install", "--upgrade", "--disable-pip-version-check"),
        f"{REPO}[{EXTRA}]",
    ]
    returncode = _run(command).returncode if verbose else _pip_quietly(command)
    if returncode != 0:
        raise InstallError(
            f"pip could not install acecode into {layout.venv} (its output is above)"
        )


def _pip_quietly(command: list[str]) -> int:
    """Run pip with its log kept back: one progress line, the whole log if pip fails."""
    log: list[str] = []
    packages = 0
    shown = ""
    live = sys.stdout.isatty()
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as pip:
        assert pip.stdout is not None
        for line in pip.stdout:
            log.append(line)
            if line.startswith(("Collecting ", "Requirement already satisfied: ")):
                packages += 1
                name = line.split()[1 if line.startswith("Collecting ") else 3]
                if live:
                    shown = _rewrite(shown, f"  {packages} packages so far: {name}")
    if live:
        _rewrite(shown, "")
        print("\r", end="")
    if pip.returncode != 0:
        print("".join(log), end="")
        return pip.returncode
    print(f"  done: {packages} packages")
    return 0


def _rewrite(old: str, new: str) -> str:
    """Replace the terminal's current line ``old`` with ``new``; returns ``new``."""
    print("\r" + new.ljust(len(old)), end="", flush=True)
    return new


# ----------------------------------------------------------------- the command link


def owned_link(layout: Layout) -> bool:
    """True when the ``acecode`` in the bin folder is this installer's link into the venv."""
    link = layout.link
    return link.is_symlink() and Path(os.readlink(link)) == layout.venv_acecode


def refuse_foreign_command(layout: Layout) -> None:
    """Raise when ``<bin>/acecode`` belongs to another install (uv tool, pipx, by hand)."""
    link = layout.link
    if (link.exists() or link.is_symlink()) and not owned_link(layout):
        target = os.readlink(link) if link.is_symlink() else "a file"
        raise InstallError(
            f"{link} already exists ({target}), from another acecode install; remove it "
            "(`uv tool uninstall acecode`, `pipx uninstall acecode`, or delete the file), "
            "then run this again"
        )


def link_command(layout: Layout) -> None:
    """Point ``<bin>/acecode`` at the venv's command; never replace another install's."""
    refuse_foreign_command(layout)
    link = layout.link
    layout.bin_dir.mkdir(parents=True, exist_ok=True)
    temporary = link.with_name(".acecode-link")
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(layout.venv_acecode)
    os.replace(temporary, link)


# ----------------------------------------------------------------- PATH in new shells


def _shell_word(path: Path, home: Path) -> str:
    """``path`` as a double-quoted shell word, ``$HOME``-relative when it is in home."""
    try:
        text = "$HOME/" + str(path.relative_to(home))
    except ValueError:
        text = str(path)
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")
    if not text.startswith("$HOME/"):
        escaped = escaped.replace("$", "\\$")
    return escaped


def path_block(layout: Layout) -> str:
    """The marked lines that prepend the bin folder to PATH unless it is already there."""
    folder = _shell_word(layout.bin_dir, layout.home)
    return (
        f"{BLOCK_START} (python3 install.py --uninstall removes this block) >>>\n"
        f'case ":$PATH:" in\n'
        f'    *":{folder}:"*) ;;\n'
        f'    *) export PATH="{folder}:$PATH" ;;\n'
        "esac\n"
        f"{BLOCK_END}\n"
    )


def startup_files(layout: Layout, environ: Mapping[str, str]) -> list[Path]:
    """The shell startup files that must carry the block for new login and interactive shells.

    ``~/.profile`` always (sh and most desktop sessions read it); bash reads only the
    first of ``~/.bash_profile``, ``~/.bash_login``, ``~/.profile`` at login, so an
    existing one of the first two gets the block too; ``~/.bashrc`` serves interactive
    non-login bash; ``.zshenv`` (in ``$ZDOTDIR`` when set) serves every zsh.
    """
    home = layout.home
    files = [home / ".profile"]
    bash_login = next(
        (f for f in (home / ".bash_profile", home / ".bash_login") if f.exists()), None
    )
    if bash_login is not None:
        files.append(bash_login)
    if (home / ".bashrc").exists() or shutil.which("bash"):
        files.append(home / ".bashrc")
    zshenv = Path(environ.get("ZDOTDIR") or home) / ".zshenv"
    if zshenv.exists() or shutil.which("zsh") or environ.get("SHELL", "").endswith("zsh"):
        files.append(zshenv)
    return files


def _block_span(lines: list[str]) -> tuple[int, int] | None:
    """The first and last line index of acecode's block in ``lines``, if it is whole."""
    start = next((i for i, line in enumerate(lines) if line.startswith(BLOCK_START)), None)
    if start is None:
        return None
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(BLOCK_END)), None)
    return None if end is None else (start, end)


def without_block(text: str) -> str:
    """``text`` with acecode's block (and the blank line put before it) taken out.

    A block someone cut short (no end marker) is left alone rather than guessed at.
    """
    lines = text.splitlines(keepends=True)
    span = _block_span(lines)
    if span is None:
        return text
    start, end = span
    if start > 0 and lines[start - 1].strip() == "":
        start -= 1
    return "".join(lines[:start] + lines[end + 1 :])


def with_block(text: str, block: str) -> str:
    """``text`` holding ``block`` once: an older block is replaced where it stands,
    else ``block`` is appended after a blank line."""
    lines = text.splitlines(keepends=True)
    span = _block_span(lines)
    if span is not None:
        start, end = span
        return "".join([*lines[:start], block, *lines[end + 1 :]])
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{text}\n{block}" if text else block


def put_on_path(layout: Layout, environ: Mapping[str, str]) -> list[Path]:
    """Write the block into every startup file that lacks it; the files changed."""
    block = path_block(layout)
    changed = []
    for file in startup_files(layout, environ):
        old = file.read_text(encoding="utf-8") if file.exists() else ""
        new = with_block(old, block)
        if new != old:
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(new, encoding="utf-8")
            changed.append(file)
    return changed


def take_off_path(layout: Layout, environ: Mapping[str, str]) -> list[Path]:
    """Remove the block from every startup file holding it; the files changed.

    A file left empty held nothing but the block (this script made it) and is deleted.
    """
    home = layout.home
    candidates = {
        *startup_files(layout, environ),
        *(home / name for name in (".bash_profile", ".bash_login", ".bashrc", ".zshenv")),
    }
    changed = []
    for file in sorted(candidates):
        if not file.is_file():
            continue
        old = file.read_text(encoding="utf-8")
        new = without_block(old)
        if new == old:
            continue
        if new.strip():
            file.write_text(new, encoding="utf-8")
        else:
            file.unlink()
        changed.append(file)
    return changed


# ----------------------------------------------------------------- the two commands


@dataclass(frozen=True)
class Options:
    """What the user chose on the command line."""

    modify_path: bool = True
    hooks: bool = True
    verbose: bool = False


def install(layout: Layout, environ: Mapping[str, str], options: Options) -> None:
    """Steps 1-4 of the module docstring, then what was done and how to undo it."""
    refuse_foreign_command(layout)  # before anything is downloaded
    if venv_works(layout):
        print(f"upgrading the existing install in {layout.shown(layout.venv)}")
    else:
        print(f"creating a virtualenv in {layout.shown(layout.venv)} with {sys.executable}")
        create_venv(layout.venv)
    install_package(layout, options.verbose)
    link_command(layout)
    changed = put_on_path(layout, environ) if options.modify_path else []
    hooked = True
    if options.hooks:
        print(f"\nhooking acecode into Claude Code: {layout.shown(layout.venv_acecode)} install")
        hooked = _run([str(layout.venv_acecode), "install"]).returncode == 0
    version = _run([str(layout.venv_acecode), "--version"], capture=True).stdout.strip()
    print(f"\ninstalled {version} in {layout.shown(layout.venv)}")
    print(f"command: {layout.shown(layout.link)} -> {layout.shown(layout.venv_acecode)}")
    _report_path(layout, environ, options, changed)
    print("undo: python3 install.py --uninstall (your playbooks stay)")
    if not hooked:
        raise InstallError(
            "acecode is installed but `acecode install` failed (its message is above); "
            "fix that, then run `acecode install`"
        )


def _report_path(
    layout: Layout, environ: Mapping[str, str], options: Options, changed: list[Path]
) -> None:
    """Say how new shells, and this one, find the command."""
    folder = layout.shown(layout.bin_dir)
    if not options.modify_path:
        print(f"PATH: not changed (--no-modify-path); put {folder} on PATH yourself")
    elif changed:
        names = ", ".join(layout.shown(file) for file in changed)
        print(f"PATH: new shells find {folder}: a marked block was added to {names}")
    else:
        print(f"PATH: new shells find {folder}: the startup files already hold the block")
    if shutil.which("fish"):
        print(f"fish: run `fish_add_path {folder}` once")
    if str(layout.bin_dir) not in environ.get("PATH", "").split(os.pathsep):
        word = _shell_word(layout.bin_dir, layout.home)
        print(f'open a new terminal to use `acecode` (or here: export PATH="{word}:$PATH")')


def uninstall(layout: Layout, environ: Mapping[str, str]) -> None:
    """Remove the hooks, the link, the PATH blocks and the venv; playbooks and logs stay."""
    if layout.venv_acecode.exists():
        _run([str(layout.venv_acecode), "uninstall"])
        codex_home = Path(environ.get("CODEX_HOME") or layout.home / ".codex")
        if (codex_home / "hooks.json").exists():
            _run([str(layout.venv_acecode), "uninstall", "--agent", "codex"])
    else:
        print(
            f"no {layout.shown(layout.venv_acecode)} to take the hooks out with: if "
            "~/.claude/settings.json still runs `acecode hook ...`, delete those entries"
        )
    if owned_link(layout):
        layout.link.unlink()
        print(f"removed {layout.shown(layout.link)}")
    for file in take_off_path(layout, environ):
        print(f"removed acecode's PATH block from {layout.shown(file)}")
    if layout.venv.exists():
        shutil.rmtree(layout.venv)
        print(f"removed {layout.shown(layout.venv)}")
    if layout.venv.parent.is_dir() and not any(layout.venv.parent.iterdir()):
        layout.venv.parent.rmdir()
    print(
        "acecode is uninstalled. Kept: each project's .claude/playbook.json and "
        ".claude/acecode/, and your user layer ~/.claude/acecode-user/ (delete them to "
        "forget what was learned). Hooks added with "
        "`acecode install --scope project` or `--scope local` stay in those projects' "
        ".claude/settings*.json: take acecode's entries out there."
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 install.py",
        description="Install acecode from this clone into a private virtualenv, put the "
        "acecode command on PATH and hook it into Claude Code. Run again to upgrade.",
    )
    parser.add_argument("--uninstall", action="store_true", help="undo everything this script did")
    parser.add_argument(
        "--no-modify-path",
        dest="modify_path",
        action="store_false",
        help="leave the shell startup files alone",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="show pip's whole log (by default one progress line, and the log if pip fails)",
    )
    parser.add_argument(
        "--no-hooks",
        dest="hooks",
        action="store_false",
        help="do not run `acecode install` (for the Claude Code plugin, or to choose a scope)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # in order with pip's and acecode's output
    if os.name == "nt":
        print("install.py: Windows is not supported; use `uv tool install` or `pipx install`")
        return 2
    if sys.version_info < MIN_PYTHON:
        found = ".".join(map(str, sys.version_info[:3]))
        print(
            f"install.py: acecode needs Python 3.11 or newer, {sys.executable} is {found}; "
            "run this with a newer one (e.g. python3.12 install.py)",
            file=sys.stderr,
        )
        return 2
    layout = Layout.for_environment(os.environ)
    try:
        if args.uninstall:
            uninstall(layout, os.environ)
        else:
            install(layout, os.environ, Options(args.modify_path, args.hooks, args.verbose))
    except InstallError as error:
        print(f"install.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
