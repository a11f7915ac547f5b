"""The environment variables that make acecode sit out one session.

Kept apart from :mod:`acecode.project.control` (which reads TOML) so that the hook
entry point can check them with nothing but ``os`` imported.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # without importing typing: the tool hooks' fast path reads this module
if TYPE_CHECKING:
    from collections.abc import Mapping

SKIP_ENV = "ACECODE_SKIP"  # for users: `ACECODE_SKIP=1 claude` skips injection and learning
NESTED_ENV = "ACECODE_HOOKS_DISABLED"  # set by acecode for its own background and nested runs
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})


def session_skipped(env: Mapping[str, str] | None = None) -> str | None:
    """The variable that tells acecode to skip this session, or None."""
    env = os.environ if env is None else env
    for name in (SKIP_ENV, NESTED_ENV):
        if env.get(name, "").strip().lower() in TRUE_WORDS:
            return name
    return None
