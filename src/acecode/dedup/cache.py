"""Embedding cache: a cycle embeds only texts it has not seen before.

Vectors are stored in ``<playbook dir>/acecode/embeddings.sqlite`` keyed by
``(model_id, sha256(text))``, so a changed text or a different model is a miss
and everything else is a hit. SQLite (stdlib) in WAL mode lets several
acecode processes share the file: writers use ``INSERT OR REPLACE`` of
immutable values, so a lost race only re-stores the same vector.

The cache is an optimisation, never a point of failure: a file that is not a
database (or is damaged) is moved aside and rebuilt, and any other SQLite error
degrades to "miss" / "not stored" with a diagnostic.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from acecode.project.diagnostics import diagnose, warn
from acecode.project.layer import Layer, Where
from acecode.project.state_folder import ensure_folder_of

if TYPE_CHECKING:
    import numpy as np

    from acecode.dedup.backends import EmbeddingBackend
    from acecode.project.state_folder import StateFolder

CACHE_FILE = "embeddings.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model_id TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_id, text_sha256)
) WITHOUT ROWID
"""
_LOOKUP_CHUNK = 500  # stays under SQLite's bound-parameter limit


def text_key(text: str) -> str:
    """The cache key of a text: hex sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors by ``(model_id, text sha256)`` in one SQLite file."""

    def __init__(self, path: Path, folder: StateFolder | None = None) -> None:
        self.path = Path(path)
        # The state folder the file lives in (or its layer), created on first use.
        self._folder: StateFolder = folder if folder is not None else self.path.parent
        self._conn: sqlite3.Connection | None = None
        # Vectors seen by this process: a cycle embeds each text once even when
        # the file cannot be written (full disk, read-only folder).
        self._memory: dict[tuple[str, str], np.ndarray] = {}

    @classmethod
    def for_playbook(cls, playbook_file: Where = None) -> EmbeddingCache:
        """The cache beside a playbook, or in a layer (default: the project's playbook)."""
        layer = Layer.of(playbook_file)
        return cls(layer.file(CACHE_FILE), layer)

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            ensure_folder_of(self._folder)  # the cache lives in the state folder
            try:
                self._conn = self._open()
            except sqlite3.DatabaseError as exc:
                # A full disk, a read-only folder or a lock is not damage: the caller
                # degrades to uncached (see ``_failed``) instead of moving the file aside.
                if isinstance(exc, sqlite3.OperationalError):
                    raise
                self._rebuild(exc)
                self._conn = self._open()
        return self._conn

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(_SCHEMA)
            conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchall()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _rebuild(self, exc: Exception) -> None:
        """Move a damaged cache aside (kept for inspection) and start empty."""
        aside = self.path.with_name(f"{self.path.name}.corrupt-{os.getpid()}")
        warn(f"embedding cache {self.path} is damaged ({exc}); rebuilding it")
        for suffix in ("", "-wal", "-shm"):
            src = Path(f"{self.path}{suffix}")
            if src.exists():
                os.replace(src, f"{aside}{suffix}")

    def close(self) -> None:
        """Close the connection (reopened on next use)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get_many(self, model_id: str, keys: Iterable[str]) -> dict[str, np.ndarray]:
        """Cached vectors for those ``keys`` that are present."""
        import numpy as np

        found = {
            k: v for k in dict.fromkeys(keys) if (v := self._memory.get((model_id, k))) is not None
        }
        wanted = [k for k in dict.fromkeys(keys) if k not in found]
        if not wanted:
            return found
        try:
            conn = self._connect()
            for start in range(0, len(wanted), _LOOKUP_CHUNK):
                chunk = wanted[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    "SELECT text_sha256, dim, vector FROM embeddings "
                    f"WHERE model_id = ? AND text_sha256 IN ({marks})",
                    (model_id, *chunk),
                )
                for key, dim, blob in rows:
                    vector = np.frombuffer(blob, dtype=np.float32)
                    if vector.shape == (dim,):
                        found[key] = self._memory[(model_id, key)] = vector
        except (sqlite3.Error, OSError) as exc:
            self._failed("read", exc)
        return found

    def put_many(self, model_id: str, items: Sequence[tuple[str, np.ndarray]]) -> None:
        """Store vectors in one transaction; failure only costs a re-embed later."""
        import numpy as np

        for key, vector in items:
            self._memory[(model_id, key)] = vector
        rows = [
            (model_id, key, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes())
            for key, v in items
        ]
        if not rows:
            return
        try:
            conn = self._connect()
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
                    rows,
                )
        except (sqlite3.Error, OSError) as exc:
            self._failed("write", exc)

    def _failed(self, what: str, exc: sqlite3.Error | OSError) -> None:
        """Record a failed access; rebuild when the file itself is damaged.

        ``OSError`` (folder cannot be created) and ``OperationalError`` (locked,
        disk full, read-only) leave the file alone: the pass runs uncached. Any
        other ``DatabaseError`` means damage.
        """
        diagnose(f"dedup_cache_{what}", f"embedding cache {what} failed: {exc}")
        self.close()
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            self._rebuild(exc)


def embed_texts(
    texts: Sequence[str], backend: EmbeddingBackend, cache: EmbeddingCache | None
) -> np.ndarray:
    """Vectors for ``texts`` (one row each), embedding only cache misses.

    Identical texts are embedded once. With ``cache=None`` everything is
    embedded (used by tests and one-off comparisons).
    """
    import numpy as np

    keys = [text_key(t) for t in texts]
    known = cache.get_many(backend.model_id, keys) if cache is not None else {}
    missing = [k for k in dict.fromkeys(keys) if k not in known]
    if missing:
        text_of = dict(zip(keys, texts, strict=True))
        fresh = backend.embed([text_of[k] for k in missing])
        new_items = list(zip(missing, fresh, strict=True))
        known.update(new_items)
        if cache is not None:
            cache.put_many(backend.model_id, new_items)
    if not keys:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([known[k] for k in keys])
