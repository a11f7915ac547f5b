"""SVG building blocks for the report's charts: a linear scale, round ticks, axes, text.

Each chart (:mod:`acecode.report.growth_chart`, and any later one) lays out
its plot areas in the SVG's own coordinates, maps data to them with a
:class:`Scale` over :func:`nice_ticks`, and draws its axes with
:func:`y_axis` and :func:`x_axis`, so every chart has labelled axes and a
line or bar can never leave the area its axis frames. Every label goes
through :func:`html.escape`: cycle ids and kinds come from files.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

AXIS_COLOUR = "#52606d"
GRID_COLOUR = "#e4e7eb"
LABEL_COLOUR = "#3e4c59"
FONT_SIZE = 12


@dataclass(frozen=True)
class Scale:
    """A linear map from the data interval ``domain`` to the pixel interval ``pixels``."""

    domain: tuple[float, float]
    pixels: tuple[float, float]

    def __call__(self, value: float) -> float:
        (low, high), (start, end) = self.domain, self.pixels
        if high == low:
            return start
        return start + (value - low) * (end - start) / (high - low)


def nice_ticks(low: float, high: float, most: int = 5, step_floor: float = 1.0) -> list[float]:
    """Round tick values (steps of 1, 2 or 5 times a power of ten, at least ``step_floor``)
    from at or below ``low`` to at or above ``high``, about ``most`` steps."""
    span = max(high - low, step_floor)
    raw = span / most
    power = 10 ** math.floor(math.log10(raw))
    step = max(next(m * power for m in (1, 2, 5, 10) if m * power >= raw), step_floor)
    first, last = math.floor(low / step) * step, math.ceil(high / step) * step
    if last == first:
        last = first + step
    return [first + i * step for i in range(round((last - first) / step) + 1)]


def number(value: float) -> str:
    """A tick value as text: whole numbers without a decimal point."""
    return f"{value:g}"


def text(x: float, y: float, label: str, *, anchor: str = "middle", css: str = "") -> str:
    """One label (escaped); ``css`` names its class, e.g. ``axis-title``."""
    cls = f' class="{css}"' if css else ""
    return (
        f'<text{cls} x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{FONT_SIZE}" '
        f'fill="{LABEL_COLOUR}">{html.escape(label)}</text>'
    )


def line(x1: float, y1: float, x2: float, y2: float, colour: str, css: str = "") -> str:
    """A one-pixel line, drawn crisp (axes and grid lines)."""
    cls = f' class="{css}"' if css else ""
    return (
        f'<line{cls} x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        f'stroke="{colour}" shape-rendering="crispEdges"/>'
    )


def y_axis(
    scale: Scale,
    ticks: Sequence[float],
    *,
    left: float,
    right: float,
    title: str,
    label: Callable[[float], str] = number,
) -> str:
    """A vertical axis at ``left`` with a grid line to ``right`` at each tick, the tick
    labels on its left and ``title`` written upwards beside them."""
    top, bottom = scale(ticks[-1]), scale(ticks[0])
    parts = [line(left, top, left, bottom, AXIS_COLOUR, "axis")]
    for tick in ticks:
        y = scale(tick)
        parts.append(line(left + 1, y, right, y, GRID_COLOUR, "grid"))
        parts.append(line(left - 4, y, left, y, AXIS_COLOUR))
        parts.append(text(left - 7, y + 4, label(tick), anchor="end", css="tick"))
    middle = (top + bottom) / 2
    parts.append(
        f'<g transform="translate({left - 44:.1f} {middle:.1f}) rotate(-90)">'
        f"{text(0, 0, title, css='axis-title')}</g>"
    )
    return "".join(parts)


def x_axis(
    positions: Sequence[tuple[float, str]],
    *,
    left: float,
    right: float,
    y: float,
    title: str,
) -> str:
    """A horizontal axis at ``y`` from ``left`` to ``right``: a label under each of
    ``positions`` (x, label) and ``title`` centred below them."""
    parts = [line(left, y, right, y, AXIS_COLOUR, "axis")]
    for x, label in positions:
        parts.append(line(x, y, x, y + 4, AXIS_COLOUR))
        parts.append(text(x, y + 17, label, css="tick"))
    parts.append(text((left + right) / 2, y + 36, title, css="axis-title"))
    return "".join(parts)
