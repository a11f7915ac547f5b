"""Split the shared sessions into the part the bounds are set from and a held-out third.

Run once from the repository root, before any reply of a blind run is read::

    python bench/relay_split.py            # writes bench/relay/shared-split.json

Every session transcript under ``../shared/transcripts`` (Claude Code's compaction
helpers left out, as ``acecode learn DIR`` does), in path order, shuffled with a
fixed seed; the last third is held out. ``bench/relay_learn.py --shared tune``
(or ``held-out``) learns one part through the relay; ``bench/reply_lengths.py``
reports the reply lengths of each part apart, so the first run on the held-out
third says whether bounds set on the rest hold on sessions they were not set on.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p / "shared" for p in ROOT.parents if (p / "shared").is_dir()), ROOT / "shared")
SPLIT = ROOT / "bench" / "relay" / "shared-split.json"
SEED = 28


def sessions(root: Path) -> list[str]:
    """The shared session transcripts, relative to ``root``, in path order."""
    found = sorted(p for p in root.rglob("*.jsonl") if not p.name.startswith("agent-acompact"))
    return [str(p.relative_to(root)) for p in found]


def main() -> None:
    names = sessions(SHARED / "transcripts")
    shuffled = names[:]
    random.Random(SEED).shuffle(shuffled)
    held = len(shuffled) // 3
    split = {
        "seed": SEED,
        "root": "../shared/transcripts",
        "tune": sorted(shuffled[held:]),
        "held-out": sorted(shuffled[:held]),
    }
    SPLIT.write_text(json.dumps(split, indent=1) + "\n")
    print(f"{len(split['tune'])} sessions to set the bounds from, {held} held out -> {SPLIT}")


if __name__ == "__main__":
    main()
