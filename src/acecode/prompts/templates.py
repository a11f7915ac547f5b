"""Prompt templates: shipped in the package, overridable per user.

A file of the same name in ``~/.claude/prompts/`` wins over the packaged one,
so a user can tune a prompt without forking acecode.
"""

from __future__ import annotations

from pathlib import Path

from acecode.errors import AcecodeError
from acecode.project import paths

PACKAGED_DIR = Path(__file__).parent


class TemplateNotFoundError(AcecodeError, FileNotFoundError):
    """No packaged template and no user override with that name."""


def user_template_dir() -> Path:
    """The folder whose templates override the packaged ones."""
    return paths.user_claude_dir() / "prompts"


def template_override(name: str) -> Path | None:
    """The user's override file for ``name`` if there is one, else None."""
    candidate = user_template_dir() / name
    return candidate if candidate.is_file() else None


def load_template(name: str) -> str:
    """Return the text of template ``name`` (e.g. ``"curator.txt"``)."""
    override = template_override(name)
    if override is not None:
        return override.read_text(encoding="utf-8")
    packaged = PACKAGED_DIR / name
    if not packaged.is_file():
        raise TemplateNotFoundError(f"no prompt template named {name!r}")
    return packaged.read_text(encoding="utf-8")
