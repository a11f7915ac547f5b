"""After the saves: the session's failures go into the user's failure record, and a
failure learned in two of the user's projects makes its entry a user-layer entry.

See :mod:`acecode.habits.record` and :mod:`acecode.habits.promote`. Nothing here
can fail the cycle: the playbook is saved already, and a record that cannot be
written is one warning.
"""

from __future__ import annotations

from pathlib import Path

from acecode.pipeline.stages.context import CycleContext, LayerWork


def note_habits(ctx: CycleContext, works: list[LayerWork]) -> None:
    """Record the session's failures and the entries linked to them; promote habits."""
    from acecode.habits.promote import promote
    from acecode.habits.record import family_key, note_session
    from acecode.impact.signature import evidence_signature
    from acecode.pipeline.stages.curate import project_key
    from acecode.project.diagnostics import warn
    from acecode.store.errors import PlaybookError

    pool, report = ctx.evidence, ctx.report
    if pool is None or report.dry_run or not pool.failures:
        return
    learned: dict[str, list[str]] = {}
    for work in works:
        for item in (work.provenance or {}).get("entries") or ():
            evidence = item.get("evidence") or {}
            if item.get("how") == "learned" and evidence.get("kind") == "failure":
                key = family_key(evidence_signature(evidence))
                learned.setdefault(key, []).append(item["name"])
    seen = [evidence_signature(moment.evidence) for moment in pool.failures]
    project = project_key(ctx)
    try:
        record = note_session(project, Path(report.transcript).stem, seen, learned)
        project_work = works[0] if works else None
        if ctx.user_layer is None or project_work is None or ctx.layer.is_user:
            return
        report.promoted = promote(
            project_work.provenance or {},
            record,
            project,
            ctx.layer.playbook_file,
            ctx.user_layer.playbook_file,
            ctx.settings.lock_timeout,
        )
    except (OSError, PlaybookError) as exc:
        warn(f"the failure record was not updated ({exc}); the playbook was saved")
