"""Which repository a learning cycle is about, in one line for the reflector and curator.

A real model playing both roles on real sessions said the prompts never named
the project, so a lesson about "the tests" could not say whose. The line is
the project folder's name and, when git knows one, the ``origin`` remote's
URL without any credentials it may carry (``https://user:token@host/...``
keeps only the host and path). Text from this machine's own git config, so
it is trusted; it is redacted all the same before it reaches a prompt.
"""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

from acecode.project import paths
from acecode.text.redact import redact

GIT_TIMEOUT = 5.0
_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/@]*@", re.IGNORECASE)


def _origin(project: Path) -> str | None:
    """``git config --get remote.origin.url`` in ``project``, or None (no git, no remote)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(project), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    url = done.stdout.strip()
    return url or None


@functools.cache
def _describe(project: Path) -> str:
    name = project.name or str(project)
    origin = _origin(project)
    if origin is None:
        return f"{name} (no git remote)"
    shown = redact(_USERINFO.sub(r"\1", origin))
    return f"{name} (git remote origin: {shown})"


def repository_line(project: Path | None = None) -> str:
    """``acecode (git remote origin: https://github.com/o/acecode.git)`` for ``project``
    (default: the current project); read once per process and project."""
    return _describe((project or paths.project_dir()).resolve())
