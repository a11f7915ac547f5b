"""What a call costs, over real HTTP: the prompt-cache marker on the wire, cache reads and
writes as the server reports them, a cut-off reply read as far as it is whole (never
asked again), the call guard and a model per role."""

from __future__ import annotations

import asyncio
import json

import pytest

from acecode.cost.pricing import call_cost
from acecode.llm import CallRefused, complete, guarded_calls, prompt_cache, usage
from acecode.roles.judge import reply_tokens as judge_reply_tokens
from acecode.roles.judge import run_judge
from acecode.roles.safety_review import reply_tokens as review_reply_tokens
from acecode.roles.safety_review import run_safety_review
from support import wire
from support.wire import Reply, ScriptedLLMServer

HEAD = "You are a careful reviewer. These instructions are the same in every call.\n\n"
DATA = "# Data\nthe session of today"


@pytest.fixture(params=["anthropic", "openai"])
def server(request: pytest.FixtureRequest) -> ScriptedLLMServer:
    return request.getfixturevalue(f"{request.param}_env")


def send(**kwargs: object) -> str:
    return asyncio.run(
        complete("system", HEAD + DATA, role="curator", cacheable_chars=len(HEAD), **kwargs)
    ).text


def test_the_fixed_head_carries_the_cache_marker_on_the_wire(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play("{}", "{}", "{}")
    send()  # a single cycle: the 5-minute default, sent without a ttl
    with prompt_cache("1h"):  # a burst
        send()
    with prompt_cache(None):
        send()
    first, burst, unmarked = (body["messages"][0]["content"] for body in anthropic_env.requests)
    assert first == [
        {"type": "text", "text": HEAD, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": DATA},
    ]
    assert burst[0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert "cache_control" not in burst[1]
    assert unmarked == HEAD + DATA
    assert anthropic_env.requests[0]["system"] == "system"  # cached with the head


def test_other_providers_get_the_same_text_in_the_same_order(
    openai_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    openai_env.play("{}")
    send()
    assert openai_env.requests[0]["messages"][1] == {"role": "user", "content": HEAD + DATA}


def test_cache_reads_and_writes_are_recorded_as_the_server_reports_them_and_priced(
    anthropic_env: ScriptedLLMServer, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", "claude-sonnet-4-6")
    anthropic_env.play(
        Reply(
            text="{}",
            usage=(100, 20),
            usage_extra={
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 300,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 0,
                    "ephemeral_1h_input_tokens": 300,
                },
            },
        )
    )
    with usage.track() as ledger:
        send()
    (call,) = ledger.calls
    assert (call.input_tokens, call.cache_read_tokens, call.cache_write_tokens) == (1400, 1000, 300)
    assert call.cache_write_1h_tokens == 300
    # 100 uncached at $3, 1000 read at $0.30, 300 written for an hour at $6, 20 out at $15.
    expected = (100 * 3 + 1000 * 0.3 + 300 * 6 + 20 * 15) / 1e6
    assert call_cost(call).usd == pytest.approx(expected)


CUT = (
    '{"reasoning": "Two lessons.", "operations": [{"type": "ADD", "text": "Run make lint '
    'before pushing.", "section": "OTHERS", "scope": "project"}, {"type": "ADD", "text": "Ne'
)


def test_a_cut_off_reply_is_not_asked_again_and_its_whole_operations_are_kept(
    server: ScriptedLLMServer, recorded_delays: list, project_dir
) -> None:
    """The curator's bound has room for the most operations it may propose: a reply cut
    there went past its format, and a second full prompt would buy nothing it allows."""
    from acecode.playbook.schema import empty_playbook
    from acecode.roles.curator import MAX_TOKENS, run_curator

    server.play(Reply(text=CUT, cut_off=True))
    with usage.track() as ledger:
        curation = asyncio.run(
            run_curator({"analysis": "- lint", "bullet_tags": []}, empty_playbook())
        )
    assert server.attempts == 1
    assert [body["max_tokens"] for body in server.requests] == [MAX_TOKENS]
    assert [call.truncated for call in ledger.calls] == [True]
    assert curation["reasoning"] == "Two lessons."
    assert [op["text"] for op in curation["operations"]] == ["Run make lint before pushing."]


def test_the_guard_refuses_before_anything_is_sent(
    anthropic_env: ScriptedLLMServer, recorded_delays: list
) -> None:
    anthropic_env.play("{}")
    seen = []

    class Guard:
        def before(self, role: str, request: object) -> str:
            seen.append((role, request.max_tokens, request.cacheable_chars))
            return "the cost ledger cannot be written"

        def after(self, role: str, request: object, call: object) -> None:
            seen.append("after")

    with guarded_calls(Guard()), pytest.raises(CallRefused, match="cost ledger"):
        send(max_tokens=321)
    assert seen == [("curator", 321, len(HEAD))]
    assert anthropic_env.attempts == 0


def test_the_judge_and_the_safety_review_run_on_their_own_model_and_bounded_output(
    anthropic_env: ScriptedLLMServer, recorded_delays: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_JUDGE_MODEL", "claude-haiku-4-5")
    monkeypatch.setenv("ACECODE_SAFETY_REVIEW_MODEL", "claude-3-5-haiku")
    anthropic_env.play(
        json.dumps({"verdicts": [{"pair": "p1", "verdict": "different"}]}),
        json.dumps({"verdicts": [{"id": 1, "verdict": "safe"}]}),
        "{}",
    )
    with usage.track() as ledger:
        asyncio.run(run_judge([("a", "b"), ("c", "d")]))
        asyncio.run(run_safety_review(["Run make lint before pushing."]))
        asyncio.run(complete("s", "p", role="curator"))
    models = [body["model"] for body in anthropic_env.requests]
    assert models == ["claude-haiku-4-5", "claude-3-5-haiku", "test-model"]
    assert [call.model for call in ledger.calls] == models  # priced at each one's price
    judge, review, _ = anthropic_env.requests
    assert judge["max_tokens"] == judge_reply_tokens(2) == 48 + 48 * 2
    assert review["max_tokens"] == review_reply_tokens(1) == 48 + 48 * 1
    assert anthropic_env.paths[0] == wire.ANTHROPIC_PATH
