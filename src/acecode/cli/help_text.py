"""Help as a person reads it, from docstrings written for the next engineer.

A command's docstring is its ``--help``. Docstrings follow the project's
style: lines broken at the source's width and code in double backticks
(````--user````). Typer (rich mode) prints both as they are: a sentence broken
where the source line ended, literal double backticks. Typer also shows a
``<bool>`` type for a flag, which takes no value. The application's group
class (:class:`TidyHelpGroup`) fixes every command and option once, when
the command tree is built, so a new command cannot bring them back:
paragraphs become one line each (rich wraps them to the terminal), bullet
lines (``- ...``) stay lines, and double backticks become single ones.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from typer.core import TyperGroup

_DOUBLE_BACKTICKS = re.compile(r"``([^`]+)``")
_BULLET = re.compile(r"^\s*[-*] ")


def _paragraph(text: str) -> str:
    """One paragraph on one line; a bulleted paragraph keeps one line per bullet."""
    if text.startswith("\b"):  # click's "do not rewrap" marker
        return text
    items: list[str] = []
    for line in text.splitlines():
        if _BULLET.match(line) or not items:
            items.append(line.strip())
        else:
            items[-1] += " " + line.strip()
    return "\n".join(items)


def tidy_help(text: str | None) -> str | None:
    """``text`` reflowed (see the module docstring), single backticks for code."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    tidy = "\n\n".join(_paragraph(paragraph) for paragraph in paragraphs)
    return _DOUBLE_BACKTICKS.sub(r"`\1`", tidy)


def _no_flag_type(param: Any) -> None:
    if getattr(param, "is_flag", False) and param.metavar is None:
        param.metavar = ""  # a flag takes no value: no "<bool>" type shown


def tidy_command(command: Any, help_names: list[str]) -> None:
    """Tidy the help of ``command``, its parameters and, for a group, its subcommands.

    ``--help`` is made on first use from the context; it is made here (it is
    cached on the command) to drop its type too. Duck-typed: typer builds on
    click or, from 0.29, on its own copy of it.
    """
    command.help = tidy_help(command.help)
    command.short_help = tidy_help(command.short_help)
    for param in command.params:
        param.help = tidy_help(getattr(param, "help", None))
        _no_flag_type(param)
    help_option = command.get_help_option(
        command.context_class(command, help_option_names=help_names)
    )
    if help_option is not None:
        _no_flag_type(help_option)
    for sub in getattr(command, "commands", {}).values():
        tidy_command(sub, help_names)


class TidyHelpGroup(TyperGroup):
    """The application's group: every command's help tidied once it is built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy_command(self, list(self.context_settings.get("help_option_names", ["--help"])))
