"""The languages the user writes in, learned from their own requests.

A rule in a language the user does not read is one they cannot review, so
it waits for the safety review (``unreviewed``). Which languages does the
user read? Unless ``languages`` is set, acecode answers from the sessions
it learns from: every request the user typed (a ``prompt`` message, not a
tool result, a command or injected context) is run through the language
detector, and the counts are kept in the state folder beside the playbook::

    .claude/acecode/languages.json
    {"version": 1, "requests": {"fr": 31, "en": 4}}

English is always trusted (acecode's own prompts are English, and so are
most rules a curator writes); another language is trusted once
``MIN_REQUESTS`` of the user's requests were written in it. Short requests
("ok", "x y z", a command) have no language and are not counted.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acecode.project.bounds import read_json
from acecode.project.config import Settings
from acecode.project.diagnostics import warn
from acecode.project.state_folder import folder_of
from acecode.quarantine.language import DEFAULT_LANGUAGES, detect_language, parse_languages
from acecode.store.atomic import atomic_write_text
from acecode.store.errors import PlaybookError
from acecode.store.lock import exclusive_lock

if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

LANGUAGES_FILE = "languages.json"
VERSION = 1
# Requests in a language before it is trusted: one could be a pasted quote.
MIN_REQUESTS = 2
# Only the start of a request is read: enough to tell its language.
REQUEST_CHARS = 2_000


def languages_path(state_dir: StateFolder) -> Path:
    """``languages.json`` in a playbook's state folder (or a layer's)."""
    return Path(folder_of(state_dir), LANGUAGES_FILE)


def request_languages(messages: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """How many of the user's requests in ``messages`` are in each language."""
    counts: Counter[str] = Counter()
    for message in messages:
        if message.get("kind") != "prompt":
            continue
        found = detect_language(str(message.get("content") or "")[:REQUEST_CHARS])
        if found is not None:
            counts[found.code] += 1
    return counts


def load_request_languages(state_dir: StateFolder) -> Counter[str]:
    """The recorded counts; empty (with a warning when the file is unreadable) if none."""
    path = languages_path(state_dir)
    try:
        data = read_json(path, "languages file")
    except FileNotFoundError:
        return Counter()
    except (OSError, ValueError) as exc:
        warn(f"ignoring {path}: {exc}")
        return Counter()
    requests = data.get("requests") if isinstance(data, dict) else None
    if not isinstance(requests, dict):
        warn(f"ignoring {path}: no 'requests' counts")
        return Counter()
    return Counter({str(code): count for code, count in requests.items() if isinstance(count, int)})


def record_request_languages(
    state_dir: StateFolder, counts: Mapping[str, int], timeout: float
) -> None:
    """Add ``counts`` to the recorded ones (under the file's lock, replaced atomically).

    A failure only warns: the languages are a convenience, never a reason to
    lose a learning cycle.
    """
    if not counts:
        return
    path = languages_path(state_dir)
    try:
        with exclusive_lock(path, timeout):
            total = load_request_languages(state_dir) + Counter(counts)
            body = {"version": VERSION, "requests": dict(total.most_common())}
            atomic_write_text(path, json.dumps(body, indent=1, ensure_ascii=False) + "\n")
    except (PlaybookError, OSError) as exc:
        warn(f"could not record the languages of your requests in {path}: {exc}")


def trusted_languages(
    settings: Settings, state_dir: StateFolder, session: Mapping[str, int] | None = None
) -> tuple[str, ...]:
    """The languages a rule may be written in without a review.

    ``languages`` in the settings decides when it is set; otherwise English
    and every language with ``MIN_REQUESTS`` of the user's requests, recorded
    or in this ``session``.
    """
    if settings.languages.strip():
        return parse_languages(settings.languages)
    counts = load_request_languages(state_dir) + Counter(session or {})
    learned = [code for code, count in counts.most_common() if count >= MIN_REQUESTS]
    return tuple(dict.fromkeys((*DEFAULT_LANGUAGES, *learned)))
