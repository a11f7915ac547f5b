"""Damaged, hostile and huge transcripts: skipped lines are counted, memory stays bounded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from transcript_data import TRANSCRIPTS

from acecode.transcript import read_transcript
from acecode.transcript.reader import MAX_LINE_BYTES
from support.hang_guard import HANG_GUARD

SHORT = TRANSCRIPTS / "spotter" / "short.jsonl"
LONG = TRANSCRIPTS / "spotter" / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"


def _prompt(text: str) -> bytes:
    record = {"type": "user", "message": {"role": "user", "content": text}}
    return json.dumps(record).encode() + b"\n"


def test_invalid_utf8_and_ten_thousand_malformed_lines(tmp_path: Path) -> None:
    path = tmp_path / "damaged.jsonl"
    with path.open("wb") as handle:
        for number in range(10_000):
            handle.write(_prompt(f"request {number}") if number % 100 == 0 else b"")
            handle.write(b'{"type": "user", "message": {"role": "us\n')  # truncated JSON
        handle.write(b'{"type": "user", "message": {"content": "caf\xe9 \xff\xfe"}}\n')
        handle.write(b"\xc3\x28 not utf-8 at all\n")
        handle.write(b"[1, 2, 3]\n")  # JSON, but not a record
        handle.write(b"\n   \n")
        handle.write(_prompt("the last request").rstrip(b"\n"))  # no final newline
    result = read_transcript(path)
    prompts = [m["content"] for m in result.messages if m["kind"] == "prompt"]
    assert prompts == [f"request {n}" for n in range(0, 10_000, 100)] + ["the last request"]
    assert result.stats.malformed_lines == 10_001
    assert result.stats.invalid_utf8_lines == 2
    assert result.stats.blank_lines == 2
    assert result.stats.records == 101


def test_truncated_last_line_of_a_real_transcript(tmp_path: Path) -> None:
    data = SHORT.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) - 40])  # a crash while the last record was written
    full = read_transcript(SHORT)
    result = read_transcript(cut)
    assert result.stats.malformed_lines == 1
    assert result.stats.records == full.stats.records - 1
    assert result.messages == full.messages[: len(result.messages)]


def test_oversized_line_is_skipped_without_losing_the_next(tmp_path: Path) -> None:
    path = tmp_path / "huge-line.jsonl"
    with path.open("wb") as handle:
        handle.write(_prompt("before"))
        handle.write(b'{"type": "user", "message": {"content": "')
        handle.write(b"A" * (MAX_LINE_BYTES + 3 * 1024 * 1024))
        handle.write(b'"}}\n')
        handle.write(_prompt("after"))
    result = read_transcript(path)
    assert [m["content"] for m in result.messages] == ["before", "after"]
    assert result.stats.oversized_lines == 1


def test_deeply_nested_json_is_counted_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "nested.jsonl"
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n" + _prompt("still here"))
    result = read_transcript(path)
    assert [m["content"] for m in result.messages] == ["still here"]
    assert result.stats.malformed_lines == 1


# Peak RSS of the child itself. Linux carries ``ru_maxrss`` over ``execve`` from
# the forking parent (pytest, which just wrote 200 MB), so VmHWM, which starts
# afresh with the new program, is read where it exists.
_MEASURE = """
import resource, sys
from acecode.transcript import iter_messages, read_transcript

def peak_mb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024

if sys.argv[2] == "stream":
    count = sum(1 for _ in iter_messages(sys.argv[1]))
    stats = None
else:
    result = read_transcript(sys.argv[1])
    count, stats = len(result.messages), result.stats
print(count, stats.oversized_lines if stats else -1, peak_mb())
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="resource module is POSIX only")
def test_200_mb_transcript_parsed_with_bounded_memory(tmp_path: Path) -> None:
    """Peak RSS stays far below the file size, streaming or building the message list.

    The file repeats a real 2.8 MB session (compaction, progress records, big
    tool outputs) to 200 MB and carries one 40 MB line (a giant tool output),
    which must be skipped in bounded chunks.
    """
    session = LONG.read_bytes()
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        written = 0
        while written < 200 * 1024 * 1024:
            handle.write(session)
            written += len(session)
            if written > 100 * 1024 * 1024 and written - len(session) <= 100 * 1024 * 1024:
                handle.write(b'{"type": "user", "x": "')
                for _ in range(40):
                    handle.write(b"B" * (1024 * 1024))
                handle.write(b'"}\n')
    copies = written // len(session)
    expected = len(read_transcript(LONG).messages) * copies
    try:
        peaks = {}
        for mode in ("stream", "list"):
            output = subprocess.run(
                [sys.executable, "-c", _MEASURE, str(path), mode],
                capture_output=True,
                text=True,
                check=True,
                timeout=HANG_GUARD,
            ).stdout.split()
            count, oversized, peak_mb = map(int, output)
            assert count == expected
            if mode == "list":
                assert oversized == 1
            peaks[mode] = peak_mb
    finally:
        path.unlink()
    # Streaming: flat, whatever the file size (interpreter + one 8 MiB line buffer).
    assert peaks["stream"] < 60, peaks
    # The list holds ~37k clipped messages; it grows with their number, not their bytes.
    assert peaks["list"] < 150, peaks
