"""`acecode report --html FILE`: one static page, every text escaped, opened in real chromium.

The browser tests need Debian's ``chromium`` (``.ci/run`` installs it). Without it they
fail with that instruction instead of skipping: a skipped proof is no proof. For a quick
local run without it, deselect them: ``pytest -m "not browser"``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from tests.impact.history import build_history, file_as_claude_code
from tests.report.browser import chromium_binary

from acecode.quarantine.queue import queue_text
from acecode.store import update_playbook
from support.hang_guard import HANG_GUARD

HOSTILE = (
    "</td></tr></table><script>document.title='pwned'</script>"
    '<img src=x onerror="document.title=\'pwned\'"><a href="https://evil.example/">x</a> & more'
)
SECTIONS = ("playbook", "growth", "cost", "citations", "failures", "review", "effects")
WIDTH, HEIGHT = 1200, 2400


def acecode(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args], capture_output=True, text=True, timeout=HANG_GUARD
    )
    assert result.returncode == code, result.stderr
    return result


def _grow(playbook: Path, transcript: Path) -> None:
    """Three more journaled cycles: two additions (one hostile), one removal."""
    with update_playbook(playbook) as txn:
        txn.playbook["sections"]["OTHERS"].append(
            {"name": "oth-001", "text": HOSTILE, "helpful": 0, "harmful": 0}
        )
        txn.playbook["sections"]["OTHERS"].append(
            {
                "name": "oth-002",
                "text": "Run the linter before committing.",
                "helpful": 0,
                "harmful": 0,
            }
        )
        txn.meta.update({"kind": "learn", "source": str(transcript)})
    with update_playbook(playbook) as txn:
        txn.playbook["sections"]["OTHERS"].pop()
        txn.meta.update({"kind": "forget"})
    queue_text(HOSTILE, rule="review:all", section="OTHERS", playbook=playbook)


@pytest.fixture
def report_file(project_dir: Path) -> Path:
    history = build_history(project_dir)
    _grow(history["playbook"], history["sessions"][-1])
    out = project_dir / "report.html"
    result = acecode("report", "--html", str(out), "--transcripts", str(history["folder"]))
    assert result.stdout.strip() == f"wrote {out} (open {out.as_uri()} in a browser)"
    return out


class _Structure(HTMLParser):
    """Element names, section ids and the text of a page, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += attrs
        self.ids += [value or "" for name, value in attrs if name == "id"]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> _Structure:
    parser = _Structure()
    parser.feed(page)
    return parser


def test_page_is_self_contained_and_escapes_hostile_entry_text(report_file: Path) -> None:
    page = report_file.read_text(encoding="utf-8")
    parsed = _parse(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags
    assert not any(name.startswith("on") for name, _ in parsed.attrs)
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", page)  # nothing fetched
    assert "default-src 'none'" in page
    text = "".join(parsed.text)
    # As plain text: the entry and the review queue item (its provenance records it as
    # added just now, so it is too young to be a retire candidate).
    assert text.count(HOSTILE) == 2
    assert parsed.ids[: len(SECTIONS)] == list(SECTIONS)


def test_page_shows_each_part_from_its_source(report_file: Path) -> None:
    text = " ".join(" ".join(_parse(report_file.read_text(encoding="utf-8")).text).split())
    assert "git push 2>&1 → Bash: fatal: The current branch feat-b has no upstream branch." in text
    assert "2 of 2 sessions (100%) 1 of 2 sessions (50%) fewer" in text
    assert "No cost recorded for this project yet" in text
    assert "2026-W12" in text and "2026-W13" in text
    # growth: the rating cycle, +2 (oth-001, oth-002), then -1
    assert re.search(r"learn 2\S+ \+2 0 7 .* forget \S+ 0 -1 6", text)
    retire = "Not cited or tagged in the last 4 sessions entry section text last cited why pat-001"
    assert retire in text
    assert "review:all" in text
    # the entry learned from the push failure shows its trigger; recall has shown nothing yet
    assert (
        "after a failure like Bash | git push | fatal: The current branch <name> has no "
        "upstream branch" in text
    )
    assert "Recall at the tool call Recall has not shown an entry yet." in text


def test_sessions_started_in_a_subfolder_are_in_the_report(project_dir: Path) -> None:
    """Without ``--transcripts``, the report reads the sessions started in the project's
    subfolders too (Claude Code files them apart from the root's)."""
    history = build_history(project_dir)
    file_as_claude_code(history["sessions"], project_dir / "docs")
    out = project_dir / "report.html"

    acecode("report", "--html", str(out))

    text = " ".join(" ".join(_parse(out.read_text(encoding="utf-8")).text).split())
    assert "2 of 2 sessions (100%) 1 of 2 sessions (50%) fewer" in text


def test_unwritable_target_is_one_line_naming_it(project_dir: Path) -> None:
    build_history(project_dir)
    (project_dir / "a-file").write_text("not a folder")
    target = project_dir / "a-file" / "r.html"
    result = acecode("report", "--html", str(target), "--transcripts", "sessions", code=1)
    assert str(target.parent) in result.stderr or str(target) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def _browse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            chromium_binary(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "HOME": str(Path.cwd())},
    )


@pytest.mark.browser
def test_chromium_renders_every_section_and_runs_nothing(report_file: Path) -> None:
    result = _browse("--dump-dom", report_file.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = _parse(result.stdout)
    assert [i for i in dom.ids if i in SECTIONS] == list(SECTIONS)
    assert "script" not in dom.tags and "img" not in dom.tags
    assert HOSTILE in "".join(dom.text)
    assert "<title>acecode report</title>" in result.stdout  # the hostile script never ran
    assert dom.tags.count("svg") == 1
    # the growth chart's bars: +2 in one cycle, -1 in the next (the rating cycle has none)
    assert result.stdout.count('<rect class="added"') == 1
    assert result.stdout.count('<rect class="removed"') == 1


@pytest.mark.browser
def test_chromium_screenshot_is_a_real_picture_of_the_page(
    report_file: Path, tmp_path: Path
) -> None:
    from PIL import Image

    shot = tmp_path / "report.png"
    result = _browse(
        f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={shot}", report_file.as_uri()
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with Image.open(shot) as image:
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 200  # text, tables, bars: not blank
        # The growth chart's green (added) and red (removed) bars are on screen.
        pixels = {colour for _, colour in colours}
        assert (0x2F, 0x9E, 0x44) in pixels and (0xE0, 0x31, 0x31) in pixels
        # The page background covers most of the picture, but far from all of it.
        top_share = max(colours)[0] / (WIDTH * HEIGHT)
        assert 0.3 < top_share < 0.95


def test_cost_per_day_comes_from_the_users_ledger_for_this_project(project_dir: Path) -> None:
    from acecode.cost.ledger import CYCLE, Ledger

    history = build_history(project_dir)
    ledger = Ledger()

    def spent(day: str, project: Path, usd: float | None, basis: str) -> None:
        ledger.append(
            {
                "kind": CYCLE,
                "cycle_id": f"c-{day}-{usd}",
                "time": f"{day}T10:00:00+00:00",
                "project": str(project.resolve()),
                "input_tokens": 1000,
                "output_tokens": 100,
                "cost_usd": usd,
                "cost_basis": basis,
            }
        )

    spent("2026-11-20", project_dir, 0.25, "estimated")
    spent("2026-11-21", project_dir, 0.5, "reported")
    spent("2026-11-21", project_dir, None, "unknown")
    spent("2026-11-21", project_dir.parent / "elsewhere", 9.0, "reported")  # another project
    ledger.append(  # a session the triage skipped at $0
        {
            "kind": "triaged",
            "cycle_id": "t1",
            "time": "2026-11-21T11:00:00+00:00",
            "project": str(project_dir.resolve()),
        }
    )
    out = project_dir / "report.html"
    acecode("report", "--html", str(out), "--transcripts", str(history["folder"]))

    page = out.read_text(encoding="utf-8")
    text = " ".join(" ".join(_parse(page).text).split())
    assert "2026-11-21 2 2,200 $0.5000+?" in text
    assert "2026-11-20 1 1,100 ~$0.2500" in text
    assert "$9" not in text
    # A bar per day, then one per cycle of known cost with the cost per session.
    assert page.count('class="bar"') == 2 + 2
    assert "Cost per session (last 2 cycles)" in text
    assert "median $0.3750, mean $0.3750 per cycle" in text
    assert "1 session(s) with nothing to learn skipped by the triage at $0: $0.2500" in text


def test_report_without_a_file_writes_html_into_the_state_folder(project_dir: Path) -> None:
    """HTML is the only format: `acecode report` alone writes the page where git does not
    see it and says where; `--html FILE` still chooses the file."""
    build_history(project_dir)

    result = acecode("report")

    page = project_dir / ".claude" / "acecode" / "report.html"
    assert result.stdout.strip() == f"wrote {page} (open file://{page} in a browser)"
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
