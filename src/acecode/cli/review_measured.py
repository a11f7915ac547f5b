"""``acecode review`` for the entries the hold-back experiments measured to hurt.

An entry whose failure came back more often when it was injected than when
it was held back (:mod:`acecode.experiments.estimate`, class ``hurts``) is
no longer injected: it waits here with its figure. ``review approve NAME``
keeps it injected (the user knows better: the failure may have grown for
another reason); ``review reject NAME`` deletes it from the playbook,
journaled, so ``acecode undo`` brings it back. The verdicts live in the
project's state folder (:mod:`acecode.experiments.classes`), for both
layers' entries, so these commands act there whatever ``--user`` says.
"""

from __future__ import annotations

from pathlib import Path

from acecode.cli.common import console, fail, layer_path, refresh_injection


def _state(playbook: Path | None) -> Path:
    """The project's state folder (where the experiments' verdicts are kept)."""
    from acecode.project import paths
    from acecode.project.layer import Layer
    from acecode.project.layers import is_user_layer

    if playbook is not None and not is_user_layer(playbook):
        return Layer.of(playbook).folder
    return Layer.of_project(str(paths.project_dir())).folder


def _withheld(playbook: Path | None) -> dict[str, dict]:
    from acecode.experiments.classes import read_classes, withheld

    state = _state(playbook)
    names = withheld(state)
    return {name: item for name, item in read_classes(state).items() if name in names}


def is_measured(item_id: str, playbook: Path | None) -> bool:
    """True when ``item_id`` names an entry withheld for its measured harm."""
    return item_id.strip() in _withheld(playbook)


def show_measured(playbook: Path | None) -> None:
    """The withheld entries, only when there are some (most projects have none)."""
    from rich.table import Table

    from acecode.playbook.schema import iter_entries
    from acecode.project.layers import user_playbook_file
    from acecode.store import PlaybookError, load_playbook

    items = _withheld(playbook)
    if not items:
        return
    texts: dict[str, str] = {}
    for path in (layer_path(playbook), Path(user_playbook_file())):
        try:
            if path.exists():
                texts.update((e["name"], e["text"]) for _s, e in iter_entries(load_playbook(path)))
        except PlaybookError:
            continue  # the other lists report an unreadable playbook
    table = Table(title="Measured to make their failure more frequent, not injected")
    for column in ("entry", "effect [90% interval]", "sessions", "text"):
        table.add_column(column, overflow="fold")
    for name, item in sorted(items.items()):
        figure = str(item.get("figure", "?"))
        table.add_row(name, figure, str(item.get("sessions", "?")), texts.get(name, "-"))
    console.print(table, markup=False, highlight=False)
    console.print(
        "Keep one injected with `acecode review approve NAME`, delete it with `acecode review "
        "reject NAME` (`acecode undo` brings it back). `acecode impact --rules` shows both arms.",
        markup=False,
        highlight=False,
    )
    console.print()


def approve_measured(name: str, playbook: Path | None) -> None:
    """Keep ``name`` injected despite its measured effect."""
    from acecode.experiments.classes import keep

    name = name.strip()
    if not keep(_state(playbook), name):
        fail(f"{name} is not waiting for review for its measured effect")
    refresh_injection(playbook)
    console.print(
        f"Kept [{name}]: injected again from the next session on; its measured effect stays "
        "in `acecode impact --rules`.",
        markup=False,
        highlight=False,
    )


def reject_measured(name: str, playbook: Path | None) -> None:
    """Delete ``name`` from its layer, journaled with its figure as the reason."""
    from acecode.edits.rule_edits import forget_rule
    from acecode.errors import AcecodeError

    name = name.strip()
    figure = _withheld(playbook)[name].get("figure", "?")
    reason = f"measured to make its failure more frequent in hold-back experiments: {figure}"
    try:
        result = forget_rule(layer_path(playbook, name=name), name, reason=reason)
    except AcecodeError as exc:
        fail(str(exc))
    refresh_injection(playbook)
    console.print(
        f"Deleted [{name}] from {result.section} (`acecode undo` or `acecode restore {name}` "
        "brings it back).",
        markup=False,
        highlight=False,
    )
