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

import pytest
from dist_support import REPO, Dist
from filelock import FileLock

from support.hang_guard import LONG_HANG_GUARD

BUILT_BY_CI = os.environ.get("CI_BUILT_DIST")


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Dist:
    """The wheel and sdist: CI's, or built once for this run."""
    if BUILT_BY_CI:
        folder = Path(BUILT_BY_CI)
    elif worker_id == "master":  # no xdist: this process alone
        folder = tmp_path_factory.mktemp("dist")
        _build(folder)
    else:
        # One build for every xdist worker of this run (their temp folders share a
        # parent): two builds in one source tree at once collide and fail.
        folder = tmp_path_factory.getbasetemp().parent / "dist"
        with FileLock(f"{folder}.lock"):
            if not any(folder.glob("acecode-*.whl")):
                _build(folder)
    (wheel,) = folder.glob("acecode-*.whl")
    (sdist,) = folder.glob("acecode-*.tar.gz")
    return Dist(wheel, sdist)


def _build(folder: Path) -> None:
    """``python -m build`` of this checkout into ``folder``, as a package index would get it."""
    subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(folder), str(REPO)],
        check=True,
        capture_output=True,
        timeout=LONG_HANG_GUARD,
    )
