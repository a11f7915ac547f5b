"""The session-start text within the budget, the left-out line and the top-up text (pure)."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acecode.playbook.budget import (
    DEFAULT_INJECTION_BUDGET,
    TOPUP_TEMPLATE,
    TopupItem,
    context_length,
    format_topup,
)
from acecode.playbook.formatting import format_entry, format_playbook
from acecode.playbook.injection import left_out_line, render_injection
from acecode.playbook.schema import SECTION_NAMES, SECTION_SLUGS
from acecode.prompts.templates import load_template
from support.playbooks import MIS, PAT, PREF, make_playbook
from support.playbooks import entry as kp

TEMPLATE = load_template("playbook.txt")
PATH = "/project/.claude/playbook.json"
_HEADER = re.compile(r"^## (.+)$", re.MULTILINE)
_LEFT_OUT = re.compile(r"\[(\d+) more of the (\d+) entries did not fit here\.")


def test_context_length_counts_as_claude_code_does() -> None:
    """UTF-16 code units: what the 10,000 cap was measured in (docs/claude-code.md)."""
    assert context_length("abc") == 3
    assert context_length("é" * 10) == 10  # one unit each, although two UTF-8 bytes
    assert context_length("😀") == 2  # outside the BMP: a surrogate pair
    assert context_length("\ud800") == 1  # a lone surrogate from a hand-edited JSON file


def test_a_playbook_that_fits_is_injected_whole_as_before() -> None:
    playbook = make_playbook(
        pat=[kp("pat-001", "Run pytest -q", 3)], mis=[kp("mis-001", "No force push", 1, 1)]
    )
    injection = render_injection(playbook, TEMPLATE, DEFAULT_INJECTION_BUDGET, playbook_path=PATH)
    assert injection.text == format_playbook(playbook, TEMPLATE)
    assert injection.injected == ["pat-001", "mis-001"]
    assert injection.left_out == [] and injection.total == 2
    assert "did not fit" not in injection.text


def test_an_empty_playbook_injects_nothing() -> None:
    assert render_injection(make_playbook(), TEMPLATE, 9000).text == ""


def _big_playbook() -> dict[str, Any]:
    patterns = [kp(f"pat-{i:03d}", f"Pattern number {i} " + "p" * 150, 5) for i in range(1, 301)]
    mistakes = [kp(f"mis-{i:03d}", f"Mistake number {i} " + "m" * 150) for i in range(1, 31)]
    prefs = [kp(f"pref-{i:03d}", f"Preference {i} " + "u" * 150, 0, 1) for i in range(1, 11)]
    return make_playbook(pat=patterns, mis=mistakes, pref=prefs)


def test_what_does_not_fit_is_named_in_a_last_line() -> None:
    playbook = _big_playbook()
    injection = render_injection(playbook, TEMPLATE, 9000, playbook_path=PATH)
    text = injection.text
    assert context_length(text) <= 9000
    shown = re.findall(r"^\[([a-z]+-\d+)\]", text, re.MULTILINE)
    assert shown == injection.injected
    left = len(injection.left_out)
    assert left == 340 - len(shown) > 0
    last = text.rstrip("\n").split("\n")[-2]  # the line before the template's closing tag
    assert last == left_out_line(left, 340, PATH)
    assert f"[{left} more of the 340 entries did not fit here." in last
    assert PATH in last and "Read tool" in last and "acecode show" in last
    # Every section keeps a share although PATTERNS has the evidence and the size.
    assert {PAT, MIS, "USER PREFERENCES"} == set(_HEADER.findall(text))
    # Sections stay in canonical order, best entries first within each.
    assert _HEADER.findall(text) == [s for s in SECTION_NAMES if s in _HEADER.findall(text)]


def test_pinned_entries_are_injected_first() -> None:
    playbook = _big_playbook()
    low = "mis-001"  # untested and the oldest: the last of its section
    plain = render_injection(playbook, TEMPLATE, 9000, playbook_path=PATH)
    assert low not in plain.injected
    pinned = render_injection(playbook, TEMPLATE, 9000, frozenset({low}), PATH)
    assert low in pinned.injected
    mistakes = [name for name in pinned.injected if name.startswith("mis-")]
    assert mistakes[0] == low  # first of its section


def test_a_template_longer_than_the_budget_injects_nothing() -> None:
    injection = render_injection(_big_playbook(), "x" * 500 + "{key_points}", 600)
    assert injection.text == "" and injection.injected == []


def test_the_last_line_fits_even_in_a_tight_budget() -> None:
    template = "<t>\n{key_points}\n</t>"
    playbook = _big_playbook()
    line = left_out_line(340, 340, PATH)
    budget = context_length(template) - len("{key_points}") + context_length(line) + 2
    injection = render_injection(playbook, template, budget, playbook_path=PATH)
    assert injection.injected == []
    assert injection.text == f"<t>\n{left_out_line(340, 340, PATH)}\n</t>"


# Text that stresses the measure: emoji (2 units), accents, CJK, a long run.
_text = st.text(
    alphabet=st.sampled_from([*"abc xyz-_.", "é", "ß", "日", "本", "😀", "\u200b", "\n"]),
    min_size=1,
    max_size=400,
) | st.builds(lambda n: "long " * n, st.integers(100, 3000))


@st.composite
def playbooks(draw: st.DrawFn) -> tuple[dict[str, Any], set[str]]:
    sections: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTION_NAMES}
    count = draw(st.integers(0, 80))
    for index in range(count):
        section = draw(st.sampled_from(SECTION_NAMES))
        name = f"{SECTION_SLUGS[section]}-{index + 1:03d}"
        sections[section].append(
            kp(name, draw(_text), draw(st.integers(0, 40)), draw(st.integers(0, 9)))
        )
    every = [e["name"] for entries in sections.values() for e in entries]
    pinned = set(draw(st.lists(st.sampled_from(every), max_size=4))) if every else set()
    return {"version": "1.0", "sections": sections}, pinned


@settings(max_examples=150, deadline=None)
@given(playbooks(), st.integers(0, 12_000), st.sampled_from([TEMPLATE, "{key_points}", "é😀"]))
def test_the_budget_is_never_exceeded(
    drawn: tuple[dict[str, Any], set[str]], budget: int, template: str
) -> None:
    playbook, pinned = drawn
    injection = render_injection(playbook, template, budget, frozenset(pinned), PATH)
    assert context_length(injection.text) <= budget
    total = sum(len(entries) for entries in playbook["sections"].values())
    assert injection.total == total
    if not injection.text:
        return
    # Everything named as injected is in the text with its line.
    for entries in playbook["sections"].values():
        for entry in entries:
            if entry["name"] in injection.injected:
                assert format_entry(entry) in injection.text
    assert len(injection.injected) + len(injection.left_out) == total or "{key_points}" not in (
        template
    )
    match = _LEFT_OUT.search(injection.text)
    if injection.left_out:
        assert match and int(match.group(1)) == len(injection.left_out)
    else:
        assert match is None


def test_topup_text_keeps_to_its_budget_and_skips_what_is_too_long() -> None:
    items = [
        TopupItem(MIS, "mis-004", "[mis-004] helpful=0 harmful=0 :: " + "x" * 3000),
        TopupItem(PREF, "pref-002", "[pref-002] helpful=1 harmful=0 :: tabs, not spaces"),
        TopupItem(PAT, "pat-009", "[pat-009] helpful=2 harmful=0 :: use uv"),
    ]
    text, names = format_topup(items, 2000, SECTION_NAMES)
    assert names == ["pref-002", "pat-009"]  # relevance order; the long one skipped
    assert context_length(text) <= 2000
    assert text.startswith("<acecode-playbook-more>")
    assert text.index("## PATTERNS") < text.index("## USER PREFERENCES")  # canonical order
    assert format_topup(items[:1], 2000, SECTION_NAMES) == ("", [])
    assert format_topup([], 2000, SECTION_NAMES) == ("", [])
    assert context_length(TOPUP_TEMPLATE) < 400  # the framing leaves room for entries


@given(
    st.lists(
        st.tuples(st.sampled_from(SECTION_NAMES), _text),
        max_size=30,
    ),
    st.integers(0, 4000),
)
def test_topup_never_exceeds_its_budget(drawn: list[tuple[str, str]], budget: int) -> None:
    items = [TopupItem(s, f"e-{i}", f"[e-{i}] :: {t}") for i, (s, t) in enumerate(drawn)]
    text, names = format_topup(items, budget, SECTION_NAMES)
    assert context_length(text) <= budget
    assert all(f"[{name}]" in text for name in names)
