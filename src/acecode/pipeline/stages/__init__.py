"""The stages of a learning cycle, in the order :func:`acecode.pipeline.cycle.run_cycle`
runs them: admit, reflect, curate, screen and review, judge, apply, consolidate,
record. Each module has one entry function taking the cycle's context
(:class:`~acecode.pipeline.stages.context.CycleContext`) and returning what it adds."""
