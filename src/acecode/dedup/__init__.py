"""Offline semantic de-duplication of the playbook.

Public API:

- :func:`run_deduplication` — the spec's function: a de-duplicated copy.
- :func:`deduplicate` — the same pass, returning a :class:`DedupResult` with
  the merged groups and similarities for the curation report.
- :func:`find_duplicate_groups` — only the groups.
- :mod:`acecode.dedup.ladder` — the consolidation ladder for curator ADD/UPDATE.
- :class:`EmbeddingCache` — vectors by (model, text hash) beside the playbook.

Nothing heavy is imported here: numpy and the model runtime load on first use.
"""

from acecode.dedup.backends import BackendUnavailable, EmbeddingBackend, load_backend
from acecode.dedup.cache import EmbeddingCache
from acecode.dedup.groups import (
    DEFAULT_THRESHOLD,
    THRESHOLD_ENV,
    DedupResult,
    DuplicateGroup,
    deduplicate,
    find_duplicate_groups,
    resolve_threshold,
    run_deduplication,
)

__all__ = [
    "DEFAULT_THRESHOLD",
    "THRESHOLD_ENV",
    "BackendUnavailable",
    "DedupResult",
    "DuplicateGroup",
    "EmbeddingBackend",
    "EmbeddingCache",
    "deduplicate",
    "find_duplicate_groups",
    "load_backend",
    "resolve_threshold",
    "run_deduplication",
]
