"""What `acecode learn` shows while it waits on an LLM that is not there (issue 17).

Before: 27 s of silence against a closed port, the failure printed twice (stderr and
the cycle line), and no word of the URL that failed. The LLM here is a port on
127.0.0.1 nobody listens on; the progress lines are due at once
(``ACECODE_PROGRESS_AFTER=0``), so the test reads what the lines say, never when.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acecode.project import outcomes, paths
from support.dead_servers import closed_port
from support.pipeline import write_transcript


def test_a_closed_port_shows_each_attempt_and_names_the_url_once(project_dir: Path) -> None:
    port = closed_port()
    url = f"http://127.0.0.1:{port}"
    transcript = write_transcript(project_dir / "s.jsonl", "why does pytest fail?", "Fixed.")
    env = {
        **os.environ,
        "AGENTIC_CONTEXT_API_KEY": "test-key",
        "AGENTIC_CONTEXT_BASE_URL": url,
        "ACECODE_LLM_TIMEOUT": "120",  # a refused connection fails at once, not by timeout
        "ACECODE_PROGRESS_AFTER": "0",
    }

    result = subprocess.run(
        [sys.executable, "-m", "acecode", "learn", str(transcript)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )

    assert result.returncode == 1
    err = result.stderr.splitlines()
    for attempt in (1, 2, 3):
        waiting = (
            f"acecode: reflector waiting on anthropic (127.0.0.1:{port}), attempt {attempt} of 3, "
        )
        assert any(line.startswith(waiting) for line in err), result.stderr
    for attempt in (1, 2):
        retry = (
            f"acecode: reflector: anthropic (127.0.0.1:{port}), attempt {attempt} of 3 failed: "
            "connection failed: "
        )
        assert any(line.startswith(retry) and "; retrying in " in line for line in err)
    # The failure itself is printed once, in the cycle line, with the URL it called.
    assert (result.stdout + result.stderr).count("3 attempts used") == 1
    (line,) = result.stdout.splitlines()
    assert f"[failed] s.jsonl: reflector: anthropic call to {url} failed (3 attempts used)" in line
    log = Path(outcomes.log_file(paths.state_dir())).read_text(encoding="utf-8")
    assert f"reflector: anthropic call to {url} failed" in log
    assert f"at {url} (from AGENTIC_CONTEXT_BASE_URL; key from AGENTIC_CONTEXT_API_KEY)" in log


@pytest.mark.slow  # three attempts with real backoff waits, like the test above
def test_a_library_call_prints_no_progress(project_dir: Path) -> None:
    # Progress is for the commands a person watches; acecode.learn stays quiet.
    port = closed_port()
    transcript = write_transcript(project_dir / "s.jsonl", "why does pytest fail?", "Fixed.")
    script = "import acecode, sys; report = acecode.learn(sys.argv[1]); print(report.status)"
    env = {
        **os.environ,
        "AGENTIC_CONTEXT_API_KEY": "test-key",
        "AGENTIC_CONTEXT_BASE_URL": f"http://127.0.0.1:{port}",
        "ACECODE_PROGRESS_AFTER": "0",
    }
    result = subprocess.run(
        [sys.executable, "-c", script, str(transcript)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.stdout.strip() == "failed"
    assert "waiting on" not in result.stderr and "retrying in" not in result.stderr
