"""Read a playbook file and migrate it, with nothing else of the store.

Kept apart from ``playbook_file`` (locking, atomic saves, transactions) so that
the injection hook can render a playbook on a cache miss without importing
that machinery. ``path`` may be a ``str`` or a ``Path``: messages name it the same.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from acecode.playbook.schema import empty_playbook
from acecode.project.bounds import (
    MAX_PLAYBOOK_BYTES,
    MAX_PLAYBOOK_ENTRIES,
    FileLimitError,
    loads_bounded,
    read_bounded,
)
from acecode.store.errors import PlaybookFileError
from acecode.store.migrate import migrate_playbook

if TYPE_CHECKING:
    from os import PathLike


def read_playbook(path: str | PathLike[str]) -> dict[str, Any]:
    """The migrated playbook in ``path``; a missing file is an empty playbook.

    Raises ``PlaybookFileError`` for a file that is unreadable, not JSON or
    not a playbook; the file itself is left exactly as it was.
    """
    try:
        raw = read_bounded(path, MAX_PLAYBOOK_BYTES, "playbook")
    except FileNotFoundError:
        return empty_playbook()
    except FileLimitError as exc:
        raise PlaybookFileError(f"{exc}; file left untouched") from exc
    except OSError as exc:
        raise PlaybookFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return parse_playbook(raw, path)


def parse_playbook(raw: bytes, path: str | PathLike[str]) -> dict[str, Any]:
    """The migrated playbook in ``raw``, the bytes of the file ``path``; raises like
    :func:`read_playbook`."""
    try:
        # utf-8-sig: a BOM left by a Windows editor must not lock the user out.
        data = loads_bounded(raw, path, "playbook", MAX_PLAYBOOK_ENTRIES)
    except FileLimitError as exc:
        raise PlaybookFileError(f"{exc}; file left untouched") from exc
    except UnicodeDecodeError as exc:
        raise PlaybookFileError(
            f"{path}: not UTF-8 text (byte {exc.start}); file left untouched"
        ) from exc
    except json.JSONDecodeError as exc:
        raise PlaybookFileError(
            f"{path}: invalid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}); "
            "file left untouched"
        ) from exc
    return migrate_playbook(data, path)
