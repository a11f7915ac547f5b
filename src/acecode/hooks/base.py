"""What every hook shares: the agents it answers and one stderr line for a problem.

Used by the hook entry (:mod:`acecode.hooks`) and the tool hooks
(:mod:`acecode.hooks.tools`); imports only :mod:`acecode.errors` until it reports.
"""

from __future__ import annotations

from acecode.errors import AcecodeError

# acecode.agents' names, without importing the registry in every hook.
DEFAULT_AGENT = "claude-code"
AGENTS = (DEFAULT_AGENT, "codex")


class HookInputError(AcecodeError, ValueError):
    """The agent's stdin could not be understood; the hook does nothing."""


def report(exc: BaseException) -> None:
    """One stderr line and, in diagnostic mode, the traceback. Must not raise."""
    try:
        import traceback

        from acecode.project.diagnostics import diagnose, warn

        message = str(exc) if isinstance(exc, HookInputError) else f"hook failed: {exc!r}"
        warn(message)
        diagnose("hook_error", "".join(traceback.format_exception(exc)))
    except BaseException:  # the error path itself must never escape
        pass
