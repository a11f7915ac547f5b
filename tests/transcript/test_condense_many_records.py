"""``acecode condense`` on a session of very many small records streams it.

A long session of small records (a tool call and its short output, over and
over) used to cost memory per message: the whole message list, then every
message's ladder of renderings. The condenser now reads the messages as a
stream and keeps, for an item the budget is certain to omit, only a shared
placeholder; what it keeps is still every request and every error.

The bound: the peak RSS of ``acecode condense`` on 100,000 records (~53 MB)
may exceed that of the same command on a 3-record transcript by at most
100 MB. Holding the messages and their renderings cost about 2.4 KB per
record (+240 MB here, measured before the change); streaming costs a list
reference and an output hash per record (+40 MB measured), so the margin
fails the old behaviour while leaving room for allocator noise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acecode.transcript.text import estimate_tokens
from support.hang_guard import LONG_HANG_GUARD, killed_after

RECORDS = 100_000
RSS_MARGIN = 100 * 1024 * 1024
BUDGET = 20_000
REQUEST_EVERY = 500  # pairs of records between two user requests
ERROR_EVERY = 250  # pairs of records between two failed calls


def _write_session(path: Path, records: int) -> tuple[list[str], list[str]]:
    """Write a session of small records; returns the planted request and error markers."""
    output = ("line of build output " * 40)[:700]
    requests: list[str] = []
    errors: list[str] = []
    written = 0
    number = 0
    with path.open("w", encoding="utf-8") as handle:
        while written < records:
            if number % REQUEST_EVERY == 0:
                marker = f"REQUEST-{number}"
                requests.append(marker)
                prompt = {"role": "user", "content": f"{marker} please refactor module {number}"}
                handle.write(json.dumps({"type": "user", "uuid": f"U{number}", "message": prompt}))
                handle.write("\n")
                written += 1
            failed = number % ERROR_EVERY == 7
            if failed:
                errors.append(f"ERRORMARK-{number}")
            use = {
                "type": "tool_use",
                "id": f"t{number}",
                "name": "Bash",
                "input": {"command": f"make target{number}"},
            }
            content = f"ERRORMARK-{number} permission denied" if failed else f"ok {number} {output}"
            result = {
                "type": "tool_result",
                "tool_use_id": f"t{number}",
                "content": content,
                "is_error": failed,
            }
            call = {"id": f"m{number}", "role": "assistant", "content": [use]}
            answer = {"role": "user", "content": [result]}
            handle.write(json.dumps({"type": "assistant", "uuid": f"A{number}", "message": call}))
            handle.write("\n")
            handle.write(json.dumps({"type": "user", "uuid": f"R{number}", "message": answer}))
            handle.write("\n")
            written += 2
            number += 1
    return requests, errors


def _condense_peak_rss(transcript: Path, out: Path) -> tuple[int, int, float, str]:
    """Run ``acecode condense``, reaped with ``wait4``: (exit code, peak RSS bytes, s, stderr)."""
    started = time.monotonic()
    command = [sys.executable, "-m", "acecode", "condense", str(transcript)]
    errors = out.with_suffix(".err")
    with out.open("wb") as stdout, errors.open("wb") as stderr:
        child = subprocess.Popen([*command, "--budget", str(BUDGET)], stdout=stdout, stderr=stderr)
        with killed_after(child, LONG_HANG_GUARD):  # a hang is killed, and fails the exit code
            _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.monotonic() - started
    err = errors.read_text(encoding="utf-8", errors="replace")
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, elapsed, err


@pytest.mark.slow
def test_condense_many_small_records_streams_and_keeps_requests_and_errors(
    tmp_path: Path,
) -> None:
    small = tmp_path / "small.jsonl"
    _write_session(small, 3)
    code, baseline, _, err = _condense_peak_rss(small, tmp_path / "small.txt")
    assert code == 0, err

    large = tmp_path / "large.jsonl"
    requests, errors = _write_session(large, RECORDS)
    output = tmp_path / "large.txt"
    code, peak, elapsed, err = _condense_peak_rss(large, output)
    print(
        f"\n{RECORDS} records ({large.stat().st_size / 2**20:.0f} MB): condense took "
        f"{elapsed:.1f} s, peak RSS {peak / 2**20:.0f} MB vs {baseline / 2**20:.0f} MB "
        "on a 3-record transcript"
    )
    assert code == 0, err
    assert peak <= baseline + RSS_MARGIN

    text = output.read_text(encoding="utf-8")
    assert estimate_tokens(text.rstrip("\n")) <= BUDGET
    assert f"{RECORDS} messages" in text.splitlines()[0]
    lines = text.splitlines()
    missing_requests = [m for m in requests if not any(f"USER: {m} " in line for line in lines)]
    missing_errors = [m for m in errors if not any(f"ERROR from Bash: {m}" in x for x in lines)]
    assert not missing_requests
    assert not missing_errors
    # The failed calls stay pinned too; the bulk of ordinary calls and outputs is omitted.
    assert text.count("CALL (failed): ") == len(errors)
    assert "omitted to fit the budget" in text
