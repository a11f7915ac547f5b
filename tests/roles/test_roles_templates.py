"""Template content: SCN-CUR-007-01, SCN-CUR-011-01, REQ-SECT-004, and substitution."""

from __future__ import annotations

import json
import re

import pytest

from acecode.llm.jsonx import extract_json
from acecode.playbook.schema import SECTION_NAMES
from acecode.prompts.templates import load_template
from acecode.recall.pattern import InputPattern
from acecode.roles.prompt import fill_template, split_template
from acecode.roles.reflector import parse_reflection

FIELDS = {
    "reflection.txt": {"trajectories": "TRANSCRIPT-TEXT", "playbook": '{"pat-001": "use types"}'},
    "reflector.txt": {
        "transcript": "TRANSCRIPT-TEXT",
        "playbook": "PLAYBOOK-TEXT",
        "cited_ids": "pat-001",
        "mode": "CITATION-GUIDED",
        "repository": "shop (git remote origin: https://example.org/shop.git)",
        "instructions": "<project-instructions>\n## CLAUDE.md\n- Use pnpm\n</project-instructions>",
    },
    "curator.txt": {
        "reflector_output": '{"analysis": "A"}',
        "playbook": "PLAYBOOK-TEXT",
        "possibly_stale": "- [pat-003] names `src/old.py`, not found in the project",
        "retire_candidates": "- [oth-004] not cited or tagged in the last 20 learned sessions",
        "conflicts": "- [pat-001] and [pat-002]: tabs against spaces",
        "repository": "shop (git remote origin: https://example.org/shop.git)",
        "max_removals": "3 removals",
        "failures": '- F2: Bash `npm test` failed: npm error Missing script: "test"',
        "instructions": "<project-instructions>\n## CLAUDE.md\n- Use pnpm\n</project-instructions>",
    },
}
LEGACY_OPERATION_FIELDS = {
    "ADD": {"type", "text", "section"},
    "UPDATE": {"type", "target_id", "text"},
    "MERGE": {"type", "source_ids", "merged_text", "section"},
    "DELETE": {"type", "target_id", "reason"},
}
# The curator's ADD also names a scope, user or project (the user layer, docs/layers.md);
# ADD, UPDATE and MERGE name the session's moments they come from (refs, issue 26).
OPERATION_FIELDS = {
    **LEGACY_OPERATION_FIELDS,
    "ADD": LEGACY_OPERATION_FIELDS["ADD"] | {"scope", "refs"},
    "UPDATE": LEGACY_OPERATION_FIELDS["UPDATE"] | {"refs"},
    "MERGE": LEGACY_OPERATION_FIELDS["MERGE"] | {"refs"},
}


@pytest.fixture(autouse=True)
def _no_user_overrides(project) -> None:
    """The packaged templates, never a developer's ~/.claude/prompts."""


def rendered(name: str) -> str:
    return fill_template(load_template(name), **FIELDS[name])


def output_example(name: str) -> dict:
    """The JSON example after the "Output format" heading, as the model will read it."""
    text = rendered(name)
    example = extract_json(text[text.index("# Output format") :])
    assert example is not None, "the output example must be valid JSON after substitution"
    return example


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_every_placeholder_is_filled_and_no_brace_escape_survives(name: str) -> None:
    text = rendered(name)
    assert not re.search(r"\{[a-z_]+\}", text), "an unfilled placeholder remains"
    assert "{{" not in text and "}}" not in text
    for value in FIELDS[name].values():
        assert value in text


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_guidance_on_quality_and_secrets(name: str) -> None:
    text = rendered(name).lower()
    assert "never" in text and "secret" in text
    if name != "reflector.txt":
        assert "concrete, reusable coding guidance" in text


def test_scn_cur_007_01_reflection_prompt_has_ids_and_operation_examples() -> None:
    template = load_template("reflection.txt")
    assert "{playbook}" in template and "{trajectories}" in template
    example = output_example("reflection.txt")
    assert set(example) == {"evaluations", "operations"}
    assert isinstance(example["operations"], list)
    types = {op["type"]: set(op) for op in example["operations"]}
    assert types == LEGACY_OPERATION_FIELDS
    text = rendered("reflection.txt")
    assert '"operations": []' in text
    assert "At most 10 operations" in text
    assert '{"pat-001": "use types"}' in text  # entry IDs visible to the model
    assert "IDs shown in the current key points" in text


def test_req_sect_004_reflection_lists_all_sections_exactly() -> None:
    text = rendered("reflection.txt")
    for section in SECTION_NAMES:
        assert f'"{section}"' in text
    assert '{"text": "...", "section": "..."}' in text  # the legacy new_key_points item shape


def test_scn_cur_011_01_curator_template_structure() -> None:
    template = load_template("curator.txt")
    assert "{reflector_output}" in template and "{playbook}" in template
    assert "{transcript}" not in template and "{trajectories}" not in template
    example = output_example("curator.txt")
    assert set(example) == {"reasoning", "operations"}
    assert {op["type"]: set(op) for op in example["operations"]} == OPERATION_FIELDS
    # The optional input pattern, in the --when syntax InputPattern.parse reads.
    patterns = [op["when"] for op in example["operations"] if "when" in op]
    assert [str(InputPattern.parse(p)) for p in patterns] == patterns
    text = rendered("curator.txt")
    assert "At most 10 operations" in text
    assert "At most 3 removals this cycle" in text
    assert '"operations": []' in text
    for section in SECTION_NAMES:
        assert f'"{section}"' in text


def test_reflector_template_structure() -> None:
    template = load_template("reflector.txt")
    for placeholder in ("{transcript}", "{playbook}", "{cited_ids}", "{mode}", "{repository}"):
        assert placeholder in template
    assert "CITATION-GUIDED" in template and "CONTENT-BASED" in template
    # The lean format: short findings and one-line tags, read into the contract's shape.
    example = output_example("reflector.txt")
    assert set(example) == {"findings", "tags"}
    reflection = parse_reflection(example)
    assert set(reflection) == {"analysis", "bullet_tags"}
    assert reflection["analysis"].count("\n- ") == len(example["findings"]) - 1
    assert [tag["name"] for tag in reflection["bullet_tags"]] == ["pat-002", "pref-001"]
    assert {tag["tag"] for tag in reflection["bullet_tags"]} == {"harmful", "helpful"}
    assert all(tag["rationale"] for tag in reflection["bullet_tags"])
    for tag in ("helpful", "harmful", "neutral"):
        assert f'"{tag}"' in template


@pytest.mark.parametrize("name", ["reflector.txt", "curator.txt"])
def test_fixed_instructions_come_first_and_every_placeholder_after_them(name: str) -> None:
    """The cacheable head holds the whole of the role's instructions and output format,
    and no field: it is the same text in every cycle, of every project."""
    head, rest = split_template(load_template(name))
    assert "# Output format" in head and "Answer with one JSON object" in head
    assert not re.search(r"(?<!\{)\{[a-z_]+\}", head)
    for field in FIELDS[name]:
        assert "{" + field + "}" in rest


def test_fill_template_substitutes_once_and_keeps_unknown_placeholders() -> None:
    text = fill_template("{a} {b} {{x}} {unknown}", a="{b}", b='{"k": 1}')
    assert text == '{b} {"k": 1} {x} {unknown}'


def test_filled_examples_parse_as_json_for_every_operation() -> None:
    for name in ("reflection.txt", "curator.txt"):
        for op in output_example(name)["operations"]:
            json.dumps(op)  # plain JSON values only
            assert op["type"] in OPERATION_FIELDS
            if op["type"] == "MERGE":
                assert len(op["source_ids"]) >= 2
