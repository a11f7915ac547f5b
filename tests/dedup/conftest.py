"""Fixtures for the de-duplication tests: the real bundled model, loaded once.

The model is the default backend (``acecode[embed]``, part of the ``dev``
extra), so these tests exercise the real embeddings; only the property test
that needs thousands of examples also uses the hash backend of
``support.embedding_backends``.
"""

from __future__ import annotations

import pytest

from acecode.dedup.backends import EmbeddingBackend, load_backend


@pytest.fixture(scope="session")
def real_backend() -> EmbeddingBackend:
    """The default backend with its bundled model (loaded once per test run)."""
    return load_backend()
