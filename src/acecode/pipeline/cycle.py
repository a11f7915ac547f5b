"""One learning cycle over one transcript.

The LLM calls (reflector, then curator) run on a snapshot of the playbook
with no lock held, and so do the slow preparations (quarantine screening,
loading the embedding model, embedding the texts). Their results are
*deltas* — bullet tags and curator operations — which are then applied,
inside the store's transaction, to the playbook as it is on disk at that
moment. Two sessions ending together thus both land their edits instead of
the later save erasing the earlier one.

Before the transaction, the judge (one batched LLM call, only when the
embeddings propose pairs) decides which similar pairs say the same rule
(:mod:`acecode.pipeline.judge_step`). Order inside the transaction: bullet
tags, the judged de-duplication ladder (an ADD that repeats an entry credits
it instead), the collapse guards (removal budget, merge detail), the
operations, judged semantic de-duplication and pruning, both within what is
left of the budget. The curation report and the history
journal record all of it.

The cycle is a list of stages (:mod:`acecode.pipeline.stages`), each a module
with one entry function: admit, reflect and curate, then for each layer screen
and review, judge, the project's instructions (a text they already say is not
applied, one that contradicts them waits for review), apply (with consolidation
in the same transaction) and record.

Every cycle ends with a status (:mod:`acecode.project.outcomes`): ``ok``,
``nothing-new``, ``skipped`` or ``failed``, the last two with a reason. A
cycle skips without an LLM call when acecode is off for the project or, when
a hook or bootstrap started it, when the session is too small to teach
anything (:mod:`acecode.pipeline.session_size`); it ends ``nothing-new`` without
a call, at $0, when the triage finds no learning signal in the session
(:mod:`acecode.pipeline.triage`). A cycle whose LLM call
failed applies nothing, so retrying it later cannot count its evidence twice.
Only ``ok`` and ``nothing-new`` record the transcript as learned.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

from acecode.pipeline.cycle_report import CycleReport
from acecode.pipeline.session_source import MessageList, TranscriptFile
from acecode.pipeline.stages.admit import admit
from acecode.pipeline.stages.apply import apply_layer
from acecode.pipeline.stages.context import CycleContext
from acecode.pipeline.stages.habits import note_habits
from acecode.pipeline.stages.instructions import hold_against_instructions, record_overlap
from acecode.pipeline.stages.judge import judge
from acecode.pipeline.stages.layers import plan_layers
from acecode.pipeline.stages.record import (
    announce_learned,
    record_layer,
    record_learned,
    record_outcome,
)
from acecode.pipeline.stages.roles import reflect_and_curate
from acecode.pipeline.stages.screen import screen_and_review
from acecode.project import outcomes
from acecode.project.config import Settings, load_settings
from acecode.project.diagnostics import diagnose, warn
from acecode.project.layer import Layer

__all__ = ["CycleReport", "run_cycle", "run_cycle_sync"]


async def run_cycle(
    transcript: str | Path | MessageList,
    *,
    playbook_path: str | Path | None = None,
    source: str = "cli",
    dry_run: bool = False,
    relearn: bool = False,
    settings: Settings | None = None,
    ignore_budget: bool = False,
    triage: bool | None = None,
    burst: bool = False,
    record_if_learned_before: bool = True,
) -> CycleReport:
    """Learn from one transcript (a file, or the :class:`MessageList` a library call
    passed) and (unless ``dry_run``) save the result.

    Only messages not learned by an earlier cycle are reflected on, unless
    ``relearn`` (a message list is always learned whole). A cycle started by
    hand (``source`` "cli" or "library") learns whatever it is given; any
    other source skips a session too small to teach anything, and one the
    triage finds no signal in (:mod:`acecode.pipeline.triage`): ``triage``
    True or False overrides that choice (``acecode learn --triage``). Never raises
    for LLM trouble: a failed role yields status ``failed`` and the playbook
    stays as it was. Store errors (corrupt playbook, lock timeout, disk full)
    raise ``acecode.store.PlaybookError``, and a file with no JSON record at all
    (``acecode learn README.md``) raises :class:`~acecode.errors.LearnInputError`,
    for the caller, which says so in one line (the background learner's stderr
    is learn.log); a refused cycle writes nothing, not even its record.

    Every cycle is bound by the user's budgets (:mod:`acecode.cost`) unless
    ``ignore_budget``: one whose worst case would cross one is skipped before any
    LLM call; what a cycle spends goes to the user's cost ledger. A cycle of a
    ``burst`` (bootstrap, catch-up, ``acecode learn`` of several transcripts), or one
    that follows another within the hour, asks for a one-hour prompt cache, as the
    next cycle is likely to come within it.

    ``record_if_learned_before`` False (``acecode bootstrap``) leaves no record of a
    transcript whose every message an earlier cycle learned (the hooks did): the
    caller counts it as already learned, and nothing happened to tell.
    """
    from acecode.agents import detect_agent
    from acecode.cost.gate import metered
    from acecode.llm import prompt_cache
    from acecode.llm.base import CACHE_1H
    from acecode.store.journal import new_cycle_id

    started = time.monotonic()
    settings = settings or load_settings()
    layer = Layer.of(playbook_path)
    session = (
        transcript
        if isinstance(transcript, MessageList)
        else TranscriptFile(Path(transcript), detect_agent(transcript))
    )
    report = CycleReport(
        cycle_id=new_cycle_id(),
        source=source,
        transcript=session.label,
        playbook=str(layer.playbook_file),
        started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        dry_run=dry_run,
    )
    if triage is None:
        triage = source not in outcomes.BY_HAND_SOURCES and settings.triage
    context = CycleContext(report, session, layer, settings, relearn=relearn, triage=triage)
    with (
        prompt_cache(CACHE_1H) if burst or _learning_lately() else nullcontext(),
        metered(report, settings, enforce=not ignore_budget),
    ):
        await _stages(context)
    for warning in report.warnings:
        warn(warning)
    report.duration_s = round(time.monotonic() - started, 3)
    if not dry_run and (record_if_learned_before or not report.learned_before):
        announce_learned(report, layer)  # before the cycle's record, its last write
        record_outcome(report, layer)
    diagnose("cycle_report", report.summary())
    return report


async def _stages(ctx: CycleContext) -> None:
    """The stages of :func:`run_cycle`; every way out leaves the report's status set."""
    report = ctx.report
    if not admit(ctx):
        return
    if not await reflect_and_curate(ctx):
        if report.learned and not report.dry_run:
            record_learned(ctx.layer, ctx.session, report)
        return
    from acecode.cost.gate import release_unused

    # The session's moments, read once by the curate stage (outside any lock).
    evidence = None if report.dry_run else ctx.evidence
    changed = False
    layers = plan_layers(ctx)
    for index, layer in enumerate(layers):
        await screen_and_review(ctx, layer)
        await judge(ctx, layer)
        hold_against_instructions(ctx, layer)
        if index == len(layers) - 1:  # no LLM call after this one: free what it held
            release_unused()
        changed |= apply_layer(ctx, layer, evidence)
        record_layer(ctx, layer)
    record_overlap(ctx)
    note_habits(ctx, layers)
    if changed:
        report.finish(outcomes.OK)
    else:
        report.finish(outcomes.NOTHING_NEW, "the LLM proposed no change that applies")
    if not report.dry_run:
        record_learned(ctx.layer, ctx.session, report)


def _learning_lately() -> bool:
    """True when the user's ledger shows a cycle within the last hour (any project):
    sessions are ending in a burst, so the one-hour prompt cache pays."""
    from acecode.cost.ledger import Ledger, LedgerError, recent_cycle

    try:
        return recent_cycle(Ledger().records())
    except LedgerError:
        return False


def run_cycle_sync(transcript: str | Path, **kwargs: Any) -> CycleReport:
    """``run_cycle`` for synchronous callers (CLI, background learner)."""
    return asyncio.run(run_cycle(transcript, **kwargs))
