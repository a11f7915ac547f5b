"""The three-way playbook merge by entry name (``acecode.playbook.merge3``), pure.

One test per rule of docs/team.md, then properties over generated histories:
merging a playbook with itself is the identity, a side that changed nothing
gives the other side, and no text either side introduced is lost (it is in
the result or held for review).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acecode.playbook.merge3 import DuplicateNameError, merge_playbooks
from acecode.playbook.schema import SECTION_NAMES
from acecode.store.migrate import migrate_playbook
from acecode.store.playbook_file import serialize_playbook
from support.playbooks import CTX, MIS, PAT, find, make_playbook, names
from support.playbooks import entry as kp

BASE = make_playbook(
    pat=[kp("pat-001", "Run the tests first", 2, 0), kp("pat-002", "Use ruff", 1, 1)],
    mis=[kp("mis-001", "Never edit generated files", 0, 3)],
)


def edited(playbook: dict[str, Any], name: str, **changes: Any) -> dict[str, Any]:
    """A copy of ``playbook`` with entry ``name`` changed (``section=`` moves it)."""
    copied = copy.deepcopy(playbook)
    section = changes.pop("section", None)
    for entries in copied["sections"].values():
        for position, entry in enumerate(entries):
            if entry["name"] == name:
                entries[position] = {**entry, **changes}
                if section:
                    copied["sections"][section].append(entries.pop(position))
                return copied
    raise KeyError(name)


def without(playbook: dict[str, Any], name: str) -> dict[str, Any]:
    copied = copy.deepcopy(playbook)
    for section, entries in copied["sections"].items():
        copied["sections"][section] = [entry for entry in entries if entry["name"] != name]
    return copied


def added(playbook: dict[str, Any], section: str, entry: dict[str, Any]) -> dict[str, Any]:
    copied = copy.deepcopy(playbook)
    copied["sections"][section].append(entry)
    return copied


def entry(playbook: dict[str, Any], name: str) -> dict[str, Any]:
    found = find(playbook, name)
    assert found is not None, f"{name} missing from {names(playbook)}"
    return found[1]


def test_counters_add_both_sides_increments_to_the_base() -> None:
    ours = edited(BASE, "pat-001", helpful=5)  # +3
    theirs = edited(BASE, "pat-001", helpful=3, harmful=1)  # +1, +1
    result = merge_playbooks(BASE, ours, theirs)
    assert entry(result.playbook, "pat-001") == kp("pat-001", "Run the tests first", 6, 1)
    assert result.review == []


def test_counters_never_go_below_zero() -> None:
    ours = edited(BASE, "mis-001", harmful=0)  # -3 (hand-edited down)
    theirs = edited(BASE, "mis-001", harmful=1)  # -2
    result = merge_playbooks(BASE, ours, theirs)
    assert entry(result.playbook, "mis-001")["harmful"] == 0


def test_the_same_increment_on_both_sides_counts_twice() -> None:
    """Two sessions that each rated the rule once: counters are increments, both count."""
    both = edited(BASE, "pat-001", helpful=3)  # +1 on each branch
    result = merge_playbooks(BASE, both, copy.deepcopy(both))
    assert entry(result.playbook, "pat-001") == kp("pat-001", "Run the tests first", 4, 0)
    assert result.review == []


def test_a_text_edited_on_one_side_takes_that_edit() -> None:
    ours = edited(BASE, "pat-001", helpful=3)
    theirs = edited(BASE, "pat-001", text="Run the fast tests first")
    result = merge_playbooks(BASE, ours, theirs)
    assert entry(result.playbook, "pat-001") == kp("pat-001", "Run the fast tests first", 3, 0)
    assert result.review == []
    mirrored = merge_playbooks(BASE, theirs, ours)
    assert entry(mirrored.playbook, "pat-001") == entry(result.playbook, "pat-001")


def test_the_same_edit_on_both_sides_is_taken_once_without_review() -> None:
    ours = edited(BASE, "pat-002", text="Use ruff for lint and format", helpful=2)
    theirs = edited(BASE, "pat-002", text="Use ruff for lint and format")
    result = merge_playbooks(BASE, ours, theirs)
    assert entry(result.playbook, "pat-002") == kp("pat-002", "Use ruff for lint and format", 2, 1)
    assert result.review == []


def test_a_text_edited_differently_on_both_sides_keeps_ours_and_holds_theirs() -> None:
    ours = edited(BASE, "pat-001", text="Run the unit tests first", helpful=3)
    theirs = edited(BASE, "pat-001", text="Run the whole suite first", helpful=4)
    result = merge_playbooks(BASE, ours, theirs)
    assert entry(result.playbook, "pat-001") == kp("pat-001", "Run the unit tests first", 5, 0)
    [held] = result.review
    assert (held.name, held.kind, held.side, held.operation) == (
        "pat-001",
        "edited-both",
        "theirs",
        "UPDATE",
    )
    assert (held.text, held.section, held.kept) == (
        "Run the whole suite first",
        PAT,
        "Run the unit tests first",
    )
    assert (held.helpful, held.harmful) == (4, 0)


def test_the_same_new_id_with_different_texts_renumbers_theirs() -> None:
    ours = added(BASE, PAT, kp("pat-003", "Pin the Python version", 1))
    theirs = added(BASE, PAT, kp("pat-003", "Cache the virtualenv in CI", 2))
    theirs = added(theirs, MIS, kp("mis-002", "Do not commit .env"))
    result = merge_playbooks(BASE, ours, theirs)
    assert entry(result.playbook, "pat-003") == kp("pat-003", "Pin the Python version", 1)
    assert entry(result.playbook, "pat-004") == kp("pat-004", "Cache the virtualenv in CI", 2)
    assert entry(result.playbook, "mis-002")["text"] == "Do not commit .env"
    [renumbered] = result.renumbered
    assert (renumbered.old, renumbered.new, renumbered.section) == ("pat-003", "pat-004", PAT)
    assert result.review == []


def test_renumbering_skips_every_id_any_side_has_used() -> None:
    """A fresh ID never reuses one a side deleted: history and restore go by name."""
    base = added(BASE, PAT, kp("pat-007", "Old rule"))
    ours = added(without(base, "pat-007"), PAT, kp("pat-003", "Ours"))
    theirs = added(base, PAT, kp("pat-003", "Theirs"))
    result = merge_playbooks(base, ours, theirs)
    assert [r.new for r in result.renumbered] == ["pat-008"]


def test_the_same_new_id_with_the_same_text_is_one_entry() -> None:
    ours = added(BASE, CTX, kp("ctx-001", "The API lives in src/api", 1))
    theirs = added(BASE, CTX, kp("ctx-001", "The API lives in src/api", 2))
    result = merge_playbooks(BASE, ours, theirs)
    assert result.playbook["sections"][CTX] == [kp("ctx-001", "The API lives in src/api", 3)]
    assert result.renumbered == []


def test_the_same_new_text_under_different_ids_is_one_entry() -> None:
    """Both branches learned the same lesson, numbered differently: one entry."""
    ours = added(BASE, PAT, kp("pat-003", "Use uv to install", 1))
    ours = added(ours, PAT, kp("pat-004", "Prefer pathlib", 0))
    theirs = added(BASE, PAT, kp("pat-003", "Prefer pathlib", 2))
    theirs = added(theirs, PAT, kp("pat-004", "Use uv to install", 1))
    result = merge_playbooks(BASE, ours, theirs)
    assert result.playbook["sections"][PAT][2:] == [
        kp("pat-003", "Use uv to install", 2),
        kp("pat-004", "Prefer pathlib", 2),
    ]
    assert result.folded == {"pat-003": "pat-004", "pat-004": "pat-003"}
    assert result.renumbered == []


@pytest.mark.parametrize("deleting", ["ours", "theirs"])
def test_a_deletion_stands_when_the_other_side_left_the_entry_alone(deleting: str) -> None:
    deleted, untouched = without(BASE, "pat-002"), edited(BASE, "pat-001", helpful=9)
    ours, theirs = (deleted, untouched) if deleting == "ours" else (untouched, deleted)
    result = merge_playbooks(BASE, ours, theirs)
    assert find(result.playbook, "pat-002") is None
    assert result.deleted == ["pat-002"]
    assert result.review == []


@pytest.mark.parametrize(
    "change",
    [{"text": "Use ruff, not flake8"}, {"helpful": 4}, {"section": "OTHERS"}],
    ids=["text", "counters", "section"],
)
@pytest.mark.parametrize("deleting", ["ours", "theirs"])
def test_a_deletion_against_a_change_stands_and_holds_the_changed_entry(
    deleting: str, change: dict[str, Any]
) -> None:
    """Any change on the other side (text, counters, move) sends its version to review."""
    deleted, changed = without(BASE, "pat-002"), edited(BASE, "pat-002", **change)
    ours, theirs = (deleted, changed) if deleting == "ours" else (changed, deleted)
    result = merge_playbooks(BASE, ours, theirs)
    assert find(result.playbook, "pat-002") is None
    [held] = result.review
    changed_entry = entry(changed, "pat-002")
    assert (held.name, held.kind, held.operation, held.kept) == (
        "pat-002",
        "deleted-edited",
        "ADD",
        None,
    )
    assert held.side == ("theirs" if deleting == "ours" else "ours")
    assert (held.text, held.helpful) == (changed_entry["text"], changed_entry["helpful"])
    assert held.section == change.get("section", PAT)


def test_an_entry_moved_on_one_side_takes_the_move() -> None:
    ours = edited(BASE, "pat-002", section=MIS)
    theirs = edited(BASE, "pat-002", text="Use ruff for everything", helpful=2)
    result = merge_playbooks(BASE, ours, theirs)
    assert [e["name"] for e in result.playbook["sections"][MIS]] == ["mis-001", "pat-002"]
    assert entry(result.playbook, "pat-002") == kp("pat-002", "Use ruff for everything", 2, 1)
    assert names(result.playbook, PAT) == ["pat-001"]


def test_an_entry_moved_to_two_sections_stays_in_ours() -> None:
    result = merge_playbooks(
        BASE, edited(BASE, "pat-002", section=MIS), edited(BASE, "pat-002", section=CTX)
    )
    assert names(result.playbook, MIS) == ["mis-001", "pat-002"]
    assert names(result.playbook, CTX) == []


def test_order_is_ours_then_theirs_new_entries() -> None:
    ours = added(BASE, PAT, kp("pat-003", "Ours new"))
    theirs = added(BASE, PAT, kp("pat-010", "Theirs new"))
    result = merge_playbooks(BASE, ours, theirs)
    assert names(result.playbook, PAT) == ["pat-001", "pat-002", "pat-003", "pat-010"]


def test_top_level_fields_merge_three_way() -> None:
    base = {**BASE, "last_updated": "2025-01-01T10:00:00+00:00", "team": "core"}
    ours = {**base, "last_updated": "2025-01-03T10:00:00+00:00"}
    theirs = {**base, "last_updated": "2025-01-05T09:00:00+01:00", "team": "platform"}
    result = merge_playbooks(base, ours, theirs)
    assert result.playbook["last_updated"] == "2025-01-05T09:00:00+01:00"
    assert result.playbook["team"] == "platform"


def test_inputs_are_not_modified() -> None:
    ours = edited(BASE, "pat-001", text="Ours")
    theirs = added(edited(BASE, "pat-001", text="Theirs"), PAT, kp("pat-003", "x"))
    snapshot = copy.deepcopy((BASE, ours, theirs))
    merge_playbooks(BASE, ours, theirs)
    assert (BASE, ours, theirs) == snapshot


def test_a_duplicated_name_refuses_the_merge() -> None:
    theirs = added(BASE, MIS, kp("pat-001", "Same name twice"))
    with pytest.raises(DuplicateNameError, match="theirs: entry name 'pat-001'"):
        merge_playbooks(BASE, BASE, theirs)


class TestVirtualBase:
    """git's internal merge of two merge bases: a real merge, text and section
    conflicts falling back to the ancestor, nothing held."""

    def test_a_text_conflict_keeps_the_ancestor_text_and_holds_nothing(self) -> None:
        ours = edited(BASE, "pat-001", text="Run the unit tests first", helpful=3)
        theirs = edited(BASE, "pat-001", text="Run the whole tests first", helpful=4)
        result = merge_playbooks(BASE, ours, theirs, virtual_base=True)
        assert entry(result.playbook, "pat-001") == kp("pat-001", "Run the tests first", 5, 0)
        assert result.review == []

    def test_a_deletion_against_a_change_deletes_as_the_real_merge_does(self) -> None:
        """Both real merges of the two bases deleted it: so does the base they share."""
        ours, theirs = without(BASE, "pat-002"), edited(BASE, "pat-002", text="Use ruff always")
        result = merge_playbooks(BASE, ours, theirs, virtual_base=True)
        assert find(result.playbook, "pat-002") is None
        assert result.review == []

    def test_a_clash_of_new_ids_keeps_both_with_their_counters(self) -> None:
        """Left out, the outer merge would see both as new on both sides and add them twice."""
        ours = added(BASE, PAT, kp("pat-003", "Pin the Python version", 2))
        theirs = added(BASE, PAT, kp("pat-003", "Cache the virtualenv", 3))
        result = merge_playbooks(BASE, ours, theirs, virtual_base=True)
        assert entry(result.playbook, "pat-003") == kp("pat-003", "Pin the Python version", 2)
        assert entry(result.playbook, "pat-004") == kp("pat-004", "Cache the virtualenv", 3)
        assert result.review == []

    def test_sections_moved_apart_fall_back_to_the_ancestor_section(self) -> None:
        result = merge_playbooks(
            BASE,
            edited(BASE, "pat-002", section=MIS),
            edited(BASE, "pat-002", section=CTX),
            virtual_base=True,
        )
        assert "pat-002" in names(result.playbook, PAT)


class TestCrissCross:
    """The issue's history, merge by merge as git runs them (tests/team runs it in git)."""

    X = added(BASE, PAT, kp("pat-003", "Pin the Python version", 3))  # branch x adds A
    Y = added(BASE, PAT, kp("pat-003", "Cache the virtualenv", 2))  # branch y adds B

    def test_merged_both_ways_then_merged_again_counts_each_rule_once(self) -> None:
        on_x = merge_playbooks(BASE, self.X, self.Y).playbook  # A pat-003, B pat-004
        on_y = merge_playbooks(BASE, self.Y, self.X).playbook  # B pat-003, A pat-004
        virtual = merge_playbooks(BASE, self.X, self.Y, virtual_base=True).playbook
        outer = merge_playbooks(virtual, on_x, on_y)
        assert [(e["text"], e["helpful"]) for e in outer.playbook["sections"][PAT][2:]] == [
            ("Pin the Python version", 3),
            ("Cache the virtualenv", 2),
        ]
        assert outer.review == []

    def test_ratings_after_the_criss_cross_add_once_whatever_id_each_side_gave(self) -> None:
        on_x = edited(merge_playbooks(BASE, self.X, self.Y).playbook, "pat-004", helpful=5)
        on_y = edited(merge_playbooks(BASE, self.Y, self.X).playbook, "pat-004", helpful=4)
        virtual = merge_playbooks(BASE, self.Y, self.X, virtual_base=True).playbook
        outer = merge_playbooks(virtual, on_x, on_y).playbook
        assert entry(outer, "pat-003") == kp("pat-003", "Pin the Python version", 4)  # 3 + 1
        assert entry(outer, "pat-004") == kp("pat-004", "Cache the virtualenv", 5)  # 2 + 3


def test_an_entry_renumbered_by_an_earlier_merge_is_found_by_its_text() -> None:
    """The branch that lost a clash merges back: its rule takes the new ID, counters add."""
    y = added(BASE, PAT, kp("pat-003", "Cache the virtualenv", 2))
    merged_on_x = added(
        edited(y, "pat-003", text="Pin the Python version", helpful=1),
        PAT,
        kp("pat-004", "Cache the virtualenv", 2),
    )
    rated_on_y = edited(y, "pat-003", helpful=3)
    result = merge_playbooks(y, rated_on_y, merged_on_x)
    assert entry(result.playbook, "pat-003") == kp("pat-003", "Pin the Python version", 1)
    assert entry(result.playbook, "pat-004") == kp("pat-004", "Cache the virtualenv", 3)
    [renamed] = result.renamed
    assert (renamed.old, renamed.new) == ("pat-003", "pat-004")
    assert result.review == []


def test_an_entry_renumbered_and_edited_is_found_by_its_words() -> None:
    y = added(BASE, PAT, kp("pat-003", "Cache the virtualenv between CI runs", 2))
    on_x = added(
        edited(y, "pat-003", text="Pin the Python version", helpful=1),
        PAT,
        kp("pat-004", "Cache the virtualenv between all CI runs", 2),
    )
    result = merge_playbooks(y, edited(y, "pat-003", helpful=4), on_x)
    assert entry(result.playbook, "pat-004") == kp(
        "pat-004", "Cache the virtualenv between all CI runs", 4
    )
    assert entry(result.playbook, "pat-003")["text"] == "Pin the Python version"


def test_an_id_a_deletion_freed_and_a_new_rule_took_is_not_an_edit() -> None:
    """pat-002 deleted, a new rule got pat-002 (max + 1): the other side's rating of
    the old rule is not given to the new one; it waits in review with the old text."""
    ours = added(without(BASE, "pat-002"), PAT, kp("pat-002", "Prefer pathlib over os.path"))
    theirs = edited(BASE, "pat-002", helpful=4)
    result = merge_playbooks(BASE, ours, theirs)
    assert entry(result.playbook, "pat-002") == kp("pat-002", "Prefer pathlib over os.path")
    [held] = result.review
    assert (held.kind, held.text, held.helpful) == ("deleted-edited", "Use ruff", 4)


# --- properties over generated histories -------------------------------------------------

TEXTS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta")
# Rules with no word in common, for the properties that follow entries by name: an
# edit appends a word, so an edited rule still shares most of its words with its base.
RULES = (
    "Run pytest before pushing",
    "Format code with ruff",
    "Never commit secrets",
    "Pin dependency versions exactly",
    "Prefer pathlib over string paths",
)
NEW_RULES = ("Cache the virtualenv", "Review migrations twice", "Log every retry", "Avoid mocks")
BASE_NAMES = ("pat-001", "pat-002", "mis-001", "pref-001", "kpt_001")
NEW_NAMES = ("pat-003", "pat-004", "mis-002", "oth-001")
counters = st.integers(min_value=0, max_value=6)
sections = st.sampled_from(SECTION_NAMES)
Entries = dict[str, tuple[str, str, int, int]]  # name -> (section, text, helpful, harmful)


def build(entries: Entries, order: list[str]) -> dict[str, Any]:
    playbook = make_playbook()
    for name in order:
        section, text, helpful, harmful = entries[name]
        playbook["sections"][section].append(kp(name, text, helpful, harmful))
    return playbook


@st.composite
def base_entries(draw: st.DrawFn, distinct: bool) -> Entries:
    chosen = draw(st.lists(st.sampled_from(BASE_NAMES), unique=True, max_size=len(BASE_NAMES)))
    if distinct:
        texts = list(draw(st.permutations(RULES)))
    else:
        texts = [draw(st.sampled_from(TEXTS)) for _ in chosen]
    return {
        name: (draw(sections), text, draw(counters), draw(counters))
        for name, text in zip(chosen, texts, strict=False)
    }


@st.composite
def side_of(draw: st.DrawFn, base: Entries, distinct: bool) -> dict[str, Any]:
    """One branch's playbook: the base with random deletions, edits, moves and additions."""
    entries: Entries = {}
    for name, (section, text, helpful, harmful) in base.items():
        action = draw(st.sampled_from(("keep", "delete", "text", "counters", "move", "all")))
        if action == "delete":
            continue
        if action in ("text", "all"):
            edit = f"{text} edit{draw(st.integers(1, 2))}"
            text = edit if distinct else draw(st.sampled_from(TEXTS))
        if action in ("counters", "all"):
            helpful, harmful = draw(counters), draw(counters)
        if action in ("move", "all"):
            section = draw(sections)
        entries[name] = (section, text, helpful, harmful)
    new_names = draw(st.lists(st.sampled_from(NEW_NAMES), unique=True, max_size=3))
    new_texts = draw(st.permutations(NEW_RULES))
    for name, new_text in zip(new_names, new_texts, strict=False):
        text = new_text if distinct else draw(st.sampled_from(TEXTS))
        entries[name] = (draw(sections), text, draw(counters), 0)
    order = draw(st.permutations(sorted(entries)))
    return build(entries, list(order))


@st.composite
def histories(
    draw: st.DrawFn, distinct: bool = False
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Base, ours, theirs. ``distinct``: no two rules share a word, so each entry is
    followed by its ID; else texts come from six words and collide all the time."""
    base = draw(base_entries(distinct))
    base_order = draw(st.permutations(sorted(base)))
    return (
        build(base, list(base_order)),
        draw(side_of(base, distinct)),
        draw(side_of(base, distinct)),
    )


def located(playbook: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {e["name"]: (s, e) for s in SECTION_NAMES for e in playbook["sections"][s]}


@settings(max_examples=150, deadline=None)
@given(histories(distinct=True))
def test_merging_a_side_with_itself_keeps_its_entries_and_counts_both_increments(
    history: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    base, ours, _ = history
    old = located(base)
    for virtual in (False, True):
        result = merge_playbooks(base, ours, copy.deepcopy(ours), virtual_base=virtual)
        merged = located(result.playbook)
        assert set(merged) == set(located(ours))
        for name, (section, mine) in located(ours).items():
            start = old[name][1] if name in old else {"helpful": 0, "harmful": 0}
            twice = {key: max(0, 2 * mine[key] - start[key]) for key in ("helpful", "harmful")}
            assert merged[name] == (section, {**mine, **twice})
        assert result.review == [] and result.renumbered == []


@settings(max_examples=150, deadline=None)
@given(histories())
def test_a_side_that_changed_nothing_gives_the_other_side(
    history: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    base, ours, theirs = history
    assert merge_playbooks(base, ours, copy.deepcopy(base)).playbook == ours
    from_theirs = merge_playbooks(base, copy.deepcopy(base), theirs)
    assert located(from_theirs.playbook) == located(theirs)  # same entries; ours' order first
    assert from_theirs.review == []


@settings(max_examples=250, deadline=None)
@given(histories(distinct=True))
def test_no_text_either_side_introduced_is_lost(
    history: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    """A text a side added or edited is in the result or held for review.

    So is every entry a side changed in any way while the other side deleted
    it. What may go: texts a side left as they were in the base, when the
    other side deleted or replaced them.
    """
    base, ours, theirs = history
    result = merge_playbooks(base, ours, theirs)
    kept = {e["text"] for _, e in located(result.playbook).values()}
    held = {item.text for item in result.review}
    old = located(base)
    for side, other in ((ours, theirs), (theirs, ours)):
        other_names = located(other)
        for name, (section, side_entry) in located(side).items():
            introduced = name not in old or side_entry["text"] != old[name][1]["text"]
            changed_but_deleted = (
                name in old and name not in other_names and (section, side_entry) != old[name]
            )
            if introduced or changed_but_deleted:
                assert side_entry["text"] in kept | held, (name, side_entry)


@settings(max_examples=150, deadline=None)
@given(histories(), st.booleans())
def test_the_result_is_a_canonical_playbook(
    history: tuple[dict[str, Any], dict[str, Any], dict[str, Any]], virtual: bool
) -> None:
    base, ours, theirs = history
    result = merge_playbooks(base, ours, theirs, virtual_base=virtual).playbook
    all_names = [e["name"] for s in SECTION_NAMES for e in result["sections"][s]]
    assert len(all_names) == len(set(all_names))
    assert all(
        e["helpful"] >= 0 and e["harmful"] >= 0
        for s in SECTION_NAMES
        for e in result["sections"][s]
    )
    text = serialize_playbook(result)
    assert serialize_playbook(migrate_playbook(json.loads(text), "merged")) == text
    assert migrate_playbook(json.loads(text), "merged") == result


@settings(max_examples=150, deadline=None)
@given(histories(distinct=True))
def test_counters_of_entries_both_sides_kept_add_up(
    history: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
) -> None:
    """Both increments, always: the same change on both sides counts twice."""
    base, ours, theirs = history
    result = located(merge_playbooks(base, ours, theirs).playbook)
    old, mine, yours = located(base), located(ours), located(theirs)
    for name in set(old) & set(mine) & set(yours):
        for key in ("helpful", "harmful"):
            b, o, t = (x[name][1][key] for x in (old, mine, yours))
            assert result[name][1][key] == max(0, o + t - b)
