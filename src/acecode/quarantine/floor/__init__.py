"""The floor's classes: what is unmistakably dangerous whatever the wording.

Seven classes, each built on structure rather than phrases: a command and
its flags (``curl ... | sh``, ``git push --force``, ``--no-verify``), an
address outside the machine, a secret or a credential store, one of
acecode's or Claude Code's own files, a check or hook, an authority (the
user, CLAUDE.md, the system prompt). A detector fires on an action done to
such a thing, in one clause or sentence (``reading``), unless the text does
not ask for it: a negation ("never", "don't", "ne ... pas", "不要") or a
scope ("only when the user asks") releases it.

Everything else (intent: destructive clean-ups, privilege, consent, a
"productivity tip" that works against the user) is the LLM safety review's
job; ``sensitive`` says which texts touch such a class, so that they wait
for a human when no review could be made.

The detectors live in this package's modules, one job each (``network``,
``secrets``, ``git``, ``checks``, ``authority``); this module lists the classes
and the vocabulary.

Vocabularies cover English, French, German, Spanish, Portuguese, Italian,
Russian, Chinese and Japanese; everything runs on the folded text
(``normalize.fold``: lower case, look-alikes undone).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from acecode.quarantine.floor.authority import (
    _AUTHORITY,
    _DISMISS,
    _DONT_FOLLOW,
    _EDIT,
    _OUTRANK,
    _OWN_FILE,
    _ROLE_CHANGE,
    _SELF_COMMANDS,
    _instruction_override,
    _self_modification,
)
from acecode.quarantine.floor.checks import (
    _BLANKET_SILENCER,
    _CHECK,
    _CHECK_FLAGS,
    _DISABLE,
    _EVERY,
    _FAILING,
    _GATE,
    _SKIP_MARKERS,
    _TESTS,
    _WEAKEN,
    REVIEWED,
    _disable_checks,
)
from acecode.quarantine.floor.git import (
    _FORCE_FLAG,
    _FORCE_WORDS,
    _OWN_BRANCH,
    _PUBLISH,
    _REWRITE,
    _SHARED,
    _force_push,
)
from acecode.quarantine.floor.network import (
    _PIPE_COMMAND,
    _PIPE_VERB,
    _RAW_SOCKET,
    _SHELL_TARGET,
    _SHIP,
    _TRANSFER,
    _TRANSFER_COMMAND,
    _exfiltration,
    _pipe_to_shell,
)
from acecode.quarantine.floor.secrets import (
    _ENVIRONMENT,
    _KEEP_IN,
    _NAMES_ONLY,
    _PLACEHOLDER,
    _REPLY,
    _REPO_PLACE,
    _REUSE,
    _SECRET,
    _SHOW,
    _STORE,
    _STORE_COMMAND,
    _secrets,
)
from acecode.quarantine.reading import Hit, Reading


@dataclass(frozen=True)
class FloorClass:
    """One class of the floor: a stable rule ID, a summary, and its detector."""

    id: str
    summary: str
    detect: Callable[[Reading], Hit | None]


FLOOR_CLASSES: tuple[FloorClass, ...] = (
    FloorClass(
        "instruction-override",
        "tells the agent to ignore, out-rank or replace the user's, the project's or the "
        "system's instructions, or to take on a new role",
        _instruction_override,
    ),
    FloorClass(
        "pipe-to-shell",
        "runs code downloaded from the network without reading it (curl | sh, eval $(curl))",
        _pipe_to_shell,
    ),
    FloorClass(
        "exfiltration",
        "sends files, data or the environment to an address outside the machine",
        _exfiltration,
    ),
    FloorClass(
        "credential-access",
        "prints, reads or reuses secrets: tokens, keys, passwords, credential stores, "
        "the environment; or writes them into the repository",
        _secrets,
    ),
    FloorClass(
        "self-modification",
        "edits acecode's own files (playbook, review queue, settings) or Claude Code's "
        "settings and hooks",
        _self_modification,
    ),
    FloorClass(
        "force-push",
        "force-pushes or rewrites a branch others use (main, develop, release, tags)",
        _force_push,
    ),
    FloorClass(
        "disable-checks",
        "disables or dodges hooks, CI, tests, linters, type checks, signing or TLS checks",
        _disable_checks,
    ),
)


# The floor's vocabulary, for the learned screen (``learned``): each pattern is one
# concept it reads (an action, the object it is done to, or a whole command), whether or
# not a detector above fires.
VOCABULARY: dict[str, tuple[str, re.Pattern[str]]] = {
    "transfer": ("action", _TRANSFER),
    "ship": ("action", _SHIP),
    "show": ("action", _SHOW),
    "reuse": ("action", _REUSE),
    "keep-in": ("action", _KEEP_IN),
    "edit": ("action", _EDIT),
    "disable": ("action", _DISABLE),
    "weaken": ("action", _WEAKEN),
    "outrank": ("action", _OUTRANK),
    "dismiss": ("action", _DISMISS),
    "pipe": ("action", _PIPE_VERB),
    "force": ("action", _FORCE_WORDS),
    "rewrite-history": ("action", _REWRITE),
    "publish": ("action", _PUBLISH),
    "secret": ("object", _SECRET),
    "credential-store": ("object", _STORE),
    "environment": ("object", _ENVIRONMENT),
    "own-file": ("object", _OWN_FILE),
    "authority": ("object", _AUTHORITY),
    "check": ("object", _CHECK),
    "tests": ("object", _TESTS),
    "gate": ("object", _GATE),
    "shared": ("object", _SHARED),
    "repository-place": ("object", _REPO_PLACE),
    "reply": ("object", _REPLY),
    "shell": ("object", _SHELL_TARGET),
    "every": ("object", _EVERY),
    "failing": ("object", _FAILING),
    "pipe-command": ("command", _PIPE_COMMAND),
    "transfer-command": ("command", _TRANSFER_COMMAND),
    "socket": ("command", _RAW_SOCKET),
    "store-command": ("command", _STORE_COMMAND),
    "force-flag": ("command", _FORCE_FLAG),
    "check-flag": ("command", _CHECK_FLAGS),
    "skip-marker": ("command", _SKIP_MARKERS),
    "silencer": ("command", _BLANKET_SILENCER),
    "self-command": ("command", _SELF_COMMANDS),
    "role-change": ("command", _ROLE_CHANGE),
    "dont-follow": ("command", _DONT_FOLLOW),
    "names-only": ("qualifier", _NAMES_ONLY),
    "own-branch": ("qualifier", _OWN_BRANCH),
    "reviewed": ("qualifier", REVIEWED),
    "placeholder": ("qualifier", _PLACEHOLDER),
}
