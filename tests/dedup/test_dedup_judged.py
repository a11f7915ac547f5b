"""Judged ladder, judged de-dup and candidate pairs (issue 11: a judge decides)."""

from __future__ import annotations

import pytest

from acecode.dedup import deduplicate
from acecode.dedup.candidates import ProposedText, propose_pairs
from acecode.dedup.ladder import apply_decision, decide
from acecode.dedup.verdicts import PairVerdict, Verdicts
from support.playbooks import MIS, PAT, entry, names
from support.playbooks import make_playbook as playbook

SINGLE = "Use single quotes for string literals in the TypeScript code."
DOUBLE = "Use double quotes for string literals in the TypeScript code."
TESTS = "Run the tests before committing."
TESTS_PARAPHRASE = "Run the test suite before you commit and push."
PYTEST = "Run the tests with `pytest -x` before committing any change."
SECRETS = "Never commit API keys or secrets to the git repository."


def judged(*verdicts: PairVerdict) -> Verdicts:
    return Verdicts(verdicts)


# --- the judged ladder -------------------------------------------------------------------


def test_unjudged_ladder_would_credit_a_contradiction_the_judged_one_adds_it(real_backend):
    pb = playbook(pat=[entry("pat-001", SINGLE)])
    blind = decide(DOUBLE, PAT, pb, backend=real_backend)
    assert blind.action == "credit" and blind.similarity >= 0.99  # why a judge is needed
    decision = decide(DOUBLE, PAT, pb, backend=real_backend, verdicts=Verdicts())
    assert (decision.action, decision.rung) == ("add", "separate")


def test_ladder_credits_only_a_pair_judged_the_same(real_backend):
    pb = playbook(pat=[entry("pat-001", TESTS, 2)])
    verdicts = judged(PairVerdict(TESTS, TESTS_PARAPHRASE, "same"))
    decision = decide(TESTS_PARAPHRASE, PAT, pb, backend=real_backend, verdicts=verdicts)
    assert (decision.action, decision.rung, decision.matched_name) == ("credit", "same", "pat-001")
    assert apply_decision(pb, decision)["sections"][PAT] == [entry("pat-001", TESTS, 3)]


@pytest.mark.parametrize("verdict", ["different", "conflicting"])
def test_ladder_never_credits_a_different_or_conflicting_pair(real_backend, verdict):
    pb = playbook(pat=[entry("pat-001", SINGLE)])
    verdicts = judged(PairVerdict(SINGLE, DOUBLE, verdict))
    decision = decide(DOUBLE, PAT, pb, backend=real_backend, verdicts=verdicts)
    assert decision.action == "add" and decision.matched_name == "pat-001"
    assert ("conflicting" in decision.reason) == (verdict == "conflicting")


def test_ladder_without_verdict_merges_only_near_verbatim(real_backend):
    pb = playbook(pat=[entry("pat-001", TESTS)])
    assert decide(TESTS_PARAPHRASE, PAT, pb, backend=real_backend, verdicts=Verdicts()).action == (
        "add"
    )
    verbatim = decide(
        "run the TESTS before committing", MIS, pb, backend=real_backend, verdicts=Verdicts()
    )
    assert (verbatim.action, verbatim.rung) == ("credit", "verbatim")


def test_ladder_update_rung_needs_the_candidate_judged_more_specific(real_backend):
    pb = playbook(mis=[entry("mis-001", TESTS, 1)])
    more = judged(PairVerdict(TESTS, PYTEST, "more_specific", specific=PYTEST))
    decision = decide(PYTEST, PAT, pb, backend=real_backend, verdicts=more)
    assert (decision.action, decision.rung) == ("update", "more_specific")
    assert apply_decision(pb, decision)["sections"][MIS] == [entry("mis-001", PYTEST, 2)]

    less = judged(PairVerdict(TESTS, PYTEST, "more_specific", specific=TESTS))
    decision = decide(PYTEST, PAT, pb, backend=real_backend, verdicts=less)
    assert (decision.action, decision.rung) == ("credit", "more_specific")


def test_ladder_prefers_a_same_entry_over_a_more_similar_conflicting_one(real_backend):
    pb = playbook(pat=[entry("pat-001", SINGLE), entry("pat-002", "Prefer double quotes in TS.")])
    verdicts = judged(
        PairVerdict(SINGLE, DOUBLE, "conflicting"),
        PairVerdict("Prefer double quotes in TS.", DOUBLE, "same"),
    )
    decision = decide(DOUBLE, PAT, pb, backend=real_backend, verdicts=verdicts)
    assert (decision.action, decision.matched_name) == ("credit", "pat-002")


def test_a_conflict_with_a_text_folded_into_an_entry_stops_the_fold(real_backend):
    """SINGLE was folded into the more specific SINGLE_LINT; DOUBLE is judged "more_specific"
    than nothing but a less specific form of SINGLE_LINT (the miss) and conflicting with
    SINGLE: it must not be folded, both sides stay (issue 18, item 6)."""
    single_lint = SINGLE.rstrip(".") + " (the lint rule `quotes` enforces it)."
    pb = playbook(pat=[entry("pat-001", single_lint)])
    verdicts = judged(
        PairVerdict(single_lint, SINGLE, "more_specific", specific=single_lint),
        PairVerdict(single_lint, DOUBLE, "more_specific", specific=single_lint),
        PairVerdict(SINGLE, DOUBLE, "conflicting", reason="single against double"),
    )
    assert verdicts.folded_into(single_lint) == [SINGLE, DOUBLE]
    assert verdicts.conflict_with(DOUBLE, single_lint) is not None
    decision = decide(DOUBLE, PAT, pb, backend=real_backend, verdicts=verdicts)
    assert (decision.action, decision.matched_name) == ("add", "pat-001")
    assert decision.reason == "judged conflicting with a rule folded into the entry; both kept"


def test_folded_texts_are_proposed_against_new_texts_only(real_backend):
    folded = "Use single quotes for strings."
    pairs = propose_pairs(
        [SECRETS],
        [ProposedText(DOUBLE)],
        backend=real_backend,
        cache=None,
        floor=0.5,
        max_pairs=10,
        folded=[folded],
    )
    assert (folded, DOUBLE) in {(pair.first, pair.second) for pair in pairs}
    assert all(folded not in (pair.first, pair.second) or pair.proposed for pair in pairs)


# --- the judged whole-playbook pass ------------------------------------------------------


def test_judged_dedup_merges_only_judged_same_and_near_verbatim(real_backend):
    pb = playbook(
        pat=[
            entry("pat-001", SINGLE, 1),
            entry("pat-002", DOUBLE, 1),
            entry("pat-003", TESTS, 1),
            entry("pat-004", TESTS_PARAPHRASE, 1),
            entry("pat-005", "run the tests before committing", 1),
        ]
    )
    unjudged = deduplicate(pb, backend=real_backend)
    assert "pat-002" not in names(unjudged.playbook)  # the blind pass loses a rule
    result = deduplicate(pb, backend=real_backend, verdicts=judged())
    assert names(result.playbook) == ["pat-001", "pat-002", "pat-003", "pat-004"]
    assert result.judged and [g.to_dict()["merged"][0]["basis"] for g in result.groups] == [
        "near-verbatim"
    ]
    result = deduplicate(
        pb,
        backend=real_backend,
        verdicts=judged(
            PairVerdict(SINGLE, DOUBLE, "conflicting"),
            PairVerdict(TESTS, TESTS_PARAPHRASE, "same"),
        ),
    )
    assert names(result.playbook) == ["pat-001", "pat-002", "pat-003"]
    assert result.playbook["sections"][PAT][2] == entry("pat-003", TESTS, 3)


def test_judged_dedup_never_chains(real_backend):
    a, b, c = TESTS, TESTS_PARAPHRASE, "Run the whole test suite before pushing to main."
    pb = playbook(pat=[entry("pat-001", a), entry("pat-002", b), entry("pat-003", c)])
    # a~b and b~c were judged the same, a and c were not: c must not reach a through b.
    verdicts = judged(PairVerdict(a, b, "same"), PairVerdict(b, c, "same"))
    result = deduplicate(pb, backend=real_backend, verdicts=verdicts)
    assert names(result.playbook) == ["pat-001", "pat-003"]
    assert [[m["name"] for m in g.to_dict()["merged"]] for g in result.groups] == [["pat-002"]]


def test_judged_dedup_ignores_the_threshold(real_backend):
    pb = playbook(pat=[entry("pat-001", SINGLE), entry("pat-002", DOUBLE)])
    assert names(deduplicate(pb, 0.0, backend=real_backend, verdicts=judged()).playbook) == [
        "pat-001",
        "pat-002",
    ]


# --- candidate pairs ---------------------------------------------------------------------


def test_pairs_above_the_floor_are_proposed_new_texts_first(real_backend):
    existing = [SINGLE, TESTS, SECRETS, PYTEST]
    pairs = propose_pairs(
        existing,
        [ProposedText(DOUBLE), ProposedText(TESTS_PARAPHRASE)],
        backend=real_backend,
        cache=None,
        floor=0.6,
        max_pairs=40,
    )
    assert [(p.first, p.second) for p in pairs if p.proposed][:1] == [(SINGLE, DOUBLE)]
    assert (TESTS, TESTS_PARAPHRASE) in {(p.first, p.second) for p in pairs}
    flags = [p.proposed for p in pairs]
    assert flags == sorted(flags, reverse=True)  # proposed texts first
    assert [(p.first, p.second) for p in pairs if not p.proposed] == [(TESTS, PYTEST)]
    assert all(p.similarity >= 0.6 for p in pairs)


def test_known_near_verbatim_and_replaced_pairs_are_not_proposed(real_backend):
    known = judged(PairVerdict(SINGLE, DOUBLE, "conflicting"))
    pairs = propose_pairs(
        [SINGLE, TESTS],
        [
            ProposedText(DOUBLE),
            ProposedText("run the tests before committing!"),
            ProposedText(TESTS_PARAPHRASE, replaces=frozenset({TESTS})),
        ],
        backend=real_backend,
        cache=None,
        floor=0.0,
        max_pairs=40,
        known=known,
    )
    keys = {frozenset((p.first, p.second)) for p in pairs}
    assert frozenset((SINGLE, DOUBLE)) not in keys  # judged before
    assert frozenset((TESTS, "run the tests before committing!")) not in keys  # near-verbatim
    assert frozenset((TESTS, TESTS_PARAPHRASE)) not in keys  # the UPDATE replaces TESTS


def test_the_floor_and_the_cap_bound_the_pairs(real_backend):
    args = ([SINGLE, TESTS, SECRETS], [ProposedText(DOUBLE)])
    assert propose_pairs(*args, backend=real_backend, cache=None, floor=1.01, max_pairs=40) == []
    assert len(propose_pairs(*args, backend=real_backend, cache=None, floor=-1, max_pairs=2)) == 2
    capped = propose_pairs(
        *args, backend=real_backend, cache=None, floor=-1, max_pairs=40, max_neighbours=1
    )
    assert [(p.first, p.second) for p in capped if p.proposed] == [(SINGLE, DOUBLE)]
