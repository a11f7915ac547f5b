"""A stand-in `claude` executable for the provider tests.

It answers ``--help`` with the help text named by ``STUB_HELP`` (a file) and
``--version`` with ``STUB_VERSION``, logging each probe to
``<STUB_RECORD>.probes``. Any other invocation records its arguments,
environment, stdin and pid to ``STUB_RECORD`` (one JSON line per call), may
start a grandchild (``STUB_GRANDCHILD=1``, its pid recorded too) and sleep
(``STUB_SLEEP``), then prints ``STUB_REPLY`` and exits with ``STUB_EXIT``.
The replies the tests play are results the real Claude Code 2.1.197 printed
(``tests/data/claude_cli/result-*.json``).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from support.hang_guard import HANG_GUARD

DATA = Path(__file__).resolve().parents[1] / "data" / "claude_cli"
NEW_HELP = DATA / "help-new.txt"
OLD_HELP = DATA / "help-old.txt"

STUB = """\
#!{python}
import json, os, subprocess, sys, time
args = sys.argv[1:]
record = os.environ["STUB_RECORD"]
if args in (["--help"], ["--version"]):
    with open(record + ".probes", "a") as handle:
        handle.write(args[0] + "\\n")
    if args == ["--help"]:
        sys.stdout.write(open(os.environ["STUB_HELP"]).read())
    else:
        sys.stdout.write(os.environ.get("STUB_VERSION", "2.1.197 (Claude Code)") + "\\n")
    sys.exit(int(os.environ.get("STUB_HELP_EXIT", "0")))
data = {{"argv": args, "env": dict(os.environ), "stdin": sys.stdin.read(), "pid": os.getpid()}}
if os.environ.get("STUB_GRANDCHILD"):
    # Sleeps past any hang guard: is_gone below cannot mistake its natural end for a kill.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    data["grandchild"] = child.pid
with open(record, "a") as handle:
    handle.write(json.dumps(data) + "\\n")
time.sleep(float(os.environ.get("STUB_SLEEP", "0")))
sys.stdout.write(os.environ["STUB_REPLY"])
sys.exit(int(os.environ.get("STUB_EXIT", "0")))
"""


def install_stub(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, help_file: Path) -> Path:
    """Put the stub first on PATH as `claude`; returns the record file."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / "claude"
    exe.write_text(STUB.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    record = bin_dir.parent / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("STUB_RECORD", str(record))
    monkeypatch.setenv("STUB_HELP", str(help_file))
    reply(monkeypatch, "stub says hi")
    return record


def reply(monkeypatch: pytest.MonkeyPatch, text: str, **extra: object) -> None:
    """Script a successful result with ``text`` (``extra`` overrides fields)."""
    payload = {
        "type": "result",
        "subtype": "success",
        "result": text,
        "is_error": False,
        "session_id": "s-1",
        "total_cost_usd": 0.0123,
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 1000,
            "output_tokens": 42,
        },
        **extra,
    }
    monkeypatch.setenv("STUB_REPLY", json.dumps(payload))


def reply_recorded(monkeypatch: pytest.MonkeyPatch, name: str) -> dict:
    """Script one of the results recorded from the real CLI; exit 1 like it did on errors."""
    payload = json.loads((DATA / f"result-{name}.json").read_text())
    monkeypatch.setenv("STUB_REPLY", json.dumps(payload))
    monkeypatch.setenv("STUB_EXIT", "1" if payload["is_error"] else "0")
    return payload


def calls(record: Path) -> list[dict]:
    return [json.loads(line) for line in record.read_text().splitlines()]


def probes(record: Path) -> list[str]:
    path = Path(f"{record}.probes")
    return path.read_text().split() if path.exists() else []


def is_gone(pid: int, wait: float = HANG_GUARD) -> bool:
    """True once ``pid`` no longer runs (a zombie awaiting its reaper counts as gone);
    False when it still runs after the hang guard."""
    deadline = time.monotonic() + wait
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            state = "R"
        if state in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
