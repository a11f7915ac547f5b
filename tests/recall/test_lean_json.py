"""acecode.text.lean_json: json's own results without importing json (the tool hooks' path)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acecode.text.lean_json import dumps, loads

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(VALUES)
def test_dumps_writes_what_json_writes(value: object) -> None:
    assert dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@given(VALUES)
def test_loads_reads_what_json_reads(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=2), f" \n{json.dumps(value)}\t"):
        assert loads(text) == json.loads(text)


def test_special_floats_and_refusals() -> None:
    assert math.isnan(loads("NaN")) and loads("-Infinity") == float("-inf")
    assert dumps(float("inf")) == "Infinity"
    for text in ("", "{", "[1,]", '{"a" 1}', "{} x", "tru"):
        with pytest.raises(ValueError):
            loads(text)
    for value in ({1: "x"}, {"a": object()}, b"bytes"):
        with pytest.raises(TypeError):
            dumps(value)
