"""Injection within the budget, the per-prompt top-up, pins and on/off, through the real hook.

Every test runs ``python -m acecode hook ...`` (and the CLI) as subprocesses,
the way Claude Code does.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from hook_helpers import ACECODE, run_hook, write_playbook

from acecode.hooks import rendered
from acecode.playbook.budget import DEFAULT_INJECTION_BUDGET, context_length
from support.hang_guard import HANG_GUARD
from support.playbooks import entry

# At least as long as every other entry, so the budget's greedy fill (which takes a
# lower-ranked entry when a better one no longer fits) cannot slip it in by its size:
# the space left depends on the project path's length in the left-out line.
NEEDLE = (
    "When the websocket gateway drops heartbeats, restart the reconnect supervisor first, "
    "then check the gateway logs for the heartbeat interval."
)
NEEDLE_PROMPT = "The websocket gateway keeps dropping heartbeats, what about the reconnect?"
_SHOWN = re.compile(r"^\[([a-z]+-\d+)\]", re.MULTILINE)


def _start(session: str = "s1", source: str = "startup") -> dict[str, Any]:
    return {"session_id": session, "hook_event_name": "SessionStart", "source": source}


def _prompt(text: str, session: str = "s1") -> dict[str, Any]:
    """A prompt's input as Claude Code sends it: every prompt has its own ``prompt_id``."""
    return {
        "session_id": session,
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
        "prompt_id": uuid.uuid4().hex,
    }


def _big_playbook(project: Path, count: int = 300) -> Path:
    """``count`` entries, mostly PATTERNS; ``pat-004`` is the low-ranked needle."""
    topics = ("migrations", "fixtures", "docker", "pagination", "retries", "logging", "flags")
    patterns = [
        entry(
            f"pat-{i:03d}",
            f"Pattern {i}: review the {topics[i % len(topics)]} of module {i} before a release, "
            "and write down what changed so the next session can pick it up.",
            helpful=2 + i % 3,
        )
        for i in range(1, count - 20 + 1)
    ]
    patterns[3] = entry("pat-004", NEEDLE, 0, 1)
    mistakes = [
        entry(f"mis-{i:03d}", f"Mistake {i}: never skip the {topics[i % 7]} checks.", 0, 0)
        for i in range(1, 11)
    ]
    prefs = [entry(f"pref-{i:03d}", f"Preference {i}: answer briefly.") for i in range(1, 11)]
    return write_playbook(
        project,
        {
            "PATTERNS & APPROACHES": patterns,
            "MISTAKES TO AVOID": mistakes,
            "USER PREFERENCES": prefs,
        },
    )


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ACECODE_")}
    full_env.update(env or {})
    return subprocess.run(
        [*ACECODE, *args], capture_output=True, text=True, env=full_env, timeout=HANG_GUARD
    )


def _marker(project: Path, session: str = "s1") -> list[str]:
    path = project / ".claude" / "acecode" / "sessions" / session
    return path.read_text(encoding="utf-8").splitlines()


def test_session_start_stays_within_the_budget_and_names_what_is_left_out(
    project_dir: Path,
) -> None:
    path = _big_playbook(project_dir)
    run = run_hook("session-start", _start())
    assert run.returncode == 0 and run.stderr == ""
    text = run.context()
    assert context_length(text) <= DEFAULT_INJECTION_BUDGET
    shown = _SHOWN.findall(text)
    assert 30 < len(shown) < 300
    assert f"[{300 - len(shown)} more of the 300 entries did not fit here." in text
    assert str(path) in text and "acecode show" in text
    assert {"MIS", "PRE"} <= {name[:3].upper() for name in shown}  # small sections kept
    assert "pat-004" not in shown  # the needle is ranked low
    assert _marker(project_dir) == ["SessionStart:startup", *shown]


def test_the_budget_setting_is_obeyed_and_part_of_the_cache_key(project_dir: Path) -> None:
    _big_playbook(project_dir)
    default = run_hook("session-start", _start()).context()
    small = run_hook("session-start", _start("s2"), env={"ACECODE_INJECTION_BUDGET_CHARS": "4000"})
    assert context_length(small.context()) <= 4000 < context_length(default)
    toml = project_dir / ".claude" / "acecode.toml"
    toml.write_text("injection_budget_chars = 3000\n", encoding="utf-8")
    assert context_length(run_hook("session-start", _start("s3")).context()) <= 3000


def test_topup_brings_the_relevant_left_out_entry_once_per_context(project_dir: Path) -> None:
    _big_playbook(project_dir)
    assert "pat-004" not in run_hook("session-start", _start()).context()
    first = run_hook("user-prompt-submit", _prompt(NEEDLE_PROMPT))
    assert first.returncode == 0 and first.stderr == ""
    out = first.output()["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    assert out["additionalContext"].startswith("<acecode-playbook-more>")
    assert f"[pat-004] helpful=0 harmful=1 :: {NEEDLE}" in out["additionalContext"]
    assert context_length(out["additionalContext"]) <= 2000
    assert "pat-004" in _marker(project_dir)
    again = run_hook("user-prompt-submit", _prompt(NEEDLE_PROMPT))
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # never twice
    # A compaction summarises the context: SessionStart re-injects and the top-up may again.
    run_hook("session-start", _start(source="compact"))
    assert "pat-004" in run_hook("user-prompt-submit", _prompt(NEEDLE_PROMPT)).context()


def test_no_topup_without_relevance_or_when_everything_fits(project_dir: Path) -> None:
    _big_playbook(project_dir)
    run_hook("session-start", _start())
    for prompt in ("hi", "thanks, go on", "Please look at the README typo"):
        run = run_hook("user-prompt-submit", _prompt(prompt))
        assert (run.returncode, run.stdout, run.stderr) == (0, "", ""), prompt
    write_playbook(project_dir, {"OTHERS": [entry("oth-001", NEEDLE)]})
    run_hook("session-start", _start("small"))
    run = run_hook("user-prompt-submit", _prompt(NEEDLE_PROMPT, "small"))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")  # already injected whole


def test_the_fallback_serves_within_the_budget_then_tops_up(project_dir: Path) -> None:
    _big_playbook(project_dir)
    first = run_hook("user-prompt-submit", _prompt(NEEDLE_PROMPT, "no-start"))
    assert "<acecode-playbook>" in first.context()
    assert context_length(first.context()) <= DEFAULT_INJECTION_BUDGET
    assert "pat-004" not in first.context()  # no top-up on top of a full injection
    later = run_hook("user-prompt-submit", _prompt(NEEDLE_PROMPT, "no-start"))
    assert "[pat-004]" in later.context()


@pytest.mark.parametrize("how", ["acecode off", "opt_in without acecode on"])
def test_an_inactive_project_gets_nothing_and_the_switch_is_seen_at_once(
    project_dir: Path, home_dir: Path, how: str
) -> None:
    _big_playbook(project_dir)
    assert run_hook("session-start", _start("warm")).context()  # fills the cache: active
    if how == "acecode off":
        assert _cli("off").returncode == 0
    else:
        (home_dir / ".claude").mkdir(exist_ok=True)
        (home_dir / ".claude" / "acecode.toml").write_text("opt_in = true\n", encoding="utf-8")
    for event, payload in (
        ("session-start", _start("s2")),
        ("user-prompt-submit", _prompt(NEEDLE_PROMPT, "s3")),
        ("user-prompt-submit", _prompt(NEEDLE_PROMPT, "warm")),
    ):
        run = run_hook(event, payload)
        if how == "acecode off" and event == "session-start":  # said once, nothing injected
            assert (run.returncode, run.stderr) == (0, "")
            assert list(run.output()) == ["systemMessage"]
            assert "off in this project" in run.output()["systemMessage"]
            continue
        assert (run.returncode, run.stdout, run.stderr) == (0, "", ""), (event, payload)
    sessions = project_dir / ".claude" / "acecode" / "sessions"
    assert sorted(p.name for p in sessions.iterdir()) == ["warm"]
    assert _cli("on").returncode == 0
    assert "<acecode-playbook>" in run_hook("session-start", _start("s4")).context()


def test_the_learners_environment_does_not_cache_inactive(project_dir: Path) -> None:
    """The background learner runs with ACECODE_HOOKS_DISABLED=1 and primes the cache."""
    _big_playbook(project_dir)
    # A settings file makes the render ask acecode.project.control (no fast path).
    (project_dir / ".claude" / "acecode.toml").write_text('review = "flagged"\n')
    primed = _cli("pin", "pat-004", env={"ACECODE_HOOKS_DISABLED": "1"})
    assert primed.returncode == 0, primed.stderr
    cache = json.loads((project_dir / ".claude/acecode/injection-cache.json").read_text())
    assert cache["active"] is True and "pat-004" in cache["injected"]
    assert "[pat-004]" in run_hook("session-start", _start()).context()


def test_pins_reach_the_next_session_first(project_dir: Path) -> None:
    path = _big_playbook(project_dir)
    before = path.read_bytes()
    assert "pat-004" not in run_hook("session-start", _start()).context()
    pinned = _cli("pin", "pat-004")
    assert pinned.returncode == 0, pinned.stderr
    text = run_hook("session-start", _start("s2")).context()
    assert _SHOWN.findall(text)[0] == "pat-004"
    assert path.read_bytes() == before  # entries keep exactly their four keys
    pins = project_dir / ".claude" / "acecode" / "pins.json"
    assert json.loads(pins.read_text()) == {"pinned": ["pat-004"]}
    # A hand edit of the pins file is seen too (its stat is part of the key).
    pins.write_text(json.dumps({"pinned": []}), encoding="utf-8")
    assert "[pat-004]" not in run_hook("session-start", _start("s3")).context()


def test_a_broken_pins_file_is_reported_and_ignored(project_dir: Path) -> None:
    _big_playbook(project_dir)
    pins = project_dir / ".claude" / "acecode" / "pins.json"
    pins.parent.mkdir(parents=True, exist_ok=True)
    pins.write_text("{not json", encoding="utf-8")
    run = run_hook("session-start", _start())
    assert "<acecode-playbook>" in run.context()
    assert run.stderr.count("\n") == 1 and str(pins) in run.stderr and "pins ignored" in run.stderr


def test_show_injected_prints_exactly_what_the_hook_injects(project_dir: Path) -> None:
    _big_playbook(project_dir)
    _cli("pin", "mis-001")
    shown = _cli("show", "--injected")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == run_hook("session-start", _start()).context() + "\n"
    (project_dir / ".claude" / "acecode" / "injection-cache.json").unlink()  # a miss alike
    assert _cli("show", "--injected").stdout == shown.stdout
    _cli("off")
    off = _cli("show", "--injected")
    assert (off.returncode, off.stdout) == (0, "") and "off" in off.stderr


def test_the_hook_fast_path_agrees_with_control_and_config(project_dir: Path) -> None:
    """Without switch files the hook answers "active, defaults" without reading TOML;
    acecode.project.control and acecode.project.config must give the same answer."""
    from acecode.project.config import EXPERIMENT_KEYS, load_settings
    from acecode.project.config_check import as_notices, project_problems
    from acecode.project.control import activity, switch_files

    project = str(project_dir)
    key = rendered.inputs_key(project)
    switches = (rendered._LOCAL_SWITCH, rendered._PROJECT_SWITCH, rendered._USER_SWITCH)
    assert all(key[index] is None for index in switches)
    fast = rendered._limits(project, key)
    settings = load_settings(project_dir)
    assert fast == {
        "need_review": True,  # no arrivals-floor-only flag: a review will come (arrivals.mode)
        "active": activity(project_dir, env={}).active,
        "reason": "",
        "budget": settings.injection_budget_chars,
        "topup_budget": settings.topup_budget_chars,
        "experiments": settings.experiments,
        "recall": settings.recall,
        "recall_before": settings.recall_before,
        "max_rule_chars": settings.max_rule_chars,
        "languages": settings.languages,
        **as_notices(project_problems(project_dir)),
    }
    assert tuple(map(str, switch_files(project_dir))) == rendered.switch_files(project)
    arrivals = ("max_rule_chars", "languages")
    recall = ("recall", "recall_before")
    rendering = (
        "injection_budget_chars",
        "topup_budget_chars",
        *arrivals,
        *recall,
        *EXPERIMENT_KEYS,
    )
    assert set(rendered.SETTING_VARIABLES) == {f"ACECODE_{name.upper()}" for name in rendering}


def test_state_file_names_mirror_their_modules(project_dir: Path) -> None:
    from acecode.arrivals.marks import MARKS_NAME
    from acecode.arrivals.mode import FLOOR_ONLY_NAME, record_reviewer
    from acecode.instructions.overlap import OVERLAP_NAME
    from acecode.project.control import CONFIG_NAME, SWITCH_NAME
    from acecode.project.layer import Layer
    from acecode.project.pins import PINS_NAME, pins_path
    from acecode.store.provenance import PROVENANCE_NAME

    assert rendered.PINS_NAME == PINS_NAME and rendered.SWITCH_NAME == CONFIG_NAME
    assert rendered.ARRIVALS_NAME == MARKS_NAME
    assert rendered.OVERLAP_NAME == OVERLAP_NAME
    assert rendered.FLOOR_ONLY_NAME == FLOOR_ONLY_NAME
    state = project_dir / ".claude" / "acecode"
    assert rendered.inputs_key(str(project_dir))[rendered._FLOOR_ONLY] is None
    assert record_reviewer(state, reviewer=False)  # the flag file, where the key reads it
    assert rendered.inputs_key(str(project_dir))[rendered._FLOOR_ONLY] is not None
    assert rendered.PROVENANCE_NAME == PROVENANCE_NAME
    assert rendered.LOCAL_SWITCH_NAME == SWITCH_NAME
    project = str(project_dir)
    layer = Layer.of_project(project)
    assert pins_path(layer.playbook) == layer.state_file(PINS_NAME)


def test_topup_hot_path_imports_nothing_heavy(project_dir: Path) -> None:
    _big_playbook(project_dir)
    run_hook("session-start", _start("warm"))
    run_hook("user-prompt-submit", _prompt("hello there", "warm"))  # builds the index
    command = [sys.executable, "-X", "importtime", "-m", "acecode", "hook", "user-prompt-submit"]
    run = run_hook("user-prompt-submit", _prompt(NEEDLE_PROMPT, "warm"), command=command)
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "acecode.playbook.relevance" in modules  # the top-up did run
    unwanted = {
        "acecode.store",
        "acecode.playbook.injection",
        "acecode.playbook.ranking",
        "acecode.project.config",
        "acecode.project.control",
        "tomllib",
        "pathlib",
        "dataclasses",
        "typer",
        "rich",
    }
    assert modules & unwanted == set()
