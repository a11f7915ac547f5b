"""Stage 1, admit: whether this cycle may run, and what it runs on.

In order: the on/off switches (``acecode off``, ``opt_in``, ``ACECODE_SKIP``),
reading the session once (its size, its learning signals, its citations), the
size rule and the triage (:mod:`acecode.pipeline.session_size`,
:mod:`acecode.pipeline.triage`: a session with nothing to learn ends here at
$0), the provider, then the playbook of both layers, the curator's short lists
and the reflector's request, which the user's budgets price before any LLM
call (:func:`acecode.cost.gate.admit_cycle`). Every way out leaves the report's
status set.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acecode.errors import LearnInputError
from acecode.output.waiting import while_waiting
from acecode.pipeline.curator_lists import curator_lists, pinned_in
from acecode.pipeline.cycle_report import CycleReport
from acecode.pipeline.progress import learned_count
from acecode.pipeline.stages.context import CycleContext
from acecode.pipeline.stages.record import ensure_state_dir, record_learned
from acecode.pipeline.stages.reflect import reflector_request
from acecode.playbook.citations import extract_cited_ids
from acecode.playbook.schema import entry_count
from acecode.project import outcomes, paths
from acecode.store import PlaybookError, load_playbook
from acecode.text import wording

if TYPE_CHECKING:
    from acecode.project.config import Settings
    from acecode.project.layer import Layer


def admit(ctx: CycleContext) -> bool:
    """True when the cycle goes on to the LLM; False with the report's status set."""
    from acecode.agents import DEFAULT_AGENT, get_agent

    report = ctx.report
    inactive = _inactive_reason()
    if inactive:
        report.finish(outcomes.SKIPPED, f"acecode is not active here: {inactive}")
        return False
    ctx.agent = ctx.session.agent or get_agent(DEFAULT_AGENT)
    report.agent = ctx.agent.name
    ctx.snapshot = load_playbook(ctx.layer)
    ctx.user_layer, ctx.user_snapshot = _user_layer(ctx.layer, report)
    report.entries_before = report.entries_after = entry_count(ctx.snapshot)
    size, signals = _read_session(ctx)
    if not ctx.messages:
        if report.messages:
            report.finish(outcomes.NOTHING_NEW, "no new messages since the last cycle")
        else:
            report.finish(outcomes.SKIPPED, "the transcript has no messages")
        return False
    by_hand = report.source in outcomes.BY_HAND_SOURCES
    stated = bool(signals.counts["preferences"])
    too_small = size.too_small(ctx.settings, stated) if not by_hand else None
    if too_small:
        report.finish(outcomes.SKIPPED, too_small)
        return False
    report.signals = signals.as_dict()
    if ctx.triage and not signals.found:
        from acecode.cost.settlement import record_triaged

        report.finish(outcomes.NOTHING_NEW, signals.nothing_to_learn(size))
        if not report.dry_run:
            record_learned(ctx.layer, ctx.session, report)
            record_triaged(report, ctx.settings)
        return False
    if not choose_provider(report):
        return False
    if not report.dry_run and not _can_write(ctx.layer, report):
        return False
    return _within_budget(ctx)


def _can_write(layer: Layer, report: CycleReport) -> bool:
    """Whether the cycle can write what it will write (the state folder, the playbook's
    folder), checked before its first LLM call: otherwise the calls would be paid for
    and what they found lost. False (status failed, the folder named) when it cannot.
    The cost ledger is checked by the admission, which writes to it."""
    import os

    from acecode.project.writable import cannot_write

    for folder in (layer.state_folder, os.path.dirname(layer.playbook)):
        problem = cannot_write(folder)
        if problem:
            report.finish(
                outcomes.FAILED,
                f"{problem}: learning is stopped until it can be written; no LLM call was made",
            )
            return False
    return True


def _read_session(ctx: CycleContext) -> tuple[Any, Any]:
    """Stream the session once: count it, measure and triage its new part and collect
    its citations; then keep the new messages (the condenser reads that part again
    from the file) and the languages of its requests. Returns the size and signals."""
    from acecode.pipeline.session_size import SessionSize
    from acecode.pipeline.triage import Signals
    from acecode.transcript import TranscriptStats

    report, session, layer = ctx.report, ctx.session, ctx.layer
    assert ctx.agent is not None
    transcript = report.transcript
    skip = learned_count(layer, transcript) if session.tracked and not ctx.relearn else 0
    stats = TranscriptStats()
    counted = _Counted(session.stream(stats))
    size, signals = SessionSize(), Signals(ctx.agent.tools)
    name = Path(transcript).name

    def reading(seconds: float) -> str:
        return (
            f"reading {name}, {wording.counted(counted.count, 'message')} so far, {seconds:.0f} s"
        )

    with while_waiting(reading):
        report.cited_ids = extract_cited_ids(
            signals.observe(size.observe(islice(counted, skip, None)))
        )
    report.messages = counted.count
    report.session_size = size.as_dict()
    if stats.bad_lines and not stats.records:
        raise LearnInputError(f"{transcript}: not a transcript (no line of it is a JSON record)")
    if not report.dry_run:
        ensure_state_dir(layer)
    if stats.bad_lines:
        report.warnings.append(
            f"skipped {wording.counted(stats.bad_lines, 'unreadable line')} in {transcript}"
        )
    report.messages_already_learned = min(skip, report.messages)
    ctx.messages = session.window(report.messages_already_learned, report.messages)
    _note_languages(report, ctx.messages, layer, ctx.settings)
    return size, signals


def _within_budget(ctx: CycleContext) -> bool:
    """Build what the roles will see (both layers as one playbook, the open conflicts,
    the curator's lists) and the reflector's request, and ask the budgets."""
    from acecode.cost.gate import admit_cycle
    from acecode.pipeline.deferred_step import curator_allowance, load_pending
    from acecode.pipeline.judge_step import stored_conflicts
    from acecode.project.layers import combine

    settings, target, snapshot = ctx.settings, ctx.layer, ctx.snapshot
    # The roles see both layers as one playbook; their deltas are split by layer after.
    ctx.conflicts = stored_conflicts(target, snapshot)
    if ctx.user_layer is not None and ctx.user_snapshot is not None:
        ctx.conflicts += stored_conflicts(ctx.user_layer, ctx.user_snapshot)
    ctx.both = combine(snapshot, ctx.user_snapshot)
    pinned = pinned_in(target)
    lists = curator_lists(target, snapshot, settings, pinned)
    pending = load_pending(target)
    allowance = curator_allowance(snapshot, pending, pinned, settings.max_removal_ratio)
    lists = replace(lists, max_removals=allowance)
    if ctx.user_layer is not None:  # the user's pins are never offered to retire either
        lists = replace(lists, pinned=pinned | pinned_in(ctx.user_layer))
    ctx.lists = lists
    _read_instructions(ctx)
    ctx.request = reflector_request(ctx)
    # The user layer may get rules too: its review and judge calls are reserved as well.
    layers = 1 if ctx.user_layer is None else 2
    return admit_cycle(ctx.report, ctx.request, ctx.both, ctx.conflicts, lists, layers, ctx.digest)


def _read_instructions(ctx: CycleContext) -> None:
    """The project's instruction files and their digest for the roles (read once)."""
    from acecode.instructions.digest import render_digest
    from acecode.instructions.files import instruction_files
    from acecode.instructions.units import all_units

    ctx.instructions = instruction_files(paths.project_dir())
    ctx.units = all_units(ctx.instructions)
    ctx.digest = render_digest(ctx.instructions, ctx.settings.instructions_budget_tokens).text


def _user_layer(target: Layer, report: CycleReport) -> tuple[Layer | None, dict[str, Any] | None]:
    """The user layer and its snapshot; ``(None, None)`` when ``target`` is that layer,
    ``(layer, None)`` with a warning when it cannot be read: the project still learns."""
    from acecode.project.layer import Layer

    if target.is_user:
        return None, None
    user = Layer.user()
    try:
        return user, load_playbook(user)
    except PlaybookError as exc:
        report.warnings.append(f"{exc}; the user layer is left out of this cycle")
        return user, None


def _inactive_reason() -> str:
    """Why acecode must not learn in this project now (``acecode off``, ``opt_in``,
    ``ACECODE_SKIP``), or ``""``. The learner's own ``ACECODE_HOOKS_DISABLED`` (set by
    the hook that started it) is not a reason: it only keeps nested runs quiet."""
    import os

    from acecode.project.control import activity
    from acecode.project.session_switch import NESTED_ENV

    env = {name: value for name, value in os.environ.items() if name != NESTED_ENV}
    state = activity(paths.project_dir(), env)
    return "" if state.active else state.reason


def choose_provider(report: CycleReport) -> bool:
    """Record which provider the cycle will use and why; False (status failed) when none."""
    from acecode.llm import ProviderConfigError, current_choice

    try:
        choice = current_choice()
    except ProviderConfigError as exc:
        first = str(exc).splitlines()[0].removesuffix(" Choose one:").rstrip(".")
        report.finish(outcomes.FAILED, f"{first}; run `acecode doctor` to see how to set one")
        return False
    report.provider, report.model, report.provider_reason = (
        choice.provider,
        choice.model,
        choice.reason,
    )
    report.provider_endpoint = choice.endpoint
    return True


def _note_languages(
    report: CycleReport, messages: list[dict[str, Any]], layer: Layer, settings: Settings
) -> None:
    """The languages of this session's requests, and the ones a rule may be in unreviewed."""
    from acecode.quarantine.user_languages import request_languages, trusted_languages

    report.request_languages = dict(request_languages(messages))
    report.languages = list(trusted_languages(settings, layer, report.request_languages))


class _Counted:
    """An iterator that counts what passes through it."""

    def __init__(self, items: Iterator[dict[str, Any]]) -> None:
        self.items = items
        self.count = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for item in self.items:
            self.count += 1
            yield item
