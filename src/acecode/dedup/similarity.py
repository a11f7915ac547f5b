"""Similarity on the spec's scale, whatever the model.

The spec and the consolidation document state thresholds (0.75 / 0.85 / 0.90)
for "cosine similarity", but each model has its own scale: all-MiniLM-L6-v2
scores clear paraphrases of coding tips from 0.70 up, where the documents'
model would give ~0.85+. Rather than inventing a different default per model,
raw cosine is mapped onto the spec's scale by a monotone piecewise-linear
calibration with one anchor per model, ``paraphrase_cosine``:

    raw 0 -> 0,   raw paraphrase_cosine -> 0.85,   raw 1 -> 1

so a threshold (default, env var or argument) keeps its documented meaning
with any backend. With ``paraphrase_cosine = 0.85`` the map is the identity.
Monotone means grouping is unchanged apart from where the cut falls, and the
postcondition "no pair at or above the threshold" holds on this scale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SPEC_PARAPHRASE = 0.85


def calibrate(raw: np.ndarray, paraphrase_cosine: float) -> np.ndarray:
    """Map raw cosine similarities onto the spec's scale (see module doc)."""
    import numpy as np

    raw = np.clip(np.asarray(raw, dtype=np.float64), -1.0, 1.0)
    anchor = float(paraphrase_cosine)
    if anchor == SPEC_PARAPHRASE:
        return raw
    below = raw * (SPEC_PARAPHRASE / anchor)
    above = SPEC_PARAPHRASE + (raw - anchor) * ((1.0 - SPEC_PARAPHRASE) / (1.0 - anchor))
    return np.where(raw <= anchor, below, above)


def similarity_matrix(
    vectors: np.ndarray, paraphrase_cosine: float, texts: list[str] | None = None
) -> np.ndarray:
    """Calibrated pairwise similarities of unit vectors.

    Identical texts get exactly 1.0 (float rounding would otherwise leave
    ``0.9999999`` and a threshold of 1.0 could never merge true duplicates).
    """
    import numpy as np

    sims = calibrate(vectors @ vectors.T, paraphrase_cosine)
    if texts is not None:
        positions: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            positions.setdefault(text, []).append(i)
        for same in positions.values():
            if len(same) > 1:
                sims[np.ix_(same, same)] = 1.0
    return sims
