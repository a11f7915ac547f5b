"""The floor's classes: what is unmistakably dangerous whatever the wording.

Seven classes, each built on structure rather than phrases: a command and
its flags (``curl ... | sh``, ``git push --force``, ``--no-verify``), an
address outside the machine, a secret or a credential store, one of
acecode's or Claude Code's own files, a check or hook, an authority (the
user, CLAUDE.md, the system prompt). A detector fires on an action done to
such a thing, in one clause or sentence (``reading``), unless the text does
not ask for it: a negation ("never", "don't", "ne ... pas", "不要") or a
scope ("only when the user asks") releases it. Intent is the safety
review's job (``sensitive``).

The detectors live in this package's modules, one job each (``network``,
``secrets``, ``git``, ``checks``, ``authority``); this module lists the classes
and the vocabulary. Vocabularies (``words``) cover English, French, German,
Spanish, Portuguese, Italian, Russian, Chinese and Japanese; everything runs
on the folded text (``normalize.fold``: lower case, look-alikes undone).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from acecode.quarantine.floor import authority, checks, git, network, secrets
from acecode.quarantine.floor.authority import _instruction_override, _self_modification
from acecode.quarantine.floor.checks import REVIEWED, _disable_checks
from acecode.quarantine.floor.git import _force_push
from acecode.quarantine.floor.network import _exfiltration, _pipe_to_shell
from acecode.quarantine.floor.secrets import _secrets
from acecode.quarantine.reading import Hit, Reading
from acecode.quarantine.words import Concepts

__all__ = ["FLOOR_CLASSES", "REVIEWED", "VOCABULARY", "FloorClass"]


@dataclass(frozen=True)
class FloorClass:
    """One class of the floor: a stable rule ID (``docs/quarantine.md`` says what each
    catches) and its detector."""

    id: str
    detect: Callable[[Reading], Hit | None]


FLOOR_CLASSES: tuple[FloorClass, ...] = (
    FloorClass("instruction-override", _instruction_override),
    FloorClass("pipe-to-shell", _pipe_to_shell),
    FloorClass("exfiltration", _exfiltration),
    FloorClass("credential-access", _secrets),
    FloorClass("self-modification", _self_modification),
    FloorClass("force-push", _force_push),
    FloorClass("disable-checks", _disable_checks),
)


# The floor's vocabulary, for the learned screen (``learned``): each pattern is one
# concept it reads (an action, the object it is done to, or a whole command), whether or
# not a detector above fires.
VOCABULARY: Concepts = {
    **network.VOCABULARY,
    **secrets.VOCABULARY,
    **authority.VOCABULARY,
    **checks.VOCABULARY,
    **git.VOCABULARY,
}
