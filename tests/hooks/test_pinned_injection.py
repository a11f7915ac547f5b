"""A pinned entry comes first in its section: in what the real SessionStart hook injects,
in ``acecode show --injected`` (the same text, byte for byte) and in what ``pin`` promises,
whether the whole playbook fits in the budget or not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hook_helpers import run_hook, write_playbook

from acecode.playbook.budget import context_length
from acecode.prompts.templates import load_template
from support.hang_guard import HANG_GUARD
from support.playbooks import entry
from support.show_table import table_rows

PADDING = " so the next session does not repeat the same mistake"


def acecode(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}, **env},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _first_in_each_section(text: str) -> dict[str, str]:
    """Section header -> the ID of its first entry line."""
    firsts: dict[str, str] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif line.startswith("[") and section and section not in firsts:
            firsts[section] = line[1 : line.index("]")]
    return firsts


@pytest.mark.parametrize("over_budget", [False, True])
def test_the_hook_and_show_injected_put_pinned_entries_first(
    project_dir: Path, over_budget: bool
) -> None:
    write_playbook(
        project_dir,
        {
            # best first by counters; the pinned ones are the last and least helpful
            "PATTERNS & APPROACHES": [
                entry(f"pat-{i:03d}", f"Pattern {i}: check the build first{PADDING}", 9 - i)
                for i in range(1, 9)
            ],
            "MISTAKES TO AVOID": [
                entry("mis-001", f"Never push to main{PADDING}", 5),
                entry("mis-002", f"Never skip the hooks{PADDING}", 0, 2),
            ],
        },
    )
    env: dict[str, str] = {}
    if over_budget:  # room for the template, the last line and a few entries
        budget = context_length(load_template("playbook.txt")) + 850
        env["ACECODE_INJECTION_BUDGET_CHARS"] = str(budget)
    for name in ("pat-008", "mis-002"):
        said = acecode("pin", name, env=env).stdout
        assert "it is injected first in its section" in said

    hook = run_hook("SessionStart", {"session_id": "s1", "source": "startup"}, env=env)
    injected = hook.context()
    shown = acecode("show", "--injected", env=env).stdout

    assert shown == injected + "\n"
    assert _first_in_each_section(injected) == {
        "PATTERNS & APPROACHES": "pat-008",
        "MISTAKES TO AVOID": "mis-002",
    }
    left_out = "more of the 10 entries did not fit here" in injected
    assert left_out == over_budget
    assert "pat-001" in injected  # the best entry is in either way


def test_show_marks_pinned_entries_in_every_format(project_dir: Path) -> None:
    write_playbook(
        project_dir,
        {
            "PATTERNS & APPROACHES": [
                entry("pat-001", "Run pytest -q before committing", 3),
                entry("pat-002", "Keep commits small", 1),
            ]
        },
    )
    acecode("pin", "pat-002", env={})
    env = {"COLUMNS": "200"}
    table = acecode("show", env=env).stdout
    rows = {row["id"]: row["pinned"] for row in table_rows(table)}
    assert rows == {"pat-001": "", "pat-002": "yes"}
    assert "┃ pinned ┃" in table
    markdown = acecode("show", "--format", "md", env=env).stdout
    assert markdown.splitlines()[1:3] == [
        "[pat-002] (pinned) helpful=1 harmful=0 :: Keep commits small",
        "[pat-001] helpful=3 harmful=0 :: Run pytest -q before committing",
    ]
    as_json = json.loads(acecode("show", "--format", "json", env=env).stdout)
    assert as_json["pinned"] == ["pat-002"]
    assert [e["name"] for e in as_json["sections"]["PATTERNS & APPROACHES"]] == [
        "pat-001",
        "pat-002",
    ]  # the file as saved: its own order
