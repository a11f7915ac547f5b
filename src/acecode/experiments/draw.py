"""The hold-back draw: which of the eligible entries one session does without.

Each eligible entry is a candidate with probability ``rate``; when more than
``most`` are, the ``most`` with the smallest draws are held back. The draw
of an entry is a keyed hash (BLAKE2b) of the session ID and the entry's
name under the project's secret salt: uniform and unpredictable without the
salt, independent of everything that happens in the session, and the same
at every start of that session (resume, ``/clear``'s new context, a
compaction), so one session never sees an entry it was held back from.

Cheap: ``_blake2`` is a C module (the hook imports nothing heavier).
"""

from __future__ import annotations

from collections.abc import Iterable

try:
    from _blake2 import blake2b
except ImportError:  # another Python implementation
    from hashlib import blake2b

_SCALE = float(2**64)


def uniform(salt: bytes, session: str, name: str) -> float:
    """The draw in [0, 1) of entry ``name`` in ``session``."""
    digest = blake2b(f"{session}\0{name}".encode(), key=salt, digest_size=8).digest()
    return int.from_bytes(digest, "big") / _SCALE


def held_back(
    salt: bytes, session: str, eligible: Iterable[str], rate: float, most: int
) -> list[str]:
    """The entries of ``eligible`` that ``session`` does without, smallest draw first."""
    if rate <= 0 or most <= 0:
        return []
    draws = sorted((u, name) for name in eligible if (u := uniform(salt, session, name)) < rate)
    return [name for _u, name in draws[:most]]
