"""The report's growth chart: entries after each cycle, and entries added and removed.

Two plot areas share the cycle axis, each with its own labelled y axis: on
top, the number of entries after each cycle as a line above its zero
baseline; below, a bar per cycle up (added) and down (removed) from a zero
line. Keeping them apart is what keeps the line on its baseline: one axis
cannot hold a count that only grows and changes that go both ways.
"""

from __future__ import annotations

import html

from acecode.report.data import CyclePoint
from acecode.report.svg import (
    AXIS_COLOUR,
    Scale,
    line,
    nice_ticks,
    number,
    text,
    x_axis,
    y_axis,
)
from acecode.text.wording import counted

WIDTH, HEIGHT = 1000, 390
LEFT, RIGHT = 80, 980  # the plot areas' x extent: room on the left for the y axes
TOTALS = (40, 170)  # top and bottom of the entries line's area
CHANGES = (205, 325)  # top and bottom of the bars' area
ADDED_COLOUR, REMOVED_COLOUR, TOTAL_COLOUR = "#2f9e44", "#e03131", "#1c7ed6"
MOST_DATE_LABELS = 8
WIDEST_BAR = 40.0


def _centres(count: int) -> list[float]:
    band = (RIGHT - LEFT) / count
    return [LEFT + band * (i + 0.5) for i in range(count)]


def _tip(point: CyclePoint) -> str:
    return html.escape(
        f"{point.cycle_id} ({point.kind}, {point.at[:16].replace('T', ' ')}): "
        f"+{point.added} -{point.removed}, {counted(point.total, 'entry')} after it"
    )


def _totals(points: list[CyclePoint], xs: list[float]) -> str:
    """The entries after each cycle: a line and a dot per cycle over its zero baseline."""
    top, bottom = TOTALS
    ticks = nice_ticks(0, max(point.total for point in points))
    scale = Scale((ticks[0], ticks[-1]), (bottom, top))
    coords = [(x, scale(point.total)) for x, point in zip(xs, points, strict=True)]
    dots = "".join(
        f'<circle class="total" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{TOTAL_COLOUR}">'
        f"<title>{_tip(point)}</title></circle>"
        for (x, y), point in zip(coords, points, strict=True)
    )
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    return (
        y_axis(scale, ticks, left=LEFT, right=RIGHT, title="entries")
        + line(LEFT, bottom, RIGHT, bottom, AXIS_COLOUR, "axis baseline")
        + f'<polyline class="total" points="{path}" fill="none" stroke="{TOTAL_COLOUR}" '
        f'stroke-width="2"/>{dots}'
    )


def _changes(points: list[CyclePoint], xs: list[float]) -> str:
    """Entries added (up) and removed (down) per cycle, from a zero line."""
    top, bottom = CHANGES
    biggest = max(max(point.added, point.removed) for point in points)
    ticks = nice_ticks(-max(biggest, 1), max(biggest, 1), most=4)
    scale = Scale((ticks[0], ticks[-1]), (bottom, top))
    zero = scale(0)
    bar = min((RIGHT - LEFT) / len(points) * 0.6, WIDEST_BAR)
    shapes = [
        y_axis(
            scale,
            ticks,
            left=LEFT,
            right=RIGHT,
            title="added / removed",
            label=lambda tick: f"+{number(tick)}" if tick > 0 else number(tick),
        ),
        line(LEFT, zero, RIGHT, zero, AXIS_COLOUR, "axis zero"),
    ]
    for x, point in zip(xs, points, strict=True):
        for count, colour, css, y in (
            (point.added, ADDED_COLOUR, "added", scale(point.added)),
            (point.removed, REMOVED_COLOUR, "removed", zero),
        ):
            if count:
                height = abs(scale(count) - zero)
                shapes.append(
                    f'<rect class="{css}" x="{x - bar / 2:.1f}" y="{y:.1f}" width="{bar:.1f}" '
                    f'height="{height:.1f}" fill="{colour}"><title>{_tip(point)}</title></rect>'
                )
    return "".join(shapes)


def _dates(points: list[CyclePoint], xs: list[float]) -> list[tuple[float, str]]:
    """At most ``MOST_DATE_LABELS`` cycles, evenly spread, labelled with their date."""
    count = len(points)
    shown = min(count, MOST_DATE_LABELS)
    picks = sorted({round(i * (count - 1) / max(shown - 1, 1)) for i in range(shown)})
    return [(xs[i], points[i].at[:10]) for i in picks]


def _legend() -> str:
    items = (
        (ADDED_COLOUR, "entries added"),
        (REMOVED_COLOUR, "entries removed"),
        (TOTAL_COLOUR, "entries after the cycle"),
    )
    parts, x = [], LEFT
    for colour, label in items:
        parts.append(f'<rect x="{x}" y="8" width="12" height="12" fill="{colour}"/>')
        parts.append(text(x + 18, 18, label, anchor="start"))
        x += 40 + 8 * len(label)
    return "".join(parts)


def growth_chart(points: list[CyclePoint]) -> str:
    """The chart as one inline ``<svg>`` (``points`` oldest first, at least one)."""
    xs = _centres(len(points))
    axis = x_axis(
        _dates(points, xs),
        left=LEFT,
        right=RIGHT,
        y=CHANGES[1],
        title="cycles, oldest to newest (hover a bar or dot for the cycle)",
    )
    return (
        f'<svg class="chart" role="img" aria-label="entries and changes per cycle" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'xmlns="http://www.w3.org/2000/svg">'
        f"{_legend()}{_totals(points, xs)}{_changes(points, xs)}{axis}</svg>"
    )
