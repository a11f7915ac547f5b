"""Whether an arrived entry waits for an LLM review before it is injected.

With an LLM provider configured, an entry that arrived with the repository is
injected only once a safety review on this machine passed it: the
``SessionStart`` hook starts that review in the background
(:mod:`acecode.pipeline.arrival_review`). Without one no review can come, so
arrivals are judged as before: the floor's findings and the "not reviewed"
waits hold, the rest is injected, and the session-start notice says so.

The hook knows whether a provider is configured (from the user checks' cache,
:mod:`acecode.hooks.user_checks`); the renderer of the injection must know it
too, and cheaply, at every hook. So the hook records the answer in the project's
state folder as the existence of one empty file, :data:`FLOOR_ONLY_NAME` (no
provider), whose ``stat`` is part of the injection cache's key
(:func:`acecode.hooks.rendered.inputs_key`): no file means a review comes, which
is also the safe answer before the hook has ever looked.

Only ``os`` is imported: the injection hook calls this.
"""

from __future__ import annotations

import contextlib
import os

FLOOR_ONLY_NAME = "arrivals-floor-only"


def floor_only_file(state_dir: str | os.PathLike[str]) -> str:
    """``<state folder>/arrivals-floor-only``."""
    return os.path.join(os.fspath(state_dir), FLOOR_ONLY_NAME)


def needs_review(state_dir: str | os.PathLike[str]) -> bool:
    """Whether arrivals wait for an LLM review here (no flag file: a provider, or not
    known yet)."""
    return not os.path.exists(floor_only_file(state_dir))


def record_reviewer(state_dir: str | os.PathLike[str], reviewer: bool) -> bool:
    """Record whether an LLM review can be made (``reviewer``); True when that changed
    the flag (the injection must then be rendered again). Best effort: a state folder
    that cannot be written keeps the safe default, arrivals waiting for a review."""
    path = floor_only_file(state_dir)
    if reviewer == (not os.path.exists(path)):
        return False
    with contextlib.suppress(OSError):
        if reviewer:
            os.unlink(path)
        else:
            from acecode.project.state_folder import ensure_state_folder

            ensure_state_folder(os.fspath(state_dir))
            with open(path, "a", encoding="utf-8"):
                pass
        return True
    return False
