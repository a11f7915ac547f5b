"""Random team histories through a model of git's recursive merge: counters stay exact.

The model (tests/support/merge_history.py) merges like ``git merge`` with
acecode's driver registered: merge bases found on the commit graph, two or
more merged first into a virtual base (the driver's ``--virtual-base``
mode), equal files taken without the driver. After every merge the playbook
must hold each rule added and never deleted, once, with exactly the ratings
its history holds, whatever IDs the merges gave it. tests/team replays such
histories in a real repository.
"""

from __future__ import annotations

from hypothesis import given, settings

from support.merge_history import Replay, Step, criss_cross_histories, histories


@settings(max_examples=200, deadline=None)
@given(histories(branches=3, max_steps=24))
def test_every_merge_of_a_random_team_history_keeps_counters_exact(steps: list[Step]) -> None:
    """Up to three branches merging each other's heads, or what they fetched earlier."""
    Replay(branches=3).run(steps)


@settings(max_examples=200, deadline=None)
@given(criss_cross_histories(rounds=4))
def test_rounds_of_criss_cross_merges_keep_counters_exact(steps: list[Step]) -> None:
    """Two branches merging each other every round: a criss-cross from the second round."""
    replay = Replay(branches=2)
    replay.run(steps)
    assert replay.merges >= 2
