"""The injected text, cached so that the common case costs one small file read.

Rendering needs the store (file lock, migration) and the formatter (templates,
``importlib.resources``): together several times the interpreter's own start
time. The text only changes when one of its inputs does, so it is cached in
``.claude/acecode/injection-cache.json`` under a key made of those inputs: the
playbook file's ``stat`` (an atomic save always gives a new inode), the user's
template override, the packaged template and acecode's version. The key is
taken *before* rendering, so a playbook saved meanwhile just causes one more
render on the next hook.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

import acecode
from acecode.hooks.context import playbook_file, state_path, user_template_override
from acecode.state_folder import ensure_state_folder

TEMPLATE = "playbook.txt"
CACHE_NAME = "injection-cache.json"


def _stat_key(path: str) -> list[int] | None:
    """What identifies a file's content and access: a chmod or chown changes ``st_ctime``,
    so a playbook made unreadable is reported instead of served from the cache."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def _packaged_template() -> str:
    return os.path.join(os.path.dirname(acecode.__file__), "prompts", TEMPLATE)


def _inputs_key(playbook: str) -> list[Any]:
    return [
        acecode.__version__,
        _stat_key(playbook),
        _stat_key(user_template_override(TEMPLATE)),
        _stat_key(_packaged_template()),
    ]


def _template_text() -> str:
    """``acecode.templates.load_template(TEMPLATE)`` with the paths of the key:
    the user's override when it is a file, else the packaged template."""
    override = user_template_override(TEMPLATE)
    path = override if os.path.isfile(override) else _packaged_template()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _read_cache(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _render(playbook: str) -> str:
    """Load (with migration) and format; raises ``PlaybookError`` for a bad file."""
    from acecode.playbook.formatting import format_playbook
    from acecode.store.reading import read_playbook

    return format_playbook(read_playbook(playbook), _template_text())


def _write_cache(path: str, key: list[Any], text: str) -> None:
    """Best effort: a project we cannot write to simply renders every time.

    Replaced atomically but without ``fsync``: after a crash the cache may be
    torn or empty, which ``_read_cache`` treats as a miss. The temporary name
    has the shape ``acecode.store.atomic`` uses (8 characters between the
    dots), so the learner's stale-temp-file cleanup also covers it.
    """
    folder, name = os.path.split(path)
    temp = os.path.join(folder, f".{name}.{os.getpid():08x}.tmp")
    try:
        ensure_state_folder(folder)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with open(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(json.dumps({"key": key, "text": text}))
        os.replace(temp, path)
    except OSError as exc:
        if not isinstance(exc, FileExistsError):  # the temp file of another writer
            with contextlib.suppress(OSError):
                os.unlink(temp)
        from acecode.diagnostics import diagnose

        diagnose("injection_cache", f"could not write the injection cache {path}: {exc}")


def injection_text(project: str) -> str:
    """The formatted playbook of ``project``; ``""`` when it has no entries or no file.

    Raises ``acecode.store.PlaybookError`` (one-line message) for a playbook
    that cannot be read; nothing is cached then.
    """
    playbook = playbook_file(project)
    key = _inputs_key(playbook)
    if key[1] is None:  # no playbook yet: nothing to inject, nothing to cache
        return ""
    cache = state_path(project, CACHE_NAME)
    cached = _read_cache(cache)
    if cached is not None and cached.get("key") == key and isinstance(cached.get("text"), str):
        return cached["text"]
    text = _render(playbook)
    _write_cache(cache, key, text)
    return text
