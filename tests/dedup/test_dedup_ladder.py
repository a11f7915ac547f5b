"""The consolidation document's de-duplication ladder for curator ADD/UPDATE candidates."""

from __future__ import annotations

import copy

import pytest

from acecode.dedup.ladder import (
    LadderDecision,
    LadderThresholds,
    apply_decision,
    decide,
    is_more_specific,
)
from support.embedding_backends import ExplodingBackend
from support.playbooks import CTX, MIS, PAT, entry
from support.playbooks import make_playbook as playbook

TESTS = "Run the tests before committing."
TESTS_PARAPHRASE = "Run the test suite before you commit and push."
PATHLIB_SHORT = "Prefer pathlib over os.path."
PATHLIB_LONG = (
    "Use pathlib.Path objects rather than os.path string functions when you build, "
    "join or resolve file paths in Python code."
)
SECRETS = "Never commit API keys or secrets to the git repository."


def test_ladder_defaults_come_from_the_consolidation_document():
    assert LadderThresholds() == LadderThresholds(identical=0.90, similar=0.85, related=0.75)


def test_ladder_thresholds_from_env_with_clamping_and_bad_values(monkeypatch, capsys):
    monkeypatch.setenv("ACECODE_LADDER_IDENTICAL", "1.5")
    monkeypatch.setenv("ACECODE_LADDER_SIMILAR", "0.8")
    monkeypatch.setenv("ACECODE_LADDER_RELATED", "lots")
    assert LadderThresholds.from_env() == LadderThresholds(1.0, 0.8, 0.75)
    assert "ACECODE_LADDER_RELATED" in capsys.readouterr().err


def test_ladder_identical_add_credits_existing_entry_instead(real_backend):
    pb = playbook(ctx=[entry("ctx-001", TESTS, 2)])
    decision = decide(TESTS_PARAPHRASE, PAT, pb, backend=real_backend)
    assert (decision.action, decision.rung, decision.matched_name) == (
        "credit",
        "identical",
        "ctx-001",
    )
    assert decision.similarity >= 0.90
    assert apply_decision(pb, decision)["sections"][CTX] == [entry("ctx-001", TESTS, 3)]


def test_ladder_similar_in_same_section_consolidates(real_backend):
    pb = playbook(pat=[entry("pat-001", PATHLIB_LONG, 1)])
    decision = decide(PATHLIB_SHORT, PAT, pb, backend=real_backend)
    assert 0.85 <= decision.similarity < 0.90
    assert (decision.action, decision.rung, decision.matched_name) == (
        "credit",
        "similar",
        "pat-001",
    )


def test_ladder_related_and_more_specific_updates_existing_text(real_backend):
    # Same pair, other section: not "similar" (needs the same section), so "related".
    pb = playbook(mis=[entry("mis-001", PATHLIB_SHORT, 1)])
    decision = decide(PATHLIB_LONG, PAT, pb, backend=real_backend)
    assert (decision.action, decision.rung, decision.matched_name) == (
        "update",
        "related",
        "mis-001",
    )
    assert apply_decision(pb, decision)["sections"][MIS] == [entry("mis-001", PATHLIB_LONG, 2)]


def test_ladder_related_but_not_more_specific_only_credits(real_backend):
    pb = playbook(mis=[entry("mis-001", PATHLIB_LONG, 1)])
    decision = decide(PATHLIB_SHORT, PAT, pb, backend=real_backend)
    assert (decision.action, decision.rung) == ("credit", "related")
    assert apply_decision(pb, decision)["sections"][MIS] == [entry("mis-001", PATHLIB_LONG, 2)]


def test_ladder_unrelated_candidate_is_kept_separate(real_backend):
    pb = playbook(pat=[entry("pat-001", TESTS)], ctx=[entry("ctx-001", PATHLIB_SHORT)])
    decision = decide(SECRETS, PAT, pb, backend=real_backend)
    assert (decision.action, decision.rung) == ("add", "separate")
    assert decision.similarity < 0.75 and decision.matched_name in {"pat-001", "ctx-001"}
    assert apply_decision(pb, decision) == pb


def test_ladder_thresholds_passed_by_the_pipeline_win(real_backend):
    pb = playbook(ctx=[entry("ctx-001", TESTS)])
    strict = LadderThresholds(identical=0.999, similar=0.999, related=0.999)
    assert (
        decide(TESTS_PARAPHRASE, PAT, pb, thresholds=strict, backend=real_backend).action == "add"
    )


def test_ladder_update_candidate_is_not_compared_with_its_own_entry(real_backend):
    pb = playbook(pat=[entry("pat-001", TESTS), entry("pat-002", SECRETS)])
    decision = decide(TESTS_PARAPHRASE, PAT, pb, backend=real_backend, exclude="pat-001")
    assert decision.action == "add" and decision.matched_name == "pat-002"


def test_ladder_empty_playbook_adds_without_loading_a_model():
    decision = decide(TESTS, PAT, playbook(), backend=ExplodingBackend())
    assert decision == LadderDecision("add", "separate", TESTS, PAT, reason="no other entry")


def test_ladder_decision_is_report_ready(real_backend):
    record = decide(
        TESTS_PARAPHRASE, PAT, playbook(pat=[entry("pat-001", TESTS)]), backend=real_backend
    ).to_dict()
    assert set(record) == {
        "action",
        "rung",
        "candidate_text",
        "candidate_section",
        "matched_name",
        "matched_section",
        "similarity",
        "reason",
    }
    assert isinstance(record["similarity"], float)


def test_ladder_does_not_mutate_the_playbook(real_backend):
    pb = playbook(mis=[entry("mis-001", PATHLIB_SHORT, 1)])
    before = copy.deepcopy(pb)
    apply_decision(pb, decide(PATHLIB_LONG, PAT, pb, backend=real_backend))
    assert pb == before


@pytest.mark.parametrize(
    ("candidate", "existing", "expected"),
    [
        (PATHLIB_LONG, PATHLIB_SHORT, True),
        (PATHLIB_SHORT, PATHLIB_LONG, False),
        ("Run pytest -x before committing to main.", "Run pytest before committing.", True),
        ("Run pytest before committing.", "Run pytest before committing.", False),
        # Longer but about something else: keeps fewer than half of the old terms.
        (
            "Use Docker compose profiles for the local Postgres and Redis stack.",
            "Run pytest often.",
            False,
        ),
    ],
)
def test_ladder_more_specific_rule(candidate, existing, expected):
    assert is_more_specific(candidate, existing) is expected
