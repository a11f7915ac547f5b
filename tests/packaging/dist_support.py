"""What the packaging tests share: the checkout and the pair of files built from it.

A module of its own, not the folder's ``conftest``: ``from conftest import ...`` takes
whichever ``conftest`` module was imported first, another folder's when pytest is given
files from several folders.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[2]


class Dist(NamedTuple):
    """One wheel and one sdist of this checkout."""

    wheel: Path
    sdist: Path
