"""The learning cycle and bootstrap: reflector, tags, curator, operations,
de-duplication, pruning, save — one transcript at a time."""

from acecode.pipeline.cycle import CycleReport, run_cycle, run_cycle_sync

__all__ = ["CycleReport", "run_cycle", "run_cycle_sync"]
