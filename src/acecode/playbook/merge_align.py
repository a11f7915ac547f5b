"""Which entry of a side continues which base entry, for the three-way merge
(:mod:`acecode.playbook.merge3`): the ID first, then word overlap, as git pairs a
deleted and an added file into a rename."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acecode.playbook.merge3 import Located

# Word overlap (Jaccard) at which an entry under a new ID is taken for a base entry
# that was renumbered and edited: git's own rename threshold is 50% similarity.
RENAME_SIMILARITY = 0.5
# Below this overlap an entry under the base entry's ID is another rule, not an edit:
# the ID was freed by a deletion and given to a new rule (IDs are max + 1 of a section).
SAME_ID_SIMILARITY = 0.2
# What the same ID adds to the similarity of two texts when both are candidates.
_SAME_NAME_BONUS = 0.25
_WORD = re.compile(r"\w{3,}")  # words of 3+ letters: "a", "to", "-x" say little


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.casefold()))


def _similarity(left: frozenset[str], right: frozenset[str]) -> float:
    """Word overlap of two texts' words (Jaccard, 0..1)."""
    return len(left & right) / len(left | right) if left or right else 1.0


def aligned(base: dict[str, Located], side: dict[str, Located]) -> dict[str, str]:
    """Which base entry each entry of ``side`` continues: side name -> base name.

    IDs change only when a merge renumbers a clashing new entry (on the
    side, or in a virtual base), so the ID is the first evidence and the
    words the second, as git pairs a deleted and an added file into a rename.
    First every entry with the same ID and text; then, best first, pairs by
    word overlap (Jaccard):

    * the same ID from ``SAME_ID_SIMILARITY`` up, counting a little extra: an
      edit in place (less is a new rule under an ID a deletion freed);
    * another ID from ``RENAME_SIMILARITY`` up: renumbered (restored under a
      new ID, merged by a curator), maybe edited.

    Side entries left over are new on that side.
    """
    matched = {n: n for n, here in side.items() if n in base and base[n].text == here.text}
    left_base = [(name, _words(base[name].text)) for name in base if name not in matched]
    left_side = [(name, _words(side[name].text)) for name in side if name not in matched]
    holders: dict[str, set[int]] = {}  # word -> the left base entries that use it
    for i, (_, b_words) in enumerate(left_base):
        for word in b_words:
            holders.setdefault(word, set()).add(i)
    position = {b: i for i, (b, _) in enumerate(left_base)}
    pairs: list[tuple[float, int, int, str, str]] = []
    for j, (s, s_words) in enumerate(left_side):
        sharing = set().union(*(holders.get(word, ()) for word in s_words))
        for i in sharing | ({position[s]} if s in position else set()):
            b, b_words = left_base[i]
            similarity = _similarity(b_words, s_words)
            if b == s and similarity >= SAME_ID_SIMILARITY:
                pairs.append((similarity + _SAME_NAME_BONUS, -i, -j, b, s))
            elif b != s and similarity >= RENAME_SIMILARITY:
                pairs.append((similarity, -i, -j, b, s))
    taken = set(matched.values())
    for _, _, _, b, s in sorted(pairs, reverse=True):
        if b not in taken and s not in matched:
            matched[s] = b
            taken.add(b)
    return matched
