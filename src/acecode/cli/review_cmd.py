"""``acecode review``: look at the texts held back from the playbook and decide.

``acecode review`` (or ``review list``) shows each pending text with the rule
that held it back and the session it came from; ``review approve ID
[--text NEW]`` puts it (or your edit of it) into the playbook; ``review
reject ID`` drops it for good, so the same text is never proposed again.

It also lists the entries that *arrived with the repository* (a clone, a
pull, a teammate's commit) and that the screen holds: they are in the playbook
file but not injected on this machine. ``review approve ID`` lets them in,
``review reject ID`` keeps them out for good; the file itself is the team's and
stays as it is (:mod:`acecode.arrivals.review`).

It also lists the entries the hold-back experiments *measured to hurt*: they
are not injected until ``review approve NAME`` keeps them or ``review reject
NAME`` deletes them (:mod:`acecode.cli.review_measured`).

It also lists the *conflicts*: pairs of playbook entries the judge found
contradicting each other (both are kept). ``review dismiss ID`` keeps both
and stops listing the pair; ``review resolve ID --keep NAME`` keeps that
entry and deletes the other (journaled, so ``acecode undo`` reverts it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from acecode.cli.common import (
    console,
    fail,
    layer_path,
    playbook_option,
    refresh_injection,
    user_option,
)

review_app = typer.Typer(
    help=(
        "Review the texts the quarantine held back (list, approve optionally edited, reject) "
        "and the conflicting rules the judge found (dismiss, resolve)."
    ),
    no_args_is_help=False,
)


def _playbook(ctx: typer.Context, own: Path | None) -> Path | None:
    """The subcommand's ``--playbook``, else the one given to ``acecode review``."""
    return own if own is not None else ctx.obj


def _show_pending(playbook: Path | None) -> None:
    from rich.table import Table

    from acecode.quarantine.queue import QueueError, list_pending, queue_path
    from acecode.quarantine.unreviewed import hold_label, is_not_reviewed

    try:
        items = list_pending(playbook)
    except QueueError as exc:
        fail(str(exc))
    if not items:
        console.print("No texts are waiting for review.")
        return
    waiting = sum(1 for item in items if is_not_reviewed(item.rule))
    console.print(_queue_counts(waiting, len(items) - waiting), markup=False, highlight=False)
    table = Table(title=f"Pending review ({queue_path(playbook)})")
    for column in ("id", "proposed", "section", "reason", "session", "text"):
        table.add_column(column, overflow="fold")
    for item in items:
        proposed = item.operation
        if item.target_ids:
            proposed += " " + ", ".join(item.target_ids)
        reason = hold_label(item.rule) + (f": {item.detail}" if item.detail else "")
        source = item.session or item.transcript or "-"
        table.add_row(item.id, proposed, item.section, reason, source, item.text)
    console.print(table, markup=False, highlight=False)
    console.print(
        "Approve with `acecode review approve ID [--text NEW]`, reject with "
        "`acecode review reject ID`.",
        markup=False,
        highlight=False,
    )


def _queue_counts(waiting: int, held: int) -> str:
    """The line above the queue: how many texts wait only for the safety review (the next
    learning cycle or ``--retry`` reviews them), apart from those a review or the floor held."""
    from acecode.text.wording import counted

    parts = []
    if waiting:
        verb = "waits" if waiting == 1 else "wait"
        parts.append(
            f"{counted(waiting, 'text')} {verb} only for the safety review (not reviewed): the "
            "next learning cycle reviews them, or `acecode review --retry` now"
        )
    if held:
        verb = "was" if held == 1 else "were"
        parts.append(f"{counted(held, 'text')} {verb} held by the floor or a review for you")
    return "; ".join(parts) + "."


def _retry(playbook: Path | None) -> None:
    """``acecode review --retry``: review the waiting texts now and say what became of them."""
    from acecode.pipeline.review_retry import retry_waiting
    from acecode.quarantine.queue import QueueError
    from acecode.quarantine.unreviewed import hold_label
    from acecode.store import PlaybookError
    from acecode.text.wording import counted

    try:
        result = retry_waiting(playbook)
    except (QueueError, PlaybookError) as exc:
        fail(str(exc))
    if result.landed:
        refresh_injection(playbook)
    total = result.reviewed + len(result.still_waiting)
    if not total:
        console.print("No texts wait for the safety review.")
        return
    lines = [f"Reviewed {result.reviewed} of {counted(total, 'waiting text')}."]
    lines += [f"  LANDED  [{name}] {text}" for name, text in result.landed]
    lines += [
        f"  HELD    ({hold_label(rule)}: {detail}) {item.text}"
        for item, rule, detail in result.held
    ]
    lines += [f"  WAITS   {item.text}" for item in result.still_waiting]
    for line in lines:
        console.print(line, markup=False, highlight=False)
    if result.stopped:
        fail(f"the safety review stopped: {result.stopped}; the other texts keep waiting")


def _show_conflicts(playbook: Path | None) -> None:
    from rich.table import Table

    from acecode.dedup.judgements import JudgementsError, judgements_path, open_conflicts
    from acecode.store import PlaybookError, load_playbook

    try:
        conflicts = open_conflicts(load_playbook(playbook), playbook)
    except (JudgementsError, PlaybookError) as exc:
        fail(str(exc))
    if not conflicts:
        console.print("No conflicting rules.")
        return
    table = Table(title=f"Conflicting rules, both kept ({judgements_path(playbook)})")
    for column in ("id", "entry", "text", "judge's reason"):
        table.add_column(column, overflow="fold")
    for conflict in conflicts:
        reason = conflict.reason or "-"
        if conflict.folded:
            reason += f" (found against {conflict.folded!r}, folded into this entry earlier)"
        table.add_row(conflict.id, conflict.first_name, conflict.first_text, reason)
        table.add_row("", conflict.second_name, conflict.second_text, "", end_section=True)
    console.print(table, markup=False, highlight=False)
    console.print(
        "Keep both with `acecode review dismiss ID`, or keep one with "
        "`acecode review resolve ID --keep NAME` (the other is deleted).",
        markup=False,
        highlight=False,
    )


def _show_arrivals(playbook: Path | None) -> None:
    """The held arrivals, only when there are some (most projects have none)."""
    from rich.table import Table

    from acecode.arrivals.review import ORIGIN, held_arrivals, waiting_counts
    from acecode.store import PlaybookError, resolve_path
    from acecode.text.wording import counted

    try:
        items = held_arrivals(playbook)
        reviewing, unscreened = waiting_counts(playbook)
    except PlaybookError:
        return  # the conflicts below report the playbook's problem
    if reviewing or unscreened:
        console.print(
            f"{counted(reviewing + unscreened, 'entry')} that {ORIGIN} "
            f"{'waits' if reviewing + unscreened == 1 else 'wait'} for the LLM review in the "
            "background and "
            f"{'is' if reviewing + unscreened == 1 else 'are'} not injected until it passes them "
            "(`acecode review approve ID` lets one in now).",
            markup=False,
            highlight=False,
        )
    if not items:
        return
    table = Table(title=f"Held entries that {ORIGIN}, not injected ({resolve_path(playbook)})")
    for column in ("id", "entry", "section", "origin", "reason", "text"):
        table.add_column(column, overflow="fold")
    for item in items:
        table.add_row(item.id, item.name, item.section, ORIGIN, item.reason, item.text)
    console.print(table, markup=False, highlight=False)
    console.print(
        "Approve with `acecode review approve ID` (injected from the next session on), reject "
        "with `acecode review reject ID` (kept out of this machine's sessions). The playbook "
        "file is unchanged either way: `acecode forget NAME` deletes an entry from it.",
        markup=False,
        highlight=False,
    )
    console.print()


def _show_all(playbook: Path | None) -> None:
    from acecode.cli.review_measured import show_measured

    show_measured(playbook)
    _show_arrivals(playbook)
    _show_pending(playbook)
    console.print()
    _show_conflicts(playbook)


def _arrival(item_id: str, playbook: Path | None) -> bool:
    """True when ``item_id`` names a held arrival rather than a pending text. An ID that is
    exactly one of them names it (a text both pending and arrived is the arrival: it is
    in the file already); a prefix that could be either is refused."""
    from acecode.arrivals.review import MIN_ID_PREFIX, matching
    from acecode.quarantine.queue import QueueError, list_pending
    from acecode.store import PlaybookError

    try:
        arrivals = matching(item_id, playbook)
    except PlaybookError:
        return False  # the queue's command reports the playbook's problem
    if not arrivals:
        return False
    wanted = item_id.strip().lower()
    try:
        pending = [
            item.id
            for item in list_pending(playbook)
            if item.id == wanted or (len(wanted) >= MIN_ID_PREFIX and item.id.startswith(wanted))
        ]
    except QueueError:
        pending = []
    if not pending or any(item.id == wanted for item in arrivals):
        return True
    if wanted in pending:
        return False
    fail(f"ID {item_id!r} is ambiguous (a pending text and a held entry); give more characters")


@review_app.callback(invoke_without_command=True)
def review(
    ctx: typer.Context,
    playbook: playbook_option = None,
    user: user_option = False,
    retry: Annotated[
        bool,
        typer.Option(
            "--retry",
            help="Review the texts that wait only for the safety review now (an LLM call, "
            "bound by your budget); the ones it passes land in the playbook.",
        ),
    ] = False,
) -> None:
    """List the texts waiting for review and the conflicting rules (the default), or decide."""
    playbook = layer_path(playbook, user=True) if user else playbook
    ctx.obj = playbook
    if retry:
        _retry(playbook)
    elif ctx.invoked_subcommand is None:
        _show_all(playbook)


@review_app.command("list")
def list_command(ctx: typer.Context, playbook: playbook_option = None) -> None:
    """List pending texts (why held back, which session) and conflicting rules."""
    _show_all(_playbook(ctx, playbook))


@review_app.command("approve")
def approve_command(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="ID (or unique prefix) to approve.")],
    text: Annotated[
        str | None, typer.Option("--text", help="Approve this edited text instead.")
    ] = None,
    playbook: playbook_option = None,
) -> None:
    """Put a pending text into the playbook with a generated ID, then remove it from the queue;
    or let a held entry that arrived with the repository into this machine's sessions."""
    from acecode.cli.review_measured import approve_measured, is_measured
    from acecode.quarantine.queue import QueueError
    from acecode.quarantine.queue_decisions import approve
    from acecode.store import PlaybookError

    if is_measured(item_id, _playbook(ctx, playbook)):
        if text is not None:
            fail("an entry measured to hurt is kept as it stands; `acecode edit NAME` rewrites it")
        approve_measured(item_id, _playbook(ctx, playbook))
        return
    if _arrival(item_id, _playbook(ctx, playbook)):
        _approve_arrival(item_id, text, _playbook(ctx, playbook))
        return
    try:
        result = approve(item_id, text, playbook=_playbook(ctx, playbook))
    except (QueueError, PlaybookError) as exc:
        fail(str(exc))
    refresh_injection(_playbook(ctx, playbook))
    if result.entry is None:
        console.print(
            f"{result.item.id}: not applied ({result.note}); removed from the queue.",
            markup=False,
            highlight=False,
        )
        return
    verb = {"UPDATE": "updated", "MERGE": "merged into"}.get(result.applied_as or "", "added")
    back = ""
    if result.item.was and result.applied_as == "ADD":
        entry = result.entry
        back = (
            f" It was {result.item.was} before the merge deleted it "
            f"(helpful {entry['helpful']}, harmful {entry['harmful']})."
        )
    console.print(
        f"Approved {result.item.id}: {verb} [{result.entry['name']}] in {result.section}.{back}",
        markup=False,
        highlight=False,
    )


def _approve_arrival(item_id: str, text: str | None, playbook: Path | None) -> None:
    from acecode.arrivals.review import ArrivalError, approve_arrival

    if text is not None:
        fail(
            "an entry that arrived with the repository is approved as it stands; approve it, "
            "then change it with `acecode edit NAME --text ...`"
        )
    try:
        item = approve_arrival(item_id, playbook)
    except ArrivalError as exc:
        fail(str(exc))
    refresh_injection(playbook)
    console.print(
        f"Approved {item.id}: [{item.name}] is injected from the next session on.",
        markup=False,
        highlight=False,
    )


@review_app.command("reject")
def reject_command(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(metavar="ID", help="ID (or unique prefix) to reject.")],
    playbook: playbook_option = None,
) -> None:
    """Drop a pending text; the same text will not be proposed again. A held entry that
    arrived with the repository stays out of this machine's sessions for good; an entry
    measured to hurt is deleted (undo with `acecode undo`)."""
    from acecode.cli.review_measured import is_measured, reject_measured
    from acecode.quarantine.queue import QueueError
    from acecode.quarantine.queue_decisions import reject

    if is_measured(item_id, _playbook(ctx, playbook)):
        reject_measured(item_id, _playbook(ctx, playbook))
        return
    if _arrival(item_id, _playbook(ctx, playbook)):
        _reject_arrival(item_id, _playbook(ctx, playbook))
        return
    try:
        item = reject(item_id, playbook=_playbook(ctx, playbook))
    except QueueError as exc:
        fail(str(exc))
    console.print(
        f"Rejected {item.id}; the same text will not be proposed again.",
        markup=False,
        highlight=False,
    )


def _reject_arrival(item_id: str, playbook: Path | None) -> None:
    from acecode.arrivals.review import ArrivalError, reject_arrival

    try:
        item = reject_arrival(item_id, playbook)
    except ArrivalError as exc:
        fail(str(exc))
    console.print(
        f"Rejected {item.id}: [{item.name}] stays out of this machine's sessions and will not "
        f"be proposed again. The playbook file is unchanged; `acecode forget {item.name}` "
        "deletes it for the whole team (a change to commit).",
        markup=False,
        highlight=False,
    )


@review_app.command("dismiss")
def dismiss_command(
    ctx: typer.Context,
    conflict: Annotated[str, typer.Argument(metavar="ID", help="Conflict ID (c-...) to dismiss.")],
    playbook: playbook_option = None,
) -> None:
    """Keep both rules of a conflict and stop listing it (the curator stops seeing it too)."""
    from acecode.dedup.judgements import JudgementsError, dismiss_conflict

    try:
        dismissed = dismiss_conflict(conflict, playbook=_playbook(ctx, playbook))
    except JudgementsError as exc:
        fail(str(exc))
    console.print(
        f"Dismissed {dismissed}: both rules stay.",
        markup=False,
        highlight=False,
    )


@review_app.command("resolve")
def resolve_command(
    ctx: typer.Context,
    conflict: Annotated[str, typer.Argument(metavar="ID", help="Conflict ID (c-...) to resolve.")],
    keep: Annotated[str, typer.Option("--keep", help="Name of the entry to keep, e.g. pat-001.")],
    playbook: playbook_option = None,
) -> None:
    """Keep one entry of a conflict and delete the other (undo with `acecode undo`)."""
    from acecode.dedup.judgements import JudgementsError, resolve_conflict
    from acecode.store import PlaybookError

    try:
        result = resolve_conflict(conflict, keep, playbook=_playbook(ctx, playbook))
    except (JudgementsError, PlaybookError) as exc:
        fail(str(exc))
    console.print(
        f"Resolved {result.conflict.id}: kept [{result.kept}], deleted "
        f"[{result.deleted['name']}] {result.deleted['text']}",
        markup=False,
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    """Add the ``review`` command group to the acecode app."""
    app.add_typer(review_app, name="review")
