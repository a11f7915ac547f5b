"""What a learning cycle carries from one stage to the next.

Each stage (:mod:`acecode.pipeline.stages`) reads the fields the earlier ones
filled and fills its own; the report (:class:`~acecode.pipeline.cycle_report.CycleReport`)
is what the cycle returns. A layer's work (:class:`LayerWork`) is what the
per-layer stages (screen, judge, apply, consolidate, record) share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acecode.agents.base import Agent
    from acecode.pipeline.curator_lists import CuratorLists
    from acecode.pipeline.cycle_report import CycleReport
    from acecode.pipeline.dedup_step import SemanticTools
    from acecode.pipeline.session_source import SessionSource
    from acecode.project.config import Settings
    from acecode.project.layer import Layer
    from acecode.quarantine.waiting import Retry
    from acecode.roles.prompt import RolePrompt


@dataclass
class CycleContext:
    """One cycle's inputs, then what its stages found, in stage order."""

    report: CycleReport
    session: SessionSource
    # The layer the cycle learns into (the project's, or the user's): built once at
    # the cycle's entry and handed to every stage instead of the playbook's path.
    layer: Layer
    settings: Settings
    relearn: bool
    triage: bool
    # admit: the agent, the playbook as read (both layers), the session's new
    # messages, the open conflicts, the curator's short lists and the reflector's request.
    agent: Agent | None = None
    snapshot: dict[str, Any] = field(default_factory=dict)
    user_layer: Layer | None = None
    user_snapshot: dict[str, Any] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    both: dict[str, Any] = field(default_factory=dict)
    conflicts: list[Any] = field(default_factory=list)
    lists: CuratorLists | None = None
    request: RolePrompt | None = None
    # reflect and curate: the reflection, the bullet tags and the curator's operations.
    reflection: dict[str, Any] = field(default_factory=dict)
    tags: list[Any] = field(default_factory=list)
    operations: list[Any] = field(default_factory=list)
    # The entries' evidence, read from the session once (None in a dry run).
    evidence: Any = None
    # The project's instructions (acecode.instructions), read once in the admission: the
    # files, and their digest as the reflector and the curator are shown it.
    instructions: list[Any] = field(default_factory=list)
    units: list[Any] = field(default_factory=list)
    digest: str | None = None


@dataclass
class LayerWork:
    """What one layer gets from the cycle: its report, layer, snapshot and deltas, then
    what its own stages add (the semantic tools the judge loaded)."""

    report: CycleReport
    layer: Layer
    snapshot: dict[str, Any]
    tags: list[Any]
    operations: list[Any]
    semantic: SemanticTools | None = None
    # The queued texts that waited for a review and what this cycle's review did to them
    # (:mod:`acecode.quarantine.waiting`); the queue is settled once the playbook is saved.
    retry: Retry | None = None
    # The provenance plan the layer's save recorded (apply), for the failure record.
    provenance: dict[str, Any] | None = None
