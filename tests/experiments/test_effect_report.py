"""The report's forest plot, from sessions run through the real hook, opened in chromium."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.experiments.world import experiments_on, run_sessions, write_project
from tests.report.test_html_report import _browse, _parse

from acecode.report.forest import _x


@pytest.fixture
def report_file(project_dir: Path, home_dir: Path) -> Path:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=2)
    run_sessions(project_dir, home_dir, 24, {"mis-001": "held", "mis-002": "always"})
    out = project_dir / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "acecode", "report", "--html", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return out


def _rows(page: str) -> dict[str, str]:
    return dict(re.findall(r'<g class="effect-row" data-entry="([^"]+)">(.*?)</g>', page))


def test_the_section_says_experiments_are_on_and_plots_each_randomised_entry(
    report_file: Path,
) -> None:
    page = report_file.read_text(encoding="utf-8")
    text = " ".join(" ".join(_parse(page).text).split())
    assert "experiments: on (holdback_rate 1, at most 2 held back per session)" in text
    rows = _rows(page)
    assert set(rows) == {"mis-001", "mis-002", "mis-003", "pref-001"}
    assert "mis-001 (helps)" in rows["mis-001"]
    # The table keeps the reflector's counters in a column of their own.
    assert "reflector helpful/harmful" in text


@pytest.mark.browser
def test_chromium_draws_the_zero_line_and_a_helping_entry_right_of_it(
    report_file: Path,
) -> None:
    result = _browse("--dump-dom", report_file.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert 'id="forest"' in dom and dom.count('class="effect-row"') == 4
    zero = re.search(r'<line class="zero" x1="([\d.]+)"', dom)
    assert zero is not None and float(zero.group(1)) == pytest.approx(_x(0.0), abs=0.1)
    helping = _rows(dom)["mis-001"]
    start = float(re.search(r'class="interval" x="([\d.]+)"', helping).group(1))
    assert start > float(zero.group(1))  # the whole interval shows fewer recurrences
    assert "<script" not in dom
