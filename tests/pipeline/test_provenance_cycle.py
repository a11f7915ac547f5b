"""Provenance end to end: real cycles against the wire server, `acecode why` as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acecode.pipeline import run_cycle_sync
from acecode.store import load_playbook
from acecode.store.provenance import load_ledger, load_provenance
from acecode_cli import run_acecode as acecode
from support.pipeline import curator_says, make_playbook

SECRET = "sk-ant-api03-" + "Zq7xK2mN9pLw4RtY8vBc1DfGh3JkLmNoPqRsTuVwXyZa0b1c2d3e4f5g6h7i8j9k0lAA"
FAILURES = [
    ("npm run lint", "error  'foo' is assigned a value but never used  no-unused-vars"),
    (
        f"ANTHROPIC_API_KEY={SECRET} pytest tests/test_config.py",
        'Traceback (most recent call last):\n  File "tests/test_config.py", line 1, in <module>\n'
        "    import yaml\nModuleNotFoundError: No module named 'yaml'",
    ),
    ("ls build/output", "ls: cannot access 'build/output': No such file or directory"),
]
PYYAML = "Install PyYAML (pip install pyyaml) before running pytest: the config tests import yaml."
BRITISH = "Write documentation in British spelling (colour, behaviour)."


def session(path: Path, requests: list[str], failures: list[tuple[str, str]]) -> Path:
    """A Claude Code transcript: the first request, every failing Bash call, the other requests."""
    records: list[dict[str, Any]] = [
        {"type": "user", "uuid": "u0", "message": {"role": "user", "content": requests[0]}}
    ]
    for number, (command, output) in enumerate(failures):
        records.append(
            {
                "type": "assistant",
                "uuid": f"a{number}",
                "message": {
                    "id": f"m{number}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"t{number}",
                            "name": "Bash",
                            "input": {"command": command},
                        }
                    ],
                },
            }
        )
        records.append(
            {
                "type": "user",
                "uuid": f"r{number}",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{number}",
                            "is_error": True,
                            "content": output,
                        }
                    ],
                },
            }
        )
    for number, request in enumerate(requests[1:], start=1):
        records.append(
            {"type": "user", "uuid": f"u{number}", "message": {"role": "user", "content": request}}
        )
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def playbook(project_dir: Path) -> Path:
    path = project_dir / ".claude" / "playbook.json"
    make_playbook(path, ["Run pytest -x first to stop at the first failure."])
    return path


def test_a_learned_rule_records_cycle_session_reason_and_the_matching_failure(
    routed_llm, playbook, tmp_path
):
    routed_llm(
        curator_says(
            {
                "type": "ADD",
                "text": PYYAML,
                "section": "MISTAKES TO AVOID",
                "reason": "pytest failed: the yaml module was missing",
            },
            {
                "type": "ADD",
                "text": BRITISH,
                "section": "USER PREFERENCES",
                "reason": "the user wants British spelling in the docs",
            },
        )
    )
    transcript = session(
        tmp_path / "sess-42.jsonl",
        ["Please make the test suite pass", "Also use British spelling in the docs, please"],
        FAILURES,
    )

    report = run_cycle_sync(transcript)

    assert report.status == "ok"
    origins = load_provenance(playbook)
    assert set(origins) == {"mis-001", "pref-001"}
    (learned,) = origins["mis-001"]
    assert (learned.cycle_id, learned.how, learned.agent) == (
        report.cycle_id,
        "learned",
        "claude-code",
    )
    assert (learned.session, learned.transcript) == ("sess-42", str(transcript.resolve()))
    assert learned.reason == "pytest failed: the yaml module was missing"
    assert learned.evidence.kind == "failure" and learned.evidence.tool == "Bash"
    assert learned.evidence.command.endswith("pytest tests/test_config.py")
    assert learned.evidence.error == "ModuleNotFoundError: No module named 'yaml'"
    (preference,) = origins["pref-001"]
    assert preference.evidence.kind == "request"
    assert preference.evidence.request == "Also use British spelling in the docs, please"
    state = playbook.parent / "acecode"
    assert SECRET not in (state / "provenance.json").read_text()
    assert "[REDACTED" in learned.evidence.command
    assert "pat-001" not in origins  # bullet tags and older entries get no invented origin

    shown = acecode("why", "mis-001").stdout
    assert f"cycle {report.cycle_id}" in shown
    assert "why: pytest failed: the yaml module was missing" in shown
    assert "ModuleNotFoundError: No module named 'yaml'" in shown and SECRET not in shown
    record = json.loads(acecode("why", "mis-001", "--json").stdout)
    assert record["in_playbook"] and record["section"] == "MISTAKES TO AVOID"
    assert record["origins"][0]["evidence"]["error"] == learned.evidence.error
    assert "unknown origin" in acecode("why", "pat-001").stdout
    table = acecode("show", "--provenance").stdout
    assert "ModuleNotFoundError" in table and "provenance" in table
    as_json = json.loads(acecode("show", "--provenance", "--format", "json").stdout)
    assert as_json["provenance"]["pref-001"][0]["how"] == "learned"
    error = acecode("why", "pat-404", code=1).stderr.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("acecode: no entry named 'pat-404'")


def test_update_appends_merge_unites_delete_keeps_and_undo_restore_round_trip(
    routed_llm, playbook, tmp_path
):
    def cycle(*operations: dict[str, Any], name: str) -> str:
        llm.router = curator_says(*operations)
        transcript = session(tmp_path / f"{name}.jsonl", ["fix the build"], FAILURES)
        report = run_cycle_sync(transcript)
        assert report.status == "ok", report.reason
        return report.cycle_id

    llm = routed_llm(curator_says())
    first = cycle(
        {"type": "ADD", "text": PYYAML, "section": "MISTAKES TO AVOID", "reason": "yaml missing"},
        {
            "type": "ADD",
            "text": "Run npm run lint before committing.",
            "section": "MISTAKES TO AVOID",
        },
        name="s1",
    )
    second = cycle(
        {"type": "UPDATE", "target_id": "mis-001", "text": PYYAML + " Pin it in requirements."},
        name="s2",
    )
    origins = load_provenance(playbook)
    assert [o.cycle_id for o in origins["mis-001"]] == [first, second]
    assert origins["mis-002"][0].evidence.command == "npm run lint"
    merged = cycle(
        {
            "type": "MERGE",
            "source_ids": ["mis-001", "mis-002"],
            "merged_text": f"Before committing: {PYYAML} Pin it in requirements. And run npm run "
            "lint before committing.",
            "reason": "both are pre-commit checks",
        },
        name="s3",
    )
    origins = load_provenance(playbook)
    survivor = origins["mis-003"]
    assert [o.cycle_id for o in survivor] == [first, second, first, merged]
    assert survivor[-1].how == "merged" and survivor[-1].reason == "both are pre-commit checks"
    assert "mis-001" not in origins and "mis-002" not in origins

    acecode("undo", merged)
    origins = load_provenance(playbook)
    assert "mis-003" not in origins
    assert [o.cycle_id for o in origins["mis-001"]] == [first, second]
    assert [o.cycle_id for o in origins["mis-002"]] == [first]

    deleted = cycle(
        {"type": "DELETE", "target_id": "mis-002", "reason": "lint runs in CI"}, name="s4"
    )
    ledger = load_ledger(playbook)
    assert "mis-002" not in ledger.entries
    assert [r.removed_in for r in ledger.retired["mis-002"]] == [deleted]
    gone = acecode("why", "mis-002").stdout
    assert "mis-002 is not in the playbook" in gone and f"cycle {first}" in gone

    acecode("restore", "mis-002")
    assert [o.cycle_id for o in load_provenance(playbook)["mis-002"]] == [first]
    assert "mis-002" not in load_ledger(playbook).retired
    names = [e["name"] for e in load_playbook(playbook)["sections"]["MISTAKES TO AVOID"]]
    assert names == ["mis-001", "mis-002"]


def test_a_credited_duplicate_appends_an_origin_to_the_entry_it_repeats(
    routed_llm, playbook, tmp_path
):
    routed_llm(
        curator_says(
            {
                "type": "ADD",
                "text": "Run pytest -x first to stop at the first failure!",
                "section": "PATTERNS & APPROACHES",
                "reason": "pytest output was long",
            },
            judge=lambda a, b: "same",
        )
    )
    report = run_cycle_sync(session(tmp_path / "s.jsonl", ["run the tests"], FAILURES))

    assert [
        (e["name"], e["helpful"])
        for e in load_playbook(playbook)["sections"]["PATTERNS & APPROACHES"]
    ] == [("pat-001", 2)]
    (credited,) = load_provenance(playbook)["pat-001"]
    assert credited.cycle_id == report.cycle_id and credited.how == "learned"
    assert credited.reason.startswith("pytest output was long (credited as the same rule")
    assert credited.evidence.kind == "failure"


def test_a_corrupt_provenance_file_is_one_warning_on_read_and_set_aside_on_write(
    routed_llm, playbook, tmp_path, capsys
):
    state = playbook.parent / "acecode"
    state.mkdir(exist_ok=True)
    (state / "provenance.json").write_text("{not json", encoding="utf-8")
    assert load_provenance(playbook) == {}
    warning = capsys.readouterr().err.strip().splitlines()
    assert len(warning) == 1 and "provenance.json: not JSON" in warning[0]

    routed_llm(curator_says({"type": "ADD", "text": PYYAML, "section": "MISTAKES TO AVOID"}))
    run_cycle_sync(session(tmp_path / "s.jsonl", ["fix"], FAILURES))

    assert set(load_provenance(playbook)) == {"mis-001"}
    kept = list(state.glob("provenance.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text() == "{not json"


def test_undoing_a_cycle_that_added_and_merged_at_once_keeps_only_what_restore_needs(
    routed_llm, playbook, tmp_path
):
    lint = "Run npm run lint before committing: CI rejects unused variables."
    make_playbook(playbook, ["Run pytest -x first to stop at the first failure.", lint])
    routed_llm(
        curator_says(
            {"type": "ADD", "text": PYYAML, "section": "MISTAKES TO AVOID"},
            {
                "type": "MERGE",
                "source_ids": ["pat-001", "pat-002"],
                "merged_text": f"Run pytest -x first to stop at the first failure. {lint}",
                "section": "PATTERNS & APPROACHES",
            },
        )
    )
    report = run_cycle_sync(session(tmp_path / "s.jsonl", ["fix"], FAILURES))
    ledger = load_ledger(playbook)
    assert [o.how for o in ledger.entries["mis-001"]] == ["learned"]
    assert [o.how for o in ledger.entries["pat-003"]] == ["merged"]

    acecode("undo", report.cycle_id)

    ledger = load_ledger(playbook)
    assert ledger.entries == {}
    # What the undone cycle added leaves with its record, retired under the undo (so that
    # `acecode restore` or undoing the undo brings it back with its provenance).
    assert set(ledger.retired) == {"mis-001", "pat-003"}
    for (record,) in ledger.retired.values():
        assert record.removed_in != report.cycle_id
        assert {o.cycle_id for o in record.origins} == {report.cycle_id}
    assert [e["name"] for e in load_playbook(playbook)["sections"]["PATTERNS & APPROACHES"]] == [
        "pat-001",
        "pat-002",
    ]


@pytest.mark.parametrize("back", ["restore", "redo"])
def test_undoing_an_added_rule_keeps_its_provenance_for_restore_and_redo(
    routed_llm, playbook, tmp_path, back
):
    routed_llm(
        curator_says(
            {"type": "ADD", "text": PYYAML, "section": "MISTAKES TO AVOID", "reason": "no yaml"}
        )
    )
    learned = run_cycle_sync(session(tmp_path / "s.jsonl", ["fix"], FAILURES))
    assert learned.status == "ok", learned.reason

    acecode("undo", "mis-001")

    assert "mis-001" not in load_provenance(playbook)
    gone = acecode("why", "mis-001").stdout
    assert "mis-001 is not in the playbook" in gone and f"cycle {learned.cycle_id}" in gone
    assert "no provenance was recorded" not in gone

    if back == "restore":
        acecode("restore", "mis-001")
    else:
        acecode("undo")  # the undo, taken back
    (origin,) = load_provenance(playbook)["mis-001"]
    assert (origin.cycle_id, origin.how, origin.reason) == (learned.cycle_id, "learned", "no yaml")
    assert origin.evidence.error == "ModuleNotFoundError: No module named 'yaml'"
    shown = acecode("why", "mis-001").stdout
    assert f"cycle {learned.cycle_id}" in shown and "why: no yaml" in shown


def test_undoing_a_rule_added_by_hand_keeps_its_provenance_for_restore(playbook):
    acecode("add", "Use uv for every install.", "--section", "pat", "--reason", "team standard")
    acecode("undo", "pat-002")
    assert "team standard" in acecode("why", "pat-002").stdout

    acecode("restore", "pat-002")

    (origin,) = load_provenance(playbook)["pat-002"]
    assert (origin.how, origin.reason) == ("added-by-user", "team standard")
