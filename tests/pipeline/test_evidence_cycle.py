"""Evidence and input patterns in real cycles: a real HTTP LLM, real files, `acecode why`.

The curator names the session's moments (``refs``); the cycle links each entry to
exactly those after checking they exist, and keeps an input pattern (``when``) only
when it matches the failed call the entry was learned from.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_provenance_cycle import FAILURES, PYYAML, session

from acecode.pipeline import run_cycle_sync
from acecode.store.provenance import load_provenance
from acecode_cli import run_acecode as acecode
from support.pipeline import curator_says, is_curator, make_playbook

CODEX = Path(__file__).resolve().parents[1] / "data" / "transcripts" / "codex"


@pytest.fixture
def playbook(project_dir: Path) -> Path:
    path = project_dir / ".claude" / "playbook.json"
    make_playbook(path, ["Run pytest -x first to stop at the first failure."])
    return path


def add(text: str, **fields: Any) -> dict[str, Any]:
    return {"type": "ADD", "text": text, "section": "MISTAKES TO AVOID", **fields}


def test_the_entry_is_linked_to_the_moment_named_even_when_words_point_elsewhere(
    routed_llm, playbook, tmp_path
):
    lint = "Fix unused variables before committing: the lint step fails on them."
    routed_llm(
        curator_says(
            add(PYYAML, refs=["F2"]),
            add(lint, refs=["F9", "C1"]),  # F9 does not exist: C1 stands
            add("Check that build/output exists before listing it.", refs="F3"),
        )
    )
    report = run_cycle_sync(session(tmp_path / "s.jsonl", ["Please fix the build"], FAILURES))

    assert report.status == "ok"
    origins = load_provenance(playbook)
    yaml, lint_rule, listing = (
        origins[name][0].evidence for name in ("mis-001", "mis-002", "mis-003")
    )
    assert (yaml.ref, yaml.link, yaml.error) == (
        "F2",
        "named",
        "ModuleNotFoundError: No module named 'yaml'",
    )
    assert (lint_rule.kind, lint_rule.ref, lint_rule.request) == (
        "request",
        "C1",
        "Please fix the build",
    )
    assert (listing.ref, listing.command, listing.head) == ("F3", "ls build/output", "ls")
    assert listing.error_key == "ls: cannot access <q>: No such file or directory"


def test_without_refs_the_fallback_uses_the_entrys_own_text(routed_llm, playbook, tmp_path):
    spelling = "Use British spelling in docs."
    routed_llm(curator_says(add(PYYAML), add(spelling)))
    run_cycle_sync(session(tmp_path / "s.jsonl", ["fix", "Use British spelling"], FAILURES))

    origins = load_provenance(playbook)
    assert (origins["mis-001"][0].evidence.ref, origins["mis-001"][0].evidence.link) == (
        "F2",
        "overlap",
    )
    assert origins["mis-002"][0].evidence.request == "Use British spelling"


def test_refs_said_empty_link_no_moment_however_many_words_match(routed_llm, playbook, tmp_path):
    """A real model (bench/relay/recall-run1) wrote ``refs: []`` for a lesson of no failed
    call; the word overlap tied it to an unrelated failure, and recall showed it there."""
    routed_llm(curator_says(add("Import yaml lazily: PyYAML is an optional module.", refs=[])))
    run_cycle_sync(session(tmp_path / "s.jsonl", ["fix"], FAILURES))

    evidence = load_provenance(playbook)["mis-001"][0].evidence
    assert (evidence.kind, evidence.ref) == ("none", "")


def test_a_finding_marked_with_no_moment_links_none(routed_llm, playbook, tmp_path):
    """The finding the rule comes from opens with ``[-]``: another finding's moment (one
    that shares fewer words) is not taken instead."""
    findings = [
        "[-] Review the generated migration: SQLite cannot alter a column's nullability.",
        "[F2] PyYAML is missing from the test environment; install it with pip.",
    ]
    rule = "Review every generated migration: SQLite cannot alter nullability in place."

    def route(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            return json.dumps({"reasoning": "scripted", "operations": [add(rule)]})
        return json.dumps({"findings": findings, "tags": []})

    routed_llm(route)
    run_cycle_sync(session(tmp_path / "s.jsonl", ["fix"], FAILURES))
    assert load_provenance(playbook)["mis-001"][0].evidence.kind == "none"


def test_a_finding_names_the_moment_when_the_curator_does_not(routed_llm, playbook, tmp_path):
    finding = "[F3] The build/output folder is only made by `make dist`; list it after building."
    curation = json.dumps(
        {
            "reasoning": "scripted",
            "operations": [add("Run make dist before listing build/output: it makes the folder.")],
        }
    )

    def route(system: str, prompt: str) -> str:
        if is_curator(system, prompt):
            return curation
        return json.dumps({"findings": [finding], "tags": []})

    routed_llm(route)
    run_cycle_sync(session(tmp_path / "s.jsonl", ["fix"], FAILURES))
    evidence = load_provenance(playbook)["mis-001"][0].evidence
    assert (evidence.ref, evidence.link, evidence.command) == ("F3", "finding", "ls build/output")


def test_an_input_pattern_is_kept_only_when_it_matches_the_call_learned_from(
    routed_llm, playbook, tmp_path
):
    routed_llm(
        curator_says(
            add(
                "Run npm run lint --fix first: it fixes unused vars.",
                refs=["F1"],
                when="Bash:^npm run lint( |$)",
            ),
            add(PYYAML, refs=["F2"], when=["Bash:^npm test", "Bash:.", "Bash:(?!)"]),
            add(
                "List build/output only after make dist.",
                refs=["F3"],
                when={"tool": "Bash", "pattern": "^ls( |$)"},
            ),
            add("Say which files changed.", refs=["C1"], when="Read:(^|/)notes[.]md$"),
            add("Never run rm -rf in the project.", refs=["F3"], when="Nope:x"),
        )
    )
    report = run_cycle_sync(session(tmp_path / "s.jsonl", ["fix"], FAILURES))

    origins = load_provenance(playbook)
    when = {name: found[0].when for name, found in origins.items()}
    assert when["mis-001"] == (("Bash", "command", "^npm run lint( |$)"),)
    assert when["mis-002"] is None and when["mis-004"] is None and when["mis-005"] is None
    # ^ls( |$) matches `ls build/output`, but also `ls` and `ls -la`, 2 of 32 ordinary
    # commands: within the quality check's tenth, so it is kept.
    assert when["mis-003"] == (("Bash", "command", "^ls( |$)"),)
    refused = "\n".join(report.refused_patterns)
    assert "mis-002: Bash:^npm test: does not match the call it was learned from (F2)" in refused
    assert "mis-002: Bash:.: matches 32 of 32 ordinary command inputs" in refused
    # A pattern no input can match matches no call either: refused as not matching.
    assert "mis-002: Bash:(?!): does not match the call it was learned from (F2)" in refused
    assert "mis-004: Read:(^|/)notes[.]md$: the rule was not learned from a failed call" in refused
    assert "mis-005: Nope:x: unknown tool 'Nope'" in refused
    stored = json.loads((playbook.parent / "acecode" / "provenance.json").read_text())
    assert "when" not in stored["entries"]["mis-002"]["origins"][0]


def test_codex_rules_show_the_failing_command_as_evidence(routed_llm, project_dir, tmp_path):
    playbook = project_dir / ".claude" / "playbook.json"
    playbook.parent.mkdir(parents=True, exist_ok=True)
    rollout = tmp_path / "rollout-2026-11-23T10-00-00-codex.jsonl"
    shutil.copy(CODEX / "exec-failing-command.jsonl", rollout)
    routed_llm(
        curator_says(
            add("There is no tests/test_app.py yet: create it before reading it.", refs=["F1"]),
            add("app.py does not exist yet: add it before patching it."),
        )
    )
    run_cycle_sync(rollout, playbook_path=playbook)

    origins = load_provenance(playbook)
    named, fallback = origins["mis-001"][0].evidence, origins["mis-002"][0].evidence
    assert (named.tool, named.command) == ("exec_command", "cat tests/test_app.py")
    assert (fallback.kind, fallback.tool, fallback.ref) == ("failure", "apply_patch", "F2")
    shown = acecode("why", "mis-001").stdout
    assert (
        "exec_command `cat tests/test_app.py` failed: cat: tests/test_app.py: "
        "No such file or directory" in shown
    )
    assert "the user asked" not in shown
