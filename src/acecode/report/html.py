"""Render :class:`~acecode.report.data.ReportData` as one self-contained HTML page.

Entries, reasons, evidence and failure lines are written by an LLM or copied
from tool output, so every text goes through :func:`html.escape` (the only
way text reaches the page is :func:`_e`), the page carries no script at all,
and a Content-Security-Policy forbids scripts and every network fetch, so
even a missed escape could neither run code nor call out. Charts are inline
SVG; styles are one inline ``<style>``.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from acecode.report.data import CyclePoint, ReportData
from acecode.report.forest import effects_section
from acecode.report.growth_chart import growth_chart
from acecode.store.provenance import Origin
from acecode.text.wording import counted

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_STYLE = """
.bar{display:inline-block;height:10px;min-width:2px;background:#2f80ed;border-radius:2px}
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1150px;color:#1f2933;
background:#f7f9fb;padding:0 16px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid #3e7cb1;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px;color:#3e7cb1}
.meta{color:#616e7c;font-size:12px}.empty{color:#616e7c;font-style:italic}
table{border-collapse:collapse;width:100%;background:#fff;margin-bottom:8px}
th,td{border:1px solid #d9e2ec;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#e4edf6}td.n{text-align:right;font-variant-numeric:tabular-nums}
.good{color:#1b7f3b;font-weight:600}.bad{color:#b42318;font-weight:600}
.origin{color:#52606d;font-size:12px}code{background:#eef2f6;padding:0 3px;border-radius:3px}
.cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;border:1px solid #d9e2ec;
border-left:4px solid #3e7cb1;padding:8px 14px;min-width:140px}.card b{font-size:22px;display:block}
svg{background:#fff;border:1px solid #d9e2ec;max-width:100%;height:auto}
.id{white-space:nowrap}.pin{display:inline-block;margin-left:6px;padding:0 5px;font-size:11px;
border-radius:3px;background:#fff3bf;color:#7a5b00;border:1px solid #f0d264}
"""
_SECTION_IDS = {
    "playbook": "Playbook",
    "growth": "Growth and shrinkage per cycle",
    "cost": "Cost per day",
    "citations": "Citations",
    "failures": "Recurring failures, before and after",
    "review": "Review queue",
    "effects": "Measured effect per rule",
}


def _e(value: object) -> str:
    """Escaped text: the only way data reaches the page."""
    return html.escape(str(value), quote=True)


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: set[int]) -> str:
    """A table whose cells are already-escaped HTML fragments."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _id(name: object) -> str:
    """An entry or cycle ID that never breaks at its hyphen (``pat-`` / ``001``)."""
    return f'<span class="id">{_e(name)}</span>'


def _empty(text: str) -> str:
    return f'<p class="empty">{_e(text)}</p>'


def _origin(origins: list[Origin]) -> str:
    if not origins:
        return '<span class="origin">no provenance</span>'
    first = origins[0]
    evidence = first.evidence
    parts = [f"{_e(first.how or '?')} {_e(first.at[:10])}"]
    if first.reason:
        parts.append(_e(first.reason))
    if evidence.kind == "failure":
        command = f"<code>{_e(evidence.command)}</code> → " if evidence.command else ""
        parts.append(f"{command}{_e(evidence.tool)}: {_e(evidence.error)}")
    elif evidence.kind == "request" and evidence.request:
        parts.append(f"asked: “{_e(evidence.request)}”")
    more = f" (+{len(origins) - 1} more)" if len(origins) > 1 else ""
    return f'<span class="origin">{"<br>".join(parts)}{_e(more)}</span>'


def _playbook(data: ReportData) -> str:
    out = []
    for section, entries in data.sections.items():
        out.append(f"<h3>{_e(section)} ({len(entries)})</h3>")
        if not entries:
            out.append(_empty("No entries."))
            continue
        rows = [
            [
                _id(entry["name"])
                + ('<span class="pin">pinned</span>' if entry["name"] in data.pinned else ""),
                _e(entry["text"]),
                _e(entry["helpful"]),
                _e(entry["harmful"]),
                _origin(data.provenance.get(entry["name"], [])),
                "<br>".join(_e(line) for line in data.triggers.get(entry["name"], [])),
            ]
            for entry in entries
        ]
        headers = ("id", "text", "helpful", "harmful", "provenance", "triggers")
        out.append(_table(headers, rows, {2, 3}))
    return "".join(out)


def _growth(points: list[CyclePoint]) -> str:
    if not points:
        return _empty("No journaled cycle yet (acecode history is empty).")
    rows = [
        [
            _e(p.at[:16]),
            _e(p.kind),
            _id(p.cycle_id),
            f"+{p.added}" if p.added else "0",
            f"-{p.removed}" if p.removed else "0",
            _e(p.total),
        ]
        for p in points[-30:]
    ]
    table = _table(("when", "kind", "cycle", "added", "removed", "entries"), rows, {3, 4, 5})
    note = f"<p class='meta'>last {len(rows)} of {counted(len(points), 'cycle')}</p>"
    return growth_chart(points) + note + table


def _cost(data: ReportData) -> str:
    """The project's spend per day: a bar per day and the figures (``~`` estimated from
    the price table, ``+?`` some cycles of a model without a price)."""
    if not data.cost_days:
        return _empty("No cost recorded for this project yet (acecode cost).")
    days = list(data.cost_days.items())[:31]
    top = max((summary.cost_usd or 0.0) for _, summary in days) or 1.0
    rows = [
        [
            _e(day),
            _e(summary.cycles),
            _e(f"{summary.tokens:,}"),
            _e(summary.cost_text()),
            f'<span class="bar" style="width:{round(100 * (summary.cost_usd or 0.0) / top)}%">'
            "</span>",
        ]
        for day, summary in days
    ]
    return _table(("day", "cycles", "tokens", "cost", ""), rows, {1, 2, 3})


def _cost_per_session(data: ReportData) -> str:
    """The project's last cycles one by one (a bar each, scaled to the dearest), their
    median and mean, and the sessions the triage skipped at $0 since the first of them."""
    if not data.cost_cycles:
        return ""
    per = data.per_session
    top = max(usd for _, usd in data.cost_cycles) or 1.0
    rows = [
        [
            _e(when[:16].replace("T", " ")),
            _e(f"${usd:.4f}"),
            f'<span class="bar" style="width:{round(100 * usd / top)}%"></span>',
        ]
        for when, usd in data.cost_cycles
    ]
    summary = f"median ${per.median_usd:.4f}, mean ${per.mean_usd:.4f} per cycle"
    if per.triaged:
        summary += (
            f"; {per.triaged} session(s) with nothing to learn skipped by the triage at $0: "
            f"${per.mean_per_session_usd:.4f} per session ended, about ${per.saved_usd:.4f} saved"
        )
    return (
        f"<h3>Cost per session (last {len(rows)} cycles)</h3><p class='meta'>{_e(summary)}</p>"
        + _table(("cycle", "cost", ""), rows, {1})
    )


def _citations(data: ReportData) -> str:
    citations = data.impact.citations
    if not citations:
        return _empty("No entry was cited in the sessions read.")
    weeks = sorted({week for counts in citations.values() for week in counts})[-8:]
    rows = [
        [_id(entry), *[_e(counts.get(w, 0)) for w in weeks], _e(sum(counts.values()))]
        for entry, counts in citations.items()
    ]
    numeric = set(range(1, len(weeks) + 2))
    return _table(("entry", *weeks, "total"), rows, numeric)


def _retire(data: ReportData) -> str:
    impact = data.impact
    last = counted(impact.window_sessions, "session")
    title = f"<h3>Not cited or tagged in the last {_e(last)}</h3>"
    if not impact.retire:
        return title + _empty("Every entry was used (or is too new to judge).")
    rows = [
        [
            _id(item.entry),
            _e(item.section),
            _e(item.text),
            _e(item.last_cited.date().isoformat() if item.last_cited else "never"),
            _e(item.reason or "not cited or tagged"),
        ]
        for item in impact.retire
    ]
    return title + _table(("entry", "section", "text", "last cited", "why"), rows, set())


def _before_after(hit: int, sessions: int) -> str:
    share = f" ({100 * hit / sessions:.0f}%)" if sessions else ""
    return _e(f"{hit} of {counted(sessions, 'session')}{share}")


def _recall(stats: list) -> str:
    """Per entry: recalled after a failure, warned before a call, the next try."""
    out = "<h3>Recall at the tool call</h3>"
    if not stats:
        return out + _empty("Recall has not shown an entry yet.")
    rows = [
        [
            _id(item.entry),
            _e(item.recalled),
            _e(item.warned),
            _e(f"succeeded {item.succeeded} of {counted(item.tried_again, 'try', 'tries')}"),
        ]
        for item in stats
    ]
    return out + _table(("entry", "recalled", "warned", "same call next time"), rows, {1, 2})


def _failures(data: ReportData) -> str:
    impact = data.impact
    out = [
        f"<p class='meta'>{_e(counted(impact.sessions, 'session'))}, "
        f"{_e(counted(impact.failed_calls, 'failed tool call'))}, "
        f"{_e(impact.declined_calls)} declined by the user</p>"
    ]
    if impact.entries:
        rows = []
        for item in impact.entries:
            before = item.hit_before / item.sessions_before if item.sessions_before else None
            after = item.hit_after / item.sessions_after if item.sessions_after else None
            verdict = ""
            if before is not None and after is not None:
                verdict = (
                    '<span class="good">fewer</span>'
                    if after < before
                    else '<span class="bad">not fewer</span>'
                )
            rows.append(
                [
                    _id(item.entry),
                    _e(item.learned_at.date().isoformat()),
                    _e(item.signature.key),
                    _before_after(item.hit_before, item.sessions_before),
                    _before_after(item.hit_after, item.sessions_after),
                    verdict,
                ]
            )
        out.append(_table(("entry", "learned", "failure", "before", "after", ""), rows, set()))
    else:
        out.append(_empty("No entry has failure provenance yet."))
    out.append(_recall(impact.recall))
    recurring = [s for s in impact.signatures if s.sessions > 1][:15]
    out.append("<h3>Failures seen in more than one session</h3>")
    if recurring:
        rows = [
            [
                _e(s.sessions),
                _e(s.calls),
                _e(s.signature.tool),
                _e(s.signature.head),
                _e(s.signature.error),
            ]
            for s in recurring
        ]
        out.append(_table(("sessions", "calls", "tool", "command", "error"), rows, {0, 1}))
    else:
        out.append(_empty("No failure recurred across sessions."))
    return "".join(out)


def _review(data: ReportData) -> str:
    if not data.pending:
        return _empty("Nothing waits for review.")
    rows = [
        [
            _id(i["id"]),
            _e(i["operation"]),
            _e(i["section"]),
            _e(i["text"]),
            _e(i["rule"]),
            _e(i.get("queued_at", "")[:16]),
        ]
        for i in data.pending
    ]
    return _table(("id", "operation", "section", "text", "held by", "queued"), rows, set())


def _cards(data: ReportData) -> str:
    entries = sum(len(items) for items in data.sections.values())
    cited = len(data.impact.citations)
    cards = [
        ("entries", entries),
        ("cycles", len(data.cycles)),
        ("sessions read", data.impact.sessions),
        ("entries cited", cited),
        ("retire candidates", len(data.impact.retire)),
        ("waiting for review", len(data.pending)),
    ]
    return (
        '<div class="cards">'
        + "".join(
            f'<div class="card"><b>{_e(value)}</b>{_e(label)}</div>' for label, value in cards
        )
        + "</div>"
    )


def render(data: ReportData) -> str:
    """The whole page."""
    bodies = {
        "playbook": _playbook(data),
        "growth": _growth(data.cycles),
        "cost": _cost(data) + _cost_per_session(data),
        "citations": _citations(data) + _retire(data),
        "failures": _failures(data),
        "effects": effects_section(data.effects, data.experiments),
        "review": _review(data),
    }
    sections = "".join(
        f'<section id="{key}"><h2>{_e(title)}</h2>{bodies[key]}</section>'
        for key, title in _SECTION_IDS.items()
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>acecode report</title><style>{_STYLE}</style></head><body>"
        f"<h1>acecode report</h1><p class='meta'>{_e(data.playbook_path)} · generated "
        f"{_e(data.generated_at)}</p>{_cards(data)}{sections}</body></html>\n"
    )
