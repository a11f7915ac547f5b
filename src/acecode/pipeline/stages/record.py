"""Stage 8, record: what the cycle leaves in the layer's state folder.

The curation report (beside the playbook, under its lock), the learned mark
(so later cycles reflect on new messages only), the languages of the user's
requests, and one line in ``learn.log`` and one record in ``cycles.jsonl``
(:mod:`acecode.project.outcomes`). Each is best effort: a failure is a warning, the
playbook is saved already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acecode.pipeline.cycle_report import CycleReport
from acecode.project import outcomes
from acecode.project.diagnostics import warn
from acecode.store import PlaybookError, PlaybookWriteError

if TYPE_CHECKING:
    from acecode.pipeline.session_source import SessionSource
    from acecode.pipeline.stages.context import CycleContext, LayerWork
    from acecode.project.config import Settings
    from acecode.project.layer import Layer


def record_layer(ctx: CycleContext, layer: LayerWork) -> None:
    """A layer's curation report; the user layer's outcome too, folded into the cycle's."""
    if not layer.report.dry_run:
        write_curation_report(layer.report, layer.layer, ctx.settings)
    if layer.report is not ctx.report:
        if not layer.report.dry_run:
            record_outcome(layer.report, layer.layer)
        ctx.report.attach_user_layer(layer.report)


def ensure_state_dir(layer: Layer) -> None:
    """The layer's state folder (``.claude/acecode``), git-ignored even where ``.claude`` is
    committed; raises ``PlaybookWriteError`` when it cannot be created."""
    try:
        layer.ensure_folder()
    except OSError as exc:
        raise PlaybookWriteError(
            f"cannot create {layer.folder}: {exc.strerror or exc}; nothing was changed"
        ) from exc


def write_curation_report(report: CycleReport, target: Layer, settings: Settings) -> None:
    """The curation report in the layer ``target``, under its lock; a failure is only a
    warning."""
    from acecode.store.lock import playbook_lock
    from acecode.store.reports import write_report

    if report.curation is None:
        return
    report.curation.update(
        status=report.status,
        reason=report.reason,
        curator_view=report.curator_view,
        provider={
            "name": report.provider,
            "model": report.model,
            "selected_because": report.provider_reason,
            "endpoint": report.provider_endpoint,
        },
    )
    try:
        with playbook_lock(target, settings.lock_timeout):
            report.report_file = str(write_report(target, report.curation))
    except PlaybookError as exc:
        warn(f"could not write the curation report: {exc}")


def record_learned(state: Layer, session: SessionSource, report: CycleReport) -> None:
    """Mark the transcript's messages as learned, so later cycles reflect on new ones only
    (a message list has no identity to remember it by), and keep the languages its
    requests were written in (:mod:`acecode.quarantine.user_languages`)."""
    from acecode.pipeline.progress import record_learned as mark_learned
    from acecode.quarantine.user_languages import record_request_languages

    record_request_languages(state, report.request_languages, timeout=10.0)
    if not session.tracked:
        return
    try:
        mark_learned(state, report.transcript, report.messages, report.cycle_id)
    except PlaybookError as exc:
        warn(f"{exc}; this session may be learned from again")


def record_outcome(report: CycleReport, target: Layer) -> None:
    """One line in learn.log and one record in cycles.jsonl; best effort."""
    record = report.outcome()
    provider = outcomes.describe_provider(record)
    outcomes.append_log(target, report.summary() + (f" | {provider}" if provider else ""))
    try:
        outcomes.record_outcome(target, record)
    except OSError as exc:
        warn(f"could not record the cycle's status in {target.folder}: {exc.strerror or exc}")


def announce_learned(report: CycleReport, target: Layer) -> None:
    """For a cycle a hook started, the rules it added (both layers), for the next session
    start to name once (:mod:`acecode.project.learned_notice`); best effort."""
    from acecode.project.learned_notice import keep_learned

    if not outcomes.started_by_hook(report.source):
        return
    layers = [report.operations, (report.user_layer or {}).get("operations") or []]
    names = [
        op["created"]["name"]
        for operations in layers
        for op in operations
        if op.get("type") == "ADD" and op.get("applied") and op.get("created")
    ]
    if not names:
        return
    try:
        keep_learned(target, report.cycle_id, names, report.transcript)
    except OSError as exc:
        warn(f"could not note the learned rules for the next session: {exc.strerror or exc}")
