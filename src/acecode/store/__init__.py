"""The playbook store: load with migration, save atomically under a lock.

The names below are resolved lazily (PEP 562), as in ``acecode/__init__.py``:
the injection hook's cache miss imports only ``acecode.store.reading``, not
the lock, atomic-write and transaction machinery of ``playbook_file``.
"""

from __future__ import annotations

import importlib
from typing import Any

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


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'acecode.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
