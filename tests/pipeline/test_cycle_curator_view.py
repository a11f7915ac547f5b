"""What the curator receives in a real cycle (real HTTP LLM server, real files, real git):
a bounded view of the playbook, the possibly-stale and retire lists, and the refusal of
operations naming IDs it was not shown."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from acecode.pipeline import run_cycle_sync
from acecode.playbook.schema import empty_playbook, new_entry
from acecode.project import outcomes, paths
from acecode.project.layer import Layer
from acecode.store import load_playbook, save_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import is_curator, request_prompt, write_transcript

GIT_ID = ("-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false")
SERVICES = ("billing", "ledger", "search", "mailer", "gateway", "scheduler", "catalog", "auth")
VERBS = ("Document", "Benchmark", "Version", "Review", "Trace", "Throttle")
PYYAML_RULE = "Install PyYAML before running pytest; the yaml module is an undeclared dependency."
STALE_RULE = "Settings are parsed in src/settings_loader.py; change defaults there."


def _filler(count: int) -> list[str]:
    return [
        f"{VERBS[i % len(VERBS)]} the {SERVICES[i % len(SERVICES)]} service boundary "
        f"number {i} before changing its contract."
        for i in range(count)
    ]


def _git_project(project: Path) -> None:
    (project / "src").mkdir(parents=True, exist_ok=True)
    (project / "src" / "app.py").write_text("def main():\n    return 0\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, timeout=HANG_GUARD)
    subprocess.run(["git", *GIT_ID, "add", "."], cwd=project, check=True, timeout=HANG_GUARD)
    subprocess.run(
        ["git", *GIT_ID, "commit", "-qm", "init"], cwd=project, check=True, timeout=HANG_GUARD
    )


@pytest.fixture
def large_playbook(project_dir: Path) -> Path:
    _git_project(project_dir)
    book = empty_playbook()
    patterns = [new_entry(f"pat-{i:03d}", text) for i, text in enumerate(_filler(300), start=1)]
    patterns.append(new_entry("pat-301", PYYAML_RULE))
    book["sections"]["PATTERNS & APPROACHES"] = patterns
    book["sections"]["PROJECT CONTEXT"] = [new_entry("ctx-001", STALE_RULE)]
    path = paths.playbook_path(project_dir)
    save_playbook(book, path)
    return path


REFLECTION = {
    "analysis": "pytest failed: No module named yaml. Installing PyYAML fixed the missing module.",
    "bullet_tags": [{"name": "pat-200", "tag": "helpful", "rationale": "followed it"}],
}


def _curator_prompt(llm) -> str:
    bodies = [json.loads(body) for body in llm.bodies]
    prompts = [request_prompt(body) for body in bodies]
    return next(prompt for prompt in prompts if is_curator("", prompt))


def test_the_curator_sees_a_bounded_view_with_the_stale_list_and_unseen_ids_are_refused(
    routed_llm, large_playbook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_CURATOR_BUDGET_TOKENS", "800")
    seen: dict[str, str] = {}

    def route(system: str, prompt: str) -> str:
        if not is_curator(system, prompt):
            return json.dumps(REFLECTION)
        shown = set(re.findall(r"^\[(pat-\d{3})\]", prompt, re.MULTILINE))
        unseen = [f"pat-{i:03d}" for i in range(1, 301) if f"pat-{i:03d}" not in shown]
        seen["delete"], seen["repeat"] = unseen[0], unseen[1]
        repeated = _filler(300)[int(unseen[1][4:]) - 1].upper()
        return json.dumps(
            {
                "reasoning": "scripted",
                "operations": [
                    {"type": "UPDATE", "target_id": "ctx-001", "text": "Settings: src/app.py."},
                    {"type": "DELETE", "target_id": unseen[0], "reason": "never shown"},
                    {"type": "ADD", "text": repeated, "section": "PATTERNS & APPROACHES"},
                ],
            }
        )

    llm = routed_llm(route)
    transcript = write_transcript(
        tmp_path / "s.jsonl", "pytest fails", "Fixed, following [pat-005]."
    )

    report = run_cycle_sync(transcript)

    prompt = _curator_prompt(llm)
    entry_lines = re.findall(r"^\[((?:pat|ctx)-\d{3})\] ", prompt, re.MULTILINE)
    assert {"pat-005", "pat-200", "pat-301", "ctx-001"} <= set(entry_lines)  # cited, tagged,
    assert 10 < len(entry_lines) < 100  # relevant, stale-listed; and far from all 302
    assert "- [ctx-001] names `src/settings_loader.py`, not found in the project" in prompt
    assert seen["delete"] not in entry_lines and seen["repeat"] not in entry_lines
    left_out = 302 - len(entry_lines)
    assert f"(The playbook has 302 entries; {left_out} are not shown here: " in prompt
    assert report.curator_view["shown"] == len(entry_lines)
    assert report.curator_view["possibly_stale"] == ["ctx-001"]
    assert report.curator_view["estimated_tokens"] <= 800
    written = json.loads(Path(str(report.report_file)).read_text(encoding="utf-8"))
    assert written["curator_view"] == report.curator_view

    saved = load_playbook(large_playbook)
    names = {e["name"] for s in saved["sections"].values() for e in s}
    assert seen["delete"] in names  # refused, never applied
    refused = [op for op in report.operations if op["type"] == "DELETE"]
    assert refused == [
        {
            "index": 1,
            "type": "DELETE",
            "applied": False,
            "reason": f"target_id {seen['delete']!r} was not shown to the curator",
            "section": None,
            "created": None,
            "updated_before": None,
            "updated_after": None,
            "removed": [],
        }
    ]
    assert saved["sections"]["PROJECT CONTEXT"][0]["text"] == "Settings: src/app.py."
    assert any(
        f"refused DELETE: target_id {seen['delete']!r}" in w for w in report.curation["warnings"]
    )
    # The de-dup ladder still sees the whole playbook: the ADD repeating an entry the
    # curator was not shown credits that entry instead of adding a copy.
    assert len(saved["sections"]["PATTERNS & APPROACHES"]) == 301
    credited = next(
        e for e in saved["sections"]["PATTERNS & APPROACHES"] if e["name"] == seen["repeat"]
    )
    assert credited["helpful"] == 1
    record = outcomes.read_outcomes(Layer(large_playbook))[-1]
    assert record["cited_ids"] == ["pat-005"] and record["tagged_ids"] == ["pat-200"]


def test_entries_unused_in_the_last_sessions_are_offered_to_retire(
    routed_llm, project_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_RETIRE_AFTER_SESSIONS", "2")
    book = empty_playbook()
    book["sections"]["PATTERNS & APPROACHES"] = [
        new_entry(f"pat-{i:03d}", text) for i, text in enumerate(_filler(5), start=1)
    ]
    save_playbook(book, paths.playbook_path(project_dir))
    reflection = json.dumps(
        {
            "analysis": "The session went fine.",
            "bullet_tags": [{"name": "pat-001", "tag": "neutral", "rationale": "considered"}],
        }
    )
    nothing = json.dumps({"reasoning": "nothing to change", "operations": []})
    llm = routed_llm(lambda system, prompt: nothing if is_curator(system, prompt) else reflection)

    prompts = []
    for number, reply in enumerate(("Done.", "Done, as [pat-002] says.", "Done."), start=1):
        transcript = write_transcript(tmp_path / f"s{number}.jsonl", "fix it", reply)
        report = run_cycle_sync(transcript)
        assert report.status == "nothing-new", report.reason
        prompts.append(_curator_prompt(llm))
        llm.bodies.clear()

    def retire_section(prompt: str) -> str:
        return prompt.split("# Retire candidates\n", 1)[1].split("\n\n", 1)[0]

    assert retire_section(prompts[0]).startswith("(none)")
    assert retire_section(prompts[1]).startswith("(none)")  # only 1 session recorded before
    listed = re.findall(r"^- \[(pat-\d{3})\] (.*)$", retire_section(prompts[2]), re.MULTILINE)
    assert {name for name, _ in listed} == {"pat-003", "pat-004", "pat-005"}
    assert {note for _, note in listed} == {"not cited or tagged in the last 2 learned sessions"}


def test_the_reflector_sees_the_cited_and_the_relevant_entries_not_the_whole_playbook(
    routed_llm, large_playbook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_REFLECTOR_BUDGET_TOKENS", "800")
    llm = routed_llm(lambda system, prompt: json.dumps(REFLECTION))
    transcript = write_transcript(
        tmp_path / "s.jsonl",
        "pytest fails with No module named yaml, fix it",
        "Following [pat-150], I installed PyYAML and the tests pass.",
    )

    report = run_cycle_sync(transcript)

    assert report.status == outcomes.OK
    reflector = next(request_prompt(body) for body in llm.bodies if "You are the reflector" in body)
    shown = set(re.findall(r"^\[((?:pat|ctx)-\d{3})\]", reflector, re.MULTILINE))
    assert "pat-150" in shown  # cited by the session: always shown
    assert "pat-301" in shown  # the PyYAML rule: relevant to the session's request
    assert 10 < len(shown) < 100  # bounded: far fewer than the 302 entries
