"""The small JSON files the hooks and their helpers cache work in (the ``stat`` that keys
them is :func:`acecode.project.file_stat.stat_key`).

Used by the injection cache (:mod:`acecode.hooks.rendered`), the user checks, and
the arrivals' verdicts and announcements; kept below all of them so that none
imports another to reach a file helper.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

from acecode.project.state_folder import ensure_state_folder


def read_cache_file(path: str) -> dict[str, Any] | None:
    """The JSON object in a cache file; None when it is missing, torn or not an object."""
    from acecode.project.bounds import read_json

    try:
        data = read_json(path, "cache file")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_cache_file(path: str, data: dict[str, Any]) -> None:
    """Write a cache file, best effort: a folder we cannot write to simply means the
    cached work is done again next time.

    Replaced atomically but without ``fsync``: after a crash the file may be
    torn or empty, which ``read_cache_file`` treats as a miss. The temporary name
    has the shape ``acecode.store.atomic`` uses (8 characters between the
    dots), so the learner's stale-temp-file cleanup also covers it.
    """
    folder, name = os.path.split(path)
    temp = os.path.join(folder, f".{name}.{os.getpid():08x}.tmp")
    try:
        ensure_state_folder(folder)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with open(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(json.dumps(data, ensure_ascii=False))
        os.replace(temp, path)
    except OSError as exc:
        if not isinstance(exc, FileExistsError):  # the temp file of another writer
            with contextlib.suppress(OSError):
                os.unlink(temp)
        from acecode.project.diagnostics import diagnose

        diagnose("injection_cache", f"could not write the cache file {path}: {exc}")
