"""Run the ``acecode`` command as a user does: a real subprocess of this interpreter."""

from __future__ import annotations

import os
import subprocess
import sys

from support.hang_guard import HANG_GUARD


def run_acecode(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    """``python -m acecode ARGS`` in the current project; asserts the exit status ``code``."""
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "COLUMNS": "250"},
    )
    assert result.returncode == code, result.stdout + result.stderr
    return result
