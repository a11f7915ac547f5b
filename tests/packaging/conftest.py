"""The wheel and sdist as a package index would get them, built once per test session.

``.ci/run`` builds them into a folder and names it in ``CI_BUILT_DIST``, so the tests
check the very files CI checked; run alone, the tests build them with ``python -m
build`` into a temporary folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from support.hang_guard import LONG_HANG_GUARD

REPO = Path(__file__).resolve().parents[2]
BUILT_BY_CI = os.environ.get("CI_BUILT_DIST")


class Dist(NamedTuple):
    """One wheel and one sdist of this checkout."""

    wheel: Path
    sdist: Path


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    if BUILT_BY_CI:
        folder = Path(BUILT_BY_CI)
    else:
        folder = tmp_path_factory.mktemp("dist")
        subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(folder), str(REPO)],
            check=True,
            capture_output=True,
            timeout=LONG_HANG_GUARD,
        )
    (wheel,) = folder.glob("acecode-*.whl")
    (sdist,) = folder.glob("acecode-*.tar.gz")
    return Dist(wheel, sdist)
