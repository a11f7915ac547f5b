"""Recognise acecode's own nested ``claude -p`` sessions by their content.

A Claude Code without ``--no-session-persistence`` (and acecode before it
passed that flag) saves every reflector, curator and safety review call of the ``claude``
provider as a session in the user's project folder. Learning from one would
teach the playbook about acecode's own prompts, so bootstrap and ``acecode
learn`` skip them.

Such a session is recognised by its first user message: the prompt the
nested run was given, which begins with the opening of one of acecode's role
templates (the packaged one or the user's override in ``~/.claude/prompts``).
Only the first messages are read, so a long session costs one short read.
"""

from __future__ import annotations

import re
from itertools import islice
from pathlib import Path

from acecode.prompts.templates import PACKAGED_DIR, template_override

# The templates whose filled text is the whole prompt of a nested run.
ROLE_TEMPLATES = ("reflector.txt", "curator.txt", "safety_review.txt", "reflection.txt")
# A shorter literal opening could match a user's own first message by chance.
MIN_OPENING_CHARS = 40
# The prompt of a nested run is its first message.
MAX_MESSAGES = 20
_PLACEHOLDER = re.compile(r"(?<!\{)\{[A-Za-z_][A-Za-z0-9_]*\}")


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _opening(template: str) -> str | None:
    """The template's first line up to its first placeholder, if long enough to be telling."""
    first_line = template.strip().split("\n", 1)[0]
    literal = _PLACEHOLDER.split(first_line, 1)[0].replace("{{", "{").replace("}}", "}")
    literal = _normalise(literal)
    return literal if len(literal) >= MIN_OPENING_CHARS else None


def role_openings() -> dict[str, str]:
    """Each recognisable opening with its role, from packaged templates and user overrides."""
    openings: dict[str, str] = {}
    for name in ROLE_TEMPLATES:
        role = name.removesuffix(".txt")
        for path in (PACKAGED_DIR / name, template_override(name)):
            if path is None:
                continue
            try:
                opening = _opening(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
            if opening:
                openings[opening] = role
    return openings


def first_prompt(transcript: Path) -> str | None:
    """The text of the session's first user request (not injected context), or None."""
    from acecode.transcript import iter_messages

    try:
        for message in islice(iter_messages(transcript), MAX_MESSAGES):
            if message.get("kind") == "prompt":
                return str(message.get("content") or "")
    except OSError:
        return None
    return None


def own_session_role(transcript: Path, openings: dict[str, str] | None = None) -> str | None:
    """The acecode role (``reflector``, ``curator``, ``safety_review``, ``reflection``)
    whose prompt opens ``transcript``, or None when it is an ordinary session."""
    text = first_prompt(transcript)
    if not text:
        return None
    head = _normalise(text[:4000])
    for opening, role in (role_openings() if openings is None else openings).items():
        if head.startswith(opening):
            return role
    return None


def split_own_sessions(transcripts: list[Path]) -> tuple[list[Path], list[Path]]:
    """(ordinary sessions, acecode's own nested sessions), each in the given order."""
    openings = role_openings()
    ordinary: list[Path] = []
    own: list[Path] = []
    for transcript in transcripts:
        (own if own_session_role(transcript, openings) else ordinary).append(transcript)
    return ordinary, own
