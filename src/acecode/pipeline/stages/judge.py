"""Stage 5, judge: which similar pairs say the same rule.

Loads the layer's semantic tools (the embedding model and the stored
judgements, :mod:`acecode.pipeline.dedup_step`), embeds the texts outside any
lock, and, only when the embeddings propose pairs, asks the judge in one
batched LLM call (:mod:`acecode.pipeline.judge_step`), which also tells the texts
that repeat or contradict one of the project's instructions.
"""

from __future__ import annotations

from acecode.pipeline.stages.context import CycleContext, LayerWork


async def judge(ctx: CycleContext, layer: LayerWork) -> None:
    """Adds the layer's semantic tools, with the judge's verdicts in them."""
    from acecode.pipeline.dedup_step import SemanticTools
    from acecode.pipeline.judge_step import judge_step

    report = layer.report
    semantic = SemanticTools.load(layer.layer, persist=not report.dry_run)
    semantic.prewarm(layer.snapshot, layer.operations)
    await judge_step(
        semantic,
        layer.layer,
        layer.snapshot,
        layer.operations,
        report,
        ctx.settings,
        ctx.units,
    )
    layer.semantic = semantic
