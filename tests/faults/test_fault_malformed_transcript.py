"""Fault 8: a transcript with invalid UTF-8 and 10,000 malformed lines.

``acecode learn`` must learn from the records that are valid and ignore the
rest: a crashed writer or a file copied between machines costs only its own
damaged lines.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from fault_support import (
    acecode_env,
    comparable,
    lesson_text,
    one_clear_line,
    run_acecode,
    sections,
    seed_playbook,
    session_transcript,
    with_lesson,
)

MALFORMED_LINES = 10_000
# Valid JSON holding half a surrogate pair: decodes to a str that UTF-8 cannot encode.
HALF_EMOJI = (
    b'{"type": "user", "uuid": "half", "message": {"role": "user", '
    b'"content": "and the emoji \\ud83d got cut"}}'
)


def _damaged_line(rng: random.Random, number: int) -> bytes:
    """One of the ways a JSONL line goes bad in the wild."""
    record = json.dumps(
        {"type": "user", "uuid": f"bad{number}", "message": {"role": "user", "content": "hi"}}
    ).encode()
    kind = number % 8
    if kind == 0:  # invalid UTF-8 inside an otherwise valid record
        return record.replace(b"hi", b"h\xff\xfei")
    if kind == 1:  # truncated by a crash
        return record[: rng.randrange(1, len(record) - 1)]
    if kind == 2:  # random bytes
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 120))).replace(b"\n", b"")
    if kind == 3:  # valid JSON that is not an object
        return rng.choice([b"[1, 2, 3]", b'"text"', b"42", b"null", b"true"])
    if kind == 4:  # an object that is not a transcript record
        return json.dumps(
            {"type": rng.choice([None, 7, [], "user"]), "message": rng.random()}
        ).encode()
    if kind == 5:  # NUL bytes and a lone UTF-8 continuation byte
        return b"\x00\x00{\x80}"
    if kind == 6:  # deeply nested brackets
        return b"[" * 5000 + b"]" * 4999
    return b"{" + b'"a":' * rng.randrange(1, 50)  # unbalanced object


def test_fault_invalid_utf8_and_10000_malformed_lines_learn_from_valid_records(
    project_dir: Path, home_dir: Path, playbook: Path, llm, tmp_path: Path
) -> None:
    server = llm()
    before = seed_playbook(playbook)["sections"]
    valid = session_transcript(tmp_path / "valid.jsonl", "utf8").read_bytes().splitlines()
    rng = random.Random(8)
    damaged = [_damaged_line(rng, n) for n in range(MALFORMED_LINES)]
    # The four valid records spread through the damage, the file ending in a torn line.
    lines = damaged[:2500] + valid[:1] + damaged[2500:5000] + valid[1:3]
    lines += [*damaged[5000:7500], HALF_EMOJI, *valid[3:], *damaged[7500:]]
    transcript = tmp_path / "damaged.jsonl"
    transcript.write_bytes(b"\n".join(lines))

    result = run_acecode(
        ["learn", str(transcript)],
        acecode_env(project_dir, home_dir, server.env()),
        cwd=project_dir,
    )

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    skipped = [line for line in result.stderr.splitlines() if "unreadable line" in line]
    assert len(skipped) == 1 and skipped[0].startswith("acecode: skipped ")
    assert comparable(sections(playbook)) == comparable(with_lesson(before, "utf8"))
    reflector_request = server.bodies[0]
    assert "MARKER-utf8" in reflector_request
    assert "Fixed it, following [pat-001]." in reflector_request
    assert "No module named" in reflector_request  # the failing tool result in the middle
    assert lesson_text("utf8") in playbook.read_text(encoding="utf-8")
    print(f"\nUSER SAW (exit 0): {result.stdout.strip()} | stderr: {result.stderr.strip()!r}")


def test_fault_damaged_transcript_condense_prints_valid_records_and_counts_the_rest(
    project_dir: Path, home_dir: Path, tmp_path: Path
) -> None:
    valid = session_transcript(tmp_path / "valid.jsonl", "shown").read_bytes().splitlines()
    rng = random.Random(88)
    damaged = [_damaged_line(rng, n) for n in range(MALFORMED_LINES)]
    transcript = tmp_path / "damaged.jsonl"
    transcript.write_bytes(b"\n".join([*damaged[:5000], *valid, HALF_EMOJI, *damaged[5000:]]))

    result = run_acecode(
        ["condense", str(transcript)], acecode_env(project_dir, home_dir), cwd=project_dir
    )

    assert result.returncode == 0
    # 10,000 damaged lines minus the kind-4 objects, which parse as (empty) records.
    one_clear_line(result, "skipped 8,750 unreadable lines", str(transcript))
    assert "MARKER-shown" in result.stdout
    assert "the emoji \ufffd" in result.stdout
