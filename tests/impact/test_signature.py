"""Failure signatures of the failed calls of real transcripts (failure_signatures.json)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acecode.impact.signature import (
    command_head,
    error_line,
    is_not_a_failure,
    normalise_error,
    signature_of,
)

CORPUS = Path(__file__).parents[1] / "data" / "failure_signatures.json"
CASES = json.loads(CORPUS.read_text(encoding="utf-8"))["cases"]
FAILURES = [case for case in CASES if not case.get("not_a_failure")]


def _key(case: dict) -> str:
    return signature_of(case["tool"], case["command"], case["output"]).key


def test_corpus_holds_every_failed_call_of_the_shared_transcripts() -> None:
    # 127 failed tool_result blocks in ../shared/transcripts (its SOURCES.md counts them).
    assert len(CASES) == 127
    assert len({case["source"] for case in CASES}) == 21


@pytest.mark.parametrize("case", FAILURES, ids=lambda c: f"{c['tool']}:{c['expected'][:40]}")
def test_real_failed_call_gets_its_reviewed_signature(case: dict) -> None:
    assert _key(case) == case["expected"]


def test_declined_and_cancelled_calls_are_not_failures() -> None:
    declined = [case for case in CASES if case.get("not_a_failure")]
    assert len(declined) == 20
    assert all(is_not_a_failure(case["output"]) for case in declined)
    assert not any(is_not_a_failure(case["output"]) for case in FAILURES)


def _sessions_by_key() -> dict[str, set[str]]:
    sources: dict[str, set[str]] = defaultdict(set)
    for case in FAILURES:
        sources[_key(case)].add(case["source"].split("/subagents/")[0])
    return sources


def test_git_push_without_upstream_is_one_signature_across_three_branches() -> None:
    pushes = [c for c in FAILURES if c["command"].startswith("git push")]
    branches = {c["output"].split("current branch ")[1].split()[0] for c in pushes}
    assert len(branches) == 3  # spotter-gqc, spotter-dov, spotter-fum
    keys = {_key(c) for c in pushes}
    assert keys == {"Bash | git push | fatal: The current branch <name> has no upstream branch"}
    assert len(_sessions_by_key()[keys.pop()]) == 3


def test_edit_before_read_recurs_across_sessions_whatever_the_file() -> None:
    key = "Edit | File has not been read yet. Read it first before writing to it"
    assert len(_sessions_by_key()[key]) == 4


def test_status_codes_and_paths_vary_but_the_signature_does_not() -> None:
    fetches = {_key(c) for c in FAILURES if c["tool"] == "WebFetch"}
    assert fetches == {"WebFetch | Request failed with status code <n>"}
    not_found = [
        c for c in FAILURES if c["output"].startswith("ERROR: file or directory not found")
    ]
    assert len({c["output"].splitlines()[0] for c in not_found}) == 2
    assert {_key(c) for c in not_found} == {
        "Bash | uv run pytest | ERROR: file or directory not found: <path>"
    }


def test_different_failures_keep_different_signatures() -> None:
    keys = {_key(c) for c in FAILURES}
    assert len(keys) >= 50
    not_installed = "Bash | pytest | <path>: line <n>: pytest: command not found"
    assert not_installed in keys
    assert not any(
        k.startswith("Bash | pytest | <path>: line") and k != not_installed for k in keys
    )


@pytest.mark.parametrize(
    ("command", "head"),
    [
        ("cd myapp && python hoge.py", "python"),
        ("uv run pytest test/test_x.py -v", "uv run pytest"),
        ("(source .venv/bin/activate && pytest -x)", "pytest"),
        ("git push 2>&1", "git push"),
        ("FOO=1 BAR=x npm run build", "npm run build"),
        ("python -m pytest -q tests/impact", "python -m pytest"),
        ("/usr/local/bin/mix phx.server 2>&1 | head -80", "mix phx.server"),
        ("git commit -m \"$(cat <<'EOF'\nfeat: x\nEOF\n)\"", "git commit"),
        ("sudo apt-get install -y chromium", "apt-get install"),
        ("cd /a/b", ""),
        ("echo 'unbalanced", "echo"),
    ],
)
def test_command_head(command: str, head: str) -> None:
    assert command_head(command) == head


@pytest.mark.parametrize(
    ("line", "normalised"),
    [
        ("Error: Cannot find module 'jest'", "Error: Cannot find module <q>"),
        (
            '/Users/a/proj/src/x.py:184:17 - error: Type of "v" is unknown',
            "<path> - error: Type of <q> is unknown",
        ),
        ("grep: src/app/renderer.py: No such file", "grep: <path>: No such file"),
        ("cannot open C:\\Users\\me\\file.txt", "cannot open <path>"),
        ("see ~/.claude/settings.json", "see <path>"),
        ("fetch https://example.com/a?b=1 failed (504)", "fetch <url> failed (<n>)"),
        ("No task found with ID: ac27727", "No task found with ID: <hash>"),
        ("commit 3f9a2b1c0d not found", "commit <hash> not found"),
        ("session 0ccf1a04-1b4c-43b6-8aa5-79e41db43a68 gone", "session <id> gone"),
        ('time="2025-06-15T00:46:15+01:00" boom', "time=<q> boom"),
        ("at 2025-06-15T00:46:15Z it broke", "at <time> it broke"),
        ("can't open renderer.py", "can't open <path>"),
        ("Resolved 4 packages in 55ms", "Resolved <n> packages in <n>ms"),
    ],
)
def test_normalise_error(line: str, normalised: str) -> None:
    assert normalise_error(line) == normalised


def test_error_line_prefers_the_exception_of_a_traceback() -> None:
    output = (
        "Exit code 1\nTraceback (most recent call last):\n"
        '  File "/x/y.py", line 3, in <module>\n    import jest\n'
        "ModuleNotFoundError: No module named 'jest'"
    )
    assert error_line(output) == "ModuleNotFoundError: No module named 'jest'"


def test_error_line_skips_banners_and_warnings() -> None:
    output = (
        'npm warn Unknown env config "store-dir".\n> app@1.0 build\n> next build\n'
        "Failed to compile.\n./src/a.tsx:3:1\nType error: bad"
    )
    assert error_line(output) == "Failed to compile."


def test_provenance_evidence_links_to_the_full_transcript_output() -> None:
    """The provenance store keeps only the command and one error line (redacted, clipped):
    its signature must equal the one computed from the whole output in the transcript."""
    push = next(c for c in FAILURES if c["command"].startswith("git push"))
    evidence_line = next(line for line in push["output"].splitlines() if "fatal" in line)
    evidence = signature_of("Bash", "git push --set-upstream-not-given", evidence_line)
    assert evidence == signature_of("Bash", push["command"], push["output"])


_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-", min_size=1, max_size=12)


@given(code=st.integers(0, 10**9), name=_NAME, folder=_NAME, line=st.integers(1, 99999))
def test_only_the_varying_parts_change_and_they_never_change_the_key(
    code: int, name: str, folder: str, line: int
) -> None:
    text = f"Exit code {code}\nerror: cannot read '{name}' at /home/{folder}/{name}.py:{line}"
    assert normalise_error(error_line(text)) == "error: cannot read <q> at <path>"


@given(st.text(max_size=300))
def test_normalising_is_idempotent_and_one_line(text: str) -> None:
    once = normalise_error(text)
    assert "\n" not in once
    assert normalise_error(once) == once
