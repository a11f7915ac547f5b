"""An entry's triggers from its provenance, and the recall index's cheap pre-check."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from acecode.recall.gate import may_match
from acecode.recall.literals import required_literal
from acecode.recall.pattern import InputPattern
from acecode.recall.triggers import informative, triggers_of
from acecode.store.provenance import Origin, parse_ledger
from recall.recall_helpers import NPM_ERROR, failure_origin

ENTRY = {"name": "mis-001", "text": "Run the tests with make check.", "helpful": 1, "harmful": 0}


def test_a_failure_in_provenance_is_a_trigger_with_impacts_signature() -> None:
    (trigger,) = triggers_of(ENTRY, [failure_origin("Bash", "cd web && npm test", NPM_ERROR)])[0]
    assert (trigger.tool, trigger.head) == ("Bash", "npm test")
    assert trigger.error.startswith("npm error Missing script")
    assert trigger.words()[:3] == ["npm", "error", "Missing"]


def test_an_error_that_says_nothing_gives_no_trigger() -> None:
    for error in ("Exit code 1", "Exit code 2\n", "error: <path>", "FAILED"):
        origin = failure_origin("Bash", "make", error)
        assert triggers_of(ENTRY, [origin]).failures == (), error
    assert not informative("Exit code <n>") and informative("cd: build: No such file")


def test_a_file_tools_trigger_names_the_file() -> None:
    missing = "File does not exist. Note: your current working directory is /p."
    origin = failure_origin("Read", "/p/docs/status.md", missing)
    (trigger,) = triggers_of(ENTRY, [origin]).failures
    assert trigger.file == "status.md" and trigger.key.endswith("(status.md)")


def test_the_last_when_decides_and_an_empty_one_leaves_none() -> None:
    first = {"tool": "Bash", "field": "command", "pattern": r"^npm test\b"}
    second = {"tool": "Read", "pattern": r"(^|/)package\.json$"}
    bad = [{"tool": "Bash", "pattern": ".*"}, {"tool": "Nope", "pattern": "x"}, "Bash:x"]
    origins = [failure_origin("Bash", "npm test", NPM_ERROR, when=[first, *bad])]
    assert triggers_of(ENTRY, origins).patterns == (InputPattern.from_dict(first),)
    origins.append(failure_origin("Bash", "npm test", NPM_ERROR))  # no when: no change
    assert triggers_of(ENTRY, origins).patterns == (InputPattern.from_dict(first),)
    origins.append({**origins[0], "when": [second, first]})
    assert len(triggers_of(ENTRY, origins).patterns) == 2
    origins.append({**origins[0], "when": [second]})
    assert triggers_of(ENTRY, origins).patterns == (InputPattern.from_dict(second),)
    origins.append({**origins[0], "when": []})
    assert triggers_of(ENTRY, origins).patterns == ()
    assert triggers_of(ENTRY, origins).failures  # the failure trigger stays


def test_origins_keep_their_patterns_through_the_provenance_file(tmp_path) -> None:
    when = [{"tool": "Edit", "field": "old_string", "pattern": "^import os$"}]
    text = (
        '{"version": 1, "entries": {"mis-001": {"origins": ['
        + ",".join(
            json.dumps(o)
            for o in (
                failure_origin("Bash", "x", "boom", when=when),
                failure_origin("Bash", "x", "boom"),
            )
        )
        + "]}}}"
    )
    ledger = parse_ledger(text, tmp_path / "provenance.json")
    with_when, without = ledger.entries["mis-001"]
    assert with_when.when == (("Edit", "old_string", "^import os$"),) and without.when is None
    again = parse_ledger(ledger.serialize(), tmp_path / "provenance.json")
    assert again.entries == ledger.entries
    assert "when" not in without.as_dict() and with_when.as_dict()["when"] == when
    assert triggers_of(ENTRY, again.entries["mis-001"]).patterns == (
        InputPattern("Edit", "^import os$", "old_string"),
    )
    assert isinstance(with_when, Origin)


def test_required_literal_of_typical_patterns() -> None:
    assert required_literal(r"(^|/)status\.md$") == ("status.md", False)
    assert required_literal(r"^cd\s+(\./)?{cwd_name}/?(\s|$)") == ("{cwd_name}", False)
    assert required_literal(r"(?i)\bnpm\s+test") == ("test", True)
    assert required_literal(r"^(make|cmake)\b") == ("", False)
    assert required_literal(r"(ab)+c") == ("ab", False)


PATTERNS = [
    r"(^|/)status\.md$",
    r"^cd\s+(\./)?{cwd_name}/?(\s|$|&&|;)",
    r"(?i)npm\s+(run\s+)?test",
    r"git push\b.*--force",
    r"^(make|cmake)\b",
    r"a{2}b+(cd)?e",
    r"x[yz]+w",
]


@given(
    st.sampled_from(PATTERNS),
    st.text(alphabet="abcdeimnpstuwxyzkgf/.-_ &|;:\\(){}[]?+*^$MSTAU", max_size=40),
    st.sampled_from(["", "/p/build", "/p/make"]),
)
def test_the_pre_check_never_rules_out_a_call_the_pattern_matches(
    source: str, text: str, cwd: str
) -> None:
    """The fast path may let a call through that the pattern then refuses, never the
    other way round."""
    pattern = InputPattern("Bash", source)
    literal, fold = required_literal(source)
    for candidate in (text, f"cd {cwd.rsplit('/', 1)[-1]} && {text}", f"npm test {text}"):
        if pattern.regex(cwd).search(candidate):
            assert may_match(candidate, literal, fold, cwd), (source, candidate)
