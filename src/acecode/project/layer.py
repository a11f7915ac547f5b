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
``layer.folder`` instead of working out the folder from the path again. A function
that takes a layer also takes a path, for the library, the CLI and the tests: the
playbook file where it asks for a layer (``Where``, :meth:`Layer.of`), the state
folder where it asks for one (``StateFolder``, :func:`acecode.project.state_folder.folder_of`).

Only ``os`` is imported: the hooks build their layer too, and ``pathlib`` costs the
injection hook a noticeable share of its time (:mod:`acecode.hooks.context`). The
``Path`` views (:attr:`Layer.playbook_file`, :attr:`Layer.folder`) import it when asked.
"""

from __future__ import annotations

import os

from acecode.project.layers import USER_PREFIX, is_user_layer, user_playbook_file
from acecode.project.state_folder import STATE_FOLDER_NAME, ensure_state_folder

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeAlias


class Layer:
    """A playbook file and its state folder. Two layers are equal when their files are."""

    __slots__ = ("_user", "playbook", "state_folder")

    def __init__(self, playbook_file: str | os.PathLike[str]) -> None:
        self.playbook = os.fspath(playbook_file)
        self.state_folder = os.path.join(os.path.dirname(self.playbook), STATE_FOLDER_NAME)
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
    def of_project(cls, project: str | os.PathLike[str]) -> Layer:
        """The layer of the project rooted at ``project``: ``<project>/.claude/playbook.json``."""
        return cls(os.path.join(project, ".claude", "playbook.json"))

    @classmethod
    def user(cls) -> Layer:
        """The user's layer, ``~/.claude/acecode-user/playbook.json``."""
        return cls(user_playbook_file())

    @property
    def playbook_file(self) -> Path:
        """The playbook file, as a ``Path``."""
        from pathlib import Path

        return Path(self.playbook)

    @property
    def folder(self) -> Path:
        """The state folder, as a ``Path``."""
        from pathlib import Path

        return Path(self.state_folder)

    @property
    def is_user(self) -> bool:
        """True for the user's layer (whatever path named it)."""
        if self._user is None:
            self._user = is_user_layer(self.playbook)
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

    def state_file(self, *parts: str) -> str:
        """A path inside the state folder, as a string (what the hooks use)."""
        return os.path.join(self.state_folder, *parts)

    def file(self, name: str) -> Path:
        """The state file ``name`` of this layer (inside its state folder), as a ``Path``."""
        return self.folder / name

    def ensure_folder(self) -> Path:
        """Create the state folder (with its ``.gitignore``) when missing; returns it.
        Raises ``OSError`` when it cannot be created."""
        ensure_state_folder(self.state_folder)
        return self.folder

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layer) and other.playbook == self.playbook

    def __hash__(self) -> int:
        return hash(self.playbook)

    def __repr__(self) -> str:
        return f"Layer({self.playbook!r})"


# What a function that opens a layer's state accepts: a layer, a playbook file, or
# None for the project's layer.
Where: TypeAlias = "str | os.PathLike[str] | Layer | None"
