"""Fault 7: a 200 MB transcript.

``acecode learn`` must stream it: the reader takes one line at a time (each
capped at 8 MiB) and every stored message is clipped, so memory follows the
number of messages kept, not the bytes of the file. The file imitates a long
session whose volume is, as in real ones, in tool output: file reads of
~100 KB, a base64 screenshot of ~200 KB and ordinary 1.5 KB command outputs.

The bound: the peak RSS of the child learning from the 200 MB file may exceed
that of the same command on a 4-record transcript by at most 100 MB, half the
file's size. Holding the file (200 MB of bytes, then as much again decoded)
or its parsed records would cost several times that; the ~16,000 clipped
messages and their condensed renderings cost a few tens of MB.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from fault_support import (
    ACECODE,
    acecode_env,
    comparable,
    lesson_text,
    sections,
    seed_playbook,
    session_transcript,
    with_lesson,
)

from support.hang_guard import LONG_HANG_GUARD, killed_after

SIZE = 200 * 1024 * 1024
RSS_MARGIN = 100 * 1024 * 1024


def _record_template() -> str:
    """One stretch of a session (25 records, ~330 KB) with ``%(i)d`` where ids differ."""
    output = "y" * 1500
    source = "def function_0(x):\\n    return x * 2\\n" * 3000
    image = base64.b64encode(os.urandom(150_000)).decode()
    records = [
        {"type": "user", "uuid": "U%d", "message": {"role": "user", "content": "Refactor %d"}}
    ]
    for k in range(10):
        use = {"type": "tool_use", "id": f"t%d_{k}", "name": "Bash", "input": {"command": "make"}}
        result = {"type": "tool_result", "tool_use_id": f"t%d_{k}", "content": "ok " + output}
        records += [
            {
                "type": "assistant",
                "uuid": f"A%d_{k}",
                "message": {"id": f"m%d_{k}", "role": "assistant", "content": [use]},
            },
            {"type": "user", "uuid": f"R%d_{k}", "message": {"role": "user", "content": [result]}},
        ]
    read = {"type": "tool_use", "id": "r%d", "name": "Read", "input": {"file_path": "/src/m%d.py"}}
    records += [
        {
            "type": "assistant",
            "uuid": "F%d",
            "message": {"id": "f%d", "role": "assistant", "content": [read]},
        },
        {
            "type": "user",
            "uuid": "G%d",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "r%d", "content": "SOURCE"}],
            },
        },
        {
            "type": "user",
            "uuid": "I%d",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "IMAGE"},
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "uuid": "B%d",
            "message": {
                "id": "n%d",
                "role": "assistant",
                "content": [{"type": "text", "text": "Module %d refactored."}],
            },
        },
    ]
    text = "\n".join(json.dumps(r) for r in records) + "\n"
    text = text.replace("SOURCE", source).replace("IMAGE", image)
    return text.replace("%", "%%").replace("%%d", "%(i)d")


def write_large_transcript(path: Path, size: int, ending: Path) -> int:
    """Write about ``size`` bytes of session, then the records of ``ending``; returns bytes."""
    template = _record_template()
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        number = 0
        while written < size:
            chunk = template % {"i": number}
            handle.write(chunk)
            written += len(chunk)
            number += 1
        tail = ending.read_text(encoding="utf-8")
        handle.write(tail)
    return written + len(tail)


def _learn_peak_rss(transcript: Path, env: dict[str, str], cwd: Path, logs: Path):
    """Run ``acecode learn`` and reap it with ``wait4``: (exit code, peak RSS bytes, s, stderr)."""
    started = time.monotonic()
    with (logs / "out.txt").open("w") as out, (logs / "err.txt").open("w") as err:
        child = subprocess.Popen(
            [*ACECODE, "learn", str(transcript)], env=env, cwd=cwd, stdout=out, stderr=err
        )
        with killed_after(child, LONG_HANG_GUARD):  # a hang is killed, and fails the exit code
            _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - started
    return child.returncode, usage.ru_maxrss * 1024, elapsed, (logs / "err.txt").read_text()


@pytest.mark.slow
def test_fault_200mb_transcript_learn_streams_with_bounded_memory(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path
) -> None:
    server = llm()
    seed_playbook(playbook)
    env = acecode_env(project_dir, home_dir, server.env())
    small = session_transcript(tmp_path / "small.jsonl", "0")
    code, baseline, _, err = _learn_peak_rss(small, env, project_dir, tmp_path)
    assert code == 0, err
    before = sections(playbook)

    large = tmp_path / "large.jsonl"
    try:
        started = time.monotonic()
        size = write_large_transcript(large, SIZE, session_transcript(tmp_path / "end.jsonl", "1"))
        generated = time.monotonic() - started
        code, peak, elapsed, err = _learn_peak_rss(large, env, project_dir, tmp_path)
    finally:
        large.unlink(missing_ok=True)

    print(
        f"\n{size / 2**20:.0f} MB generated in {generated:.1f} s; learn took {elapsed:.1f} s; "
        f"peak RSS {peak / 2**20:.0f} MB vs {baseline / 2**20:.0f} MB on a 4-record transcript"
    )
    assert code == 0, err
    assert "Traceback" not in err
    assert peak <= baseline + RSS_MARGIN
    # The session's last request (after 200 MB) reached the reflector and was learned.
    assert "MARKER-1" in server.bodies[-3]  # reflector, then curator and safety review
    assert comparable(sections(playbook)) == comparable(with_lesson(before, "1"))
    assert lesson_text("1") in playbook.read_text(encoding="utf-8")
