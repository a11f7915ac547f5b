"""What identifies a file's version for a cache key: its ``stat``, in one list.

Kept apart, with only ``os``, so that the tool hooks' fast path
(:mod:`acecode.recall.gate`) checks its index's inputs without importing the
cache helpers (:mod:`acecode.hooks.cache_files`), which import ``json``.
"""

from __future__ import annotations

import os


def stat_key(path: str) -> list[int] | None:
    """What identifies a file's content and access: a chmod or chown changes ``st_ctime``,
    so a playbook made unreadable is reported instead of served from the cache."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]
