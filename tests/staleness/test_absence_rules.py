"""A rule whose point is that a file is absent is not stale for being right (issue 29).

Rules learned from a "no such file" failure ("this is not a Node project, so `npm
test` fails with no package.json") name a file the project does not have, on
purpose. The check leaves alone every name a rule says is absent (``no X``, ``X
does not exist``, ``X was removed``, ``if X is missing``, ...) and still flags the
names it uses as there. The corpus (``tests/data/staleness_absence.json``) holds rules
written for the real "no such file" failures of ../shared/transcripts and a real
model's rules from bench/relay; its held-out third was split before the check was
written, and its first run is in the docstring of ``test_the_held_out_third``.
"""

from __future__ import annotations

import json
from pathlib import Path

from acecode.playbook.schema import empty_playbook, new_entry
from acecode.staleness import find_stale

CORPUS = Path(__file__).resolve().parents[1] / "data" / "staleness_absence.json"
ITEMS = json.loads(CORPUS.read_text(encoding="utf-8"))["items"]


def outcome(items: list[dict], root: Path) -> dict[str, list[str]]:
    """Run the check on a project holding none of the named files; the mistakes by kind."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "other.py").write_text("x = 1\n", encoding="utf-8")
    playbook = empty_playbook()
    for number, item in enumerate(items):
        playbook["sections"]["OTHERS"].append(new_entry(f"oth-{number:03d}", item["text"]))
    report = find_stale(playbook, root)
    assert report.complete
    flagged = {entry.name: set(entry.missing) for entry in report.entries}
    mistakes: dict[str, list[str]] = {"absent flagged": [], "present missed": []}
    for number, item in enumerate(items):
        missing = flagged.get(f"oth-{number:03d}", set())
        mistakes["absent flagged"] += [f"{item['id']}: {n}" for n in item["absent"] if n in missing]
        mistakes["present missed"] += [
            f"{item['id']}: {n}" for n in item["present"] if n not in missing
        ]
    return mistakes


def test_the_training_part(tmp_path: Path) -> None:
    """46 rules (24 absence, 22 presence). Before the check knew absence: 24 of 24 absent
    names flagged stale; 1 of 36 present names missed (`.github/...` read as `github/...`,
    fixed with it)."""
    mistakes = outcome([item for item in ITEMS if item["split"] == "train"], tmp_path)
    assert mistakes == {"absent flagged": [], "present missed": []}


def test_the_held_out_third(tmp_path: Path) -> None:
    """23 rules (12 absence, 11 presence), first run after the training part passed:
    11 of 12 absent names left alone (before: 0 of 12), 17 of 18 present names flagged
    (before: 17 of 18). The two misses are kept as measured, not tuned away: "Don't look
    for src/index.js" says absence without a word of it, and `data/cache.db` has an
    extension the check does not know (so a missing one was never flagged)."""
    mistakes = outcome([item for item in ITEMS if item["split"] == "heldout"], tmp_path)
    assert mistakes == {
        "absent flagged": ["abs-21: src/index.js"],
        "present missed": ["pre-61: data/cache.db"],
    }


def test_a_dotted_folder_keeps_its_dot() -> None:
    from acecode.staleness.names import named_in

    assert named_in("Run the jobs of .github/workflows/ci.yml locally.").paths == (
        ".github/workflows/ci.yml",
    )
