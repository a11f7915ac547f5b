"""The two playbook layers: the project's and the user's.

A rule about the project (its layout, commands, conventions) belongs to that
project; a rule about the user (how they like code written, how they want to
be talked to, how they work) holds in every codebase. The project layer is
``<project>/.claude/playbook.json``, exactly as before. The user layer is
``~/.claude/acecode-user/playbook.json`` with its own state folder beside it
(``~/.claude/acecode-user/acecode/``: journal, locks, caches, reports), so it
never lives inside a project, never shares a journal with one, and is the
same file for every project.

Every name in the user layer starts with ``u-`` (``u-pref-001``), so a name
alone says which layer an entry is in: citations ``[u-pref-001]``, the
reflector's tags and the curator's UPDATE/MERGE/DELETE are routed by name,
and an ADD by the ``scope`` the curator gave it. Project names keep the
spec's ``{slug}-NNN`` form.

When both layers are the same file (a ``--playbook`` that names the user
layer), there is one layer, the user's: nothing is loaded, injected or
written twice. The home folder as a project is an ordinary project: its
layer is ``~/.claude/playbook.json``, a different file.

Only ``os`` is imported: the injection hook reads the user layer on every
cache check, and ``pathlib`` would cost it a noticeable share of its budget.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

PROJECT = "project"
USER = "user"
USER_PREFIX = "u-"
USER_FOLDER = "acecode-user"
SCOPE_KEY = "scope"


def user_playbook_file() -> str:
    """``~/.claude/acecode-user/playbook.json``, the user layer."""
    return os.path.join(os.path.expanduser("~"), ".claude", USER_FOLDER, "playbook.json")


def is_user_name(name: object) -> bool:
    """True for a user-layer name (``u-pref-001``)."""
    return isinstance(name, str) and name.startswith(USER_PREFIX)


def layer_of(name: object) -> str:
    """``"user"`` or ``"project"``: the layer an entry of this name lives in."""
    return USER if is_user_name(name) else PROJECT


def _same_file(first: str | os.PathLike[str], second: str | os.PathLike[str]) -> bool:
    return os.path.realpath(first) == os.path.realpath(second)


def is_user_layer(playbook_file: str | os.PathLike[str]) -> bool:
    """True when ``playbook_file`` is the user layer."""
    return _same_file(playbook_file, user_playbook_file())


def name_prefix_for(playbook_file: str | os.PathLike[str]) -> str:
    """The prefix of every new name in ``playbook_file``: ``u-`` in the user layer, else ``""``."""
    return USER_PREFIX if is_user_layer(playbook_file) else ""


def combine(project: dict[str, Any] | None, user: dict[str, Any] | None) -> dict[str, Any]:
    """One playbook holding both layers, section by section (project entries first).

    Names never collide (user names carry ``u-``), so the result can be
    formatted, ranked and shown as one playbook; it is never saved. Entries
    are shared, not copied (nothing edits an entry in place).
    """
    from acecode.playbook.schema import SECTION_NAMES, empty_playbook

    if user is None:
        return project if project is not None else empty_playbook()
    if project is None:
        return user
    combined = dict(project)
    project_sections = project.get("sections") or {}
    user_sections = user.get("sections") or {}
    combined["sections"] = {
        name: [*(project_sections.get(name) or ()), *(user_sections.get(name) or ())]
        for name in SECTION_NAMES
    }
    return combined


class Routed:
    """Deltas split by layer; ``refused`` holds what fits neither, with the reason.

    A plain class: the hook imports this module, and a ``NamedTuple`` or a
    dataclass costs it about a millisecond to build.
    """

    __slots__ = ("project", "refused", "user")

    def __init__(self) -> None:
        self.project: list[Any] = []
        self.user: list[Any] = []
        self.refused: list[tuple[Any, str]] = []


def route_tags(tags: Any) -> Routed:
    """The reflector's bullet tags, by the layer of the entry each names."""
    routed = Routed()
    for tag in tags if isinstance(tags, list) else ():
        name = tag.get("name") if isinstance(tag, dict) else None
        (routed.user if is_user_name(name) else routed.project).append(tag)
    return routed


def _names_of(op: dict[str, Any]) -> list[Any]:
    if op.get("type") == "MERGE":
        sources = op.get("source_ids")
        return list(sources) if isinstance(sources, list) else []
    return [op.get("target_id")]


def scope_of(op: Any) -> str:
    """The layer an operation belongs to: an ADD by its ``scope`` (project when absent
    or unknown), any other by the names it targets."""
    if not isinstance(op, dict):
        return PROJECT
    if op.get("type") == "ADD":
        scope = op.get(SCOPE_KEY)
        return USER if isinstance(scope, str) and scope.strip().lower() == USER else PROJECT
    names = [name for name in _names_of(op) if isinstance(name, str)]
    return USER if names and all(is_user_name(name) for name in names) else PROJECT


def route_operations(operations: Iterable[Any]) -> Routed:
    """The curator's operations, by layer.

    A MERGE whose sources lie in both layers is refused: a merged entry has
    one home, so the user moves one source first (``acecode move``).
    """
    routed = Routed()
    for op in operations:
        if isinstance(op, dict) and op.get("type") == "MERGE":
            layers = {layer_of(name) for name in _names_of(op) if isinstance(name, str)}
            if len(layers) > 1:
                routed.refused.append((op, "MERGE sources are in both layers; nothing merged"))
                continue
        (routed.user if scope_of(op) == USER else routed.project).append(op)
    return routed
