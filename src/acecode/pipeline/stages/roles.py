"""Stages 2 and 3 under one meter: the reflector, then (when it found something) the
curator. Their tokens and failures are counted together; a failed role ends the
cycle ``failed`` and a reflection with nothing in it ends it ``nothing-new``, and
neither applies anything, so a retry cannot count evidence twice."""

from __future__ import annotations

from typing import Any

from acecode.pipeline.stages.context import CycleContext
from acecode.pipeline.stages.curate import curate
from acecode.pipeline.stages.reflect import reflect
from acecode.project import outcomes


async def reflect_and_curate(ctx: CycleContext) -> bool:
    """True when the cycle has deltas to apply (``ctx.tags``, ``ctx.operations``);
    False with the report's status set."""
    from acecode.cost.gate import roles_done
    from acecode.llm import usage
    from acecode.roles.ask import collect_failures

    report = ctx.report
    proposed: list[Any] = []
    with usage.track() as ledger, collect_failures() as failures:
        if await reflect(ctx):
            proposed = await curate(ctx)
    # What the two calls left of their shares is free for the safety review and the judge.
    roles_done("reflector", "curator")
    # No call at all means no provider was usable; a failed call means the LLM failed.
    report.llm_ok = bool(ledger.calls) and all(call.ok for call in ledger.calls)
    report.tokens = ledger.to_dict()
    report.proposed_operations = proposed
    if failures:
        report.finish(outcomes.FAILED, "; ".join(failures))
        return False
    if not (report.analysis or ctx.tags):
        report.finish(outcomes.NOTHING_NEW, "the reflector found nothing to learn")
        return False
    return True
