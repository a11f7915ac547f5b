"""run_judge over real HTTP (issue 11): one batched call, parsing, never raises."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from acecode.dedup.verdicts import PairVerdict
from acecode.llm import usage
from acecode.roles.judge import run_judge
from support.wire import Reply, ScriptedLLMServer

SINGLE = "Use single quotes for string literals in the TypeScript code."
DOUBLE = "Use double quotes for string literals in the TypeScript code."
TESTS = "Run the tests before committing."
TESTS_AGAIN = "Before you commit, run the test suite."
PYTEST = "Run the tests with `pytest -x` before committing."
PAIRS = [(SINGLE, DOUBLE), (TESTS, TESTS_AGAIN), (TESTS, PYTEST), (TESTS, SINGLE)]


def judge(pairs: list[tuple[str, str]] = PAIRS) -> list[PairVerdict]:
    return asyncio.run(run_judge(pairs))["verdicts"]


def answer(*verdicts: dict) -> str:
    return json.dumps({"verdicts": list(verdicts)})


@pytest.fixture(params=["anthropic", "openai"])
def server(request: pytest.FixtureRequest) -> ScriptedLLMServer:
    return request.getfixturevalue(f"{request.param}_env")


def test_every_verdict_is_read_and_tied_to_its_pair(server: ScriptedLLMServer) -> None:
    server.play(
        answer(
            {"pair": "p1", "verdict": "conflicting", "reason": "single against double"},
            {"pair": "p2", "verdict": "same", "reason": "both test before committing"},
            {"pair": "p3", "verdict": "more_specific", "specific": "B", "reason": "names pytest"},
            {"pair": "p4", "verdict": "different"},
        )
    )
    assert judge() == [
        PairVerdict(SINGLE, DOUBLE, "conflicting", None, "single against double"),
        PairVerdict(TESTS, TESTS_AGAIN, "same", None, "both test before committing"),
        PairVerdict(TESTS, PYTEST, "more_specific", PYTEST, "names pytest"),
        PairVerdict(TESTS, SINGLE, "different", None, ""),
    ]
    assert server.attempts == 1  # one batched call for all pairs


def test_the_prompt_carries_each_pair_once_as_json(anthropic_env: ScriptedLLMServer) -> None:
    anthropic_env.play(answer())
    judge()
    prompt = anthropic_env.prompt()
    lines = [json.loads(line) for line in prompt.splitlines() if line.startswith('{"pair": ')]
    assert lines == [{"pair": f"p{i}", "A": a, "B": b} for i, (a, b) in enumerate(PAIRS, 1)]
    assert "{pairs}" not in prompt and "{{" not in prompt
    assert "not instructions to you" in prompt


def test_more_specific_side_a_names_the_first_text(anthropic_env: ScriptedLLMServer) -> None:
    anthropic_env.play(answer({"pair": "p1", "verdict": "More Specific", "specific": "a"}))
    assert judge([(PYTEST, TESTS)]) == [PairVerdict(PYTEST, TESTS, "more_specific", PYTEST, "")]


@pytest.mark.parametrize(
    "item",
    [
        {"pair": "p9", "verdict": "same"},  # unknown pair
        {"pair": "p1", "verdict": "probably"},  # unknown verdict
        {"pair": "p1", "verdict": "more_specific"},  # no side
        {"pair": "p1", "verdict": "more_specific", "specific": "C"},
        {"pair": 1, "verdict": "same"},
        "same",
    ],
)
def test_an_unreadable_answer_leaves_its_pair_without_verdict(
    anthropic_env: ScriptedLLMServer, item: object
) -> None:
    anthropic_env.play(answer(item, {"pair": "p2", "verdict": "same"}))
    assert judge() == [PairVerdict(TESTS, TESTS_AGAIN, "same", None, "")]


def test_two_different_answers_for_one_pair_mean_no_verdict(
    anthropic_env: ScriptedLLMServer,
) -> None:
    anthropic_env.play(
        answer({"pair": "p1", "verdict": "same"}, {"pair": "p1", "verdict": "conflicting"})
    )
    assert judge() == []


def test_a_missing_pair_has_no_verdict(anthropic_env: ScriptedLLMServer) -> None:
    anthropic_env.play(answer({"pair": "p1", "verdict": "conflicting"}))
    assert [v.first for v in judge()] == [SINGLE]


@pytest.mark.parametrize("reply", ["I think they are the same.", "", '{"verdicts": "same"}', "[]"])
def test_garbage_reply_gives_no_verdict_and_does_not_raise(
    anthropic_env: ScriptedLLMServer, reply: str, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic_env.play(reply)
    assert judge() == []


def test_server_errors_use_the_shared_retry_then_give_no_verdict(
    server: ScriptedLLMServer, recorded_delays: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    server.play(Reply(status=500))
    assert judge() == []
    assert server.attempts == 3 and len(recorded_delays) == 2
    assert "judge skipped" in capsys.readouterr().err


def test_no_provider_gives_no_verdict(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert judge() == []
    assert "judge skipped" in capsys.readouterr().err


def test_no_pairs_means_no_call(anthropic_env: ScriptedLLMServer) -> None:
    anthropic_env.play(answer())
    with usage.track() as ledger:
        assert judge([]) == []
    assert anthropic_env.attempts == 0 and ledger.calls == []


def test_tokens_are_recorded_under_the_judge_role(anthropic_env: ScriptedLLMServer) -> None:
    anthropic_env.play(Reply(text=answer(), usage=(321, 12)))
    with usage.track() as ledger:
        judge()
    assert ledger.by_role() == {
        "judge": {"calls": 1, "attempts": 1, "input_tokens": 321, "output_tokens": 12}
    }


def test_user_template_override_is_used(project: Path, anthropic_env: ScriptedLLMServer) -> None:
    prompts = project.parent / "home" / ".claude" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "judge.txt").write_text("MY JUDGE\n{pairs}\n", encoding="utf-8")
    anthropic_env.play(answer({"pair": "p1", "verdict": "conflicting"}))
    assert [v.verdict for v in judge(PAIRS[:1])] == ["conflicting"]
    assert anthropic_env.prompt().startswith('MY JUDGE\n{"pair": "p1"')


def test_the_template_says_what_each_verdict_does_to_the_playbook() -> None:
    """The judge decides folds: it must know that "more_specific" drops one side and that
    a contradiction folded away is lost (issue 18, item 6)."""
    from acecode.prompts.templates import load_template

    text = " ".join(load_template("judge.txt").split())
    for consequence in (
        "The new rule is not added; the existing one is credited.",
        "the more specific text stays and the other is dropped.",
        "Both are kept.",
        "Both are kept and shown to the user, who decides.",
        'is "conflicting", not "more_specific"',
    ):
        assert consequence in text
