"""One playbook layer: its file and the state folder beside it.

A layer (the project's ``.claude/playbook.json`` or the user's
``~/.claude/acecode-user/playbook.json``, :mod:`acecode.project.layers`) is a
playbook file and a state folder (``acecode/`` beside it) holding everything
acecode keeps about that playbook: the lock, the history journal, provenance,
the review queue, judgements, pins, outcomes, reports and caches. Each of those
files is owned by one module, which names it inside the folder (the table in
docs/architecture.md).

A :class:`Layer` is built once where a playbook is chosen (the cycle's entry, a
CLI command) and handed down instead of the path: the modules below it read
``layer.folder`` instead of working out the folder from the path again. Every
function that takes a layer also takes a path, for the library and the tests
(:meth:`Layer.of`).

Only ``os`` and ``pathlib`` are imported: the store imports this module, and so
does every state file's owner.
"""

from __future__ import annotations

import os
from pathlib import Path

from acecode.project.layers import USER_PREFIX, is_user_layer, user_playbook_file
from acecode.project.state_folder import STATE_FOLDER_NAME, ensure_state_folder


class Layer:
    """A playbook file and its state folder. Two layers are equal when their files are."""

    __slots__ = ("_user", "folder", "playbook_file")

    def __init__(self, playbook_file: str | os.PathLike[str]) -> None:
        self.playbook_file = Path(playbook_file)
        self.folder = self.playbook_file.parent / STATE_FOLDER_NAME
        self._user: bool | None = None

    @classmethod
    def of(cls, where: Where = None) -> Layer:
        """``where`` itself when it is a layer, the layer of that playbook file when it is
        a path, else the project's layer (``<project>/.claude/playbook.json``)."""
        if isinstance(where, Layer):
            return where
        if where is None:
            from acecode.project.paths import playbook_path

            return cls(playbook_path())
        return cls(where)

    @classmethod
    def user(cls) -> Layer:
        """The user's layer, ``~/.claude/acecode-user/playbook.json``."""
        return cls(user_playbook_file())

    @property
    def is_user(self) -> bool:
        """True for the user's layer (whatever path named it)."""
        if self._user is None:
            self._user = is_user_layer(self.playbook_file)
        return self._user

    @property
    def name_prefix(self) -> str:
        """The prefix of every new name in this layer: ``u-`` in the user's, else ``""``."""
        return USER_PREFIX if self.is_user else ""

    @property
    def project_root(self) -> Path | None:
        """The project this layer belongs to (the folder holding its ``.claude`` folder);
        None for a playbook kept anywhere else (the user's layer, a ``--playbook`` file)."""
        parent = self.playbook_file.resolve().parent
        return parent.parent if parent.name == ".claude" else None

    def file(self, name: str) -> Path:
        """The state file ``name`` of this layer (inside its state folder)."""
        return self.folder / name

    def ensure_folder(self) -> Path:
        """Create the state folder (with its ``.gitignore``) when missing; returns it.
        Raises ``OSError`` when it cannot be created."""
        ensure_state_folder(self.folder)
        return self.folder

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layer) and other.playbook_file == self.playbook_file

    def __hash__(self) -> int:
        return hash(self.playbook_file)

    def __repr__(self) -> str:
        return f"Layer({str(self.playbook_file)!r})"


# What a function that opens a layer's state accepts: a layer, a playbook file, or
# None for the project's layer.
Where = str | os.PathLike[str] | Layer | None
