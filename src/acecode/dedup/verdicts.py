"""What the judge said about pairs of rule texts, and what that allows.

Embeddings only *propose* pairs; this module is the one place that says which
pair may be acted on (issue 11, "Embeddings propose candidates; a judge
decides"):

- :meth:`Verdicts.may_merge` -- credit, consolidate or de-duplicate one text
  into the other: only a pair the judge called ``same``, or a near-verbatim
  pair (:mod:`acecode.dedup.verbatim`), which needs no verdict.
- :meth:`Verdicts.more_specific` -- which side refines the other, for the
  ladder's update rung: only a pair the judge called ``more_specific``.
- ``different`` and ``conflicting`` pairs are never merged or credited;
  conflicting ones are kept and shown to the user (``acecode review``).
- :meth:`Verdicts.conflict_with` -- a conflict with an entry *or with a text
  folded into it* (a ``same`` or ``more_specific`` verdict that credited or
  replaced it): "always X" folded into "always X in tests", then "never X"
  meets the specific text; the fold must not hide that conflict, so both
  sides are kept and shown.

A missing verdict (no provider, failed call, unparseable reply, pair left out
of the reply) is simply absent: the pair then merges only if near-verbatim.
Verdicts are keyed by the two texts, not by entry names, so a verdict reached
on the snapshot still applies to the playbook as it is under the lock, and a
verdict stored in an earlier cycle applies as long as both texts are the same.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from acecode.dedup.verbatim import near_verbatim

Verdict = Literal["same", "more_specific", "different", "conflicting"]
VERDICTS: tuple[Verdict, ...] = ("same", "more_specific", "different", "conflicting")


def pair_key(first: str, second: str) -> str:
    """Order-independent key of a pair of texts (hex SHA-256 of the sorted pair)."""
    low, high = sorted((first, second))
    digest = hashlib.sha256()
    for text in (low, high):
        encoded = text.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    return digest.hexdigest()


@dataclass(frozen=True)
class PairVerdict:
    """The judge's answer for one pair of texts.

    ``specific`` is the text that is more specific when ``verdict`` is
    ``more_specific`` (one of ``first``/``second``), else None.
    """

    first: str
    second: str
    verdict: Verdict
    specific: str | None = None
    reason: str = ""

    @property
    def key(self) -> str:
        return pair_key(self.first, self.second)

    def other(self, text: str) -> str:
        """The text of the pair that is not ``text``."""
        return self.second if text == self.first else self.first


class Verdicts:
    """The verdicts known to one cycle (stored ones and this cycle's), by pair."""

    def __init__(self, verdicts: Iterable[PairVerdict] = ()) -> None:
        self._by_key: dict[str, PairVerdict] = {}
        self._by_text: dict[str, list[PairVerdict]] | None = None
        self.add(verdicts)

    def add(self, verdicts: Iterable[PairVerdict]) -> None:
        """Record verdicts; a later verdict on the same pair replaces the earlier one."""
        for verdict in verdicts:
            self._by_key[verdict.key] = verdict
        self._by_text = None

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Iterator[PairVerdict]:
        return iter(self._by_key.values())

    def __contains__(self, pair: tuple[str, str]) -> bool:
        return pair_key(*pair) in self._by_key

    def get(self, first: str, second: str) -> PairVerdict | None:
        """The verdict on this pair (in either order), or None when there is none."""
        return self._by_key.get(pair_key(first, second))

    def may_merge(self, first: str, second: str) -> bool:
        """True when one text may be merged into (or credited to) the other.

        Near-verbatim pairs always may; any other pair only when judged ``same``.
        """
        if near_verbatim(first, second):
            return True
        verdict = self.get(first, second)
        return verdict is not None and verdict.verdict == "same"

    def more_specific(self, first: str, second: str) -> str | None:
        """The more specific text of a pair judged ``more_specific``, else None."""
        verdict = self.get(first, second)
        if verdict is None or verdict.verdict != "more_specific":
            return None
        return verdict.specific

    def conflicting(self) -> list[PairVerdict]:
        """Every pair judged ``conflicting``."""
        return [verdict for verdict in self if verdict.verdict == "conflicting"]

    def folded_into(self, text: str) -> list[str]:
        """The texts folded into ``text``: judged the same rule, or less specific than it."""
        if self._by_text is None:
            self._by_text = {}
            for verdict in self:
                for side in (verdict.first, verdict.second):
                    self._by_text.setdefault(side, []).append(verdict)
        return [
            verdict.other(text)
            for verdict in self._by_text.get(text, ())
            if verdict.verdict == "same"
            or (verdict.verdict == "more_specific" and verdict.specific == text)
        ]

    def conflict_with(self, candidate: str, text: str) -> PairVerdict | None:
        """A ``conflicting`` verdict between ``candidate`` and ``text`` or a text folded
        into ``text``, else None."""
        for other in (text, *self.folded_into(text)):
            verdict = self.get(candidate, other)
            if verdict is not None and verdict.verdict == "conflicting":
                return verdict
        return None
