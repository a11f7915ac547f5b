"""From recorded sessions to figures and actions: ``acecode impact --rules``, the concluded
classes, and what reads them (injection, the session-start notice, doctor, retire candidates,
the background learner's refresh, the report).

Sessions are run through the real ``SessionStart`` hook (a subprocess) and written as Claude
Code transcripts where Claude Code keeps them; the CLI runs as a subprocess too.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.experiments.world import (
    CORRECTION,
    acecode,
    experiments_on,
    exposures,
    origin,
    rules_measured,
    run_sessions,
    sessions_folder,
    start_payload,
    state_folder,
    write_project,
    write_session,
)

from acecode.experiments.classes import read_classes, write_classes
from hooks.hook_helpers import run_hook


def test_an_entry_whose_failure_comes_back_only_without_it_helps(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    # Two of the four entries held back per session: mis-001 recurs in about 12 of 24, over
    # the MIN_RECURRENCES a class needs.
    experiments_on(home_dir, rate=1.0, most=2)
    run_sessions(project_dir, home_dir, 24, {"mis-001": "held", "mis-002": "always"})
    rules = rules_measured()
    drawn = [r for r in exposures(project_dir) if "mis-001" in r["held"]]
    helps = rules["mis-001"]
    assert helps["basis"] == "randomised" and helps["class"] == "helps"
    assert helps["effect"]["held"] == {"sessions": len(drawn), "recurred": len(drawn)}
    assert helps["effect"]["injected"] == {"sessions": 24 - len(drawn), "recurred": 0}
    assert helps["effect"]["interval"][0] > 0 and helps["reflector"] == {"helpful": 0, "harmful": 0}
    # Recurring whether injected or not: no evidence it helps, and it does not hurt.
    assert rules["mis-002"]["class"] in ("no evidence yet", "no measurable effect")
    assert rules["mis-002"]["effect"]["injected"]["recurred"] > 0
    assert "pat-001" not in rules  # no signature, nothing to count
    # The command wrote the concluded classes: mis-001 is no longer held back.
    assert read_classes(state_folder(project_dir))["mis-001"]["class"] == "helps"
    run_hook("session-start", start_payload("after", project_dir))
    assert "mis-001" not in exposures(project_dir)[-1]["drawn"]


def test_a_correction_the_user_repeats_only_without_the_entry_counts_against_it(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=1)
    run_sessions(project_dir, home_dir, 12, {CORRECTION[0]: "held"})
    rule = rules_measured()[CORRECTION[0]]
    held = rule["effect"]["held"]
    assert rule["signature_kind"] == "correction" and held["sessions"] > 0
    assert held["recurred"] == held["sessions"] and rule["effect"]["injected"]["recurred"] == 0


def test_one_line_per_entry_with_both_arms_the_interval_and_the_class(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=1)
    run_sessions(project_dir, home_dir, 6, {"mis-001": "held"})
    lines = acecode("impact", "--rules").stdout.splitlines()
    assert lines[0].startswith("experiments: on (holdback_rate 1, at most 1 held back")
    (line,) = [x for x in lines if x.startswith("mis-001 ")]
    assert "injected " in line and "held back " in line and " recurred)" in line
    assert "[" in line and "%]" in line and "reflector +0/-0" in line
    assert "counts: Bash | git push | fatal: The current branch <name>" in line
    assert len([x for x in lines if x.split(" ", 1)[0] in ("mis-001", "mis-002", "mis-003")]) == 3


def test_without_experiments_the_baseline_is_before_after_and_never_concludes(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)  # learned on 2026-03-01 (day -1 of the sessions)
    folder = sessions_folder(project_dir, home_dir)
    for day in range(6):  # before: every session fails
        write_session(folder, f"b-{day}", -20 + day, ["mis-001"])
    for day in range(6):  # after: none does
        write_session(folder, f"a-{day}", 2 + day, [])
    rule = rules_measured()["mis-001"]
    assert rule["basis"] == "before/after" and rule["class"] == "no evidence yet"
    assert rule["effect"]["held"] == {"sessions": 6, "recurred": 6}  # "held": before
    assert rule["effect"]["injected"] == {"sessions": 6, "recurred": 0}
    text = acecode("impact", "--rules").stdout
    assert "experiments: off" in text and "before/after, not randomised" in text


def test_the_background_learner_refreshes_the_classes_after_every_session(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=2)
    run_sessions(project_dir, home_dir, 24, {"mis-001": "held"})
    assert not (state_folder(project_dir) / "experiments" / "classes.json").exists()
    last = sessions_folder(project_dir, home_dir) / "s-023.jsonl"
    # The cycle is skipped (too small) or fails (no LLM provider here): the refresh runs
    # whatever the cycle did.
    acecode("learn", str(last), "--source", "session-end", code=None)
    assert read_classes(state_folder(project_dir))["mis-001"]["class"] == "helps"


def test_entries_measured_to_help_rank_first_after_the_pinned(project_dir: Path) -> None:
    from acecode.playbook.ranking import Ranked, rank_key

    def item(name: str, helpful: int) -> Ranked:
        return Ranked("OTHERS", 0, {"name": name, "text": name, "helpful": helpful, "harmful": 0})

    items = [item("oth-001", 9), item("oth-002", 0), item("oth-003", 1)]
    order = sorted(items, key=lambda r: rank_key(r, {"oth-003"}, {"oth-002"}))
    assert [r.entry["name"] for r in order] == ["oth-003", "oth-002", "oth-001"]


def test_a_helping_entry_is_the_first_of_its_section_in_a_tight_injection() -> None:
    from acecode.playbook.injection import render_injection

    mistakes = [
        {
            "name": f"mis-00{n}",
            "text": f"Rule {n} " + "of equal length " * 20,
            "helpful": 0,
            "harmful": 0,
        }
        for n in (1, 2, 3)
    ]
    playbook = {"sections": {"MISTAKES TO AVOID": mistakes}}
    template = "<p>\n{key_points}\n</p>"
    budget = next(
        b for b in range(100, 4000) if len(render_injection(playbook, template, b).injected) == 1
    )
    assert render_injection(playbook, template, budget).injected == ["mis-003"]  # the newest
    helped = render_injection(playbook, template, budget, helps=frozenset({"mis-001"}))
    assert helped.injected == ["mis-001"]


def test_a_change_of_the_concluded_classes_renders_the_injection_again(
    project_dir: Path,
) -> None:
    from acecode.hooks.rendered import inputs_key

    write_project(project_dir)
    before = inputs_key(str(project_dir))
    write_classes(
        state_folder(project_dir), {"mis-002": {"class": "helps", "figure": "x", "sessions": 1}}
    )
    assert inputs_key(str(project_dir)) != before


def test_an_entry_that_hurts_is_named_at_session_start_and_by_doctor(project_dir: Path) -> None:
    write_project(project_dir)
    write_classes(
        state_folder(project_dir),
        {"mis-003": {"class": "hurts", "figure": "120% more", "sessions": 80}},
    )
    notice = run_hook("session-start", start_payload("s-1", project_dir)).output()["systemMessage"]
    assert "mis-003 makes its failure more frequent" in notice and "acecode review" in notice
    doctor = acecode("doctor", code=1).stdout  # hooks not installed: a problem, not ours
    assert "experiments: off" in doctor
    assert "[warning] measured to make their failure more frequent" in doctor
    assert "(`acecode review`): mis-003" in doctor


def test_doctor_says_experiments_are_on(project_dir: Path, home_dir: Path) -> None:
    write_project(project_dir)
    experiments_on(home_dir)
    doctor = acecode("doctor", code=1).stdout
    assert "experiments: on (holdback_rate 0.2, at most 3 held back per session)" in doctor


def test_entries_with_no_measurable_effect_are_retire_candidates_with_the_figure(
    project_dir: Path,
) -> None:
    from acecode.pipeline.curator_lists import curator_lists
    from acecode.project.config import load_settings
    from acecode.project.layer import Layer
    from acecode.store import load_playbook

    playbook = write_project(project_dir)
    figure = "3% fewer [-40%, +38%]"
    write_classes(
        state_folder(project_dir),
        {"mis-002": {"class": "no measurable effect", "figure": figure, "sessions": 212}},
    )
    report = json.loads(acecode("impact", "--json", "--transcripts", str(project_dir)).stdout)
    (candidate,) = [c for c in report["retire"]["candidates"] if c["entry"] == "mis-002"]
    assert candidate["reason"] == (
        f"no measurable effect in hold-back experiments: {figure} over 212 sessions"
    )
    layer = Layer(playbook)
    lists = curator_lists(layer, load_playbook(layer), load_settings(), frozenset())
    assert any(item.name == "mis-002" and figure in item.note for item in lists.retire)


def test_old_records_are_pruned_with_their_outcomes(project_dir: Path, home_dir: Path) -> None:
    from acecode.experiments.status import refresh
    from acecode.store import load_playbook

    playbook = write_project(project_dir)
    experiments_on(home_dir)
    run_sessions(project_dir, home_dir, 2, {})
    log = state_folder(project_dir) / "experiments" / "exposures.jsonl"
    old = {**exposures(project_dir)[0], "session": "old", "at": "2020-01-01T00:00:00Z"}
    log.write_text(json.dumps(old) + "\n" + log.read_text())
    refresh(playbook, load_playbook(playbook))
    assert [r["session"] for r in exposures(project_dir)] == ["s-000", "s-001"]
    outcomes = (state_folder(project_dir) / "experiments" / "outcomes.jsonl").read_text()
    assert '"old"' not in outcomes and '"s-001"' in outcomes


def test_provenance_of_a_new_failure_entry_makes_it_eligible(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    experiments_on(home_dir, rate=1.0, most=3)
    run_hook("session-start", start_payload("s-1", project_dir))
    assert "pat-001" not in exposures(project_dir)[-1]["drawn"]
    path = state_folder(project_dir) / "provenance.json"
    data = json.loads(path.read_text())
    data["entries"]["pat-001"] = {
        "origins": [origin({"kind": "failure", "tool": "Bash", "command": "make", "error": "boom"})]
    }
    path.write_text(json.dumps(data))
    run_hook("session-start", start_payload("s-2", project_dir))
    assert "pat-001" in exposures(project_dir)[-1]["drawn"]  # the cache saw the change


def test_without_experiments_the_learner_still_prunes_the_exposure_log(
    project_dir: Path, home_dir: Path
) -> None:
    write_project(project_dir)
    run_sessions(project_dir, home_dir, 1, {})
    log = state_folder(project_dir) / "experiments" / "exposures.jsonl"
    old = {**exposures(project_dir)[0], "session": "old", "at": "2020-01-01T00:00:00Z"}
    log.write_text(json.dumps(old) + "\n" + log.read_text())
    transcript = sessions_folder(project_dir, home_dir) / "s-000.jsonl"
    acecode("learn", str(transcript), "--source", "session-end", code=None)
    assert [r["session"] for r in exposures(project_dir)] == ["s-000"]
