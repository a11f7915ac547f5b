"""Graduate proven entries into the instructions the team already reviews, and undo it.

``acecode graduate NAME...`` moves entries out of the playbook into Claude
Code's own instructions: by default a rules file, ``.claude/rules/acecode.md``
(an entry about some paths goes into ``.claude/rules/acecode-<paths>.md`` with
``paths:`` front matter, so Claude Code loads it only once a matching file is
read); with ``--to CLAUDE.md`` the project's ``CLAUDE.md``, under ``## Learned
with acecode``. A user-layer entry (``u-...``) goes to the user's own
``~/.claude/rules/`` or ``~/.claude/CLAUDE.md``.

Only a proven entry graduates: one the hold-back experiments concluded
"helps" (:mod:`acecode.experiments.classes`), or one the user pinned; ``force``
takes any other. An entry that arrived with the repository and is held for
review never does.

The plan (:func:`plan_graduation`) computes every file's new text first, so the
caller can show the diff and ask. Running it (:func:`run_graduation`) writes
the files, then removes the entries from the playbook in one journaled save
(kind ``graduate``, its meta naming the files, their text before and after,
and the entries): a crash between the two leaves a rule in both places,
never in neither. The entries' provenance is retired under that cycle like any
removal, so ``acecode why`` still answers, and says where the entry went.
:func:`undo_graduation` puts the entries back first and then takes the blocks
out of the files: the file's text from before when nobody changed it since,
else just the blocks, as written; a block that was edited since is left to
the user (refused, nothing changed).
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acecode.instructions.writing import (
    Block,
    append_blocks,
    find_block,
    new_rules_file,
    only_scaffolding,
    remove_blocks,
)
from acecode.playbook.schema import iter_entries
from acecode.project.layer import Layer
from acecode.store.errors import PlaybookError
from acecode.store.journal import HistoryError

GRADUATE_KIND = "graduate"
RULES_NAME = "acecode"
CLAUDE_MD = "CLAUDE.md"
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_SLUG = re.compile(r"[^a-z0-9]+")


class GraduateError(PlaybookError):
    """The graduation cannot be made; nothing was changed. One line."""


@dataclass(frozen=True)
class Graduate:
    """One entry on its way out of the playbook, and where it goes."""

    name: str
    section: str
    text: str
    file: Path
    paths: tuple[str, ...]
    proven: str  # "helps", "pinned" or "forced"


@dataclass
class GraduationPlan:
    """Every entry's destination and every file's text before and after."""

    layer: Layer
    graduates: list[Graduate]
    before: dict[Path, str | None] = field(default_factory=dict)  # None: a new file
    after: dict[Path, str] = field(default_factory=dict)

    def diff(self, base: Path) -> str:
        """The files' unified diff, with paths relative to ``base``, and the entries that
        leave the playbook."""
        chunks = []
        for path, text in self.after.items():
            old = self.before[path]
            label = _relative(path, base)
            chunks += difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                text.splitlines(keepends=True),
                fromfile="/dev/null" if old is None else f"a/{label}",
                tofile=f"b/{label}",
            )
        leaving = [
            f"- [{g.name}] {g.text}  (leaves {self.layer.playbook_file.name}; {g.proven})\n"
            for g in self.graduates
        ]
        return "".join(chunks) + "".join(leaving)


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def entry_paths(text: str, project: Path) -> tuple[str, ...]:
    """The project paths ``text`` is about, as ``paths:`` patterns: a folder of the project
    named on its own (``src/api/``, `` `src/api` ``) gives ``src/api/**``, a file its own
    path. A path inside a backticked command (`` `pytest tests/unit` ``) is an argument,
    not what the rule is about, and does not count; nor does a path the project lacks."""
    from acecode.staleness.names import named_in

    outside = _BACKTICKED.sub(lambda m: m.group(0) if " " not in m.group(1).strip() else "", text)
    patterns: list[str] = []
    for path in named_in(outside).paths:
        target = project / path.rstrip("/")
        if target.is_dir():
            patterns.append(f"{path.rstrip('/')}/**")
        elif target.is_file():
            patterns.append(path)
    return tuple(dict.fromkeys(patterns))


def rules_file_for(folder: Path, paths: tuple[str, ...]) -> Path:
    """``rules/acecode.md``, or ``rules/acecode-<paths>.md`` for entries about ``paths``."""
    if not paths:
        return folder / "rules" / f"{RULES_NAME}.md"
    slug = _SLUG.sub("-", "-".join(p.removesuffix("/**") for p in paths).lower()).strip("-")
    return folder / "rules" / f"{RULES_NAME}-{slug[:60] or 'paths'}.md"


def _proof(name: str, layer: Layer, force: bool) -> str:
    """Why ``name`` may graduate ("helps", "pinned", "forced"); raises when it may not."""
    from acecode.experiments.classes import HELPS, names_in
    from acecode.project.pins import pins_or_none

    if name in names_in(layer, HELPS):
        return "helps"
    if name in pins_or_none(layer.playbook):
        return "pinned"
    if force:
        return "forced"
    raise GraduateError(
        f'{name} is not proven: neither concluded "helps" by the hold-back experiments '
        f"(`acecode impact --rules`) nor pinned (`acecode pin {name}`); --force graduates it anyway"
    )


def plan_graduation(
    names: list[str],
    *,
    project: Path,
    layer: Layer,
    to_claude_md: bool = False,
    force: bool = False,
    paths: tuple[str, ...] | None = None,
) -> GraduationPlan:
    """Where each of ``names`` goes and what each file becomes (module doc). ``paths``
    overrides the patterns found in the texts (``()``: loaded at every session start).
    Raises :class:`GraduateError` (one line, nothing changed)."""
    from acecode.store import load_playbook

    found = {
        entry["name"]: (section, entry) for section, entry in iter_entries(load_playbook(layer))
    }
    # The user's own instructions for a user-layer entry, the project's for the others.
    folder = Path.home() / ".claude" if layer.is_user else project / ".claude"
    claude_md = folder / CLAUDE_MD if layer.is_user else project / CLAUDE_MD
    if not layer.is_user:
        _refuse_held_arrivals(layer.playbook, names)
    plan = GraduationPlan(layer, [])
    for name in dict.fromkeys(names):
        if name not in found:
            raise GraduateError(f"no entry named {name!r} in {layer.playbook} (see `acecode show`)")
        section, entry = found[name]
        if to_claude_md:
            limited, target = (), claude_md
        else:
            limited = paths if paths is not None else entry_paths(entry["text"], project)
            target = rules_file_for(folder, limited)
        plan.graduates.append(
            Graduate(name, section, entry["text"], target, limited, _proof(name, layer, force))
        )
    for target in dict.fromkeys(g.file for g in plan.graduates):
        blocks = [Block(g.name, g.text) for g in plan.graduates if g.file == target]
        old = target.read_text(encoding="utf-8") if target.exists() else None
        plan.before[target] = old
        if old is None and not to_claude_md:
            limited = next(g.paths for g in plan.graduates if g.file == target)
            plan.after[target] = new_rules_file(blocks, limited)
        else:
            plan.after[target] = append_blocks(old or "", blocks, section=to_claude_md)
    return plan


def _refuse_held_arrivals(playbook: str, names: list[str]) -> None:
    """An entry held for review must not reach every session through the instructions."""
    from acecode.arrivals.review import held_arrivals

    held = {item.name for item in held_arrivals(playbook)} & set(names)
    if held:
        raise GraduateError(
            f"{', '.join(sorted(held))} arrived with the repository and "
            f"{'is' if len(held) == 1 else 'are'} held for review; approve first (`acecode review`)"
        )


def run_graduation(plan: GraduationPlan, *, lock_timeout: float = 10.0) -> str:
    """Write the files, then remove the entries in one journaled save; returns its cycle id.

    When the save fails the files are put back as they were and the error is raised.
    """
    from acecode.project.pins import pins_or_none
    from acecode.store import update_playbook
    from acecode.store.atomic import atomic_write_text

    pinned = [g.name for g in plan.graduates if g.name in pins_or_none(plan.layer.playbook)]
    written: list[Path] = []
    try:
        for path, text in plan.after.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, text)
            written.append(path)
        gone = {g.name for g in plan.graduates}
        with update_playbook(plan.layer, lock_timeout=lock_timeout) as txn:
            missing = gone - {entry["name"] for _, entry in iter_entries(txn.playbook)}
            if missing:
                raise GraduateError(f"{', '.join(sorted(missing))} left the playbook meanwhile")
            playbook = dict(txn.playbook)
            playbook["sections"] = {
                section: [e for e in entries if e["name"] not in gone]
                for section, entries in txn.playbook["sections"].items()
            }
            txn.playbook = playbook
            txn.meta.update(
                kind=GRADUATE_KIND,
                source="acecode graduate " + " ".join(g.name for g in plan.graduates),
                removals={
                    g.name: {"cause": GRADUATE_KIND, "reason": f"graduated to {g.file}"}
                    for g in plan.graduates
                },
                graduated={
                    "entries": [
                        {"name": g.name, "text": g.text, "file": str(g.file), "proven": g.proven}
                        for g in plan.graduates
                    ],
                    "files": [
                        {"path": str(path), "before": plan.before[path], "after": plan.after[path]}
                        for path in plan.after
                    ],
                    "unpinned": pinned,
                },
            )
    except BaseException:
        for path in written:
            _put_back(path, plan.before[path])
        raise
    _change_pins(plan.layer, remove=pinned)
    return str(txn.meta.get("cycle_id"))


def _put_back(path: Path, text: str | None) -> None:
    from acecode.store.atomic import atomic_write_text

    if text is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write_text(path, text)


def _change_pins(layer: Layer, *, remove: Sequence[str] = (), add: Sequence[str] = ()) -> None:
    """A graduated entry is no longer the playbook's to pin; undone, it is pinned again."""
    from acecode.project.pins import change_pins, pins_path

    path = pins_path(layer.playbook)
    for name in remove:
        change_pins(path, remove=name)
    for name in add:
        change_pins(path, add=name)


def graduation_of(layer: Layer, cycle_id: str | None) -> Any:
    """The journal cycle ``cycle_id`` (default: the last one not undone) when it is a
    graduation, else None."""
    from acecode.store.journal import get_cycle

    try:
        cycle = get_cycle(layer.playbook, cycle_id)
    except HistoryError:
        return None
    return cycle if cycle.kind == GRADUATE_KIND else None


def graduated_in(layer: Layer, name: str) -> Any:
    """The graduation that took ``name`` out of the playbook, if that is how it left."""
    from acecode.store.journal import last_removal

    found = last_removal(layer.playbook, name)
    if found is None:
        return None
    return graduation_of(layer, found[0])


def undo_graduation(cycle: Any, layer: Layer, *, lock_timeout: float = 10.0) -> list[str]:
    """Put the entries of graduation ``cycle`` back, then take them out of the files;
    returns the names back. Raises ``HistoryError`` (nothing changed) when a block was
    edited in its file since."""
    from acecode.store.atomic import atomic_write_text
    from acecode.store.undo import undo_cycle

    graduated = cycle.meta.get("graduated") or {}
    rewrites: dict[Path, str | None] = {}
    for item in graduated.get("files") or ():
        path = Path(item["path"])
        now = path.read_text(encoding="utf-8") if path.exists() else None
        blocks = [
            Block(e["name"], e["text"]) for e in graduated["entries"] if e["file"] == item["path"]
        ]
        if now == item["after"]:
            rewrites[path] = item["before"]
            continue
        lost = [b.name for b in blocks if now is None or find_block(now, b) is None]
        if lost:
            raise HistoryError(
                f"cannot undo graduation {cycle.cycle_id}: {', '.join(lost)} was changed or "
                f"removed in {path} since; edit the file by hand and `acecode restore NAME`"
            )
        rest = remove_blocks(now or "", blocks)
        rewrites[path] = None if item["before"] is None and only_scaffolding(rest) else rest
    result = undo_cycle(layer.playbook_file, cycle.cycle_id, lock_timeout=lock_timeout)
    for path, text in rewrites.items():
        if text is None:
            path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # the rules folder, when nothing else is in it
                path.parent.rmdir()
        else:
            atomic_write_text(path, text)
    _change_pins(layer, add=list(graduated.get("unpinned") or ()))
    return result.reverted
