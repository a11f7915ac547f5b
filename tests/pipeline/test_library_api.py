"""``acecode.learn``: a cycle from Python with the provider and project passed as arguments.

Every test talks to a real Anthropic-protocol server on 127.0.0.1 through the
real SDK; the provider object points at it, and no LLM variable is set
(tests/conftest.py scrubs them), so whatever reaches the server was chosen by
the call's arguments alone.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import acecode
from acecode.store import load_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import (
    RoutedLLM,
    all_safe,
    is_curator,
    is_safety_review,
    routed_servers,
    write_transcript,
)

REFLECTION = json.dumps({"analysis": "A missing package broke the tests.", "bullet_tags": []})


def curation(text: str) -> str:
    return json.dumps(
        {
            "reasoning": "scripted",
            "operations": [{"type": "ADD", "text": text, "section": "MISTAKES TO AVOID"}],
        }
    )


def adds(text: str) -> Callable[[str, str], str]:
    """A router whose curator adds ``text``; the reflector always finds something."""
    return lambda system, prompt: curation(text) if is_curator(system, prompt) else REFLECTION


@pytest.fixture
def llm_servers() -> Iterator[Callable[..., RoutedLLM]]:
    """Start Anthropic-protocol servers WITHOUT configuring any environment variable."""
    with routed_servers() as start:
        yield start


def provider_for(llm: RoutedLLM, model: str = "library-model") -> acecode.AnthropicProvider:
    return acecode.AnthropicProvider(api_key="library-key", model=model, base_url=llm.url)


def make_project(root: Path) -> Path:
    (root / ".claude").mkdir(parents=True)
    return root


def mistakes(project: Path) -> list[str]:
    playbook = load_playbook(project / ".claude" / "playbook.json")
    return [entry["text"] for entry in playbook["sections"].get("MISTAKES TO AVOID", [])]


def test_no_llm_variable_is_set_in_these_tests() -> None:
    llm_vars = [name for name in os.environ if name.startswith(("ACECODE_", "ANTHROPIC_"))]
    assert llm_vars == ["ACECODE_PROGRESS_AFTER"]  # only the root conftest's, no LLM setting


def test_learn_a_transcript_with_a_provider_object_and_a_project(
    llm_servers, tmp_path: Path, project_dir: Path
) -> None:
    llm = llm_servers(adds("Install PyYAML before running the tests."))
    project = make_project(tmp_path / "elsewhere")
    transcript = write_transcript(tmp_path / "s.jsonl", "Fix the tests", "Installed PyYAML.")

    report = acecode.learn(transcript, project=project, provider=provider_for(llm))

    assert report.status == "ok" and report.saved, report.reason
    assert mistakes(project) == ["Install PyYAML before running the tests."]
    # The project argument, not $CLAUDE_PROJECT_DIR, chose the playbook.
    assert not (project_dir / ".claude" / "playbook.json").exists()
    assert report.provider == "anthropic" and report.model == "library-model"
    assert report.provider_reason == "passed by the caller"
    roles = [json.loads(body) for body in llm.bodies]
    assert {body["model"] for body in roles} == {"library-model"}
    assert len(roles) >= 2  # reflector and curator (and the safety review)
    # The cycle's record lands in the chosen project's state folder.
    assert (project / ".claude" / "acecode" / "cycles.jsonl").exists()


def test_learn_a_list_of_flat_messages_reaches_the_reflector(llm_servers, tmp_path: Path) -> None:
    llm = llm_servers(adds("Run `pip install -e .` before pytest in a fresh clone."))
    project = make_project(tmp_path / "p")
    messages = [
        {"role": "user", "content": "pytest fails: No module named 'app'"},
        {"role": "assistant", "content": "`pip install -e .` fixed it."},
    ]

    report = acecode.learn(messages, project=project, provider=provider_for(llm), dry_run=True)

    assert report.status == "ok" and not report.saved
    assert report.transcript == "<2 messages>" and report.messages == 2
    assert report.session_size["requests"] == 1
    reflector_prompt = llm.bodies[0]
    assert "No module named 'app'" in reflector_prompt
    assert "pip install -e ." in reflector_prompt
    assert [op["type"] for op in report.operations] == ["ADD"]
    assert not (project / ".claude" / "playbook.json").exists()  # a dry run saves nothing


def test_learn_claude_code_records_as_they_stand_in_a_transcript(
    llm_servers, tmp_path: Path
) -> None:
    llm = llm_servers(adds("Declare PyYAML as a test dependency."))
    project = make_project(tmp_path / "p")
    transcript = write_transcript(tmp_path / "s.jsonl", "Run the suite", "Added PyYAML.")
    records = [json.loads(line) for line in transcript.read_text().splitlines()]

    report = acecode.learn(records, project=project, provider=provider_for(llm))

    assert report.status == "ok", report.reason
    assert report.session_size == {"requests": 1, "tool_calls": 1, "failed_tool_calls": 1}
    assert "No module named 'yaml'" in llm.bodies[0]
    assert mistakes(project) == ["Declare PyYAML as a test dependency."]


def test_a_message_list_is_learned_whole_every_time(llm_servers, tmp_path: Path) -> None:
    llm = llm_servers(adds("Pin the linter version in CI."))
    project = make_project(tmp_path / "p")
    messages = [{"role": "user", "content": "The linter differs between CI and my machine."}]
    acecode.learn(messages, project=project, provider=provider_for(llm))
    calls = len(llm.bodies)

    again = acecode.learn(messages, project=project, provider=provider_for(llm))

    assert again.messages_already_learned == 0 and len(llm.bodies) > calls
    assert not (project / ".claude" / "acecode" / "learned.json").exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ([{"role": "system", "content": "x"}], "message 0: role must be 'user' or 'assistant'"),
        ([{"role": "user", "content": [{"type": "text"}]}], "message 0: content must be a string"),
        (["hello"], "message 0 is a str, not a dict"),
        ({"role": "user", "content": "x"}, "got a single dict"),
        ("missing.jsonl", "missing.jsonl: no such transcript file"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(source, message: str, tmp_path: Path) -> None:
    provider = acecode.AnthropicProvider(api_key="unused", base_url="http://127.0.0.1:9")
    with pytest.raises(acecode.LearnInputError) as info:
        acecode.learn(source, provider=provider)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, acecode.AcecodeError) and isinstance(info.value, ValueError)


def test_a_missing_project_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(acecode.LearnInputError, match="project folder does not exist"):
        acecode.learn([{"role": "user", "content": "x"}], project=tmp_path / "nope")


def test_without_a_provider_the_environment_still_decides(
    llm_servers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = llm_servers(adds("Use the environment's provider when none is passed."))
    monkeypatch.setenv("AGENTIC_CONTEXT_API_KEY", "env-key")
    monkeypatch.setenv("AGENTIC_CONTEXT_BASE_URL", llm.url)
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", "env-model")
    project = make_project(tmp_path / "p")

    report = acecode.learn([{"role": "user", "content": "hi"}], project=project)

    assert report.status == "ok" and report.model == "env-model"
    assert "AGENTIC_CONTEXT_API_KEY is set" in report.provider_reason
    assert {json.loads(body)["model"] for body in llm.bodies} == {"env-model"}


def _two_cycles(llm_servers, tmp_path: Path) -> list[tuple[RoutedLLM, Path, Path, str]]:
    """Two projects, each with its own server. Each reflector call is answered only
    once the other cycle's has arrived too: the cycles overlap, whatever the load."""
    both_reflecting = threading.Barrier(2)

    def overlapping(rule: str) -> Callable[[str, str], str]:
        route = adds(rule)

        def answer(system: str, prompt: str) -> str:
            if not is_curator(system, prompt):
                both_reflecting.wait(HANG_GUARD)
            return route(system, prompt)

        return answer

    cycles = []
    for name in ("alpha", "beta"):
        rule = f"Rule learned by {name} only."
        llm = llm_servers(overlapping(rule))
        project = make_project(tmp_path / name)
        transcript = write_transcript(tmp_path / f"{name}.jsonl", f"{name} request", "done")
        cycles.append((llm, project, transcript, rule))
    return cycles


def _assert_each_used_its_own(cycles, reports) -> None:
    for (llm, project, _transcript, rule), report in zip(cycles, reports, strict=True):
        name = project.name
        assert report.status == "ok", report.reason
        assert report.model == f"model-{name}"
        assert mistakes(project) == [rule]
        sent = [json.loads(body) for body in llm.bodies]
        assert {body["model"] for body in sent} == {f"model-{name}"}
        other = "beta" if name == "alpha" else "alpha"
        assert all(f"{other} request" not in json.dumps(body) for body in sent)
        assert any(f"{name} request" in json.dumps(body) for body in sent)


def test_concurrent_tasks_each_use_the_provider_passed_to_them(llm_servers, tmp_path: Path):
    cycles = _two_cycles(llm_servers, tmp_path)

    async def both():
        return await asyncio.gather(
            *(
                acecode.alearn(
                    transcript,
                    project=project,
                    provider=provider_for(llm, model=f"model-{project.name}"),
                )
                for llm, project, transcript, _ in cycles
            )
        )

    _assert_each_used_its_own(cycles, asyncio.run(both()))


def test_concurrent_threads_each_use_the_provider_passed_to_them(llm_servers, tmp_path: Path):
    cycles = _two_cycles(llm_servers, tmp_path)
    reports: list = [None, None]
    started = threading.Barrier(2)

    def run(index: int) -> None:
        llm, project, transcript, _ = cycles[index]
        started.wait()
        reports[index] = acecode.learn(
            transcript, project=project, provider=provider_for(llm, model=f"model-{project.name}")
        )

    threads = [threading.Thread(target=run, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=HANG_GUARD)

    _assert_each_used_its_own(cycles, reports)


class _NoComplete:
    name, model, timeout = "mine", "m", 30.0


class _SyncComplete(_NoComplete):
    def complete(self, request: object) -> object:
        return None


class _BadTimeout(_NoComplete):
    timeout = "soon"

    async def complete(self, request: object) -> object:
        return None


@pytest.mark.parametrize(
    ("provider", "message"),
    [
        (object(), "object is not an LLM provider: it lacks name, model, timeout and complete"),
        (_NoComplete(), "_NoComplete is not an LLM provider: it lacks complete"),
        (_SyncComplete(), "complete must be async (async def complete(self, request))"),
        (_BadTimeout(), "timeout must be a positive number of seconds, not 'soon'"),
    ],
    ids=["object", "no-complete", "sync-complete", "bad-timeout"],
)
def test_a_provider_without_the_interface_is_refused_at_the_door(
    provider: object, message: str, llm_servers, tmp_path: Path
) -> None:
    """One line naming what is missing, before anything runs: no LLM call, no file written."""
    llm = llm_servers(adds("Never reached."))
    project = make_project(tmp_path / "p")
    with pytest.raises(acecode.ProviderInterfaceError) as info:
        acecode.learn([{"role": "user", "content": "x"}], project=project, provider=provider)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert isinstance(info.value, acecode.AcecodeError) and isinstance(info.value, TypeError)
    with pytest.raises(acecode.ProviderInterfaceError, match="not an LLM provider"):
        asyncio.run(acecode.alearn([{"role": "user", "content": "x"}], provider=provider))
    assert llm.bodies == []
    assert sorted(p.name for p in (project / ".claude").iterdir()) == []


def test_any_object_with_the_interface_is_a_provider(tmp_path: Path) -> None:
    """The README's promise: a plain object with name, model, timeout and an async complete."""
    from acecode.llm.base import Completion, LLMRequest

    class Scripted:
        name, model, timeout = "scripted", "scripted-model", 5.0

        def __init__(self) -> None:
            self.calls = 0

        async def complete(self, request: LLMRequest) -> Completion:
            self.calls += 1
            if is_safety_review(request.system, request.prompt):  # a reviewer with no objection
                return Completion(all_safe(request.prompt))
            return Completion(REFLECTION if self.calls == 1 else curation("Pin the tools."))

    provider, project = Scripted(), make_project(tmp_path / "p")
    report = acecode.learn([{"role": "user", "content": "x"}], project=project, provider=provider)
    assert report.status == "ok", report.reason
    assert provider.calls >= 2
    assert mistakes(project) == ["Pin the tools."]
