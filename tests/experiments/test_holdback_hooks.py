"""The randomised hold-back in the real hook processes: what is cut, what is recorded, once.

Every hook here is a real ``python -m acecode hook ...`` subprocess. With
``holdback_rate = 1`` and ``holdback_max = 1`` every session holds back exactly
one eligible entry, so each test knows how many to expect without knowing the
salt.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.experiments.world import (
    CORRECTION,
    FAILURES,
    entry,
    experiments_on,
    exposures,
    start_payload,
    write_project,
)

from hooks.hook_helpers import ACECODE, run_hook

ELIGIBLE = sorted([*FAILURES, CORRECTION[0]])


def _line(name: str, context: str) -> bool:
    return f"[{name}] helpful=" in context


def _marker(project: Path, session: str) -> list[str]:
    return (project / ".claude" / "acecode" / "sessions" / session).read_text().splitlines()


def test_a_held_back_entry_is_cut_from_the_context_recorded_and_marked(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=1)
    run = run_hook("session-start", start_payload("s-1", project_dir))
    assert run.returncode == 0 and run.stderr == ""
    context = run.context()
    missing = [name for name in ELIGIBLE if not _line(name, context)]
    assert len(missing) == 1  # exactly one eligible entry held back
    held = missing[0]
    assert _line("pat-001", context)  # no signature: never in the draw
    (record,) = exposures(project_dir)
    assert record["session"] == "s-1" and record["event"] == "start"
    assert record["agent"] == "claude-code" and record["source"] == "startup"
    assert record["held"] == [held] and record["drawn"] == ELIGIBLE
    assert (record["rate"], record["max"]) == (1.0, 1)
    names = [item.partition("@")[0] for item in record["entries"]]
    assert held not in names and sorted(names) == sorted({*ELIGIBLE, "pat-001"} - {held})
    assert all(len(item.partition("@")[2]) == 8 for item in record["entries"])  # versions
    assert held in _marker(project_dir, "s-1")  # so no top-up can bring it back


def test_experiments_are_announced_at_the_first_session_start_only(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    experiments_on(home_dir)
    first = run_hook("session-start", start_payload("s-1", project_dir)).output()
    assert "acecode: experiments are on" in first["systemMessage"]
    assert "`acecode impact --rules`" in first["systemMessage"]
    second = run_hook("session-start", start_payload("s-2", project_dir)).output()
    assert "systemMessage" not in second


def test_every_start_of_one_session_holds_back_the_same_entry(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=1)
    contexts = [
        run_hook("session-start", start_payload("s-1", project_dir, source=source)).context()
        for source in ("startup", "resume", "compact")
    ]
    held = [{name for name in ELIGIBLE if not _line(name, c)} for c in contexts]
    assert len(held[0]) == 1 and held[0] == held[1] == held[2]
    assert len({tuple(r["held"]) for r in exposures(project_dir)}) == 1


def test_different_sessions_draw_independently(project_dir: Path, home_dir: Path) -> None:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=1)
    for number in range(12):
        run_hook("session-start", start_payload(f"s-{number}", project_dir))
    held = {record["held"][0] for record in exposures(project_dir)}
    assert len(held) > 1  # not always the same entry


def test_pinned_concluded_and_signatureless_entries_are_never_held(
    project_dir: Path, home_dir: Path
) -> None:
    from acecode.experiments.classes import write_classes

    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=3)
    assert run_hook("session-start", start_payload("warm", project_dir)).returncode == 0
    pinned = subprocess.run([*ACECODE, "pin", "mis-001"], capture_output=True, text=True)
    assert pinned.returncode == 0, pinned.stderr
    write_classes(
        project_dir / ".claude" / "acecode",
        {"mis-002": {"class": "helps", "figure": "80% fewer [+40%, +95%]", "sessions": 90}},
    )
    for number in range(6):
        run_hook("session-start", start_payload(f"s-{number}", project_dir))
    records = exposures(project_dir)[1:]
    assert all(record["drawn"] == ["mis-003", "pref-001"] for record in records)
    assert all(set(record["held"]) == {"mis-003", "pref-001"} for record in records)


def test_with_experiments_off_the_injection_is_recorded_without_a_draw(
    project_dir: Path,
) -> None:
    write_project(project_dir)
    run = run_hook("session-start", start_payload("s-1", project_dir))
    assert all(_line(name, run.context()) for name in ELIGIBLE)
    assert "systemMessage" not in run.output()
    (record,) = exposures(project_dir)
    assert "drawn" not in record and "held" not in record and len(record["entries"]) == 5


def test_a_project_cannot_turn_experiments_on_for_its_user(project_dir: Path) -> None:
    write_project(project_dir)
    (project_dir / ".claude" / "acecode.toml").write_text(
        "experiments = true\nholdback_rate = 1.0\n"
    )
    run = run_hook("session-start", start_payload("s-1", project_dir))
    assert all(_line(name, run.context()) for name in ELIGIBLE)
    assert "experiments ignored: experiments are set in" in run.stderr
    assert "never by a project" in run.stderr
    assert "drawn" not in exposures(project_dir)[0]


def test_a_section_whose_only_entry_is_held_back_loses_its_header(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)  # pref-001 is the only USER PREFERENCES entry
    experiments_on(home_dir, rate=1.0, most=1)
    for number in range(40):
        context = run_hook("session-start", start_payload(f"s-{number}", project_dir)).context()
        if not _line(CORRECTION[0], context):
            assert "## USER PREFERENCES" not in context
            assert "## MISTAKES TO AVOID" in context
            return
    pytest.fail("pref-001 was never held back in 40 sessions")


TOOLS = (
    "prettier",
    "black",
    "gofmt",
    "rustfmt",
    "ktlint",
    "rubocop",
    "shfmt",
    "clang",
    "swiftformat",
    "stylua",
    "terraform",
    "buf",
    "sqlfluff",
    "yamllint",
    "hadolint",
    "markdownlint",
    "eslint",
    "stylelint",
    "taplo",
    "dprint",
)


def test_the_top_up_never_brings_back_a_held_entry_and_is_recorded(
    project_dir: Path, home_dir: Path
) -> None:
    # Many entries: the budget holds the newest, the top-up offers the oldest (pat-002...).
    extra = [
        entry(f"pat-{n:03d}", f"Run the {tool} formatter before committing files it covers.")
        for n, tool in enumerate(TOOLS, start=2)
    ]
    write_project(project_dir, extra)
    experiments_on(home_dir, rate=1.0, most=3)
    env = {"ACECODE_INJECTION_BUDGET_CHARS": "2600"}
    start = run_hook("session-start", start_payload("s-1", project_dir), env=env)
    held = exposures(project_dir)[0]["held"]
    assert held and not any(_line(name, start.context()) for name in held)
    assert not _line("pat-002", start.context())  # left out for the budget
    prompt = {
        "session_id": "s-1",
        "prompt_id": "p-1",
        "cwd": str(project_dir),
        # About the prettier entry, and about every held-back entry's own words.
        "prompt": "Run prettier formatter on the files. "
        + " ".join(f"{command} {error}" for command, error in FAILURES.values())
        + " "
        + CORRECTION[1],
    }
    topped = run_hook("user-prompt-submit", prompt, env=env)
    assert topped.returncode == 0
    text = topped.context()
    assert _line("pat-002", text)
    assert not any(_line(name, text) for name in held)
    record = exposures(project_dir)[-1]
    assert record["event"] == "topup" and record["session"] == "s-1"
    shown = {item.partition("@")[0] for item in record["entries"]}
    assert "pat-002" in shown and all(_line(name, text) for name in shown)


def test_a_cache_hit_with_experiments_on_draws_and_records_without_heavy_imports(
    project_dir: Path, home_dir: Path
) -> None:
    import sys

    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=1)
    run_hook("session-start", start_payload("warm", project_dir))  # renders the cache
    command = [sys.executable, "-X", "importtime", "-m", "acecode", "hook", "session-start"]
    run = run_hook("session-start", start_payload("hit", project_dir), command=command)
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "acecode.experiments.draw" in modules  # the draw did run
    assert exposures(project_dir)[-1]["session"] == "hit"  # and was recorded
    unwanted = {
        "acecode.store",
        "acecode.project.config",
        "acecode.project.control",
        "acecode.experiments.estimate",
        "acecode.experiments.plan",
        "acecode.impact.signature",
        "acecode.playbook.ranking",
        "tomllib",
        "pathlib",
        "dataclasses",
        "hashlib",
        "random",
    }
    assert modules & unwanted == set()


def test_names_the_hook_side_mirrors_agree_with_their_modules() -> None:
    from acecode.experiments import serve
    from acecode.experiments.plan import PROVENANCE
    from acecode.hooks import notice
    from acecode.store.provenance import PROVENANCE_NAME

    assert PROVENANCE == PROVENANCE_NAME
    assert serve.SILENT_SOURCES == notice.SILENT_SOURCES


def test_only_entries_whose_line_can_be_cut_are_eligible(project_dir: Path) -> None:
    import json

    from acecode.experiments.plan import plan_fields
    from acecode.playbook.formatting import format_entry

    playbook_path = write_project(project_dir)
    playbook = json.loads(playbook_path.read_text())
    mis = playbook["sections"]["MISTAKES TO AVOID"]
    text = "## MISTAKES TO AVOID\n" + "\n".join(format_entry(e) for e in mis[:2])
    limits = {"experiments": True, "holdback_rate": 0.2, "holdback_max": 3}
    fields = plan_fields(
        str(project_dir / ".claude" / "acecode"),
        playbook,
        text,
        ["mis-001", "mis-002", "mis-003"],
        [],
        limits,
        [str(playbook_path)],
    )
    assert sorted(fields["experiment"]["eligible"]) == ["mis-001", "mis-002"]
    assert set(fields["versions"]) == {"mis-001", "mis-002", "mis-003"}
