"""The library example of README.md runs as printed, against a real server on 127.0.0.1.

The block under "Use acecode from Python" is extracted and run in a fresh
interpreter whose only LLM settings are the two variables the example reads
(an API key and the Anthropic-protocol endpoint of the scripted server).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from acecode.store import load_playbook
from support.hang_guard import HANG_GUARD
from support.pipeline import is_curator, routed_servers

README = Path(__file__).parents[2] / "README.md"
RULE = "Install the package in editable mode (`pip install -e .`) before running pytest."


def library_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("### Use acecode from Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def route(system: str, prompt: str) -> str:
    if is_curator(system, prompt):
        operation = {"type": "ADD", "text": RULE, "section": "PROJECT CONTEXT"}
        return json.dumps({"reasoning": "a project fact", "operations": [operation]})
    return json.dumps({"analysis": "The import failed until the package was installed."})


def test_the_readme_library_example_learns_and_prints_the_change(tmp_path: Path) -> None:
    with routed_servers() as start:
        llm = start(route)
        project = tmp_path / "project"
        project.mkdir()
        script = tmp_path / "example.py"
        script.write_text(library_example(), encoding="utf-8")
        env = {
            **os.environ,
            "ANTHROPIC_API_KEY": "example-key",
            "ANTHROPIC_BASE_URL": llm.url,
            "CLAUDE_PROJECT_DIR": str(tmp_path / "not-this-one"),
        }
        result = subprocess.run(
            [sys.executable, str(script)],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            check=False,
        )

    assert result.returncode == 0, result.stderr
    summary, change = result.stdout.splitlines()
    assert re.fullmatch(r"cycle \S+ \[ok\] <2 messages>: .*1 operation applied.*", summary)
    assert change == f"ADD ctx-001 {RULE}"
    saved = load_playbook(project / ".claude" / "playbook.json")
    assert [entry["text"] for entry in saved["sections"]["PROJECT CONTEXT"]] == [RULE]
    sent = [json.loads(body) for body in llm.bodies]
    assert {body["model"] for body in sent} == {"claude-sonnet-4-6"}
    assert "No module named 'app'" in json.dumps(sent[0])
