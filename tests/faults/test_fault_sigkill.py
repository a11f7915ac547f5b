"""Fault 5: SIGKILL at random points of a learning cycle, 20 times.

Two projects (one per CI core) each start from a 3,000-entry playbook and run
``acecode learn`` on a fresh session, killing it after a delay drawn across the
whole run: during interpreter start, during the two (slowed) LLM calls, while
the large playbook is written, while the journal and report are written, or
not at all. Where the random kills land depends on the machine's speed; what
is checked does not: after every kill the playbook must load and be either the
state before that run or the fully updated one. Two runs per lane do not depend
on timing at all: one killed at once (it must leave the old state) and one left
to finish (the new state). At the end one clean cycle must succeed and the
history journal must still read.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fault_support import (
    ACECODE,
    acecode_env,
    comparable,
    run_acecode,
    sections,
    seed_playbook,
    session_transcript,
    temp_files,
    with_lesson,
)

from support.hang_guard import HANG_GUARD, killed_after

KILLS = 20
LANES = 2
ENTRIES = 3_000
LLM_DELAY = 0.25  # seconds per LLM call, so kills land inside the calls too


@dataclass
class Lane:
    """One project killed repeatedly, with its own LLM server (so request counts are its own)."""

    project: Path
    env: dict[str, str]
    server: Any

    @property
    def playbook(self) -> Path:
        return self.project / ".claude" / "playbook.json"

    def transcript(self, marker: str) -> Path:
        return session_transcript(self.project.parent / "sessions" / f"{marker}.jsonl", marker)

    def clean_run(self, marker: str) -> tuple[float, float]:
        """A run left alone: (its duration, when the curator's reply came back)."""
        before = sections(self.playbook)
        calls = len(self.server.bodies)
        started = time.monotonic()
        child = subprocess.Popen(
            [*ACECODE, "learn", str(self.transcript(marker))],
            env=self.env,
            cwd=self.project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        curator_done = 0.0
        with killed_after(child):  # a hung run is killed and fails the assertion below
            while child.poll() is None:
                if not curator_done and len(self.server.bodies) - calls >= 2:
                    curator_done = time.monotonic() - started + LLM_DELAY
                time.sleep(0.01)
        assert child.returncode == 0, child.stderr.read() if child.stderr else ""
        assert comparable(sections(self.playbook)) == comparable(with_lesson(before, marker))
        return time.monotonic() - started, curator_done

    def calibrate(self) -> tuple[float, float]:
        """Two clean runs; the timing of the second (the first pays for cold caches)."""
        self.clean_run("cold")
        return self.clean_run("warm")

    def killed_run(self, marker: str, delay: float | None) -> dict[str, Any]:
        """Kill a run after ``delay`` seconds (None: once it has finished by itself)."""
        before = sections(self.playbook)
        transcript = self.transcript(marker)
        calls = len(self.server.bodies)
        child = subprocess.Popen(
            [*ACECODE, "learn", str(transcript)],
            env=self.env,
            cwd=self.project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if delay is None:
            child.wait(timeout=HANG_GUARD)
        else:
            time.sleep(delay)
        child.kill()
        code = child.wait()
        after = sections(self.playbook)  # raises if the file is not a valid playbook
        if comparable(after) == comparable(before):
            state = "old"
        elif comparable(after) == comparable(with_lesson(before, marker)):
            state = "new"
        else:
            state = "CORRUPT"
        return {
            "marker": marker,
            "delay": "none" if delay is None else round(delay, 2),
            "finished": code == 0,
            "llm_calls_seen": len(self.server.bodies) - calls,
            "temp_file_left": bool(temp_files(self.playbook.parent)),
            "state": state,
        }


@pytest.mark.slow
def test_fault_sigkill_at_random_points_of_learning_cycle_20_runs(
    project_dir: Path, home_dir: Path, llm, tmp_path: Path
) -> None:
    lanes = []
    for number in range(LANES):
        project = project_dir if number == 0 else tmp_path / f"lane{number}" / "project"
        seed_playbook(project / ".claude" / "playbook.json", extra_entries=ENTRIES - 3)
        server = llm(delay=LLM_DELAY)
        # 3,000 texts would make the embedding model dominate the run; the kill points
        # that matter here are the LLM calls and the store.
        env = acecode_env(project, home_dir, server.env(), ACECODE_EMBED_BACKEND="none")
        lanes.append(Lane(project, env, server))
    rng = random.Random(5)
    with ThreadPoolExecutor(LANES) as pool:
        timings = list(pool.map(Lane.calibrate, lanes))
        full = max(total for total, _ in timings)
        llm_done = min(done for _, done in timings)
        # Half the kills stratified over the whole run (start-up, LLM calls, and a few
        # after the end), half over what follows the LLM calls: curation, the save of
        # the large playbook, the journal, the report.
        half = KILLS // 2
        delays: list[float | None] = [full * 1.05 * (i + rng.random()) / half for i in range(half)]
        delays += [llm_done + (full - llm_done) * (i + rng.random()) / half for i in range(half)]
        rng.shuffle(delays)
        # Whatever the machine's speed, each lane has a run killed at once and one
        # left to finish: both end states are always among the outcomes.
        for number in range(LANES):
            delays[number] = 0.0
            delays[LANES + number] = None

        def kill_lane(number: int) -> list[dict[str, Any]]:
            lane = lanes[number]
            return [
                lane.killed_run(f"k{number}x{i}", delay)
                for i, delay in enumerate(delays[number::LANES])
            ]

        outcomes = [row for rows in pool.map(kill_lane, range(LANES)) for row in rows]
        for row in sorted(outcomes, key=lambda r: math.inf if r["delay"] == "none" else r["delay"]):
            print(row)
        states = Counter(row["state"] for row in outcomes)
        print(f"clean run {full:.2f} s, LLM calls done at {llm_done:.2f} s; {dict(states)}")

        assert len(outcomes) == KILLS
        assert states["CORRUPT"] == 0
        assert all(row["state"] == "new" for row in outcomes if row["finished"])
        at_once = [row for row in outcomes if row["delay"] == 0.0]
        assert len(at_once) == LANES and all(row["state"] == "old" for row in at_once)
        left_alone = [row for row in outcomes if row["delay"] == "none"]
        assert len(left_alone) == LANES and all(row["finished"] for row in left_alone)

        finals = list(pool.map(lambda lane: lane.clean_run("final"), lanes))
    for lane in lanes:
        assert temp_files(lane.playbook.parent) == []
        history = run_acecode(["history", "--json", "--limit", "0"], lane.env, cwd=lane.project)
        assert history.returncode == 0, history.stderr
        cycles = json.loads(history.stdout)
        assert len(cycles) >= 2  # at least the warm-up and the final cycle
    print(f"final clean runs: {[round(total, 2) for total, _ in finals]} s")
