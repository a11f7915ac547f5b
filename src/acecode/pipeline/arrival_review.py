"""The background review of the entries that arrived with the repository.

An entry that came with a clone, a pull or a teammate's commit is not injected
until an LLM safety review on this machine has passed it, when a provider is
configured (:mod:`acecode.arrivals.split`). The ``SessionStart`` hook cannot
wait for a model, so it starts this job detached (``acecode review-arrivals``,
:func:`acecode.hooks.learn.start_arrival_review`) and goes on; the job:

1. takes the project's lock for it (``<state>/arrival-review.json.lock``, not
   waited for: at most one job runs per project, a second one leaves at once);
2. screens every arrived entry the hooks have not screened yet with the floor
   (:mod:`acecode.arrivals.verdicts`, saved as it goes) and refreshes the
   injection cache, so that a large arrival is screened whatever the hooks'
   time budget;
3. with a provider, sends the screened entries that no review has answered
   (neither rejected nor a floor finding) to the same safety review a learning
   cycle uses (``safety_review.txt``), :data:`BATCH_CHARS` characters per call,
   under the user's budgets (:mod:`acecode.pipeline.review_job`). Each call's
   verdicts are recorded by text fingerprint at once
   (:func:`acecode.arrivals.safety.record_reviews`: each text is reviewed once)
   and the injection cache refreshed, so the next prompt's top-up injects what
   passed (:mod:`acecode.hooks.topup`).

What it did is kept in ``<state>/arrival-review.json`` (:data:`STATE_NAME`):
``running``, then ``done`` or ``stopped`` with the reason (no provider, a
budget, a failed call), for the session-start notice. A call that fails stops
the job; the texts it did not reach keep waiting for the next session's job or
a learning cycle's review.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

from acecode.project.config import Settings
from acecode.project.layer import Layer

STATE_NAME = "arrival-review.json"  # acecode.hooks.learn.ARRIVAL_REVIEW_STATE
SOURCE = "arrivals"
# Characters of arrived texts one review call carries, each with its JSON item around
# it: about 1,500 input tokens and two dozen ordinary rules, a reply of about 1,200 tokens.
BATCH_CHARS = 6_000
ITEM_CHARS = 40


def state_path(layer: Layer) -> str:
    """``<state folder>/arrival-review.json``."""
    return layer.state_file(STATE_NAME)


def read_state(layer: Layer) -> dict[str, Any]:
    """What the last job recorded (``{}`` when none ran or the file is torn)."""
    try:
        with open(state_path(layer), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_state(layer: Layer, **fields: Any) -> None:
    from acecode.hooks.cache_files import write_cache_file

    record = {"version": 1, "pid": os.getpid(), "at": time.time(), **fields}
    write_cache_file(state_path(layer), record)


def review_arrivals(project: str, settings: Settings | None = None) -> dict[str, Any] | None:
    """Run the job for ``project`` (see the module docstring); what it recorded, or None
    when another job holds the lock or the project has no playbook."""
    from acecode.project.config import load_settings
    from acecode.store.errors import PlaybookLockTimeout
    from acecode.store.lock import exclusive_lock

    layer = Layer.of_project(project)
    if not layer.playbook_file.exists():
        return None
    settings = settings or load_settings()
    try:
        with exclusive_lock(layer.file(STATE_NAME), timeout=0):
            return asyncio.run(_run(project, layer, settings))
    except PlaybookLockTimeout:
        return None  # another job is on it


def _split(layer: Layer, settings: Settings) -> Any:
    """The project playbook's split, every arrived entry screened (no deadline)."""
    from acecode.arrivals.mode import needs_review
    from acecode.arrivals.split import split_arrivals
    from acecode.store import load_playbook

    return split_arrivals(
        str(layer.playbook_file),
        load_playbook(layer),
        settings.max_rule_chars,
        settings.languages,
        need_review=needs_review(layer.state_folder),
    )


def _refresh(project: str) -> None:
    """Render the injection cache now, so the hooks read what changed instead of
    rendering it themselves."""
    import contextlib

    from acecode.hooks.rendered import prime
    from acecode.store.errors import PlaybookError

    with contextlib.suppress(PlaybookError):
        prime(project)


def batches(texts: list[str], limit: int = BATCH_CHARS) -> list[list[str]]:
    """``texts`` cut into calls of at most ``limit`` characters (at least one text each)."""
    calls: list[list[str]] = []
    used = limit
    for text in texts:
        size = len(text) + ITEM_CHARS
        if used + size > limit:
            calls.append([])
            used = 0
        calls[-1].append(text)
        used += size
    return calls


async def _run(project: str, layer: Layer, settings: Settings) -> dict[str, Any]:
    from acecode.arrivals.mode import needs_review
    from acecode.pipeline.review_job import may_call, review_job

    split = _split(layer, settings)
    _refresh(project)
    waiting = [arrival for arrival in split.arrived if arrival.awaits_llm_review]
    if not waiting or not needs_review(layer.state_folder):
        _write_state(layer, state="done", screened=len(split.arrived), reviewed=0, flagged=0)
        return read_state(layer)
    _write_state(layer, state="running", waiting=len(waiting))
    with review_job(SOURCE, layer, settings) as report:
        if not may_call(report):
            _write_state(layer, state="stopped", reason=report.reason, waiting=len(waiting))
            return read_state(layer)
        return await _review(project, layer, settings, waiting)


async def _review(
    project: str, layer: Layer, settings: Settings, waiting: list[Any]
) -> dict[str, Any]:
    """Review ``waiting`` (arrivals) call by call, recording each call's verdicts at once."""
    from acecode.arrivals.safety import record_reviews
    from acecode.pipeline.safety_step import review_threshold
    from acecode.roles.ask import collect_failures
    from acecode.roles.safety_review import run_safety_review

    threshold = review_threshold(settings)
    by_text: dict[str, list[Any]] = {}
    for arrival in waiting:
        by_text.setdefault(arrival.text, []).append(arrival)
    reviewed = flagged = 0
    for texts in batches(list(by_text)):
        with collect_failures() as failures:
            result = await run_safety_review(texts)
        if not result["ok"]:
            reason = "; ".join(failures) or "the safety review could not be made"
            _write_state(layer, state="stopped", reason=reason, reviewed=reviewed, flagged=flagged)
            return read_state(layer)
        answered = result["verdicts"]
        arrivals = [by_text[text][0] for text in texts]
        record_reviews(layer, arrivals, answered, threshold)
        reviewed += len(answered)
        flagged += sum(1 for verdict in answered.values() if verdict.at_least(threshold))
        _refresh(project)
    _write_state(layer, state="done", reviewed=reviewed, flagged=flagged)
    return read_state(layer)
