"""Spec README, "Semantic de-duplication": every behaviour with the real bundled model."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import textwrap

import pytest

from acecode.dedup import deduplicate, resolve_threshold, run_deduplication
from acecode.dedup.cache import embed_texts
from acecode.dedup.similarity import similarity_matrix
from support.embedding_backends import ExplodingBackend
from support.hang_guard import HANG_GUARD
from support.playbooks import CTX, MIS, OTH, PAT, entry, names
from support.playbooks import make_playbook as playbook

TESTS_BEFORE_COMMIT = "Run the tests before committing."
SUITE_BEFORE_COMMIT = "Run the test suite before you commit and push."
SUITE_BEFORE_PUSH = "Run the whole test suite before you push to the remote branch."
PATHLIB = "Use pathlib.Path instead of os.path for file paths."
PATHLIB_PARAPHRASE = "Prefer pathlib.Path over os.path when handling file paths."
SECRETS = "Never commit API keys or secrets to the git repository."


def sim(backend, a: str, b: str) -> float:
    """Calibrated similarity of two texts with ``backend``."""
    vectors = embed_texts([a, b], backend, None)
    return float(similarity_matrix(vectors, backend.paraphrase_cosine)[0, 1])


def test_dedup_same_section_paraphrases_merge_into_first_with_summed_counters(real_backend):
    pb = playbook(
        pat=[
            entry("pat-001", PATHLIB, 2, 1),
            entry("pat-002", SECRETS, 1),
            entry("pat-003", PATHLIB_PARAPHRASE, 3, 2),
        ]
    )
    out = run_deduplication(pb, backend=real_backend)
    assert out["sections"][PAT] == [entry("pat-001", PATHLIB, 5, 3), entry("pat-002", SECRETS, 1)]


def test_dedup_cross_section_merge_keeps_first_in_canonical_order(real_backend):
    # OTHERS is listed first in the dict but MISTAKES TO AVOID comes first canonically.
    pb = playbook(
        oth=[entry("oth-001", PATHLIB, 1)], mis=[entry("mis-004", PATHLIB_PARAPHRASE, 0, 1)]
    )
    pb["sections"] = dict(reversed(list(pb["sections"].items())))
    out = run_deduplication(pb, backend=real_backend)
    assert out["sections"][MIS] == [entry("mis-004", PATHLIB_PARAPHRASE, 1, 1)]
    assert out["sections"][OTH] == []


def test_dedup_below_threshold_keeps_both(real_backend):
    assert sim(real_backend, PATHLIB, SECRETS) < 0.85
    pb = playbook(pat=[entry("pat-001", PATHLIB)], ctx=[entry("ctx-001", SECRETS)])
    out = run_deduplication(pb, backend=real_backend)
    assert out == pb


def test_dedup_transitive_chain_collapses_to_first(real_backend):
    # A~B and B~C are above 0.85 while A~C is not: all three are one group.
    assert sim(real_backend, TESTS_BEFORE_COMMIT, SUITE_BEFORE_COMMIT) >= 0.85
    assert sim(real_backend, SUITE_BEFORE_COMMIT, SUITE_BEFORE_PUSH) >= 0.85
    assert sim(real_backend, TESTS_BEFORE_COMMIT, SUITE_BEFORE_PUSH) < 0.85
    pb = playbook(
        pat=[entry("pat-001", TESTS_BEFORE_COMMIT, 1)],
        ctx=[entry("ctx-001", SUITE_BEFORE_PUSH, 4, 1)],
        mis=[entry("mis-001", SUITE_BEFORE_COMMIT, 2)],
    )
    result = deduplicate(pb, backend=real_backend)
    assert names(result.playbook) == ["pat-001"]
    assert result.playbook["sections"][PAT][0] == entry("pat-001", TESTS_BEFORE_COMMIT, 7, 1)
    [group] = result.groups
    assert group.survivor.name == "pat-001"
    assert [m.entry.name for m in group.merged] == ["mis-001", "ctx-001"]
    chained = group.merged[1]
    assert chained.similarity_to_survivor < 0.85 <= chained.linked_by


def test_dedup_result_reports_similarities_for_the_curation_report(real_backend):
    pb = playbook(pat=[entry("pat-001", PATHLIB)], oth=[entry("oth-001", PATHLIB_PARAPHRASE)])
    report = [g.to_dict() for g in deduplicate(pb, backend=real_backend).groups]
    assert report[0]["kept"] == "pat-001"
    assert report[0]["merged"][0]["name"] == "oth-001"
    assert 0.85 <= report[0]["merged"][0]["similarity"] <= 1.0


def test_dedup_never_mutates_its_input(real_backend):
    pb = playbook(pat=[entry("pat-001", PATHLIB, 1)], oth=[entry("oth-001", PATHLIB_PARAPHRASE, 2)])
    before = copy.deepcopy(pb)
    out = run_deduplication(pb, backend=real_backend)
    assert pb == before
    assert out is not pb and out["sections"][PAT][0] is not pb["sections"][PAT][0]


def test_dedup_exact_duplicates_merge_even_at_threshold_one(real_backend):
    pb = playbook(pat=[entry("pat-001", SECRETS, 1)], oth=[entry("oth-001", SECRETS, 1)])
    assert names(run_deduplication(pb, 1.0, backend=real_backend)) == ["pat-001"]


@pytest.mark.parametrize(
    "pb",
    [playbook(), playbook(ctx=[entry("ctx-001", SECRETS, 2, 1)])],
    ids=["empty", "single-entry"],
)
def test_dedup_zero_or_one_entry_computes_nothing(pb, monkeypatch, capsys):
    # A configured backend that could not even load proves none was loaded.
    monkeypatch.setenv("ACECODE_EMBED_BACKEND", "no-such-backend")
    assert run_deduplication(pb) == pb
    assert run_deduplication(pb, backend=ExplodingBackend()) == pb
    assert capsys.readouterr().err == ""


def test_dedup_threshold_explicit_argument_wins_over_env(real_backend, monkeypatch):
    assert 0.3 < sim(real_backend, TESTS_BEFORE_COMMIT, SECRETS) < 0.85
    monkeypatch.setenv("AGENTIC_CONTEXT_DEDUP_THRESHOLD", "0.3")
    pb = playbook(pat=[entry("pat-001", TESTS_BEFORE_COMMIT)], ctx=[entry("ctx-001", SECRETS)])
    assert names(run_deduplication(pb, backend=real_backend)) == ["pat-001"]
    assert names(run_deduplication(pb, 0.85, backend=real_backend)) == ["pat-001", "ctx-001"]


def test_dedup_threshold_env_wins_over_default(real_backend, monkeypatch):
    pb = playbook(pat=[entry("pat-001", PATHLIB)], oth=[entry("oth-001", PATHLIB_PARAPHRASE)])
    assert names(run_deduplication(pb, backend=real_backend)) == ["pat-001"]
    monkeypatch.setenv("AGENTIC_CONTEXT_DEDUP_THRESHOLD", "0.999")
    assert names(run_deduplication(pb, backend=real_backend)) == ["pat-001", "oth-001"]


@pytest.mark.parametrize(("given", "used"), [(-3.0, 0.0), (0.5, 0.5), (7, 1.0), (1.0, 1.0)])
def test_dedup_threshold_is_clamped_to_unit_interval(given, used, monkeypatch):
    assert resolve_threshold(given) == used
    monkeypatch.setenv("AGENTIC_CONTEXT_DEDUP_THRESHOLD", str(given))
    assert resolve_threshold() == used


def test_dedup_threshold_defaults_to_085():
    assert resolve_threshold() == 0.85


@pytest.mark.parametrize("bad", ["high", "nan", "0,9"])
def test_dedup_threshold_bad_env_value_uses_default_with_warning(bad, monkeypatch, capsys):
    monkeypatch.setenv("AGENTIC_CONTEXT_DEDUP_THRESHOLD", bad)
    assert resolve_threshold() == 0.85
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "AGENTIC_CONTEXT_DEDUP_THRESHOLD" in err


def test_dedup_clamped_threshold_zero_merges_every_non_negative_pair(real_backend):
    assert sim(real_backend, TESTS_BEFORE_COMMIT, SECRETS) > 0
    pb = playbook(
        pat=[entry("pat-001", TESTS_BEFORE_COMMIT, 1)], ctx=[entry("ctx-001", SECRETS, 1)]
    )
    assert run_deduplication(pb, -1, backend=real_backend)["sections"][PAT] == [
        entry("pat-001", TESTS_BEFORE_COMMIT, 2)
    ]


def test_dedup_backend_absent_skips_with_one_warning_and_returns_playbook_unchanged(tmp_path):
    # A real interpreter in which the model runtime cannot be imported.
    script = textwrap.dedent(
        """
        import json, sys
        sys.modules["onnxruntime"] = None  # behaves as "not installed"
        from acecode.dedup import run_deduplication
        pb = {"version": "1.0", "last_updated": None, "sections": {"OTHERS": [
            {"name": "oth-001", "text": "Use uv.", "helpful": 1, "harmful": 0},
            {"name": "oth-002", "text": "Use uv.", "helpful": 2, "harmful": 0}]}}
        print(json.dumps(run_deduplication(pb) == pb))
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=HANG_GUARD,
    )
    assert done.stdout.strip() == "true"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("acecode: semantic de-duplication skipped")
    assert "onnxruntime is not installed (the optional `embed` extra;" in lines[0]
    assert "`acecode doctor` names the command that adds it" in lines[0]


def test_dedup_unknown_backend_name_degrades_too(monkeypatch, capsys):
    monkeypatch.setenv("ACECODE_EMBED_BACKEND", "word2vec")
    pb = playbook(pat=[entry("pat-001", PATHLIB)], oth=[entry("oth-001", PATHLIB)])
    result = deduplicate(pb)
    assert result.playbook == pb and result.skipped and result.groups == []
    assert "ACECODE_EMBED_BACKEND='word2vec'" in capsys.readouterr().err


def test_dedup_entries_outside_canonical_sections_are_left_alone(real_backend):
    pb = playbook(pat=[entry("pat-001", PATHLIB)])
    pb["sections"]["LEGACY"] = [entry("kpt_001", PATHLIB)]
    assert run_deduplication(pb, backend=real_backend) == pb


def test_import_does_not_load_numpy_or_the_model_runtime():
    code = "import sys, acecode.dedup; print(sorted({'numpy', 'onnxruntime'} & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=HANG_GUARD
    )
    assert out.stdout.strip() == "[]"


def test_ctx_constant_is_project_context():
    assert CTX == "PROJECT CONTEXT"  # guards the helper's slug mapping the tests rely on
