"""Embedding backends for tests: deterministic, counting and exploding stand-ins."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from acecode.dedup.backends import EmbeddingBackend


class CountingBackend:
    """Wraps a backend and records every text it is asked to embed."""

    def __init__(self, inner: EmbeddingBackend) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.paraphrase_cosine = inner.paraphrase_cosine
        self.calls: list[list[str]] = []

    @property
    def embedded(self) -> int:
        """Total number of texts embedded so far."""
        return sum(len(c) for c in self.calls)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


class HashBackend:
    """Deterministic bag-of-words vectors: cheap enough for thousands of examples.

    Used only by the hypothesis property test with many examples; it has the
    same interface and normalisation as a real backend, and texts sharing
    words get high cosine, so groups and chains occur.
    """

    model_id = "test-hash-bow-64"
    paraphrase_cosine = 0.85

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class ExplodingBackend:
    """A backend that fails the test if anything is embedded."""

    model_id = "must-not-be-used"
    paraphrase_cosine = 0.85

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise AssertionError(f"embedding was computed for {len(texts)} texts")
