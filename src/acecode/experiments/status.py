"""Measure a project's entries, and refresh what the hooks read from it.

:func:`measure_project` puts everything together for one playbook (and the
user layer beside it): the entries' signatures from provenance, the draws
from the exposure log, what recurred in each experiment session, and the
estimate per entry. :func:`refresh` then writes the concluded classes
(``classes.json``, which the hooks, the ranking, the review notice and the
retire candidates read) and prunes the logs by age. The background learner
calls it after every cycle when experiments are on, so an entry stops being
held back as soon as its evidence is conclusive; ``acecode impact --rules``
calls it too.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acecode.experiments.classes import CONCLUSIVE, RULE, read_classes, write_classes
from acecode.experiments.effects import (
    BEFORE_AFTER,
    NO_DATA,
    RANDOMISED,
    RuleEffect,
    before_after,
    measure,
)
from acecode.experiments.estimate import Effect
from acecode.experiments.exposure import Draw, draws, injected_sessions, read_exposures
from acecode.experiments.signatures import Signature, signature_of_entry
from acecode.impact.scan import SessionScan
from acecode.store.provenance import Origin

if TYPE_CHECKING:
    from acecode.project.layer import Where


@dataclass
class Measurement:
    """A project's entries and what the experiments say about them."""

    state: Path
    entries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    provenance: dict[str, list[Origin]] = field(default_factory=dict)
    signatures: dict[str, Signature] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    draws: dict[str, Draw] = field(default_factory=dict)
    effects: dict[str, Effect] = field(default_factory=dict)

    def versions(self) -> dict[str, str]:
        """Every entry's text version (what the exposure log records)."""
        from acecode.experiments.plan import entry_version

        return {entry["name"]: entry_version(entry) for _section, entry in self.entries}

    def concluded(self, earlier: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """``classes.json``'s entries: the verdicts of ``earlier`` (the file's) that still
        stand, and every other live entry whose evidence is conclusive now.

        An earlier verdict stands while its entry lives with the same text, even when the
        data it came from is gone (transcripts deleted, the outcome cache removed): the
        entry left the draw when it concluded, so no newer data can exist. One reached
        under an older :data:`~acecode.experiments.classes.RULE` is re-checked when the
        entry's data can still be read, and kept otherwise.
        """
        versions = self.versions()
        verdicts: dict[str, Any] = {}
        for name, item in (earlier or {}).items():
            recorded = item.get("entry_version")
            if name not in versions or (recorded and recorded != versions[name]):
                continue  # deleted, or rewritten: a new rule, measured afresh
            if item.get("rule") != RULE and name in self.effects:
                continue  # an older rule's verdict, and the data to re-check it is here
            verdicts[name] = {**item, "entry_version": versions[name]}
        for name, effect in sorted(self.effects.items()):
            if name in verdicts or effect.label not in CONCLUSIVE or name not in versions:
                continue
            verdicts[name] = {
                "class": effect.label,
                "figure": effect.figure(),
                "sessions": effect.sessions,
                "entry_version": versions[name],
                "rule": RULE,
            }
        return dict(sorted(verdicts.items()))

    def rules(self, scans: list[SessionScan] | None = None) -> list[RuleEffect]:
        """One :class:`RuleEffect` per entry with a signature (before/after from ``scans``
        for the ones without experiment sessions)."""
        reached = injected_sessions(self.records)
        rules = []
        for section, entry in self.entries:
            name = entry["name"]
            signature = self.signatures.get(name) or Signature()
            effect = self.effects.get(name)
            basis = RANDOMISED if effect is not None else NO_DATA
            if effect is None and signature and scans:
                effect = before_after(signature, self.provenance.get(name, []), scans)
                basis = BEFORE_AFTER if effect is not None else NO_DATA
            if not signature:
                continue
            rules.append(
                RuleEffect(
                    entry=name,
                    section=section,
                    text=entry["text"],
                    helpful=entry["helpful"],
                    harmful=entry["harmful"],
                    signature=signature,
                    basis=basis,
                    effect=effect,
                    reached=len(reached.get(name, ())),
                )
            )
        return rules


def _layers(playbook_path: Path, playbook: dict[str, Any]) -> list[tuple[Path, dict[str, Any]]]:
    """The playbook and, beside a project's, the user layer (when it can be read)."""
    from acecode.project.layers import is_user_layer, user_playbook_file

    layers = [(playbook_path, playbook)]
    user = Path(user_playbook_file())
    if not is_user_layer(playbook_path) and user.exists():
        from acecode.store import PlaybookError, load_playbook

        # `acecode doctor` reports a broken user layer; the project's is measured anyway.
        with contextlib.suppress(PlaybookError):
            layers.append((user, load_playbook(user)))
    return layers


def measure_project(
    playbook_path: Path, playbook: dict[str, Any], folder: Path | None = None
) -> Measurement:
    """Everything the experiments say about ``playbook`` (at ``playbook_path``).

    ``folder`` is where a session's transcript is looked for when its hooks did
    not record one or the recorded file is gone (``--transcripts``; default: the
    project's Claude Code folder).
    """
    from acecode.experiments.exposure import transcripts
    from acecode.experiments.outcomes import collect
    from acecode.playbook.schema import iter_entries
    from acecode.project.layer import Layer
    from acecode.store.provenance import load_provenance

    state = Layer(playbook_path).folder
    measurement = Measurement(state=state)
    for path, data in _layers(playbook_path, playbook):
        measurement.entries += list(iter_entries(data))
        measurement.provenance.update(load_provenance(path))
    for _section, entry in measurement.entries:
        origins = measurement.provenance.get(entry["name"], [])
        measurement.signatures[entry["name"]] = signature_of_entry(entry, origins)
    measurement.records = read_exposures(state)
    measurement.draws = draws(measurement.records)
    if measurement.draws:
        if folder is None:
            from acecode.agents.claude_code.sessions import sessions_dir

            folder = sessions_dir(playbook_path.resolve().parent.parent)
        logged = transcripts(measurement.records)
        wanted = {session: logged.get(session) for session in measurement.draws}
        outcomes = collect(state, wanted, folder)
        measurement.effects = measure(
            {n: s for n, s in measurement.signatures.items() if s},
            list(measurement.draws.values()),
            outcomes,
            measurement.versions(),
        )
    return measurement


def refresh(
    playbook_path: Path, playbook: dict[str, Any], folder: Path | None = None
) -> tuple[Measurement, bool]:
    """Measure (``folder``: see :func:`measure_project`), save the concluded classes, prune
    the logs; True when the classes changed (the caller then re-renders the injection)."""
    measurement = measure_project(playbook_path, playbook, folder)
    changed = False
    if measurement.draws or os.path.exists(_classes(measurement.state)):
        earlier = read_classes(measurement.state)
        changed = write_classes(measurement.state, measurement.concluded(earlier))
    prune_logs(measurement.state)
    return measurement, changed


def prune_logs(state: Path) -> None:
    """Prune the exposure log by age, and the outcome cache with it."""
    from acecode.experiments import exposure, outcomes

    if exposure.prune(state):
        outcomes.prune(state, draws(read_exposures(state)))


def _classes(state: Path) -> str:
    from acecode.experiments.classes import classes_file

    return classes_file(state)


def refresh_after_learning(playbook_path: Path) -> None:
    """The background learner's step after a cycle (experiments on only); never raises.

    Runs whatever the cycle did (a session too small to learn from is still an
    experiment session), and re-renders the injection when a class changed.
    """
    from acecode.project.config import load_settings
    from acecode.project.diagnostics import warn

    try:
        if not load_settings(playbook_path.resolve().parent.parent).experiments:
            prune_logs(playbook_path.parent / "acecode")  # the exposure log grows anyway
            return
        from acecode.store import load_playbook

        _measurement, changed = refresh(playbook_path, load_playbook(playbook_path))
        if changed:
            from acecode.hooks.rendered import prime

            prime(str(playbook_path.resolve().parent.parent))
    except Exception as exc:  # learning must never fail on the experiment's bookkeeping
        warn(f"experiment figures not refreshed: {exc}")


def summary_lines(playbook_path: Where) -> list[str]:
    """``acecode doctor``'s lines: on or off, the sessions drawn, the entries concluded (a
    warning for those that hurt)."""
    from acecode.cli.effect_view import experiments_line
    from acecode.experiments.classes import HURTS, KEPT
    from acecode.experiments.exposure import draws, read_exposures
    from acecode.project.config import load_settings
    from acecode.project.layer import Layer

    layer = Layer.of(playbook_path)
    settings = load_settings(layer.playbook_file.resolve().parent.parent)
    state = layer.folder
    drawn = len(draws(read_exposures(state)))
    lines = [
        experiments_line(settings.experiments, settings.holdback_rate, settings.holdback_max, drawn)
    ]
    concluded = read_classes(state)
    if concluded:
        counts = Counter(item["class"] for item in concluded.values())
        lines.append(
            "concluded: "
            + ", ".join(f"{count} {label}" for label, count in sorted(counts.items()))
            + " (`acecode impact --rules`)"
        )
    hurting = sorted(name for name, item in concluded.items() if item["class"] == HURTS)
    waiting = [name for name in hurting if not concluded[name].get(KEPT)]
    if waiting:
        lines.append(
            f"[warning] measured to make their failure more frequent, not injected until you "
            f"keep or delete them (`acecode review`): {', '.join(waiting)}"
        )
    kept = [name for name in hurting if concluded[name].get(KEPT)]
    if kept:
        lines.append(f"measured to hurt, kept injected by you: {', '.join(kept)}")
    return lines
