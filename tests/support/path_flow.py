"""Where a project's playbook path travels during a learning cycle (issue 21).

The goal "followed from the cycle's entry, the playbook enters each module at most
twice" is measured by running a real cycle under a profiler: every call from one
acecode module into another whose arguments hold the playbook file or its state
folder (as ``str`` or ``os.PathLike``, alone or inside a tuple, list or dict) is one
*entry* into the callee's module, counted once per call site (caller module and
line, callee function). A module that is handed the path at two places is entered
twice; a module that opens one state file after another by path, each time from
another place, is entered at each.

Calls inside one module are not entries (the path is already there), and calls
from outside acecode (the test, asyncio resuming a coroutine) are not counted.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

PACKAGE = "acecode"


@dataclass
class PathFlow:
    """The call sites that handed one of the watched paths to each module."""

    watched: frozenset[str]
    sites: dict[str, set[tuple[str, int, str]]] = field(default_factory=lambda: defaultdict(set))

    def entries(self) -> dict[str, int]:
        """Entries per module, most first."""
        counts = {module: len(sites) for module, sites in self.sites.items()}
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def table(self) -> str:
        """One line per module: its entries and the sites that made them."""
        lines = [f"{'module':<45} entries  from"]
        for module, count in self.entries().items():
            origins = sorted(
                f"{caller}:{line}->{function}" for caller, line, function in self.sites[module]
            )
            lines.append(f"{module:<45} {count:>7}  {', '.join(origins)}")
        return "\n".join(lines)


def _holds(value: Any, watched: frozenset[str], depth: int = 0) -> bool:
    if isinstance(value, str | os.PathLike):
        try:
            return os.fspath(value) in watched
        except TypeError:
            return False
    if depth < 1 and isinstance(value, tuple | list):
        return any(_holds(item, watched, depth + 1) for item in value)
    if depth < 1 and isinstance(value, dict):
        return any(_holds(item, watched, depth + 1) for item in value.values())
    return False


def _module_of(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if name == PACKAGE or name.startswith(PACKAGE + ".") else None


def _arguments(frame: FrameType) -> list[Any]:
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    local = frame.f_locals
    return [local[name] for name in code.co_varnames[:count] if name in local]


@contextmanager
def watching(*paths: Path) -> Iterator[PathFlow]:
    """Record the entries of ``paths`` into acecode modules while the block runs
    (every thread started inside it too)."""
    flow = PathFlow(frozenset(os.fspath(path) for path in paths))

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        callee = _module_of(frame)
        caller_frame = frame.f_back
        if callee is None or caller_frame is None:
            return
        caller = _module_of(caller_frame)
        if caller is None or caller == callee:
            return
        if any(_holds(value, flow.watched) for value in _arguments(frame)):
            flow.sites[callee].add((caller, caller_frame.f_lineno, frame.f_code.co_qualname))

    previous = sys.getprofile()
    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        yield flow
    finally:
        sys.setprofile(previous)
        threading.setprofile(None)  # type: ignore[arg-type]
