"""Prompt templates: shipped in the package, overridable per user.

A file of the same name in ``~/.claude/prompts/`` wins over the packaged one,
so a user can tune a prompt without forking acecode. An override that cannot be
used is never used: one over :data:`~acecode.project.bounds.MAX_TEMPLATE_BYTES`,
not UTF-8 text, or without a placeholder its role cannot do without
(:data:`REQUIRED`: ``playbook.txt`` without ``{key_points}`` would inject its own
text and no rule; ``reflector.txt`` without ``{transcript}`` would reflect on no
session). The packaged template is used instead, and :func:`override_problem`
says why in one line naming the file, for the session-start notice and
``acecode doctor``.
"""

from __future__ import annotations

from pathlib import Path

from acecode.errors import AcecodeError
from acecode.project import paths

PACKAGED_DIR = Path(__file__).parent
# The placeholders without which a template cannot do its job.
REQUIRED: dict[str, tuple[str, ...]] = {
    "playbook.txt": ("key_points",),
    "reflector.txt": ("transcript",),
    "curator.txt": ("reflector_output", "playbook"),
    "reflection.txt": ("trajectories",),
    "judge.txt": ("pairs",),
    "safety_review.txt": ("texts",),
}
TEMPLATES = tuple(REQUIRED)


class TemplateNotFoundError(AcecodeError, FileNotFoundError):
    """No packaged template and no user override with that name."""


def user_template_dir() -> Path:
    """The folder whose templates override the packaged ones."""
    return paths.user_claude_dir() / "prompts"


def template_override(name: str) -> Path | None:
    """The user's override file for ``name`` if there is one, else None."""
    candidate = user_template_dir() / name
    return candidate if candidate.exists() else None


def read_override(path: Path | str, name: str) -> tuple[str | None, str | None]:
    """The text of the override ``path`` of template ``name`` and None, or None and the
    one line saying why it cannot be used (the packaged template is then)."""
    from acecode.project.bounds import MAX_TEMPLATE_BYTES, FileLimitError, read_bounded

    used = "the packaged template is used"
    try:
        text = read_bounded(path, MAX_TEMPLATE_BYTES, "prompt template").decode("utf-8-sig")
    except FileLimitError as exc:
        return None, f"{exc}; {used}"
    except UnicodeDecodeError as exc:
        return None, f"{path}: not UTF-8 text (byte {exc.start}); {used}"
    except OSError as exc:
        return None, f"{path}: cannot be read ({exc.strerror or exc}); {used}"
    missing = [f"{{{field}}}" for field in REQUIRED.get(name, ()) if f"{{{field}}}" not in text]
    if missing:
        return None, f"{path}: lacks the placeholder {' and '.join(missing)}; {used}"
    return text, None


def override_problem(name: str) -> str | None:
    """Why the user's override of ``name`` is not used (None when there is none, or it is)."""
    override = template_override(name)
    return None if override is None else read_override(override, name)[1]


def override_problems() -> list[str]:
    """:func:`override_problem` for every template, the ones that have one."""
    return [problem for name in TEMPLATES if (problem := override_problem(name))]


def load_template(name: str) -> str:
    """Return the text of template ``name`` (e.g. ``"curator.txt"``): the user's usable
    override, else the packaged file."""
    override = template_override(name)
    if override is not None:
        text, _problem = read_override(override, name)
        if text is not None:
            return text
    packaged = PACKAGED_DIR / name
    if not packaged.is_file():
        raise TemplateNotFoundError(f"no prompt template named {name!r}")
    return packaged.read_text(encoding="utf-8")
