"""The playbook store: load with migration, save atomically under a lock.

The names below are resolved lazily (PEP 562), as in ``acecode/__init__.py``:
the injection hook's cache miss imports only ``acecode.store.reading``, not
the lock, atomic-write and transaction machinery of ``playbook_file``.
"""

from __future__ import annotations

from acecode._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "PlaybookError": "acecode.store.errors",
    "PlaybookFileError": "acecode.store.errors",
    "PlaybookLockTimeout": "acecode.store.errors",
    "PlaybookWriteError": "acecode.store.errors",
    "DEFAULT_LOCK_TIMEOUT": "acecode.store.playbook_file",
    "PlaybookTransaction": "acecode.store.playbook_file",
    "load_playbook": "acecode.store.playbook_file",
    "resolve_path": "acecode.store.playbook_file",
    "save_playbook": "acecode.store.playbook_file",
    "serialize_playbook": "acecode.store.playbook_file",
    "update_playbook": "acecode.store.playbook_file",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports("acecode.store", globals(), _EXPORTS)
