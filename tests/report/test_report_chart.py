"""The report's growth chart and its IDs, measured in headless chromium as a reader sees them.

Each check reads the layout chromium computed (bounding boxes and line boxes over
the DevTools pipe, see ``browser.py``), not the HTML text: the entries line stays
on or above its baseline, both plot areas and the cycle axis carry their labels,
bars stand on their zero line, and no ID breaks at its hyphen in a narrow window.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.impact.history import build_history
from tests.report.browser import Chromium

from acecode.report.data import CyclePoint
from acecode.report.growth_chart import growth_chart
from acecode.report.svg import nice_ticks
from acecode.store import update_playbook
from support.hang_guard import HANG_GUARD

# Half a CSS pixel: what anti-aliased geometry may differ by.
SLACK = 0.5


def acecode(*args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args], capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert result.returncode == 0, result.stderr
    return result


def _shrink_then_grow(playbook: Path) -> None:
    """Cycles that take the count down to one entry and back up: the shape whose line
    used to fall below the chart's baseline."""
    with update_playbook(playbook) as txn:
        for name in list(txn.playbook["sections"]):
            txn.playbook["sections"][name] = txn.playbook["sections"][name][:1]
        txn.meta.update({"kind": "learn", "source": "shrink.jsonl"})
    for number in range(3):
        with update_playbook(playbook) as txn:
            txn.playbook["sections"]["OTHERS"].append(
                {"name": f"oth-10{number}", "text": f"rule {number}", "helpful": 0, "harmful": 0}
            )
            txn.meta.update({"kind": "learn", "source": f"grow-{number}.jsonl"})


@pytest.fixture
def report_url(project_dir: Path) -> str:
    history = build_history(project_dir)
    _shrink_then_grow(history["playbook"])
    acecode("pin", "mis-001")
    out = project_dir / "report.html"
    acecode("report", "--html", str(out), "--transcripts", str(history["folder"]))
    return out.as_uri()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Chromium]:
    chromium = Chromium(tmp_path)
    try:
        yield chromium
    finally:
        chromium.close()


_BOX = "(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"
_CHART = f"""(() => {{
  const svg = document.querySelector('svg.chart');
  const all = (sel) => [...svg.querySelectorAll(sel)].map({_BOX});
  return {{
    svg: {_BOX}(svg),
    baseline: all('line.baseline'), zero: all('line.zero'),
    line: all('polyline.total'), dots: all('circle.total'),
    added: all('rect.added'), removed: all('rect.removed'),
    titles: [...svg.querySelectorAll('text.axis-title')].map(t => [t.textContent, {_BOX}(t)]),
    ticks: [...svg.querySelectorAll('text.tick')].map(t => t.textContent),
  }};
}})()"""


def _chart(browser: Chromium, url: str, width: int) -> dict[str, Any]:
    browser.open(url, width, 2400)
    return browser.evaluate(_CHART)


@pytest.mark.browser
@pytest.mark.parametrize("width", [1200, 700])
def test_the_entries_line_never_drops_below_its_baseline(
    browser: Chromium, report_url: str, width: int
) -> None:
    chart = _chart(browser, report_url, width)
    [(_, _, _, baseline)] = chart["baseline"]
    assert len(chart["dots"]) == 5  # one per journaled cycle: the rating one, then ours
    for _, top, _, bottom in chart["dots"]:
        assert (top + bottom) / 2 <= baseline + SLACK
    [(_, line_top, _, line_bottom)] = chart["line"]
    assert line_bottom <= baseline + 2  # the 2-pixel stroke may straddle it, never pass it
    assert line_top >= chart["svg"][1]
    # The count dropped to 1 between the first cycles and the last: the line uses the height
    lowest = max(bottom for _, _, _, bottom in chart["dots"])
    highest = min(top for _, top, _, _ in chart["dots"])
    assert lowest - highest > 20


@pytest.mark.browser
def test_bars_stand_on_their_zero_line_and_every_axis_is_labelled(
    browser: Chromium, report_url: str
) -> None:
    chart = _chart(browser, report_url, 1200)
    [(_, zero, _, _)] = chart["zero"]
    assert chart["added"] and chart["removed"]
    for _, _, _, bottom in chart["added"]:
        assert abs(bottom - zero) <= SLACK + 0.5
    for _, top, _, _ in chart["removed"]:
        assert abs(top - zero) <= SLACK + 0.5
    titles = {title: box for title, box in chart["titles"]}
    assert set(titles) == {
        "entries",
        "added / removed",
        "cycles, oldest to newest (hover a bar or dot for the cycle)",
    }
    svg_left, svg_top, svg_right, svg_bottom = chart["svg"]
    for left, top, right, bottom in titles.values():
        assert right - left > 5 and bottom - top > 5  # drawn, not empty
        assert svg_left <= left and right <= svg_right and svg_top <= top and bottom <= svg_bottom
    # the entries axis from 0 up, the changes axis both ways, dates under the cycles
    assert "0" in chart["ticks"] and "+2" in chart["ticks"] and "-2" in chart["ticks"]
    assert any(tick.startswith("2026-") for tick in chart["ticks"])


_ID_LINES = """[...document.querySelectorAll('.id')].map(e => {
  const range = document.createRange();
  range.selectNodeContents(e);
  return [e.textContent, range.getClientRects().length];
})"""


@pytest.mark.browser
def test_ids_never_break_at_their_hyphen_in_a_narrow_window(
    browser: Chromium, report_url: str
) -> None:
    browser.open(report_url, 420, 2400)
    ids = browser.evaluate(_ID_LINES)
    names = {text for text, _ in ids}
    assert {"pat-001", "mis-001", "oth-102"} <= names  # the playbook's
    assert any(text[:8].isdigit() for text in names)  # the growth table's cycles
    assert [(text, lines) for text, lines in ids if lines != 1] == []


def test_the_pinned_entry_is_marked_in_the_report(project_dir: Path) -> None:
    history = build_history(project_dir)
    acecode("pin", "mis-001")
    out = project_dir / "report.html"
    acecode("report", "--html", str(out), "--transcripts", str(history["folder"]))
    page = out.read_text(encoding="utf-8")
    assert page.count('<span class="pin">pinned</span>') == 1
    assert '<span class="id">mis-001</span><span class="pin">pinned</span>' in page


@pytest.mark.parametrize(
    ("low", "high"), [(0, 1), (0, 7), (0, 12), (-3, 3), (0, 95), (-40, 40), (0, 1234)]
)
def test_nice_ticks_cover_the_data_in_round_steps(low: int, high: int) -> None:
    ticks = nice_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1 and 2 <= len(ticks) <= 7
    (step,) = steps
    assert step >= 1 and round(step / 10 ** math.floor(math.log10(step)), 9) in {1, 2, 5}


def test_a_single_cycle_is_a_dot_on_the_axis_not_an_empty_chart() -> None:
    svg = growth_chart([CyclePoint("c1", "2026-03-02T09:00:00+00:00", "learn", 2, 0, 2)])
    assert svg.count('<circle class="total"') == 1 and svg.count('<rect class="added"') == 1
