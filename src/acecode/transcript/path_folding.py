"""The project's folder, written out in every path of a session, named once: the
condenser's header says it and paths below it are shown relative (``./src/app.py``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


# The folder must be shared by this share of the paths, and be at least this deep.
_ROOT_SHARE = 0.6
_ROOT_MIN_PARTS = 3


def project_root(paths: Sequence[str]) -> str:
    """The deepest folder that at least ``_ROOT_SHARE`` of ``paths`` lie in, or "" when
    none is deep enough to be a project's (``/Users/me`` is not)."""
    if not paths:
        return ""
    counts: Counter[str] = Counter()
    for path in paths:
        parts = path.split("/")[1:-1]
        for depth in range(_ROOT_MIN_PARTS, len(parts) + 1):
            counts["/" + "/".join(parts[:depth])] += 1
    needed = _ROOT_SHARE * len(paths)
    shared = [folder for folder, count in counts.items() if count >= needed]
    return max(shared, key=len, default="")


def _path_folder(root: str) -> Callable[[str], str] | None:
    """A function writing ``root/x`` as ``./x`` and ``root`` itself as ``.``."""
    if not root:
        return None
    inside = re.compile(re.escape(root) + r"(?=/|(?![\w.-]))")

    def fold(text: str) -> str:
        return inside.sub(".", text) if root in text else text

    return fold


def fold_paths(text: str, root: str) -> str:
    """``text`` with the project folder ``root`` folded as the condenser folds it."""
    fold = _path_folder(root)
    return fold(text) if fold is not None else text


def rendered_root(rendering: str) -> str:
    """The folder a rendering's paths are relative to (its header says), or ""."""
    match = re.search(r"Paths are relative to (.+?) \(shown as \./\)\.", rendering[:2000])
    return match.group(1) if match else ""
