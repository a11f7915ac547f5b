"""Does one entry make its failure rarer? The estimate and its any-time-valid 90% interval.

The data of one entry are its experiment sessions: sessions where it was
eligible and the hold-back draw either kept it (injected) or held it back,
each with the known probability ``holdback`` that it would be held back
there, and whether its signature recurred. The effect is the share of the
recurrences the entry removes, ``1 - rho`` with ``rho = p_injected / p_held``
(the risk ratio: 0.8 is "80% fewer", -1.0 "twice as many").

*The model.* In a session where the signature recurred, the chance that the
entry had been held back is ``g(rho) = pi / (pi + (1 - pi) * rho)``, where
``pi`` is that session's hold-back probability: Bayes' rule with
``p_held * pi`` against ``p_injected * (1 - pi)``. This conditional
likelihood has ``rho`` as its only parameter, so neither the base rate nor a
drift of it over the weeks (the work changes) biases it, and with no effect
(``rho = 1``) every recurrence was held back with exactly its ``pi``,
whatever else happened.

*The interval.* For every ``rho0`` on a grid (:data:`GRID`, 8 steps per
doubling from 1/64 to 64) two mixture likelihood ratios are kept: one
against the values below ``rho0`` and one against those above, each mixing
uniformly over :data:`SPAN` grid steps (a factor of 32). Under ``rho0`` each
is a martingale with mean 1, so by Ville's inequality the chance that it
*ever* reaches 1/0.05 = 20, however often it is looked at, is at most 5%. The
upper end of the interval is the largest ``rho0`` the ratio against smaller
values does not reject, the lower end the smallest one the ratio against
larger values does not reject; the interval misses the true value with at
most 10% probability over the whole run (5% on each side): a 90% confidence
sequence, valid at every look, not only at a planned one.

*The classes* follow the interval (so the class and the figure never
disagree):

* ``helps``: the whole interval is below 1 (fewer recurrences). For an
  entry without effect (or a harmful one) the chance of ever reaching this,
  at any number of looks, is at most 5%;
* ``hurts``: the whole interval is above 1;
* ``no measurable effect``: the interval lies within (1/2, 2): the entry
  neither halves nor doubles its failure. An entry that really removes half
  of its failures or more lands here with at most 5% probability;
* ``no evidence yet``: anything else.

Once an entry is in one of the first three classes it is no longer held back
(:mod:`acecode.experiments.plan`), so its data, and its class, stay put.

Pure and standard library only: plain data in, plain data out.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from acecode.experiments.classes import HELPS, HURTS, NO_EFFECT, NO_EVIDENCE

ALPHA_PER_SIDE = 0.05  # the 90% interval misses on each side with at most this probability
THRESHOLD = 1 / ALPHA_PER_SIDE
STEPS_PER_DOUBLING = 8
DOUBLINGS = 6  # the grid spans rho from 2**-6 to 2**6
SPAN = 5 * STEPS_PER_DOUBLING  # alternatives within a factor of 32 of the tested value
GRID: tuple[float, ...] = tuple(
    2 ** (k / STEPS_PER_DOUBLING)
    for k in range(-DOUBLINGS * STEPS_PER_DOUBLING, DOUBLINGS * STEPS_PER_DOUBLING + 1)
)
_ONE = DOUBLINGS * STEPS_PER_DOUBLING  # GRID[_ONE] == 1.0
NO_EFFECT_RANGE = (0.5, 2.0)  # rho within this range: neither halves nor doubles


class Session(NamedTuple):
    """One experiment session of an entry: its hold-back probability, the draw, the outcome."""

    holdback: float
    held: bool
    recurred: bool


@dataclass(frozen=True)
class Effect:
    """The estimate for one entry."""

    held: int  # sessions it was held back in
    held_recurred: int  # ... in which its signature recurred
    injected: int
    injected_recurred: int
    reduction: float | None  # 1 - rate_injected / rate_held; None without a held recurrence
    interval: tuple[float, float]  # 90% interval of the reduction, any-time valid
    label: str  # HELPS, NO_EVIDENCE, NO_EFFECT or HURTS

    @property
    def sessions(self) -> int:
        return self.held + self.injected

    def as_dict(self) -> dict[str, object]:
        return {
            "class": self.label,
            "held": {"sessions": self.held, "recurred": self.held_recurred},
            "injected": {"sessions": self.injected, "recurred": self.injected_recurred},
            "reduction": self.reduction,
            "interval": list(self.interval),
        }

    def figure(self) -> str:
        """``62% fewer [18%, 85%]``: the effect and its interval, in words for people."""
        low, high = self.interval

        def pct(value: float) -> str:  # beyond -100% (more than twice as many): clipped
            return "<-100%" if value < -1 else f"{100 * value:+.0f}%"

        point = "n/a" if self.reduction is None else _words(self.reduction)
        return f"{point} [{pct(low)}, {pct(high)}]"


def _words(reduction: float) -> str:
    if reduction >= 0:
        return f"{100 * reduction:.0f}% fewer"
    return f"{100 * -reduction:.0f}% more"


@functools.lru_cache(maxsize=1024)
def holdback_probability(eligible: int, rate: float, most: int) -> float:
    """The chance that one given entry is held back in a session with ``eligible`` entries in
    the draw: each is a candidate with probability ``rate``, and when more than ``most`` are,
    the ``most`` with the smallest draws are held back (:mod:`acecode.experiments.draw`)."""
    if eligible <= 0 or most <= 0 or rate <= 0:
        return 0.0
    rate = min(rate, 1.0)
    others = eligible - 1
    kept = 0.0
    for count in range(others + 1):  # how many of the others are candidates too
        chance = math.comb(others, count) * rate**count * (1 - rate) ** (others - count)
        kept += chance * (1.0 if count < most else most / (count + 1))
    return rate * kept


Recurrences = tuple[tuple[tuple[float, bool], int], ...]


def recurrences(sessions: Iterable[Session]) -> Recurrences:
    """What the likelihood depends on: the recurrences counted by hold-back probability and
    draw (sorted, so equal data give equal keys)."""
    groups = Counter((s.holdback, s.held) for s in sessions if s.recurred and 0 < s.holdback < 1)
    return tuple(sorted(groups.items()))


def log_likelihoods(groups: Recurrences) -> list[float]:
    """The conditional log-likelihood of every ``rho`` on :data:`GRID`."""
    totals = [0.0] * len(GRID)
    for (pi, held), count in groups:
        for k, rho in enumerate(GRID):
            chance = pi / (pi + (1 - pi) * rho)
            totals[k] += count * math.log(chance if held else 1 - chance)
    return totals


class _Mixtures:
    """The mixture likelihood ratios of every grid value against its neighbours, from prefix
    sums of ``exp(loglik - max)``. A window whose terms all underflow (a value thousands of
    nats from the best one) is summed exactly instead."""

    def __init__(self, loglik: Sequence[float]) -> None:
        self.loglik = loglik
        self.top = max(loglik)
        self.prefix = [0.0]
        for value in loglik:
            self.prefix.append(self.prefix[-1] + math.exp(value - self.top))

    def rejected(self, k: int, start: int, stop: int) -> bool:
        """True when the mean likelihood ratio of ``GRID[start:stop]`` against ``GRID[k]``
        reaches :data:`THRESHOLD` (never for an empty range)."""
        if start >= stop:
            return False
        window = self.prefix[stop] - self.prefix[start]
        gap = self.top - self.loglik[k]
        if window > 0 and gap < 700:
            return window * math.exp(gap) / (stop - start) >= THRESHOLD
        base = self.loglik[k]
        terms = (math.exp(min(self.loglik[j] - base, 700.0)) for j in range(start, stop))
        return sum(terms) / (stop - start) >= THRESHOLD


def rho_interval(sessions: Sequence[Session]) -> tuple[float, float]:
    """The 90% any-time-valid interval of ``rho`` (see the module docstring): its upper end is
    the largest value the test against smaller values does not reject, its lower end the
    smallest value the test against larger values does not reject."""
    return _interval(recurrences(sessions))


@functools.lru_cache(maxsize=4096)
def _interval(groups: Recurrences) -> tuple[float, float]:
    """:func:`rho_interval` of the recurrences ``groups`` (cached: an entry whose data did not
    change since the last refresh costs a lookup)."""
    mixtures = _Mixtures(log_likelihoods(groups))
    size = len(GRID)
    high = max(k for k in range(size) if not mixtures.rejected(k, max(0, k - SPAN), k))
    low = min(k for k in range(size) if not mixtures.rejected(k, k + 1, min(size, k + SPAN + 1)))
    # Each grid end has no alternatives on one side, so both are always defined.
    return GRID[low], GRID[high]


def classify(low: float, high: float) -> str:
    """The class of an entry whose ``rho`` lies in ``[low, high]``. ``helps`` means the test
    against smaller values rejected ``rho = 1``: at most a 5% chance for an entry that does
    not help, at any look."""
    if low > high:  # the two one-sided bounds cross (at most 10% of the time): no conclusion
        return NO_EVIDENCE
    if high < 1.0:
        return HELPS
    if low > 1.0:
        return HURTS
    if NO_EFFECT_RANGE[0] < low and high < NO_EFFECT_RANGE[1]:
        return NO_EFFECT
    return NO_EVIDENCE


def estimate(sessions: Sequence[Session]) -> Effect:
    """The effect of one entry from its experiment sessions (any order)."""
    held = [s for s in sessions if s.held]
    injected = [s for s in sessions if not s.held]
    held_hits = sum(s.recurred for s in held)
    injected_hits = sum(s.recurred for s in injected)
    reduction = None
    if held and injected and held_hits:
        reduction = 1 - (injected_hits / len(injected)) / (held_hits / len(held))
    low, high = rho_interval(sessions)
    return Effect(
        held=len(held),
        held_recurred=held_hits,
        injected=len(injected),
        injected_recurred=injected_hits,
        reduction=reduction,
        interval=(1 - high, 1 - low),
        label=classify(low, high),
    )
