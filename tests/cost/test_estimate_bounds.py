"""The cycle's worst case before any call: bounded by the budgeted playbook views, so a
large playbook does not price every cycle out of the user's budget, and still an upper
bound of what the views can hold."""

from __future__ import annotations

from acecode.config import Settings
from acecode.cost.estimate import bound_tokens, estimate_cycle
from acecode.playbook.formatting import format_entry
from acecode.playbook.schema import SECTION_NAMES, iter_entries
from acecode.roles.prompt import render_playbook

MESSAGES = [
    {"role": "user", "kind": "prompt", "content": "pytest fails: No module named yaml"},
    {"role": "assistant", "kind": "text", "content": "Installed PyYAML; the tests pass."},
]


def playbook(entries: int) -> dict:
    sections = {name: [] for name in SECTION_NAMES}
    for i in range(entries):
        section = SECTION_NAMES[i % len(SECTION_NAMES)]
        text = f"Check the service boundary number {i} before changing its public contract."
        sections[section].append(
            {"name": f"e-{i:05d}", "text": text, "helpful": i % 3, "harmful": 0}
        )
    return {"sections": sections}


def inputs(entries: int, cited: list[str] = ()) -> dict[str, int]:
    estimate = estimate_cycle(
        MESSAGES, playbook(entries), cited, [], Settings(), provider="anthropic", model=None
    )
    return {role: bound.input_tokens for role, bound in estimate.roles.items()}


def test_a_large_playbook_is_bounded_by_the_views_not_its_size() -> None:
    at_500, at_5000 = inputs(500), inputs(5_000)
    whole_5000 = bound_tokens(render_playbook(playbook(5_000)))

    assert at_5000["reflector"] == at_500["reflector"]  # both past their budget
    assert at_5000["curator"] == at_500["curator"]
    assert at_5000["reflector"] < whole_5000 / 10


def test_a_small_playbook_counts_whole_and_cited_entries_always_count() -> None:
    small = inputs(20)
    whole = bound_tokens(render_playbook(playbook(20)))
    assert small["reflector"] >= whole  # shown whole: the bound holds all of it

    book = playbook(5_000)
    cited = [f"e-{i:05d}" for i in range(0, 5_000, 25)]  # 200 cited entries, shown past budget
    lines = [format_entry(entry) for _, entry in iter_entries(book) if entry["name"] in cited]
    forced = bound_tokens("\n".join(lines))
    assert inputs(5_000, cited)["reflector"] - inputs(5_000)["reflector"] >= forced
