"""Large, realistic playbooks for the injection scenarios, the same for the same size.

Sections are uneven, as in a real project (half the entries are PATTERNS),
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
from dataclasses import dataclass, field
from pathlib import Path

from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, empty_playbook
from acecode.store import save_playbook

# Share of the entries in each section, in canonical order.
SECTION_WEIGHTS = (0.5, 0.2, 0.1, 0.1, 0.1)
NEEDLE_TEXT = (
    "When the websocket gateway drops heartbeats, restart the reconnect supervisor "
    "before touching the load balancer settings."
)
NEEDLE_PROMPT = (
    "The websocket gateway keeps dropping heartbeats. How should I handle the reconnect?"
)

_VERBS = (
    "Run",
    "Check",
    "Prefer",
    "Document",
    "Validate",
    "Cache",
    "Log",
    "Review",
    "Mock",
    "Profile",
    "Rebuild",
    "Pin",
)
_SUBJECTS = (
    "the database migrations",
    "the HTTP client timeouts",
    "the pytest fixtures",
    "the Docker build cache",
    "the environment variables",
    "the async task queue",
    "the CLI argument parser",
    "the JSON schema",
    "the git pre-commit hooks",
    "the TypeScript build",
    "the SQL indexes",
    "the retry policy",
    "the log rotation",
    "the feature flags",
    "the API pagination",
    "the Terraform state",
    "the CI workflow matrix",
    "the Go module versions",
)
_WHEN = (
    "before every commit",
    "when a test fails only in CI",
    "after upgrading a dependency",
    "before opening a pull request",
    "when the user reports a slow endpoint",
    "whenever a file is renamed",
    "before touching production configuration",
    "when adding a new endpoint",
)
_WHY = (
    "because silent failures are hard to trace later.",
    "so that reviewers can reproduce the change.",
    "since the project has no staging environment.",
    "to keep the feedback loop under a minute.",
    "because the user asked for explicit confirmation.",
    "as flaky behaviour usually starts there.",
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


def _texts(count: int, rng: random.Random) -> list[str]:
    combos = [(v, s, w, y) for v in _VERBS for s in _SUBJECTS for w in _WHEN for y in _WHY]
    rng.shuffle(combos)
    return [" ".join(parts) for parts in combos[:count]]


def write_planted_playbook(project: Path, size: int, seed: int = 7) -> PlantedPlaybook:
    """Write a playbook of ``size`` entries to ``project`` (see the module docstring)."""
    rng = random.Random(seed)
    counts = [max(3, round(size * weight)) for weight in SECTION_WEIGHTS]
    counts[0] += size - sum(counts)
    texts = iter(_texts(size, rng))
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
