"""The ``--help`` of every command, as printed: no source markup, no value type on a flag,
no sentence broken where its docstring line ended.

The commands are found in the application itself, so a command added later is
checked too. Each help is printed 2,000 columns wide: nothing is wrapped to the
terminal then, so a line break inside a paragraph or a panel row can only come
from the source text.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from acecode.cli.app import build_app
from support.hang_guard import HANG_GUARD

WIDE = "2000"
SENTENCE_END = (".", ":", "!", "?")


def _command_paths(command: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield prefix
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _command_paths(sub, (*prefix, name))


COMMANDS = list(_command_paths(typer.main.get_command(build_app())))


def _help(path: tuple[str, ...]) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *path, "--help"],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": WIDE, "TERMINAL_WIDTH": WIDE},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _description(text: str) -> list[str]:
    """The lines between the usage line and the first panel."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    return [line.strip() for line in lines[start:end]]


def _panel_rows(text: str) -> list[list[str]]:
    """Each line inside a panel, split into its cells."""
    return [
        re.split(r" {2,}", line.strip("│ "))
        for line in text.splitlines()
        if line.startswith("│") and line.strip("│ ")
    ]


def test_every_command_is_checked() -> None:
    names = {path[0] for path in COMMANDS if path}
    assert {"history", "undo", "show", "add", "cost", "pin", "review", "on", "off"} <= names
    assert ("review", "approve") in COMMANDS and () in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "acecode")
def test_help_reads_as_prose_in_one_metavar_style(path: tuple[str, ...]) -> None:
    """One run of the command's ``--help``, read for both (a run costs a third of a second)."""
    text = _help(path)
    _reads_as_prose(text)
    _one_metavar_style_and_no_python_types(text)


def _reads_as_prose(text: str) -> None:
    """No source markup, no value type on a flag, no sentence broken where its line ended."""
    assert "``" not in text  # source markup (``--user``) printed literally
    assert "<bool>" not in text  # a flag takes no value
    description = _description(text)
    paragraphs = [line for line in description if line]
    assert paragraphs, "no description"
    for line in paragraphs:
        assert line.endswith(SENTENCE_END), f"cut mid-sentence: {line!r}"
    for above, below in itertools.pairwise(description):
        assert not (above and below) or below.startswith("- "), f"broken paragraph: {above!r}"
    for cells in _panel_rows(text):
        # a row is a name and its help; a lone cell is a help text broken across lines
        assert len(cells) >= 2, f"help broken across lines: {cells!r}"
    for cells in _panel_rows(text):
        if len(cells) == 2 and not cells[0].startswith("-"):  # a command and its summary
            assert cells[1].endswith((".", ")")), f"summary cut mid-sentence: {cells!r}"


README = Path(__file__).parents[2] / "README.md"


def test_the_readme_commands_table_names_every_command() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    first_cells = [  # a cell ends at an unescaped "|"
        re.split(r"(?<!\\)\|", line)[1] for line in table.splitlines() if line.startswith("| `")
    ]
    named = {
        word
        for cell in first_cells
        for code in re.findall(r"`([^`]+)`", cell)
        for word in code.replace("acecode ", "").split()[:1]
    }
    app = typer.main.get_command(build_app())
    visible = {name for name, command in app.commands.items() if not command.hidden}
    assert visible - named == set()


# One style for what a command takes: NAME, [NAME], NAME... in the usage line and the
# argument panel; a value's kind as a word (TEXT, PATH, INTEGER, a|b|c), never a Python
# type (`<list[Path]>`, `<str>`) or typer's braces (`{name}`).
USAGE = re.compile(
    r"Usage: acecode(?: [a-z-]+)* \[OPTIONS\](?: COMMAND \[ARGS\]\.\.\.)?"
    r"(?: (?:[A-Z][A-Z_|]*|\[[A-Z][A-Z_|]*\])(?:\.\.\.)?)*"
)
PYTHON_TYPE = re.compile(r"^<[^<>]*>$|<(?:str|int|float|bool|path|list\[[^\]]*\])>")


def _one_metavar_style_and_no_python_types(text: str) -> None:
    """The usage line in the one metavar style; no Python type in any panel cell."""
    (usage,) = [line.strip() for line in text.splitlines() if "Usage:" in line]
    assert USAGE.fullmatch(usage), usage
    for cells in _panel_rows(text):
        for cell in cells:
            assert not PYTHON_TYPE.search(cell), (cells, usage)


def _refused(*args: str) -> str:
    """The error `acecode ARGS` prints for a value it cannot use (exit status 2)."""
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": WIDE},
    )
    assert result.returncode == 2, result.stderr
    return result.stderr


def test_a_wrong_value_is_said_in_plain_words() -> None:
    choice = _refused("show", "--format", "xml")
    assert "Value error" not in choice
    assert "'xml' is not one of 'table', 'md', 'json'" in choice
    number = _refused("history", "-n", "many")
    assert "'--limit' / '-n': not a whole number" in number
    assert "Input should be" not in number
