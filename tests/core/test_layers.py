"""The layer rules: u- names, routing by scope and name, combining for the roles and injection."""

from __future__ import annotations

from pathlib import Path

from acecode.playbook.operations import apply_operations_with_outcomes
from acecode.playbook.schema import generate_keypoint_name, max_slug_numbers
from acecode.project.layers import (
    combine,
    is_user_layer,
    layer_of,
    name_prefix_for,
    route_operations,
    route_tags,
    user_playbook_file,
)


def _playbook(*entries: tuple[str, str]) -> dict:
    sections: dict = {"USER PREFERENCES": []}
    for name, text in entries:
        sections["USER PREFERENCES"].append(
            {"name": name, "text": text, "helpful": 0, "harmful": 0}
        )
    return {"version": "1.0", "last_updated": None, "sections": sections}


def test_the_user_layer_lives_in_the_users_config_folder_with_its_own_state(home_dir: Path):
    path = Path(user_playbook_file())
    assert path == home_dir / ".claude" / "acecode-user" / "playbook.json"
    assert is_user_layer(path) and name_prefix_for(path) == "u-"
    assert name_prefix_for(home_dir / ".claude" / "playbook.json") == ""


def test_user_adds_get_u_names_and_project_adds_keep_the_spec_names():
    playbook = _playbook(("pref-001", "a"), ("u-pref-004", "b"))
    add = [{"type": "ADD", "text": "c", "section": "USER PREFERENCES"}]

    _, as_user = apply_operations_with_outcomes(playbook, add, "u-")
    _, as_project = apply_operations_with_outcomes(playbook, add)

    assert as_user[0].created["name"] == "u-pref-005"
    assert as_project[0].created["name"] == "pref-002"
    # The spec's generator is unchanged: u- names never move a project counter.
    assert generate_keypoint_name(playbook["sections"]["USER PREFERENCES"], "pref") == "pref-002"
    assert max_slug_numbers(playbook["sections"]["USER PREFERENCES"])["pref"] == 1


def test_operations_route_by_scope_and_by_the_names_they_target():
    ops = [
        {"type": "ADD", "text": "a", "scope": "user"},
        {"type": "ADD", "text": "b", "scope": " User "},
        {"type": "ADD", "text": "c"},
        {"type": "ADD", "text": "d", "scope": "team"},
        {"type": "UPDATE", "target_id": "u-pref-001", "text": "e"},
        {"type": "DELETE", "target_id": "pat-001"},
        {"type": "MERGE", "source_ids": ["u-pref-001", "u-pref-002"], "merged_text": "f"},
        {"type": "MERGE", "source_ids": ["pat-001", "u-pref-002"], "merged_text": "g"},
        "not an operation",
    ]
    routed = route_operations(ops)

    assert routed.user == [ops[0], ops[1], ops[4], ops[6]]
    assert routed.project == [ops[2], ops[3], ops[5], ops[8]]
    assert [op for op, _ in routed.refused] == [ops[7]]


def test_tags_route_by_name_and_layer_of_says_where_a_name_lives():
    tags = [{"name": "u-pref-001", "tag": "helpful"}, {"name": "pat-001", "tag": "harmful"}, 3]
    routed = route_tags(tags)
    assert routed.user == [tags[0]] and routed.project == [tags[1], 3]
    assert (layer_of("u-pref-001"), layer_of("pref-001"), layer_of(None)) == (
        "user",
        "project",
        "project",
    )


def test_combine_keeps_every_entry_of_both_layers_once_project_first():
    project, user = _playbook(("pref-001", "a")), _playbook(("u-pref-001", "b"))

    both = combine(project, user)

    assert [e["name"] for e in both["sections"]["USER PREFERENCES"]] == ["pref-001", "u-pref-001"]
    assert combine(project, None) is project and combine(None, user) is user
    assert project["sections"]["USER PREFERENCES"][0]["name"] == "pref-001"  # not edited
