"""Property-based tests of the operations and ``update_playbook_data``.

Random valid playbooks (names unique across sections) meet random operation
lists, well-formed or not. Whatever happens, nothing raises, the input is
untouched and the result is a well-formed playbook. Well-formed inputs are
also checked against a deliberately plain model of the specification (deep
copy, linear scans) so the optimised implementation cannot drift from it.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from acecode.playbook.operations import apply_structured_operations
from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS, max_slug_number, max_slug_numbers
from acecode.playbook.scoring import update_playbook_data
from acecode.text.redact import redact
from support.playbooks import entry as kp

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ENTRY_KEYS = {"name", "text", "helpful", "harmful"}

# --- strategies -----------------------------------------------------------------------------------

words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12
)
entry_names = st.one_of(
    st.builds(
        lambda slug, n: f"{slug}-{n:03d}",
        st.sampled_from(list(SECTION_SLUGS.values())),
        st.integers(0, 30),
    ),
    st.builds(lambda n: f"kpt_{n:03d}", st.integers(0, 30)),
    words,
)
counters = st.integers(min_value=0, max_value=6)
section_labels = st.one_of(
    st.sampled_from(SECTION_NAMES),
    st.sampled_from([s.lower() for s in SECTION_NAMES] + [f"  {SECTION_NAMES[1]} "]),
    st.sampled_from(["", "  ", "RANDOM STUFF", "Others!"]),
    st.none(),
    st.integers(),
)
junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | words,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=10,
)


@st.composite
def playbooks(draw: st.DrawFn) -> dict[str, Any]:
    """A valid playbook: canonical sections, exact entry shape, unique names."""
    entries = draw(
        st.lists(
            st.tuples(st.sampled_from(SECTION_NAMES), entry_names, words, counters, counters),
            min_size=draw(st.integers(0, 10)),
            max_size=14,
            unique_by=lambda t: t[1],
        )
    )
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTION_NAMES}
    for section, name, text, helpful, harmful in entries:
        sections[section].append(kp(name, text, helpful, harmful))
    return {"version": "1.0", "last_updated": draw(st.none() | words), "sections": sections}


@st.composite
def existing_or_not(draw: st.DrawFn, names: list[str], typed: bool = False) -> Any:
    """Mostly a name of the playbook, sometimes a missing one or (untyped) junk."""
    pick = draw(st.integers(0, 5))
    if pick >= 2 and names:
        return draw(st.sampled_from(names))
    if pick == 1 or typed:
        return draw(entry_names)
    return draw(junk)


@st.composite
def well_formed_operation(draw: st.DrawFn, names: list[str]) -> dict[str, Any]:
    """An operation with the right field types (IDs may still be missing)."""
    ref = existing_or_not(names, typed=True)
    kind = draw(st.sampled_from(["ADD", "UPDATE", "MERGE", "DELETE"]))
    if kind == "ADD":
        return {"type": "ADD", "text": draw(words), "section": draw(section_labels)}
    if kind == "UPDATE":
        return {"type": "UPDATE", "target_id": draw(ref), "text": draw(words)}
    if kind == "DELETE":
        return {"type": "DELETE", "target_id": draw(ref), "reason": draw(words)}
    source_ids = draw(st.lists(ref, min_size=2, max_size=4, unique=True))
    op = {"type": "MERGE", "source_ids": source_ids, "merged_text": draw(words)}
    if draw(st.booleans()):
        op["section"] = draw(section_labels)
    return op


@st.composite
def broken_operation(draw: st.DrawFn, names: list[str]) -> Any:
    """Wrong types, missing fields, unknown or missing type, or plain junk."""
    ref = existing_or_not(names)
    text = st.one_of(words, st.just(""), st.just("   "), junk)
    kind = draw(st.sampled_from(["ADD", "UPDATE", "MERGE", "DELETE", "junk", "fields"]))
    if kind == "ADD":
        op = {"type": "ADD", "text": draw(text), "section": draw(section_labels)}
    elif kind == "UPDATE":
        op = {"type": "UPDATE", "target_id": draw(ref), "text": draw(text)}
    elif kind == "MERGE":
        source_ids = draw(st.one_of(st.lists(ref, max_size=5), junk))
        op = {"type": "MERGE", "source_ids": source_ids, "merged_text": draw(text)}
        if draw(st.booleans()):
            op["section"] = draw(section_labels)
    elif kind == "DELETE":
        op = {"type": "DELETE", "target_id": draw(ref), "reason": draw(junk)}
    elif kind == "junk":
        return draw(junk)
    else:
        op = draw(st.dictionaries(st.sampled_from(["type", "text", "target_id"]), junk))
    if draw(st.integers(0, 4)) == 0:
        op["type"] = draw(st.one_of(junk, st.sampled_from(["add", "REPLACE", " ADD"])))
    return op


@st.composite
def operation(draw: st.DrawFn, names: list[str]) -> Any:
    """Four in five operations are well-formed, so the lists do real edits."""
    if draw(st.integers(0, 4)):
        return draw(well_formed_operation(names))
    return draw(broken_operation(names))


@st.composite
def playbook_and_ops(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    playbook = draw(playbooks())
    names = [e["name"] for s in SECTION_NAMES for e in playbook["sections"][s]]
    op_lists = st.lists(operation(names), max_size=14)
    ops = draw(op_lists) if draw(st.integers(0, 5)) else draw(junk)
    return playbook, ops


@st.composite
def playbook_and_extraction(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    playbook, ops = draw(playbook_and_ops())
    names = [e["name"] for s in SECTION_NAMES for e in playbook["sections"][s]]
    rating = st.one_of(st.sampled_from(["helpful", "harmful", "neutral", "HARMFUL", "x"]), junk)
    evaluation = st.one_of(
        st.fixed_dictionaries({"name": existing_or_not(names), "rating": rating}), junk
    )
    point = st.one_of(
        words,
        st.fixed_dictionaries({"text": st.one_of(words, junk), "section": section_labels}),
        junk,
    )
    fields: dict[str, st.SearchStrategy[Any]] = {
        "operations": st.just(ops),
        "new_key_points": st.one_of(st.lists(point, max_size=12), junk),
        "evaluations": st.one_of(st.lists(evaluation, max_size=12), junk),
    }
    extraction = draw(
        st.one_of(
            st.fixed_dictionaries({}, optional=fields),
            junk,
        )
    )
    return playbook, extraction


# --- checks ---------------------------------------------------------------------------------------


def assert_well_formed(playbook: dict[str, Any]) -> None:
    assert set(playbook["sections"]) == set(SECTION_NAMES)
    seen: set[str] = set()
    for section in SECTION_NAMES:
        for entry in playbook["sections"][section]:
            assert set(entry) == ENTRY_KEYS
            assert isinstance(entry["name"], str) and isinstance(entry["text"], str)
            for counter in ("helpful", "harmful"):
                assert type(entry[counter]) is int and entry[counter] >= 0
            assert entry["name"] not in seen
            seen.add(entry["name"])


BLANK_NAMED = {"version": "1.0", "last_updated": None, "sections": {s: [] for s in SECTION_NAMES}}
BLANK_NAMED["sections"]["OTHERS"] = [kp("\x85", "named by a Unicode space")]


@SETTINGS
@given(playbook_and_ops())
@example((BLANK_NAMED, [{"type": "UPDATE", "target_id": "\x85", "text": "new"}]))
@example((BLANK_NAMED, [{"type": "DELETE", "target_id": "\x85"}]))
def test_apply_structured_operations_never_raises_and_keeps_invariants(
    case: tuple[dict[str, Any], Any],
) -> None:
    playbook, ops = case
    before = copy.deepcopy(playbook)
    result = apply_structured_operations(playbook, ops)
    assert playbook == before
    assert_well_formed(result)
    assert result["sections"] == model_apply(before, ops)["sections"]


@SETTINGS
@given(playbook_and_extraction())
def test_update_playbook_data_never_raises_and_keeps_invariants(
    case: tuple[dict[str, Any], Any],
) -> None:
    playbook, extraction = case
    before = copy.deepcopy(playbook)
    result = update_playbook_data(playbook, extraction)
    assert playbook == before
    assert_well_formed(result)
    assert result["sections"] == model_update(before, extraction)["sections"]
    for section in SECTION_NAMES:
        for entry in result["sections"][section]:
            assert not (entry["harmful"] >= 3 and entry["harmful"] > entry["helpful"])


tricky_names = st.one_of(
    entry_names,
    st.builds(
        lambda slug, digits, tail: f"{slug}-{digits}{tail}",
        st.sampled_from([*SECTION_SLUGS.values(), "kpt", "PAT", ""]),
        st.text(alphabet="0123456789٣²", max_size=4),
        st.sampled_from(["", "\n", "\n\n", "x", "-1"]),
    ),
)


@SETTINGS
@given(st.lists(st.one_of(st.fixed_dictionaries({"name": tricky_names}), st.just({}))))
def test_max_slug_numbers_agrees_with_the_spec_regex(entries: list[dict[str, Any]]) -> None:
    expected = {slug: max_slug_number(entries, slug) for slug in SECTION_SLUGS.values()}
    assert max_slug_numbers(entries) == expected


def test_huge_operation_lists_are_cheap_and_harmless() -> None:
    playbook = {"version": "1.0", "last_updated": None, "sections": {s: [] for s in SECTION_NAMES}}
    ops: list[Any] = [{"type": "ADD", "text": f"t{i}"} for i in range(200_000)]
    result = apply_structured_operations(playbook, ops)
    assert len(result["sections"]["OTHERS"]) == 10
    many_ids = [f"oth-{i:03d}" for i in range(1, 11)] + ["missing"] * 50
    merged = apply_structured_operations(
        result, [{"type": "MERGE", "source_ids": many_ids, "merged_text": "all ten"}]
    )
    assert [e["text"] for e in merged["sections"]["OTHERS"]] == ["all ten"]


# --- the plain model ------------------------------------------------------------------------------


def _clean(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return redact(value.strip())


def _names_something(value: Any) -> bool:
    """Blank means what the operations mean by it: empty after ``str.strip``, which also
    strips Unicode whitespace such as U+0085, so an entry named ``"\\x85"`` is unreachable
    by UPDATE and DELETE in both."""
    return isinstance(value, str) and bool(value.strip())


def _canonical(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    for name in SECTION_NAMES:
        if name.lower() == raw.strip().lower():
            return name
    return None


def model_apply(playbook: dict[str, Any], ops: Any) -> dict[str, Any]:
    """The spec's algorithm, written for clarity rather than speed."""
    if not isinstance(ops, list) or not ops:
        return playbook
    pb = copy.deepcopy(playbook)
    secs = pb["sections"]
    every = [e for s in SECTION_NAMES for e in secs[s]]
    next_no = {}
    for slug in SECTION_SLUGS.values():
        numbers = [int(m.group(1)) for e in every if (m := re.match(rf"^{slug}-(\d+)$", e["name"]))]
        next_no[slug] = max(numbers, default=0) + 1

    def locate(name: Any) -> str | None:
        for s in SECTION_NAMES:
            if any(e["name"] == name for e in secs[s]):
                return s
        return None

    def add(section: str, text: str, helpful: int = 0, harmful: int = 0) -> None:
        slug = SECTION_SLUGS[section]
        secs[section].append(kp(f"{slug}-{next_no[slug]:03d}", text, helpful, harmful))
        next_no[slug] += 1

    def remove(name: str) -> dict[str, Any]:
        section = locate(name)
        entry = next(e for e in secs[section] if e["name"] == name)
        secs[section] = [e for e in secs[section] if e["name"] != name]
        return entry

    for op in ops[:10]:
        if not isinstance(op, dict):
            continue
        kind = op.get("type")
        if kind == "ADD":
            text = _clean(op.get("text"))
            if text is not None and all(e["text"] != text for s in secs.values() for e in s):
                add(_canonical(op.get("section")) or "OTHERS", text)
        elif kind == "UPDATE":
            target, text = op.get("target_id"), _clean(op.get("text"))
            if _names_something(target) and text is not None and locate(target):
                section = locate(target)
                secs[section] = [
                    {**e, "text": text} if e["name"] == target else e for e in secs[section]
                ]
        elif kind == "MERGE":
            ids, text = op.get("source_ids"), _clean(op.get("merged_text"))
            if not isinstance(ids, list) or len(ids) < 2 or text is None:
                continue
            valid: list[str] = []
            for sid in ids:
                if isinstance(sid, str) and locate(sid) and sid not in valid:
                    valid.append(sid)
            if len(valid) < 2:
                continue
            section = _canonical(op.get("section")) or locate(valid[0])
            removed = [remove(sid) for sid in valid]
            add(
                section,
                text,
                sum(e["helpful"] for e in removed),
                sum(e["harmful"] for e in removed),
            )
        elif kind == "DELETE":
            target = op.get("target_id")
            if _names_something(target) and locate(target):
                remove(target)
    return pb


def model_update(playbook: dict[str, Any], extraction: Any) -> dict[str, Any]:
    if not isinstance(extraction, dict):
        extraction = {}
    if "operations" in extraction:
        pb = model_apply(playbook, extraction["operations"])
    else:
        points = extraction.get("new_key_points")
        adds = []
        for point in points if isinstance(points, list) else []:
            if isinstance(point, str):
                adds.append({"type": "ADD", "text": point})
            elif isinstance(point, dict):
                adds.append(
                    {"type": "ADD", "text": point.get("text"), "section": point.get("section")}
                )
        pb = model_apply(playbook, adds[:10])
        for chunk in range(10, len(adds), 10):
            pb = model_apply(pb, adds[chunk : chunk + 10])
    pb = copy.deepcopy(pb)
    evaluations = extraction.get("evaluations")
    for ev in evaluations if isinstance(evaluations, list) else []:
        if not isinstance(ev, dict) or not isinstance(ev.get("rating"), str):
            continue
        counter = ev["rating"].strip().lower()
        if counter not in ("helpful", "harmful"):
            continue
        for s in SECTION_NAMES:
            pb["sections"][s] = [
                {**e, counter: e[counter] + 1} if e["name"] == ev.get("name") else e
                for e in pb["sections"][s]
            ]
    for s in SECTION_NAMES:
        pb["sections"][s] = [
            e for e in pb["sections"][s] if not (e["harmful"] >= 3 and e["harmful"] > e["helpful"])
        ]
    return pb
