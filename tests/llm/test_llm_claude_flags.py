"""Reading which flags the installed `claude` supports, and saying what is missing.

Help texts: ``tests/data/claude_cli/help-new.txt`` and ``help-old.txt`` are
written in the layout of Claude Code's ``--help`` (commander); when the
pinned real CLI is installed (``tests/clients``), its own help is read too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from claude_stub import NEW_HELP, OLD_HELP, install_stub, probes

from acecode.llm.claude_flags import OPTIONAL_FLAGS, cache_path, detect_flags, parse_help
from support.hang_guard import HANG_GUARD

REAL_CLAUDE = Path(__file__).resolve().parents[1] / "clients" / "node_modules" / ".bin" / "claude"


def test_parse_help_reads_option_lines_with_their_aliases() -> None:
    flags = parse_help(NEW_HELP.read_text())
    assert set(OPTIONAL_FLAGS) <= flags
    assert {"--allowedTools", "--allowed-tools", "--print", "--help"} <= flags
    assert "--init" not in flags


def test_a_flag_named_only_inside_a_description_is_not_an_option() -> None:
    text = (
        "Options:\n"
        "  --bare                    Minimal mode. Give context with\n"
        "                            --tools, --settings and --effort.\n"
        "  -p, --print               Print response and exit\n"
    )
    assert parse_help(text) == {"--bare", "--print"}


def test_an_old_help_lacks_the_lean_flags() -> None:
    flags = parse_help(OLD_HELP.read_text())
    assert {"--model", "--strict-mcp-config", "--allowedTools"} <= flags
    for missing in ("--tools", "--no-session-persistence", "--settings", "--effort"):
        assert missing not in flags


@pytest.mark.skipif(not REAL_CLAUDE.exists(), reason="the pinned Claude Code is not installed")
def test_the_real_claude_lists_every_flag_acecode_uses() -> None:
    env = {"HOME": os.environ["HOME"], "PATH": os.environ.get("PATH", "")}
    support = detect_flags(str(REAL_CLAUDE), env)
    assert support.error is None
    assert support.missing == []
    assert support.version


def test_the_cache_is_keyed_by_the_real_path_in_the_user_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home_dir: Path
) -> None:
    record = install_stub(tmp_path / "bin", monkeypatch, NEW_HELP)
    link = tmp_path / "claude-link"
    link.symlink_to(tmp_path / "bin" / "claude")
    support = detect_flags(str(link))
    assert support.version == "2.1.197"
    assert cache_path().is_relative_to(home_dir)
    cached = json.loads(cache_path().read_text())
    assert list(cached) == [str((tmp_path / "bin" / "claude").resolve())]
    detect_flags(str(tmp_path / "bin" / "claude"))  # same file under another name: no probe
    assert probes(record) == ["--help", "--version"]


def test_describe_lists_each_missing_flag_with_its_consequence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_stub(tmp_path / "bin", monkeypatch, OLD_HELP)
    monkeypatch.setenv("STUB_VERSION", "1.0.51 (Claude Code)")
    lines = detect_flags(str(tmp_path / "bin" / "claude")).describe()
    assert lines[0].startswith("claude 1.0.51 at ")
    for flag in ("--tools", "--no-session-persistence", "--disable-slash-commands", "--effort"):
        assert f"[warning] no {flag}: {OPTIONAL_FLAGS[flag]}" in lines
    assert not any("--strict-mcp-config" in line for line in lines[1:])


def run_doctor(env_updates: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ACECODE_PROVIDER": "claude", **env_updates}
    return subprocess.run(
        [sys.executable, "-m", "acecode", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=HANG_GUARD,
        check=False,
    )


def test_doctor_names_what_an_old_claude_cannot_do(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_stub(tmp_path / "bin", monkeypatch, OLD_HELP)
    result = run_doctor({})
    out = " ".join(result.stdout.split())
    assert "nested claude runs" in out
    assert "running without --tools, --no-session-persistence" in out
    assert " ".join(f"[warning] no --tools: {OPTIONAL_FLAGS['--tools']}".split()) in out
    assert "check failed" not in out


def test_doctor_on_a_current_claude_says_all_is_supported(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_stub(tmp_path / "bin", monkeypatch, NEW_HELP)
    out = " ".join(run_doctor({}).stdout.split())
    assert "every flag acecode uses for a lean nested run is supported" in out
    assert "effort: low (from default)" in out
    assert "model: sonnet (from default)" in out
