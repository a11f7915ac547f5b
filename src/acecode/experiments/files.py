"""Where the experiment records live: ``.claude/acecode/experiments/`` (git-ignored).

Plain strings and ``os.path``, as in :mod:`acecode.hooks.context`: the
injection hooks use these names.

- ``exposures.jsonl``: one line per injection (session start, top-up): the
  session, the agent, the entries with their version, and, with experiments
  on, the entries in the hold-back draw and the ones held back;
- ``outcomes.jsonl``: per experiment session, the failure signatures and
  corrections its transcript holds (a cache: rebuilt from the transcripts);
- ``classes.json``: the entries whose evidence is conclusive, with their class
  and figure;
- ``salt``: the project's secret that makes the draws random (and the same at
  every start of one session);
- the user's ``experiments-announced`` flag (beside the claims, in the user
  layer's state folder): the first session start with experiments on says so,
  once.
"""

from __future__ import annotations

import os

from acecode.project.state_folder import folder_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

FOLDER = "experiments"
EXPOSURES = "exposures.jsonl"
OUTCOMES = "outcomes.jsonl"
CLASSES = "classes.json"
SALT = "salt"
ANNOUNCED = "experiments-announced"


def experiments_path(state: StateFolder, name: str = "") -> str:
    """``<state folder>/experiments/<name>`` (the state folder given, or a layer's)."""
    folder = os.path.join(folder_of(state), FOLDER)
    return os.path.join(folder, name) if name else folder


def announced_flag() -> str:
    """The user's flag file: experiments were announced once (in the user layer's state
    folder, for every project)."""
    from acecode.project.layer import Layer

    return Layer.user().state_file(ANNOUNCED)
