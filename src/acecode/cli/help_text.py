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

import copy
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


# What a value is, in the words click has always used, instead of typer's Python types.
_TYPE_WORDS = {"str": "TEXT", "path": "PATH", "int": "INTEGER", "float": "NUMBER"}


def _value_word(shown: str) -> str:
    """``<list[Path]>`` as ``PATH...``, ``<str>`` as ``TEXT``, ``<table|md|json>`` as
    ``table|md|json``: a value's kind as a user reads it."""
    inner = shown.strip("<>")
    many = inner.startswith("list[") and inner.endswith("]")
    inner = inner.removeprefix("list[").removesuffix("]") if many else inner
    word = inner if "|" in inner else _TYPE_WORDS.get(inner.lower(), inner.upper())
    return word + ("..." if many else "")


def _one_metavar_style(param: Any, context: Any) -> None:
    """``NAME``, ``[NAME]`` and ``NAME...`` for arguments, a word for an option's value.

    Typer shows an argument as ``{name}`` in the usage line and every value's Python type
    (``<list[Path]>``); an argument's name already says what it is, and an option's value
    gets the word click uses. Typer 0.29 asks ``display_type``, ``_usage_display_name`` and
    ``display_type_rich``; 0.28 asks ``make_metavar`` and the type's name: both are set.
    """
    if getattr(param, "is_flag", False):
        return
    display_type = getattr(param, "display_type", None)
    if getattr(param, "param_type_name", "") == "argument":
        many = param.nargs != 1
        # A metavar written in this style already ("[TEXT]", "TRANSCRIPT...") is taken bare.
        name = (param.metavar or param.name or "").upper().removesuffix("...").strip("[]")
        shown = name + ("..." if many else "")
        in_usage = shown if param.required else f"[{name}]" + ("..." if many else "")
        param.metavar = shown
        param._usage_display_name = lambda: in_usage
        param.display_type_rich = lambda ctx: None
        param.make_metavar = lambda ctx=None, usage=False: in_usage if usage else shown
        if display_type is None:  # 0.28 prints the type's metavar, else <its name>
            param.type = copy.copy(param.type)
            param.type.get_metavar = lambda *args, **kwargs: ""
    elif param.metavar is None:
        kind = display_type(context) if display_type else f"<{param.type.name}>"
        param.metavar = _value_word(str(kind))


def tidy_command(command: Any, help_names: list[str]) -> None:
    """Tidy the help of ``command``, its parameters and, for a group, its subcommands.

    ``--help`` is made on first use from the context; it is made here (it is
    cached on the command) to drop its type too. Duck-typed: typer builds on
    click or, from 0.29, on its own copy of it.
    """
    command.help = tidy_help(command.help)
    command.short_help = tidy_help(command.short_help)
    context = command.context_class(command, help_option_names=help_names)
    for param in command.params:
        param.help = tidy_help(getattr(param, "help", None))
        _no_flag_type(param)
        _one_metavar_style(param, context)
    help_option = command.get_help_option(context)
    if help_option is not None:
        _no_flag_type(help_option)
    for sub in getattr(command, "commands", {}).values():
        tidy_command(sub, help_names)


# What typer passes on for a value it cannot convert (0.29: pydantic's words; 0.28: a
# Python type's name), and plain words.
_PYDANTIC_WORDS = (
    (re.compile(r"^Value error, "), ""),
    (re.compile(r"^Input should be a valid integer.*$"), "not a whole number"),
    (re.compile(r"^Input should be a valid number.*$"), "not a number"),
    (re.compile(r"^.* is not a valid int\.?$"), "not a whole number"),
    (re.compile(r"^.* is not a valid float\.?$"), "not a number"),
)


def plain_error(message: str) -> str:
    """A parameter error without pydantic's wording: ``Value error, 'xml' is not one of
    ...`` becomes ``'xml' is not one of ...``."""
    for pattern, words in _PYDANTIC_WORDS:
        message = pattern.sub(words, message)
    return message


class TidyHelpGroup(TyperGroup):
    """The application's group: every command's help tidied once it is built, and a value
    it cannot use named in plain words."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tidy_command(self, list(self.context_settings.get("help_option_names", ["--help"])))

    def invoke(self, ctx: Any) -> Any:
        from typer import BadParameter

        try:
            return super().invoke(ctx)
        except BadParameter as exc:
            exc.message = plain_error(exc.message)
            raise
