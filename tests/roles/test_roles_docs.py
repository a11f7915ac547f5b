"""The snippet in docs/llm.md really runs: reflector then curator against a local endpoint."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from support.hang_guard import HANG_GUARD
from support.wire import ScriptedLLMServer

DOC = Path(__file__).parents[2] / "docs" / "llm.md"


def snippet() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    [runnable] = [block for block in blocks if "run_curator(reflection" in block]
    return runnable


def test_docs_snippet_prints_the_curator_operations(
    openai_env: ScriptedLLMServer, tmp_path: Path
) -> None:
    operation = {
        "type": "ADD",
        "text": "Install the package in editable mode (`pip install -e .`) before running pytest.",
        "section": "PROJECT CONTEXT",
    }
    openai_env.play(
        json.dumps(
            {"analysis": "The import failed until the package was installed.", "bullet_tags": []}
        ),
        json.dumps({"reasoning": "New project fact.", "operations": [operation]}),
    )
    script = tmp_path / "demo.py"
    script.write_text(snippet(), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env=dict(os.environ),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(operation)
    assert openai_env.attempts == 2
    assert "ModuleNotFoundError" in openai_env.prompt(0)
    assert "New project fact" not in openai_env.prompt(1)
    assert "The import failed" in openai_env.prompt(1)
