"""The estimate: the hold-back probability, the any-time-valid interval, the classes.

The statistical checks run seeded simulations (reproducible, no clock): their bounds are the
guarantees the module docstring states, with room for the simulation's own noise.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acecode.experiments.draw import held_back
from acecode.experiments.estimate import (
    HELPS,
    HURTS,
    MIN_RECURRENCES,
    NO_EFFECT,
    NO_EVIDENCE,
    Session,
    classify,
    estimate,
    holdback_probability,
)


@pytest.mark.parametrize(
    ("eligible", "rate", "most"),
    [(1, 0.2, 3), (5, 0.2, 3), (20, 0.2, 3), (12, 0.5, 2), (6, 1.0, 2)],
)
def test_the_holdback_probability_is_what_the_draw_does(
    eligible: int, rate: float, most: int
) -> None:
    names = [f"e{i}" for i in range(eligible)]
    runs = 6000
    held = sum("e0" in held_back(b"k" * 16, f"s{n}", names, rate, most) for n in range(runs))
    expected = holdback_probability(eligible, rate, most)
    spread = 4 * (expected * (1 - expected) / runs) ** 0.5 + 1e-9
    assert abs(held / runs - expected) <= spread


def _simulate(
    rng: random.Random, base: float, effect: float, pi: float, sessions: int
) -> tuple[list[Session], set[str]]:
    """One entry's sessions and every class it had after any of them (each recurrence is a
    look: the interval only changes with one)."""
    data: list[Session] = []
    seen: set[str] = set()
    for _ in range(sessions):
        held = rng.random() < pi
        recurred = rng.random() < (base if held else base * (1 - effect))
        data.append(Session(pi, held, recurred))
        if recurred:
            seen.add(estimate(data).label)
    return data, seen


def test_entries_without_effect_are_rarely_ever_called_helps_or_hurts() -> None:
    rng = random.Random(20)
    entries = 120
    ever = [_simulate(rng, rng.choice((0.1, 0.3, 0.5)), 0.0, 0.15, 200)[1] for _ in range(entries)]
    # At most 5% each, at any look; the bound leaves room for this simulation's noise.
    assert sum(HELPS in seen for seen in ever) <= 0.05 * entries + 5
    assert sum(HURTS in seen for seen in ever) <= 0.05 * entries + 5


def test_a_strong_effect_is_found_and_its_interval_covers_it() -> None:
    data, _seen = _simulate(random.Random(3), 0.4, 0.8, 0.2, 300)
    effect = estimate(data)
    assert effect.label == HELPS
    low, high = effect.interval
    assert 0 < low < 0.8 < high <= 1
    assert effect.held + effect.injected == 300
    assert effect.reduction is not None and 0.5 < effect.reduction < 1


def test_an_entry_that_doubles_its_failure_hurts() -> None:
    data, _seen = _simulate(random.Random(5), 0.15, -2.0, 0.2, 400)  # 3x the base injected
    assert estimate(data).label == HURTS
    assert estimate(data).interval[1] < 0


def test_no_data_is_no_evidence_with_the_widest_interval() -> None:
    effect = estimate([])
    assert effect.label == NO_EVIDENCE and effect.reduction is None
    assert effect.interval[0] < -1 and effect.interval[1] > 0.9
    assert effect.figure() == "n/a [<-100%, +98%]"


def test_more_data_narrows_the_interval_and_order_does_not_matter() -> None:
    data, _seen = _simulate(random.Random(9), 0.3, 0.0, 0.2, 1600)
    short, full = estimate(data[:200]), estimate(data)
    assert full.interval[1] - full.interval[0] < short.interval[1] - short.interval[0]
    assert estimate(list(reversed(data))) == full


def test_classes_follow_the_interval_of_rho() -> None:
    assert classify(0.2, 0.9) == HELPS
    assert classify(1.1, 3.0) == HURTS
    assert classify(0.6, 1.8) == NO_EFFECT  # neither halves nor doubles
    assert classify(0.4, 1.8) == NO_EVIDENCE
    assert classify(0.6, 2.5) == NO_EVIDENCE
    assert classify(1.2, 0.8) == NO_EVIDENCE  # crossed bounds conclude nothing


def test_the_figure_reads_as_fewer_or_more_recurrences() -> None:
    data, _seen = _simulate(random.Random(3), 0.4, 0.8, 0.2, 300)
    figure = estimate(data).figure()
    assert figure.split(" [")[0].endswith("% fewer") and figure.endswith("%]")


def test_three_recurrences_while_held_back_conclude_nothing() -> None:
    """The pattern an outside simulator found concluding "helps": three held-back sessions
    that all recurred, none injected that did. Luck as often as evidence."""
    data = [Session(0.15, True, True)] * 3 + [Session(0.15, False, False)] * 4
    effect = estimate(data)
    assert effect.label == NO_EVIDENCE
    assert effect.held_recurred + effect.injected_recurred < MIN_RECURRENCES


def test_entries_without_effect_at_a_30_percent_base_rate_are_rarely_called_hurts() -> None:
    """The base rate an outside simulator used: every recurrence a look, 200 sessions."""
    rng = random.Random(30)
    entries = 200
    ever = [_simulate(rng, 0.3, 0.0, 0.14, 200)[1] for _ in range(entries)]
    # "hurts" withholds the entry: the 1% test, with room for this simulation's noise.
    assert sum(HURTS in seen for seen in ever) <= 0.01 * entries + 3


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from((0.1, 0.15, 0.3, 0.5)), st.booleans(), st.booleans()),
        max_size=60,
    )
)
def test_the_point_estimate_lies_within_its_interval(raw: list[tuple[float, bool, bool]]) -> None:
    effect = estimate([Session(*item) for item in raw])
    low, high = effect.interval
    if effect.reduction is None:
        assert not any(recurred for _pi, _held, recurred in raw)
    elif low <= high:  # crossed one-sided bounds have no inside
        assert low - 1e-9 <= effect.reduction <= high + 1e-9
