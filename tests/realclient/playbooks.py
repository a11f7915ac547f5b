"""Large, realistic playbooks for the injection scenarios, the same for the same size.

The texts are the benchmarks' coding tips (``bench/_corpus.py``). Sections are
uneven, as in a real project (half the entries are PATTERNS),
counters are mostly small, and three kinds of entries are planted so that a
test can tell the injection chose well without re-implementing the ranking:

- ``stars``: the two entries of every section with by far the most evidence
  (helpful 40+, harmful 0): they must reach the model at session start;
- ``duds``: entries that misled more often than they helped: with more
  entries than fit, they must be left out;
- ``needle``: one low-ranked entry with its own vocabulary: left out at
  session start, it is what the top-up must bring for :data:`NEEDLE_PROMPT`.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, empty_playbook
from acecode.store import save_playbook

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))
from _corpus import coding_tips  # the benchmarks' deterministic tips

# Share of the entries in each section, in canonical order.
SECTION_WEIGHTS = (0.5, 0.2, 0.1, 0.1, 0.1)
NEEDLE_TEXT = (
    "When the websocket gateway drops heartbeats, restart the reconnect supervisor "
    "before touching the load balancer settings."
)
NEEDLE_PROMPT = (
    "The websocket gateway keeps dropping heartbeats. How should I handle the reconnect?"
)


@dataclass
class PlantedPlaybook:
    """The playbook written and the names of its planted entries."""

    path: Path
    size: int
    names: list[str] = field(default_factory=list)
    stars: list[str] = field(default_factory=list)
    duds: list[str] = field(default_factory=list)
    needle: str = ""


def write_planted_playbook(project: Path, size: int, seed: int = 7) -> PlantedPlaybook:
    """Write a playbook of ``size`` entries to ``project`` (see the module docstring)."""
    rng = random.Random(seed)
    counts = [max(3, round(size * weight)) for weight in SECTION_WEIGHTS]
    counts[0] += size - sum(counts)
    texts = iter(coding_tips(size, seed))
    playbook = empty_playbook()
    planted = PlantedPlaybook(project / ".claude" / "playbook.json", size)
    for section, count in zip(SECTION_NAMES, counts, strict=True):
        slug = SECTION_SLUGS[section]
        for index in range(count):
            name = f"{slug}-{index + 1:03d}"
            helpful, harmful = rng.choice((0, 0, 0, 1, 1, 2, 3, 5)), rng.choice((0, 0, 0, 1))
            text = next(texts)
            if index < 2:
                helpful, harmful = 40 + index, 0
                planted.stars.append(name)
            elif index == 2:
                helpful, harmful = 0, 4
                planted.duds.append(name)
            elif index == 3 and section == SECTION_NAMES[0]:
                helpful, harmful, text = 0, 1, NEEDLE_TEXT
                planted.needle = name
            playbook["sections"][section].append(
                {"name": name, "text": text, "helpful": helpful, "harmful": harmful}
            )
            planted.names.append(name)
    save_playbook(playbook, planted.path)
    return planted
