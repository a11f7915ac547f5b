"""Lazy package attributes (PEP 562), shared by ``acecode`` and ``acecode.store``.

A package lists ``name -> module`` and gets ``__getattr__``/``__dir__`` that
import the module on first use, so importing the package itself stays cheap
on the per-prompt hook path. Nothing is imported here at all: the tool hooks'
fast path (:mod:`acecode.recall.gate`) runs on every tool call, and ``typing``
alone (it imports ``re``) costs it most of its budget. ``TYPE_CHECKING`` is
the name type checkers and ruff know, defined here without ``typing``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` whose globals are ``namespace``."""

    def __getattr__(name: str) -> Any:
        module_name = exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module_name), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
