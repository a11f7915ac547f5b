"""Fixtures for the role tests: the scripted wire server of tests/llm and an isolated env."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def _load_wire():
    """Load tests/llm/wire.py once under a fixed name (shared with tests/roles)."""
    name = "acecode_test_wire"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).parents[1] / "llm" / "wire.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_wire = _load_wire()
_llm_http_server = _wire._llm_http_server
anthropic_env = _wire.anthropic_env
diagnostic_mode = _wire.diagnostic_mode
llm_server = _wire.llm_server
openai_env = _wire.openai_env
project = _wire.project
recorded_delays = _wire.recorded_delays
