"""Stage 2, reflect: the reflector's request and its reflection on the session.

The request is built once, in the admission (the budgets price it), and sent
here. The reflector sees a bounded view of the playbook
(:mod:`acecode.pipeline.reflector_view`); its output is redacted as it arrives:
from here it travels into reports, the history journal, the review queue and
diagnostics, and must carry no secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acecode.pipeline.stages.context import CycleContext
from acecode.text.redact import redact_data

if TYPE_CHECKING:
    from acecode.roles.prompt import RolePrompt


def reflector_request(ctx: CycleContext) -> RolePrompt:
    """The reflector's request for the new messages, over both layers' playbook."""
    from acecode.pipeline.reflector_view import reflector_playbook
    from acecode.roles.reflector import reflector_prompt

    assert ctx.lists is not None and ctx.agent is not None
    shown = reflector_playbook(
        ctx.both,
        ctx.messages,
        budget_tokens=ctx.settings.reflector_budget_tokens,
        cited_ids=ctx.report.cited_ids,
        pinned=ctx.lists.pinned,
    )
    return reflector_prompt(
        ctx.messages, shown, ctx.report.cited_ids, ctx.agent, instructions=ctx.digest
    )


async def reflect(ctx: CycleContext) -> bool:
    """Send the request; adds the reflection and its bullet tags. True when the reflector
    found something (an analysis or a tag) for the curator."""
    from acecode.playbook.curator_view import tagged_names
    from acecode.roles.reflector import reflect as ask_reflector

    assert ctx.request is not None
    report = ctx.report
    ctx.reflection = redact_data(await ask_reflector(ctx.request))
    report.analysis = ctx.reflection.get("analysis", "")
    ctx.tags = ctx.reflection.get("bullet_tags", [])
    report.tagged_ids = tagged_names(ctx.reflection)
    return bool(report.analysis or ctx.tags)
