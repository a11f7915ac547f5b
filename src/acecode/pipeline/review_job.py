"""A safety review made outside a learning cycle, under the same provider and budgets.

Two jobs review texts without a session to learn from: ``acecode review
--retry`` (the texts waiting in the queue, :mod:`acecode.pipeline.review_retry`)
and the background review of the entries that arrived with the repository
(:mod:`acecode.arrivals.background`). Both call the configured provider as a
cycle would, and both are bound by the user's budgets: the job is admitted with
nothing reserved, and each call reserves its worst case before it is sent
(:func:`acecode.cost.gate.admit_calls`); what it spends goes to the user's cost
ledger under the job's source. The job's :class:`CycleReport` carries the
provider, the tokens and the warnings; it is not a cycle and is recorded in no
cycle file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING

from acecode.pipeline.cycle_report import CycleReport
from acecode.project import outcomes

if TYPE_CHECKING:
    from acecode.project.config import Settings
    from acecode.project.layer import Layer


@contextmanager
def review_job(source: str, layer: Layer, settings: Settings) -> Iterator[CycleReport]:
    """Choose the provider and admit the job's calls under the budgets; the block runs the
    calls. The report's status is ``failed`` (no provider) or ``skipped`` (the budget is
    spent) when the block must make none: check :func:`may_call` first."""
    from acecode.cost.gate import admit_calls, metered
    from acecode.pipeline.stages.admit import choose_provider
    from acecode.store.journal import new_cycle_id

    report = CycleReport(
        cycle_id=new_cycle_id(),
        source=source,
        transcript=source,
        playbook=str(layer.playbook_file),
        started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
    )
    if not choose_provider(report):
        yield report
        return
    with metered(report, settings):
        admit_calls(report)
        yield report


def may_call(report: CycleReport) -> bool:
    """Whether the job was admitted: a provider is configured and the budget allows."""
    return report.status not in (outcomes.FAILED, outcomes.SKIPPED)
