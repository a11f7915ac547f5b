"""``acecode cost``: what learning cost, per day, week, month and project, against the
budgets. Reads the user's ledger (every project's cycles), never the network."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from acecode.cli.common import console, fail
from acecode.text.wording import counted

DAYS_SHOWN = 7
WEEKS_SHOWN = 5
MONTHS_SHOWN = 12


def _limit_text(limit: float, used: float, usd: bool) -> str:
    if limit <= 0:
        return "no limit"
    shown = f"${limit:.2f}" if usd else f"{int(limit):,} tokens"
    return f"{shown} ({100 * used / limit:.0f}% used)"


def budget_lines(current: Any) -> list[str]:
    """Today's and this month's spend against each limit, one line each (also for doctor)."""
    limits, today, month = current.limits, current.today, current.month
    lines = []
    for label, spend, usd_limit, token_limit in (
        ("today", today, limits.daily_usd, limits.daily_tokens),
        ("this month", month, limits.monthly_usd, limits.monthly_tokens),
    ):
        reserved = (
            f" (+${spend.reserved_usd:.4f} reserved by running cycles)"
            if spend.reserved_usd
            else ""
        )
        unknown = (
            f", {counted(spend.unknown_cycles, 'cycle')} of unknown cost not counted"
            if spend.unknown_cycles
            else ""
        )
        usd_of = _limit_text(usd_limit, spend.total_usd, True)
        tokens_of = _limit_text(token_limit, spend.total_tokens, False)
        lines.append(
            f"{label}: ${spend.usd:.4f}{reserved} of {usd_of}{unknown}; "
            f"{spend.tokens:,} tokens of {tokens_of}"
        )
    return lines


def per_session_lines(current: Any) -> list[str]:
    """Cost per cycle and per session (the last 30 cycles) and the triage's savings."""
    if not current.cycles:
        return []
    lines = [
        f"per cycle (last {current.cycles} that called an LLM): median "
        f"${current.median_usd:.4f}, mean ${current.mean_usd:.4f}"
    ]
    if current.triaged:
        lines.append(
            f"triage: {current.triaged} session(s) with nothing to learn skipped at $0 since; "
            f"per session ended ${current.mean_per_session_usd:.4f}; about "
            f"${current.saved_usd:.4f} saved at the median cycle's cost"
        )
    return lines


def _table(title: str, first: str, groups: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    table.add_column(first)
    for name in ("cycles", "tokens in", "tokens out", "cost"):
        table.add_column(name, justify="right")
    for key, summary in groups.items():
        table.add_row(
            key,
            str(summary.cycles),
            f"{summary.input_tokens:,}",
            f"{summary.output_tokens:,}",
            summary.cost_text(),
        )
    return table


def _head(groups: dict[str, Any], count: int) -> dict[str, Any]:
    return dict(list(groups.items())[:count])


def cost(
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """What learning cost, across all your projects: per day, week, month and project,
    with today's and this month's spend against the budgets.

    Costs marked ~ are estimated from acecode's price table; $? and +? mark cycles
    of a model without a known price (their cost is not counted). The legend under
    the tables names the markers they use.
    """
    from acecode.cost import summary
    from acecode.cost.budget import Limits, view
    from acecode.cost.ledger import Ledger, LedgerError
    from acecode.cost.pricing import price_table
    from acecode.project.config import load_settings

    ledger = Ledger()
    try:
        records = ledger.records()
    except LedgerError as exc:
        fail(str(exc))
    current = view(records, Limits.from_settings(load_settings()))
    days = _head(summary.grouped(records, summary.day_key), DAYS_SHOWN)
    weeks = _head(summary.grouped(records, summary.week_key), WEEKS_SHOWN)
    months = _head(summary.grouped(records, summary.month_key), MONTHS_SHOWN)
    projects = summary.by_project(records)
    sessions = summary.per_session(records)
    if as_json:
        print(
            json.dumps(
                {
                    "ledger": str(ledger.path),
                    "prices_checked": price_table()["checked"],
                    "budget": {
                        "limits": vars(current.limits),
                        "today": {**vars(current.today), "total_usd": current.today.total_usd},
                        "month": {**vars(current.month), "total_usd": current.month.total_usd},
                    },
                    "total": summary.summarize(records).as_dict(),
                    "per_session": sessions.as_dict(),
                    "days": {key: s.as_dict() for key, s in days.items()},
                    "weeks": {key: s.as_dict() for key, s in weeks.items()},
                    "months": {key: s.as_dict() for key, s in months.items()},
                    "projects": {key: s.as_dict() for key, s in projects.items()},
                },
                indent=2,
            )
        )
        return
    console.print(f"ledger: {ledger.path}", markup=False, highlight=False, soft_wrap=True)
    for line in budget_lines(current):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    if not projects:
        console.print("no learning cycle has called an LLM yet")
        return
    for line in per_session_lines(sessions):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print(_table(f"Per day (last {DAYS_SHOWN} with cycles)", "day", days))
    console.print(_table("Per week", "week", weeks))
    console.print(_table("Per month", "month", months))
    console.print(_table("Per project", "project", projects))
    legend = _legend(summary.summarize(records), price_table()["checked"])
    if legend:
        console.print(legend, markup=False, highlight=False, soft_wrap=True)


def _legend(total: Any, checked: str) -> str:
    """What the tables' markers mean, only those the tables use: ``~`` for costs estimated
    from the price table, ``$?`` and ``+?`` for cycles of a model without a known price."""
    parts = []
    if total.estimated_cycles:
        parts.append(f"~ estimated from acecode's price table (checked {checked})")
    if total.unknown_cycles:
        parts.append(
            "$? and +? mark cycles of a model without a known price (their cost is not counted)"
        )
    if total.reported_cycles:
        parts.append("other costs as the provider reported them")
    return "; ".join(parts) + "." if parts else ""


def register(app: typer.Typer) -> None:
    app.command()(cost)
