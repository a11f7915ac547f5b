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

*The point estimate* is the value of ``rho`` on the grid that makes the
recurrences most likely (the conditional maximum likelihood), kept within
the interval, so the figure never reads "100% fewer" beside an interval
that stops at +54%. With no recurrence at all there is none.

*The classes* follow the interval, with two safeguards:

* no class is concluded before the entry has :data:`MIN_RECURRENCES`
  recurrences (held back and injected together): a handful of recurrences
  that happened to fall while the entry was held back is luck as often as
  evidence, and the figure it gives ("100% fewer" from three) reads as
  proof;
* ``hurts`` takes the entry out of the agent's context until the user has
  looked at it, so it needs the stronger one-sided test of
  :data:`HURTS_ALPHA` (1%): the lower end of the interval computed at that
  level must lie above 1.

So:

* ``helps``: the whole interval is below 1 (fewer recurrences). For an
  entry without effect (or a harmful one) the chance of ever reaching this,
  at any number of looks, is at most 5%;
* ``hurts``: the interval at the 1% level lies above 1 (more recurrences);
  at most a 1% chance for an entry without effect, at any number of looks;
* ``no measurable effect``: the interval lies within (1/2, 2): the entry
  neither halves nor doubles its failure. An entry that really removes half
  of its failures or more lands here with at most 5% probability;
* ``no evidence yet``: anything else, and any entry with fewer than
  :data:`MIN_RECURRENCES` recurrences.

These are bounds. What they cost in practice is measured by
``bench/effect_error_rates.py`` (docs/impact.md has the table): at a 30% base
rate and 200 sessions, about 2% of the entries without effect are ever
called ``helps``.

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
HURTS_ALPHA = 0.01  # "hurts" withholds the entry: the stronger one-sided test
HURTS_THRESHOLD = 1 / HURTS_ALPHA
MIN_RECURRENCES = 10  # no class before this many recurrences (both arms together)
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
    reduction: float | None  # 1 - rho at the likelihood's peak (within the interval); None
    # without any recurrence
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

    def rejected(self, k: int, start: int, stop: int, threshold: float = THRESHOLD) -> bool:
        """True when the mean likelihood ratio of ``GRID[start:stop]`` against ``GRID[k]``
        reaches ``threshold`` (never for an empty range)."""
        if start >= stop:
            return False
        window = self.prefix[stop] - self.prefix[start]
        gap = self.top - self.loglik[k]
        if window > 0 and gap < 700:
            return window * math.exp(gap) / (stop - start) >= threshold
        base = self.loglik[k]
        terms = (math.exp(min(self.loglik[j] - base, 700.0)) for j in range(start, stop))
        return sum(terms) / (stop - start) >= threshold

    def lowest_kept(self, threshold: float) -> int:
        """The smallest grid index the test against larger values does not reject."""
        size = len(self.loglik)
        return min(
            k
            for k in range(size)
            if not self.rejected(k, k + 1, min(size, k + SPAN + 1), threshold)
        )

    def peak(self) -> int:
        """The grid index of the largest likelihood (the middle one of a flat top)."""
        best = [k for k, value in enumerate(self.loglik) if value >= self.top - 1e-12]
        return best[len(best) // 2]


class RhoBounds(NamedTuple):
    """What the recurrences say about ``rho``."""

    low: float  # the 90% interval's lower end (5% per side)
    high: float  # ... its upper end
    hurts_low: float  # the lower end at HURTS_ALPHA: above 1 is "hurts"
    peak: float  # the likelihood's peak, within [low, high] when they do not cross


def rho_interval(sessions: Sequence[Session]) -> tuple[float, float]:
    """The 90% any-time-valid interval of ``rho`` (see the module docstring): its upper end is
    the largest value the test against smaller values does not reject, its lower end the
    smallest value the test against larger values does not reject."""
    bounds = _bounds(recurrences(sessions))
    return bounds.low, bounds.high


@functools.lru_cache(maxsize=4096)
def _bounds(groups: Recurrences) -> RhoBounds:
    """The interval, the stricter lower end and the peak for the recurrences ``groups``
    (cached: an entry whose data did not change since the last refresh costs a lookup)."""
    mixtures = _Mixtures(log_likelihoods(groups))
    size = len(GRID)
    high = max(k for k in range(size) if not mixtures.rejected(k, max(0, k - SPAN), k))
    # Each grid end has no alternatives on one side, so every bound is defined.
    low = mixtures.lowest_kept(THRESHOLD)
    peak = mixtures.peak()
    if low <= high:
        peak = min(max(peak, low), high)
    return RhoBounds(GRID[low], GRID[high], GRID[mixtures.lowest_kept(HURTS_THRESHOLD)], GRID[peak])


def classify(low: float, high: float, hurts_low: float | None = None) -> str:
    """The class of an entry whose ``rho`` lies in ``[low, high]`` (``hurts_low``: the lower
    end at :data:`HURTS_ALPHA`, default ``low``). ``helps`` means the test against smaller
    values rejected ``rho = 1``: at most a 5% chance for an entry that does not help, at
    any look; ``hurts`` that the stricter test against larger values rejected it."""
    if low > high:  # the two one-sided bounds cross (at most 10% of the time): no conclusion
        return NO_EVIDENCE
    if high < 1.0:
        return HELPS
    if (low if hurts_low is None else hurts_low) > 1.0:
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
    groups = recurrences(sessions)
    bounds = _bounds(groups)
    label = classify(bounds.low, bounds.high, bounds.hurts_low)
    if sum(count for _key, count in groups) < MIN_RECURRENCES:
        label = NO_EVIDENCE
    return Effect(
        held=len(held),
        held_recurred=held_hits,
        injected=len(injected),
        injected_recurred=injected_hits,
        reduction=1 - bounds.peak if groups else None,
        interval=(1 - bounds.high, 1 - bounds.low),
        label=label,
    )
