"""What a playbook entry names: file paths and code symbols, found conservatively.

A false "possibly stale" costs the user's trust, so only tokens that clearly
are paths or symbols count:

* a **path** has a slash between word characters (``src/app/models.py``,
  ``tests/unit/``) or ends in a known file extension (``pyproject.toml``).
  URLs, home and absolute paths (``~/.ssh``, ``/usr/bin``), globs, template
  placeholders and package scopes are never paths of the project;
* a **symbol** is a backticked identifier that looks like code: it has an
  underscore, an inner capital (``camelCase``, ``PascalCase``), a dot
  (``module.func``) or call parentheses. A plain backticked word (`` `pytest` ``,
  `` `make` ``) is usually a command or a tool, not a symbol of the project,
  and is left alone.

A name the rule says is absent ("no package.json", "X does not exist") is not
counted (:mod:`acecode.staleness.absence`).

Pure: ``re`` only.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from acecode.staleness.absence import named_as_absent

# Extensions that mark a token as a file name even without a slash.
_EXTENSIONS_TEXT = """
    py pyi pyx ipynb js mjs cjs jsx ts tsx vue svelte json jsonc toml yaml yml ini cfg conf
    md rst txt csv sql sh bash zsh fish ps1 bat go rs java kt kts scala rb php c h cc cpp hpp
    cs swift m mm lua pl r dart ex exs erl hs ml clj html htm css scss sass less xml proto
    graphql gql tf tfvars hcl gradle lock mk cmake dockerfile env example tmpl j2 jinja
    """
EXTENSIONS = frozenset(_EXTENSIONS_TEXT.split())
MIN_SYMBOL_CHARS = 3

_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
_CANDIDATE = re.compile(r"[^\s`'\"()\[\]{}<>,;|]+")
_PATH_SHAPE = re.compile(r"[\w.-]+(?:/[\w.-]+)*/?")
_LINE_SUFFIX = re.compile(r":\d+(?::\d+)?$")
_SYMBOL = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_INNER_CAPITAL = re.compile(r"[a-z0-9][A-Z]")
# Product names that end like a file name ("Node.js", "Vue.js"), never a file of the project.
_PRODUCT_NAME = re.compile(r"(?:[A-Z][a-z]+|node)\.js")


class Named(NamedTuple):
    """What one text names: project-relative paths and code symbols, in order of appearance."""

    paths: tuple[str, ...]
    symbols: tuple[str, ...]


def _as_path(token: str) -> str | None:
    """``token`` as a project-relative path, or None when it is not clearly one. A leading
    dot stays: ``.github/workflows/ci.yml`` is that path, not ``github/...``."""
    token = _LINE_SUFFIX.sub("", token.rstrip(".,:;!?").lstrip(",:;!?"))
    if token.startswith("./"):
        token = token[2:]
    if not token or "://" in token or token[0] in "~/$@\\" or not _PATH_SHAPE.fullmatch(token):
        return None
    parts = token.rstrip("/").split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    if "/" in token.rstrip("/"):
        return token.rstrip("/") if not all(part.isdigit() for part in parts) else None
    if has_extension(token) and not token.startswith(".") and not _PRODUCT_NAME.fullmatch(token):
        return token
    return None


def _as_symbol(span: str) -> str | None:
    """The identifier a backticked span names (the last part of a dotted name), or None."""
    span = span.strip().removesuffix("()")
    if not _SYMBOL.fullmatch(span) or _as_path(span) is not None:
        return None
    looks_like_code = "_" in span or "." in span or _INNER_CAPITAL.search(span)
    last = span.rsplit(".", 1)[-1]
    if not looks_like_code or len(last) < MIN_SYMBOL_CHARS or last.strip("_") == "":
        return None
    return last


def named_in(text: str) -> Named:
    """The paths and symbols ``text`` names as there, each once: a name every mention of
    which says it is absent (:mod:`acecode.staleness.absence`) is left out, since the
    project lacking it is the rule being right."""
    found: list[tuple[int, int, str, str]] = []  # start, end, kind, name
    for match in _BACKTICKED.finditer(text):
        symbol = _as_symbol(match.group(1))
        if symbol is not None:
            found.append((match.start(), match.end(), "symbol", symbol))
    for match in _CANDIDATE.finditer(text.replace("`", " ")):
        path = _as_path(match.group())
        if path is not None:
            found.append((match.start(), match.end(), "path", path))
    found.sort()
    present: dict[tuple[str, str], None] = {}
    for number, (start, end, kind, name) in enumerate(found):
        following = found[number + 1][0] if number + 1 < len(found) else None
        if not named_as_absent(text, start, end, following):
            present[(kind, name)] = None
    return Named(
        tuple(name for kind, name in present if kind == "path"),
        tuple(name for kind, name in present if kind == "symbol"),
    )


def has_extension(path: str) -> bool:
    """True when the last part of ``path`` ends in a known file extension."""
    stem, dot, extension = path.rsplit("/", 1)[-1].rpartition(".")
    return bool(dot and stem) and extension.lower() in EXTENSIONS
