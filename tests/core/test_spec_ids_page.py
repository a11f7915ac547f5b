"""docs/spec-ids.md explains every specification ID the repository cites.

The specification lives outside the repository; the page is how a newcomer
with only the repository follows an ID in a test name or a comment.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "spec-ids.md"
CITED = re.compile(r"\b(REQ|SCN|INV|OBS)-(SECT|CUR|SCORE|REFL)-\d{3}(?:-\d{2})?\b")
TEST_NAME = re.compile(r"\btest_(scn|inv|req|obs)_(sect|cur|score|refl)_(\d{3})(?:_(\d{2}))?")


def _cited_ids() -> set[str]:
    found: set[str] = set()
    for folder in ("src", "tests", "bench", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in {".py", ".md", ".txt"} or path == PAGE:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            found.update(match.group(0) for match in CITED.finditer(text))
            for kind, area, number, sub in TEST_NAME.findall(text):
                found.add("-".join(filter(None, (kind.upper(), area.upper(), number, sub))))
    return found


def test_every_cited_specification_id_is_explained() -> None:
    explained = set(
        re.findall(r"^\| ((?:REQ|SCN|INV|OBS)-[A-Z]+-[\d-]+) \|", PAGE.read_text(), re.M)
    )
    cited = _cited_ids()
    assert cited, "the scan found no IDs at all: the pattern is broken"
    # A scenario family (SCN-CUR-003) is explained by its members (SCN-CUR-003-01, ...).
    missing = sorted(
        cited_id
        for cited_id in cited - explained
        if not any(known.startswith(cited_id + "-") for known in explained)
    )
    assert not missing, f"cited but not explained in {PAGE.name}: {missing}"
