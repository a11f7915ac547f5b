"""Cost ledger and budgets at the cycle's real boundaries.

A real Anthropic-protocol server on 127.0.0.1 that reports usage (and records
every request, so "no LLM call" is counted, not assumed), real transcript
files, the real user ledger under the isolated home, real ``acecode``
subprocesses for the CLI and for two concurrent cycles against one budget.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from acecode.cost.estimate import estimate_cycle
from acecode.cost.ledger import Ledger, stamp
from acecode.cost.pricing import price_for
from acecode.instructions.digest import project_digest
from acecode.pipeline import run_cycle_sync
from acecode.pipeline.curator_lists import CuratorLists
from acecode.pipeline.cycle import CycleReport
from acecode.pipeline.progress import learned_count
from acecode.project import outcomes, paths
from acecode.project.config import load_settings
from acecode.roles.reflector import reflector_prompt
from acecode.store import load_playbook
from acecode.transcript import MessageWindow
from support.hang_guard import HANG_GUARD, wait_until
from support.pipeline import MEASURED, curator_says, is_curator, request_prompt, write_transcript

RULE = "Install PyYAML before running the test suite."
ADD = {"type": "ADD", "section": "OTHERS", "text": RULE}
PRICED = "claude-sonnet-4-6"  # $3 / $15 per million tokens in the shipped table


def ledger_records(kind: str | None = None) -> list[dict]:
    records = Ledger().records()
    return [r for r in records if kind is None or r["kind"] == kind]


def acecode(*args: str, env: dict[str, str], check: bool = False) -> str:
    """Run ``python -m acecode ARGS`` as a user would; its stdout."""
    command = [sys.executable, "-m", "acecode", *args]
    done = subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=HANG_GUARD, check=check
    )
    return done.stdout


def transcript(project: Path, name: str = "s.jsonl") -> Path:
    return write_transcript(project / name, "why does pytest fail?", "Installed PyYAML.")


@pytest.fixture
def priced(routed_llm, monkeypatch: pytest.MonkeyPatch):
    """The routed server (usage 100 in / 20 out per call) serving a priced model."""
    llm = routed_llm(curator_says(ADD))
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", PRICED)
    return llm


def test_cycle_records_provider_model_tokens_per_role_and_estimated_cost(
    priced, project_dir: Path
) -> None:
    report = run_cycle_sync(transcript(project_dir))
    assert report.status == outcomes.OK
    (record,) = ledger_records("cycle")
    calls = len(priced.bodies)  # reflector, curator, safety review
    assert calls == 3
    assert (record["provider"], record["model"]) == ("anthropic", PRICED)
    assert record["project"] == str(project_dir.resolve())
    assert set(record["roles"]) == {"reflector", "curator", "safety_review"}
    assert record["roles"]["curator"]["input_tokens"] == 100
    assert record["roles"]["curator"]["output_tokens"] == 20
    # Priced from the table: 100 in at $3/M + 20 out at $15/M per call.
    assert record["cost_usd"] == pytest.approx(calls * (100 * 3 + 20 * 15) / 1e6)
    assert record["cost_basis"] == "estimated"
    assert report.cost["usd"] == pytest.approx(record["cost_usd"])
    # Its reservation is settled, and the summary line shows the estimated cost.
    assert [r["cycle_id"] for r in ledger_records("reserve")] == [report.cycle_id]
    assert f"~${record['cost_usd']:.4f}" in report.summary()
    log = Path(outcomes.log_file(paths.state_dir())).read_text()
    assert f"~${record['cost_usd']:.4f}" in log


def test_unknown_model_cost_is_recorded_as_unknown_never_zero(
    routed_llm, project_dir: Path
) -> None:
    routed_llm(curator_says(ADD))  # model "scripted-model": not in the price table
    report = run_cycle_sync(transcript(project_dir))
    (record,) = ledger_records("cycle")
    assert record["cost_usd"] is None
    assert record["cost_basis"] == "unknown"
    assert record["input_tokens"] == 300
    assert "$?" in report.summary()


def test_over_budget_cycle_is_skipped_without_any_call_and_stays_due(
    priced, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another project spent $0.99 today; the default daily budget is $1.
    Ledger().append(
        {
            "kind": "cycle",
            "cycle_id": "earlier",
            "time": stamp(),
            "project": "/elsewhere",
            "cost_usd": 0.99,
            "cost_basis": "estimated",
            "input_tokens": 1,
            "output_tokens": 1,
        }
    )
    path = transcript(project_dir)
    report = run_cycle_sync(path, source="hook")
    assert report.status == outcomes.SKIPPED
    assert report.reason.startswith(
        "daily budget (daily_budget_usd = $1.00) would be exceeded: $0.99 spent today + up to $"
    )
    # Issue 17: only what will happen, and what the user can do (a hook has no flags).
    assert report.reason.endswith(
        "the session stays due: `acecode bootstrap` learns it when the budget allows, "
        f"`acecode learn {path} --ignore-budget` now"
    )
    assert "learned later" not in report.reason
    assert priced.bodies == []
    kinds = [record["kind"] for record in ledger_records()]
    assert kinds == ["cycle", "refuse"]  # nothing reserved, nothing spent; the refusal kept
    state = paths.state_dir()
    assert "daily_budget_usd" in Path(outcomes.log_file(state)).read_text()
    assert learned_count(state, path) == 0
    # When the budget allows, the same session is learned.
    monkeypatch.setenv("ACECODE_DAILY_BUDGET_USD", "2")
    assert run_cycle_sync(path, source="hook").status == outcomes.OK
    assert learned_count(state, path) > 0


def test_a_cycle_larger_than_the_whole_budget_says_so(
    priced, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_DAILY_BUDGET_USD", "0.01")
    report = run_cycle_sync(transcript(project_dir))
    assert "more than the whole daily budget (daily_budget_usd = $0.01)" in report.reason
    assert "raise it or choose a cheaper model" in report.reason


def test_token_budget_names_itself(priced, project_dir: Path, monkeypatch) -> None:
    monkeypatch.setenv("ACECODE_DAILY_BUDGET_TOKENS", "1000")
    report = run_cycle_sync(transcript(project_dir))
    assert report.status == outcomes.SKIPPED
    assert "daily_budget_tokens = 1,000" in report.reason
    assert priced.bodies == []


def test_monthly_budget_counts_spend_of_other_projects(
    priced, project_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    other = tmp_path / "other-project"
    (other / ".claude").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(other))
    assert run_cycle_sync(transcript(other)).status == outcomes.OK
    spent = ledger_records("cycle")[0]["cost_usd"]
    # The other project's spend counts against this project's cycle: the monthly budget
    # fits this cycle's worst case (the same transcript, an empty playbook, the one-hour
    # cache a cycle following another asks for) but not both.
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project_dir))
    path = transcript(project_dir)
    request = reflector_prompt(list(MessageWindow(path, 0, 4)), {"sections": {}}, [])
    worst = estimate_cycle(
        request,
        {"sections": {}},
        [],
        [],
        CuratorLists(),
        load_settings(),
        provider="anthropic",
        model=PRICED,
        cache_ttl="1h",
        layers=2,  # the project's and the user's: either may get rules
        digest=project_digest(project_dir, load_settings().instructions_budget_tokens).text,
    ).usd
    monkeypatch.setenv("ACECODE_MONTHLY_BUDGET_USD", str(worst + spent / 2))
    report = run_cycle_sync(path)
    assert report.status == outcomes.SKIPPED
    assert report.cost["estimate"]["usd"] == pytest.approx(worst)
    assert "monthly budget (monthly_budget_usd = $" in report.reason
    assert f"${spent:.4f} spent this month" in report.reason


def test_ignore_budget_runs_and_still_records(
    priced, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_DAILY_BUDGET_USD", "0.0001")
    report = run_cycle_sync(transcript(project_dir), ignore_budget=True)
    assert report.status == outcomes.OK
    assert len(ledger_records("cycle")) == 1


def test_a_project_file_cannot_raise_the_budget(
    priced, project_dir: Path, home_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home_dir / ".claude").mkdir()
    (home_dir / ".claude" / "acecode.toml").write_text("daily_budget_usd = 0.01\n")
    (project_dir / ".claude").mkdir()
    (project_dir / ".claude" / "acecode.toml").write_text("daily_budget_usd = 1000\n")
    assert load_settings().daily_budget_usd == 0.01
    assert "budgets are set in" in capsys.readouterr().err
    assert run_cycle_sync(transcript(project_dir)).status == outcomes.SKIPPED


def test_failed_call_settles_what_was_spent(
    routed_llm, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reflector answers, the curator's call fails for good: the reflector's tokens
    are in the ledger and the cycle is failed."""

    def router(system: str, prompt: str) -> str | int:
        reflection = json.dumps({"analysis": "a", "bullet_tags": []})
        return 400 if is_curator(system, prompt) else reflection

    routed_llm(router)
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", PRICED)
    report = run_cycle_sync(transcript(project_dir))
    assert report.status == outcomes.FAILED
    (record,) = ledger_records("cycle")
    assert record["roles"]["reflector"]["input_tokens"] == 100
    assert record["roles"]["curator"]["input_tokens"] == 0
    assert record["status"] == outcomes.FAILED
    assert record["cost_usd"] == pytest.approx((100 * 3 + 20 * 15) / 1e6)


def test_two_processes_cannot_both_take_the_last_of_a_budget(
    routed_llm, project_dir: Path, tmp_path: Path
) -> None:
    """Two `acecode learn` processes in two projects share one user ledger; the daily
    token budget fits one cycle's estimate but not two: exactly one runs.

    The admitted cycle's LLM calls are held until the other process has decided,
    so the two overlap however the machine schedules them."""
    decided = threading.Event()
    route = curator_says(ADD)

    def held(system: str, prompt: str) -> str | int:
        decided.wait(HANG_GUARD)
        return route(system, prompt)

    llm = routed_llm(held)
    projects = []
    for name in ("one", "two"):
        root = tmp_path / name
        (root / ".claude").mkdir(parents=True)
        projects.append((root, transcript(root)))
    settings = load_settings()
    window = MessageWindow(projects[0][1], 0, 4)
    empty = load_playbook(projects[0][0] / ".claude" / "playbook.json")
    request = reflector_prompt(list(window), empty, [])
    estimate = estimate_cycle(
        request,
        empty,
        [],
        [],
        CuratorLists(),
        settings,
        provider="anthropic",
        model="scripted-model",
    )
    budget = int(estimate.tokens * 1.5)
    env = {
        **os.environ,
        **llm.env(),
        "ACECODE_DAILY_BUDGET_TOKENS": str(budget),
        "ACECODE_LLM_TIMEOUT": str(HANG_GUARD),  # a held call must not time out and retry
    }
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "acecode", "learn", str(path), "--json"],
            env={**env, "CLAUDE_PROJECT_DIR": str(root)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for root, path in projects
    ]
    try:
        # One learner is refused without an LLM call and exits; both calling means both
        # were admitted (the assertions below then fail).
        wait_until(
            lambda: any(run.poll() is not None for run in runs) or len(llm.bodies) >= 2,
            "one learner to be refused for the budget",
        )
    finally:
        decided.set()
    results = [run.communicate(timeout=HANG_GUARD) for run in runs]
    statuses = sorted(json.loads(out)[0]["status"] for out, _ in results)
    assert statuses == [outcomes.OK, outcomes.SKIPPED]
    skipped_err = next(err for out, err in results if json.loads(out)[0]["status"] == "skipped")
    assert "skipped for your budget" in skipped_err and "--ignore-budget" in skipped_err
    records = ledger_records()
    assert all(isinstance(r, dict) for r in records)
    refused = next(r for r in records if r["kind"] == "refuse")
    assert [r for r in records if r["cycle_id"] == refused["cycle_id"]] == [refused]
    kinds = [r["kind"] for r in records if r["cycle_id"] != refused["cycle_id"]]
    # Admitted, each call recorded before it was sent and when it was paid, the unused
    # reservation released after the last call, then settled.
    assert kinds == ["reserve", *["call", "paid"] * 3, "hold", "cycle"]
    assert len(llm.bodies) == 3  # only the admitted cycle called the LLM
    (spent,) = [r for r in records if r["kind"] == "cycle"]
    assert spent["input_tokens"] + spent["output_tokens"] <= budget


def test_acecode_cost_cli_shows_spend_per_period_and_project(
    priced, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_cycle_sync(transcript(project_dir))
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", "scripted-model")  # an unknown price
    run_cycle_sync(transcript(project_dir, "t.jsonl"))
    env = {**os.environ, "COLUMNS": "200"}
    data = json.loads(acecode("cost", "--json", env=env, check=True))
    known = 3 * (100 * 3 + 20 * 15) / 1e6
    (day,) = data["days"].values()
    assert (day["cycles"], day["estimated_cycles"], day["unknown_cycles"]) == (2, 1, 1)
    assert day["cost_usd"] == pytest.approx(known)
    assert day["cost_basis"] == "unknown"
    assert list(data["projects"]) == [str(project_dir.resolve())]
    assert data["budget"]["limits"]["daily_usd"] == 1.0
    assert data["budget"]["today"]["unknown_cycles"] == 1
    table = acecode("cost", env=env, check=True)
    for heading in ("Per day", "Per week", "Per month", "Per project"):
        assert heading in table
    assert f"~${known:.4f}+?" in table
    assert "of $1.00" in table and "1 cycle of unknown cost not counted" in table
    assert "+? mark cycles of a model without a known price" in table


def test_acecode_cost_legend_names_only_the_markers_used(priced, project_dir: Path) -> None:
    # Issue 17: the "+?" legend was printed even when every model had a price.
    run_cycle_sync(transcript(project_dir))
    table = acecode("cost", env={**os.environ, "COLUMNS": "200"}, check=True)
    assert "~ estimated from acecode's price table" in table
    assert "+?" not in table and "$?" not in table


def test_doctor_warns_near_the_budget(priced, project_dir: Path) -> None:
    run_cycle_sync(transcript(project_dir))
    spent = ledger_records("cycle")[0]["cost_usd"]
    env = {**os.environ, "ACECODE_DAILY_BUDGET_USD": str(spent / 0.9), "COLUMNS": "200"}
    out = acecode("doctor", env=env)
    assert "cost and budget" in out
    assert "[warning] daily budget 90% used" in out
    env["ACECODE_DAILY_BUDGET_USD"] = str(spent)
    out = acecode("doctor", env=env)
    assert "[warning] daily budget reached" in out


def test_price_table_knows_the_default_models() -> None:
    from acecode.llm.settings import DEFAULT_ANTHROPIC_MODEL

    assert price_for(DEFAULT_ANTHROPIC_MODEL) is not None
    assert price_for(load_settings().claude_model) is not None


# --- the reservation: an upper bound, grown before an unplanned call --------------------------


def reserved(cycle_id: str) -> tuple[float, int, list[str]]:
    """USD and tokens of a cycle's reserve records, and what each extension was for."""
    mine = [r for r in ledger_records("reserve") if r["cycle_id"] == cycle_id]
    return (
        sum(r["estimate_usd"] or 0.0 for r in mine),
        sum(r["estimate_tokens"] for r in mine),
        [r["extends"] for r in mine if r.get("extends")],
    )


def test_a_cycle_never_spends_more_than_it_reserved(
    routed_llm, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server counts what it is sent (4 characters a token) and bills the reply it
    gives; every role stays within its bound and the cycle within its reservation."""
    llm = routed_llm(curator_says(ADD))
    llm.usage = MEASURED
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", PRICED)
    report = run_cycle_sync(transcript(project_dir))
    assert report.status == outcomes.OK
    (record,) = ledger_records("cycle")
    bounds = report.cost["estimate"]["by_role"]
    assert set(bounds) == {"reflector", "curator", "safety_review", "judge"}
    for role, spent in record["roles"].items():
        assert spent["input_tokens"] <= bounds[role]["input_tokens"], role
        assert spent["output_tokens"] <= bounds[role]["output_tokens"], role
    usd, tokens, extensions = reserved(report.cycle_id)
    assert extensions == []  # the admission reserved all it needed
    assert record["cost_usd"] <= usd == pytest.approx(record["reserved_usd"])
    assert record["input_tokens"] + record["output_tokens"] <= tokens


LONG = (
    "Use single quotes for string literals in the TypeScript code of the {} module, "
    "including template-free JSX attributes, test fixtures, generated API clients, "
    "storybook stories and the scripts folder, and keep the eslint quotes rule at error "
    "level so that a mixed style never reaches review; reformat touched files with "
    "prettier before committing and mention the rule in the pull request description."
)
MODULES = ("billing", "ledger", "search", "mailer", "gateway", "catalog", "auth", "reports")


def judged_cycle(project: Path) -> CycleReport:
    """A cycle whose three ADDs resemble many long entries: the embeddings propose more
    pairs than the judge was planned for."""
    from support.pipeline import make_playbook

    make_playbook(project / ".claude" / "playbook.json", [LONG.format(m) for m in MODULES * 3])
    return run_cycle_sync(transcript(project))


def judge_asked(llm) -> list[int]:
    """How many pairs each judge request the server received held."""
    import re

    return [
        len(re.findall(r'^\{"pair": "p\d+"', request_prompt(body), re.M))
        for body in llm.bodies
        if "judge of acecode" in request_prompt(body)
    ]


def test_the_judge_gets_the_pairs_the_cycles_reservation_holds_and_the_budget_is_not_asked(
    routed_llm, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its planned pairs, and more when the calls before it cost less than their bounds
    (the reflector and curator here answer in a few tokens): never an extension."""
    from acecode.cost.estimate import PLANNED_PAIRS

    adds = [{**ADD, "text": LONG.format(name)} for name in ("orders", "invoices", "carts")]
    llm = routed_llm(curator_says(*adds, judge=lambda a, b: "different"))
    llm.usage = MEASURED
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", PRICED)
    report = judged_cycle(project_dir)
    (record,) = ledger_records("cycle")
    judge = report.curation["de_duplication_results"]["judge"]
    (asked,) = judge_asked(llm)
    assert asked == judge["pairs_asked"] > PLANNED_PAIRS
    usd, tokens, extensions = reserved(report.cycle_id)
    assert extensions == []
    assert record["cost_usd"] <= usd
    assert record["input_tokens"] + record["output_tokens"] <= tokens


def test_a_cycle_admitted_at_the_edge_of_the_budget_is_never_refused_after_its_first_call(
    routed_llm, project_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A token budget that admits the cycle's worst case and nothing more: every call is
    made, the judge with the pairs that fit, and the spend stays within the budget. (On
    0.3.0 the judge asked the budget for more at call time and was refused.)"""
    adds = [{**ADD, "text": LONG.format(name)} for name in ("orders", "invoices", "carts")]
    llm = routed_llm(curator_says(*adds, judge=lambda a, b: "different"))
    llm.usage = MEASURED
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", PRICED)
    first = judged_cycle(project_dir)
    (admission,) = [r for r in ledger_records("reserve") if r["cycle_id"] == first.cycle_id]
    # The same cycle in a fresh home, with a budget of its worst case (the other folder's
    # longer name may add a token or two to the prompts) and nothing more.
    home = tmp_path / "home2"
    home.mkdir()
    project = tmp_path / "project2"
    (project / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project))
    budget = admission["estimate_tokens"] + 20
    monkeypatch.setenv("ACECODE_DAILY_BUDGET_TOKENS", str(budget))
    calls = len(llm.bodies)
    second = judged_cycle(project)
    assert second.status == outcomes.OK, second.reason
    assert len(llm.bodies) - calls == calls  # every call the first cycle made, the judge too
    judge = second.curation["de_duplication_results"]["judge"]
    assert not judge["call_failed"] and judge["skipped"] is None
    (record,) = ledger_records("cycle")
    assert record["roles"]["judge"]["calls"] == 1
    assert record["input_tokens"] + record["output_tokens"] <= budget
    assert [r for r in ledger_records("reserve") if r.get("extends")] == []


def test_cache_reads_and_writes_are_in_the_ledger_and_priced(
    routed_llm, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm = routed_llm(curator_says(ADD))
    llm.usage_extra = {
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 200,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 200},
    }
    monkeypatch.setenv("AGENTIC_CONTEXT_MODEL", PRICED)
    run_cycle_sync(transcript(project_dir))
    (record,) = ledger_records("cycle")
    curator = record["roles"]["curator"]
    assert (curator["cache_read_tokens"], curator["cache_write_tokens"]) == (1000, 200)
    assert curator["cache_write_1h_tokens"] == 200
    assert curator["input_tokens"] == 100 + 1000 + 200
    per_call = (100 * 3 + 1000 * 0.3 + 200 * 6 + 20 * 15) / 1e6
    assert record["cost_usd"] == pytest.approx(3 * per_call)


def test_a_burst_asks_for_the_one_hour_cache_and_a_single_cycle_for_five_minutes(
    routed_llm, project_dir: Path
) -> None:
    llm = routed_llm(curator_says(ADD))
    env = {**os.environ}
    acecode("learn", str(transcript(project_dir, "a.jsonl")), env=env, check=True)
    single = [json.loads(body) for body in llm.bodies]
    paths_ = [transcript(project_dir, name) for name in ("b.jsonl", "c.jsonl")]
    acecode("learn", *map(str, paths_), env=env, check=True)
    burst = [json.loads(body) for body in llm.bodies[len(single) :]]

    def markers(bodies: list[dict]) -> list[dict]:
        return [
            block["cache_control"]
            for body in bodies
            for block in body["messages"][0]["content"]
            if isinstance(block, dict) and "cache_control" in block
        ]

    assert markers(single) and all(m == {"type": "ephemeral"} for m in markers(single))
    assert markers(burst) and all(m == {"type": "ephemeral", "ttl": "1h"} for m in markers(burst))
    # Every call marks its role's fixed instructions, the same text from cycle to cycle.
    heads = {
        body["messages"][0]["content"][0]["text"]
        for body in single + burst
        if is_curator(body["system"], request_prompt(body))
    }
    assert len(heads) == 1


def test_a_cycle_within_the_hour_of_another_asks_for_the_one_hour_cache(
    routed_llm, project_dir: Path
) -> None:
    """Sessions ending less than an hour apart read the curator's instructions from the
    cache; after a longer pause a cycle asks for the cheaper five-minute entry."""
    from datetime import timedelta

    from acecode.cost.ledger import now

    llm = routed_llm(curator_says(ADD))

    Ledger().append({"kind": "cycle", "cycle_id": "old", "time": stamp(now() - timedelta(hours=2))})
    run_cycle_sync(transcript(project_dir, "a.jsonl"), source="session-end")
    first = [json.loads(body) for body in llm.bodies]
    run_cycle_sync(transcript(project_dir, "b.jsonl"), source="session-end")
    second = [json.loads(body) for body in llm.bodies[len(first) :]]
    head = lambda body: body["messages"][0]["content"][0]["cache_control"]  # noqa: E731
    assert {str(head(body)) for body in first} == {str({"type": "ephemeral"})}
    assert {str(head(body)) for body in second} == {str({"type": "ephemeral", "ttl": "1h"})}


def test_a_cheaper_model_for_the_safety_review_is_shown_used_and_priced(
    priced, project_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACECODE_SAFETY_REVIEW_MODEL", "claude-haiku-4-5")
    report = run_cycle_sync(transcript(project_dir))
    assert report.status == outcomes.OK
    bodies = [json.loads(body) for body in priced.bodies]
    review = next(b for b in bodies if "safety reviewer" in request_prompt(b).lower())
    assert review["model"] == "claude-haiku-4-5"
    assert {b["model"] for b in bodies if b is not review} == {PRICED}
    roles = ledger_records("cycle")[0]["roles"]
    assert roles["safety_review"]["model"] == "claude-haiku-4-5"
    # 100 in / 20 out per call: Haiku at $1 / $5, Sonnet at $3 / $15 per million.
    assert roles["safety_review"]["cost_usd"] == pytest.approx((100 * 1 + 20 * 5) / 1e6)
    assert roles["curator"]["cost_usd"] == pytest.approx((100 * 3 + 20 * 15) / 1e6)
    doctor = acecode("doctor", env={**os.environ, "COLUMNS": "200"})
    assert "safety review model: claude-haiku-4-5 (from ACECODE_SAFETY_REVIEW_MODEL)" in doctor
