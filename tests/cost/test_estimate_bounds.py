"""The cycle's worst case before any call: the reflector's request exactly as it will be
sent, the later calls bounded by the budgeted playbook views and the earlier calls'
``max_tokens``, so a large playbook does not price every cycle out of the user's budget,
and still an upper bound of what the views can hold."""

from __future__ import annotations

import pytest

from acecode.cost.estimate import (
    REQUOTE_FACTOR,
    bound_tokens,
    estimate_cycle,
    request_bound,
    role_cost,
)
from acecode.cost.pricing import price_for
from acecode.pipeline.curator_lists import CuratorLists
from acecode.playbook.curator_view import Listed
from acecode.playbook.formatting import format_entry
from acecode.playbook.schema import SECTION_NAMES, iter_entries
from acecode.project.config import Settings
from acecode.roles.curator import MAX_TOKENS as CURATOR_MAX_TOKENS
from acecode.roles.prompt import render_playbook
from acecode.roles.reflector import MAX_TOKENS as REFLECTOR_MAX_TOKENS
from acecode.roles.reflector import reflector_prompt

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


def estimate(entries: int, cited: list[str] = (), lists: CuratorLists | None = None, **kw):
    kw.setdefault("model", None)
    book = playbook(entries)
    request = reflector_prompt(MESSAGES, playbook(min(entries, 20)), list(cited))
    return estimate_cycle(
        request, book, cited, [], lists or CuratorLists(), Settings(), provider="anthropic", **kw
    )


def inputs(entries: int, cited: list[str] = ()) -> dict[str, int]:
    return {role: bound.input_tokens for role, bound in estimate(entries, cited).roles.items()}


def test_the_reflector_is_priced_from_its_request_exactly_as_sent() -> None:
    request = reflector_prompt(MESSAGES, playbook(20), [])
    bound = estimate(20).roles["reflector"]
    assert bound.input_tokens == bound_tokens(request.system + request.prompt)
    assert bound.output_tokens == REFLECTOR_MAX_TOKENS == request.max_tokens
    # Its fixed head (instructions, output format) is the part a cache write may bill.
    head = request.system + request.prompt[: request.cacheable_chars]
    assert bound.cacheable_tokens == bound_tokens(head) > 0


def test_a_large_playbook_is_bounded_by_the_views_not_its_size() -> None:
    at_500, at_5000 = inputs(500), inputs(5_000)
    whole_5000 = bound_tokens(render_playbook(playbook(5_000)))

    # Both past their budget: only the removal limit's one more digit ("500 removals" for
    # "50 removals") may differ, at most one token at 3 bytes per token.
    assert at_5000["curator"] - at_500["curator"] in (0, 1)
    # The two views' budgets (10,000 tokens), the longest reflection, the instructions'
    # digest and the template: about a tenth of a 5,000-entry playbook.
    assert at_5000["curator"] < whole_5000 / 8


def test_a_small_playbook_counts_whole_and_cited_entries_always_count() -> None:
    small = inputs(20)
    whole = bound_tokens(render_playbook(playbook(20)))
    assert small["curator"] >= whole  # shown whole: the bound holds all of it

    book = playbook(5_000)
    cited = [f"e-{i:05d}" for i in range(0, 5_000, 25)]  # 200 cited entries, shown past budget
    lines = [format_entry(entry) for _, entry in iter_entries(book) if entry["name"] in cited]
    forced = bound_tokens("\n".join(lines))
    assert inputs(5_000, cited)["curator"] - inputs(5_000)["curator"] >= forced


def test_the_curator_bound_holds_the_largest_reflection_and_the_lists_as_known() -> None:
    plain = estimate(20).roles["curator"]
    assert plain.output_tokens == CURATOR_MAX_TOKENS
    assert plain.input_tokens >= REFLECTOR_MAX_TOKENS * REQUOTE_FACTOR
    stale = [Listed(f"e-{i:05d}", "names `src/gone.py`, not found " * 3) for i in range(4)]
    listed = estimate(20, lists=CuratorLists(stale=stale)).roles["curator"]
    shown = "\n".join(f"- [{item.name}] {item.note}" for item in stale)
    # The list replaces "(none)" in the prompt; each side rounds up once.
    assert listed.input_tokens - plain.input_tokens >= bound_tokens(shown) - 4


def _bound(request) -> int:
    return request_bound(
        request.system, request.prompt, 0, request.max_tokens, provider="anthropic"
    ).input_tokens


def test_the_review_is_reserved_for_the_most_texts_the_curator_can_write() -> None:
    """Ten texts holding the curator's whole reply (4 bytes a token, English) fit in what
    the admission reserved for the review, input and output: the review is never asked
    for after the first call."""
    from acecode.roles.curator import MAX_OPERATIONS
    from acecode.roles.safety_review import review_request

    bound = estimate(20).roles["safety_review"]
    longest = 4 * CURATOR_MAX_TOKENS // MAX_OPERATIONS
    texts = [("Run the linter before committing. " * 40)[:longest] for _ in range(MAX_OPERATIONS)]
    request = review_request(texts)
    assert _bound(request) <= bound.input_tokens
    assert request.max_tokens <= bound.output_tokens


def test_the_judge_is_reserved_for_its_planned_pairs_and_each_layer_adds_its_calls() -> None:
    from acecode.cost.estimate import PLANNED_PAIRS
    from acecode.roles.judge import judge_request

    one, two = estimate(20).roles, estimate(20, layers=2).roles
    assert set(one) == {"reflector", "curator", "safety_review", "judge"}
    longest = Settings().max_rule_chars
    pairs = [("a" * longest, "b" * longest)] * PLANNED_PAIRS
    assert _bound(judge_request(pairs)) <= one["judge"].input_tokens
    assert judge_request(pairs).max_tokens <= one["judge"].output_tokens
    # A second layer (the user's) may get a review and a judge call of its own.
    for role in ("safety_review", "judge"):
        template = one[role].input_tokens - two[role].input_tokens
        assert two[role].input_tokens > one[role].input_tokens, template
        assert two[role].output_tokens > one[role].output_tokens
    assert two["reflector"] == one["reflector"] and two["curator"] == one["curator"]


def test_a_one_hour_cache_write_is_priced_at_twice_the_input() -> None:
    price = price_for("claude-sonnet-4-6")
    bound = request_bound("S" * 300, "P" * 6000, 4500, 100, provider="anthropic")
    assert bound.cacheable_tokens >= price.cache_min_tokens == 1024
    plain = role_cost(bound, price, None)
    five = role_cost(bound, price, "5m")
    hour = role_cost(bound, price, "1h")
    written = bound.cacheable_tokens
    assert five - plain == pytest.approx(written * (3.75 - 3) / 1e6)
    assert hour - plain == pytest.approx(written * (6 - 3) / 1e6)
    # A provider that sends no marker never writes the cache.
    assert request_bound("S", "P" * 30, 10, 5, provider="openai").cacheable_tokens == 0


def test_a_head_shorter_than_the_models_cache_minimum_is_never_priced_as_a_write() -> None:
    """Its bound over-counts it, so the real head is shorter still: the API caches
    nothing and bills nothing extra. A model whose minimum is unknown may cache it."""
    short = request_bound("S" * 300, "P" * 2000, 1500, 100, provider="anthropic")
    assert 0 < short.cacheable_tokens < 1024
    sonnet, unknown = price_for("claude-sonnet-4-6"), price_for("claude-opus-4-8")
    assert unknown.cache_min_tokens is None
    assert role_cost(short, sonnet, "1h") == role_cost(short, sonnet, None)
    assert role_cost(short, unknown, "1h") > role_cost(short, unknown, None)
    haiku = price_for("claude-haiku-4-5")
    long_head = request_bound("S" * 300, "P" * 9000, 6000, 100, provider="anthropic")
    assert 1024 <= long_head.cacheable_tokens < haiku.cache_min_tokens == 4096
    assert role_cost(long_head, haiku, "5m") == role_cost(long_head, haiku, None)


def test_each_role_is_priced_at_its_own_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACECODE_SAFETY_REVIEW_MODEL", "claude-haiku-4-5")
    mixed = estimate(20, model="claude-sonnet-4-6")
    assert mixed.roles["safety_review"].model == "claude-haiku-4-5"
    monkeypatch.delenv("ACECODE_SAFETY_REVIEW_MODEL")
    same = estimate(20, model="claude-sonnet-4-6")
    assert same.roles["safety_review"].model is None
    assert mixed.usd < same.usd  # Haiku's $1 / $5 against Sonnet's $3 / $15


def test_a_project_cannot_choose_the_role_models(
    project_dir, home_dir, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cloned repository's .claude/acecode.toml could otherwise weaken the review of the
    rules it teaches: the role models come from the user's file or the environment."""
    from acecode.project.config import load_settings

    (project_dir / ".claude").mkdir()
    (project_dir / ".claude" / "acecode.toml").write_text('safety_review_model = "tiny-model"\n')
    (home_dir / ".claude").mkdir()
    (home_dir / ".claude" / "acecode.toml").write_text('judge_model = "claude-haiku-4-5"\n')
    settings = load_settings(project_dir)
    assert (settings.safety_review_model, settings.judge_model) == ("", "claude-haiku-4-5")
    assert "safety_review_model ignored: role models are set in" in capsys.readouterr().err
