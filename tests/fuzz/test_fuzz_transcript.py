"""Fuzzing the transcript parser: files of arbitrary bytes and of arbitrary JSON records.

``read_transcript`` must never raise, must account for every line (a record,
a blank line, or a counted bad line), must yield well-formed messages, and the
condensed rendering the reflector receives must be encodable text.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzz_counts import ran
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acecode.transcript import read_transcript
from acecode.transcript.condense import condense

FUZZ = settings(
    max_examples=400,
    deadline=None,  # no wall-clock limits in tests: a loaded machine must not fail them
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Valid JSON escapes that decode to lone surrogates, which UTF-8 cannot encode.
HALF_EMOJIS = st.sampled_from(["half an emoji \ud83d", "\udc80 low half", "\ud83d\ude00 whole"])
TEXT = st.one_of(st.text(max_size=80), HALF_EMOJIS)
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    HALF_EMOJIS,
)
ANY_JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _maybe(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """The expected kind of value most of the time, anything JSON otherwise."""
    return st.one_of(values, values, ANY_JSON)


BLOCK = st.fixed_dictionaries(
    {"type": _maybe(st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image"]))},
    optional={
        "text": _maybe(TEXT),
        "thinking": _maybe(TEXT),
        "id": _maybe(st.sampled_from(["t1", "t2", "t3"])),
        "tool_use_id": _maybe(st.sampled_from(["t1", "t2", "t3"])),
        "name": _maybe(st.sampled_from(["Bash", "Read", "Task", "Edit", "Grep"])),
        "input": _maybe(
            st.dictionaries(st.sampled_from(["command", "file_path", "pattern"]), ANY_JSON)
        ),
        "content": _maybe(TEXT | st.lists(ANY_JSON, max_size=3)),
        "is_error": _maybe(st.booleans()),
        "source": ANY_JSON,
    },
)
MESSAGE = st.fixed_dictionaries(
    {},
    optional={
        "role": _maybe(st.sampled_from(["user", "assistant"])),
        "id": _maybe(st.sampled_from(["m1", "m2"])),
        "content": _maybe(TEXT | st.lists(BLOCK, max_size=4)),
    },
)
RECORD = st.fixed_dictionaries(
    {"type": _maybe(st.sampled_from(["user", "assistant", "system", "summary", "progress"]))},
    optional={
        "message": _maybe(MESSAGE),
        "uuid": _maybe(st.text(max_size=8)),
        "sessionId": ANY_JSON,
        "timestamp": _maybe(st.sampled_from(["2025-01-01T00:00:00Z", "yesterday"])),
        "isSidechain": _maybe(st.booleans()),
        "isMeta": _maybe(st.booleans()),
        "isCompactSummary": _maybe(st.booleans()),
        "subtype": _maybe(st.sampled_from(["compact_boundary", "local_command", "informational"])),
        "content": ANY_JSON,
        "toolUseResult": ANY_JSON,
        "agentId": ANY_JSON,
    },
)


@pytest.fixture(scope="module")
def scratch() -> Iterator[Path]:
    """One folder for the module's files (hypothesis reruns the body many times)."""
    with tempfile.TemporaryDirectory(prefix="acecode-fuzz-") as folder:
        yield Path(folder)


def _check(path: Path, line_count: int) -> None:
    result = read_transcript(path)
    stats = result.stats
    assert stats.lines == line_count
    assert stats.records + stats.blank_lines + stats.bad_lines == stats.lines
    for message in result.messages:
        assert message["role"] in ("user", "assistant")
        assert isinstance(message["kind"], str) and isinstance(message["content"], str)
    rendered = condense(result.messages, 2_000)
    rendered.encode("utf-8")  # no lone surrogates reach the LLM request


@FUZZ
@given(st.binary(max_size=3000))
def test_fuzz_transcript_arbitrary_bytes(scratch: Path, data: bytes) -> None:
    ran("read_transcript: arbitrary bytes")
    path = scratch / "bytes.jsonl"
    path.write_bytes(data)
    # JSONL lines end at "\n" only (a "\r" or U+2028 inside a line does not split it).
    _check(path, data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0))


@FUZZ
@given(st.lists(st.one_of(RECORD, ANY_JSON), max_size=25), st.booleans())
def test_fuzz_transcript_arbitrary_json_structures_per_line(
    scratch: Path, records: list[Any], ascii_only: bool
) -> None:
    ran("read_transcript: arbitrary JSON structures per line")
    path = scratch / "records.jsonl"
    lines = [json.dumps(record, ensure_ascii=ascii_only) for record in records]
    path.write_text(
        "".join(f"{line}\n" for line in lines), encoding="utf-8", errors="surrogatepass"
    )
    _check(path, len(lines))
