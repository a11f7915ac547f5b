"""Headless Claude Code (``claude -p --output-format json``) as a provider.

For Claude Code users with a subscription and no API key. A nested
``claude -p`` is a full agent session unless told otherwise: the CLI's 24
tool definitions, the skill list, CLAUDE.md and auto memory travel with every
request (73 KB around a 4 KB prompt with 2.1.197), the run is saved under
``~/.claude/projects`` and hooks and MCP servers start. Each run is therefore
made a plain completion with every means the installed version offers:

* flags, where ``claude --help`` lists them (:mod:`acecode.llm.claude_flags`):
  ``--tools ""`` (no tools), ``--no-session-persistence`` (no transcript),
  ``--strict-mcp-config`` (no MCP servers), ``--disable-slash-commands`` (no
  skills), ``--settings '{"disableAllHooks": true}'`` (no hooks), ``--model``
  and ``--effort``;
* environment variables of the child only, which versions that do not know
  them ignore: ``CLAUDE_CODE_DISABLE_CLAUDE_MDS`` (no CLAUDE.md),
  ``CLAUDE_CODE_DISABLE_AUTO_MEMORY`` (no auto memory),
  ``CLAUDE_CODE_DISABLE_TERMINAL_TITLE`` (no second request that sends the
  whole prompt again to title the session), ``CLAUDE_CODE_EFFORT_LEVEL``
  (it would override ``--effort``) and acecode's own ``ACECODE_HOOKS_DISABLED``.

The user's settings files stay in force (no ``--setting-sources ""``): they
may hold what the login needs (``env``, ``apiKeyHelper``), and before 2.1.101
leaving out the user source made Claude Code delete conversation history older
than 30 days. ``--bare`` is never used: it ignores the subscription login.

The prompt goes in on stdin (a transcript can exceed the kernel's
per-argument limit). The child runs in its own process group, so a timeout
or cancellation kills it together with anything it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Mapping
from typing import Any

from acecode.llm.base import Completion, LLMRequest, ProviderError
from acecode.llm.claude_flags import FlagSupport, detect_flags
from acecode.project.config import Settings
from acecode.project.session_switch import NESTED_ENV

NO_HOOKS_SETTINGS = json.dumps({"disableAllHooks": True})

# Set in the child's environment only; versions that do not know a variable ignore it.
CHILD_ENV = {
    NESTED_ENV: "1",
    "CLAUDE_CODE_DISABLE_CLAUDE_MDS": "1",
    "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
}
EFFORT_ENV = "CLAUDE_CODE_EFFORT_LEVEL"

# Optional flags with their value (None for a switch), in argv order.
_LEAN_FLAGS: tuple[tuple[str, str | None], ...] = (
    ("--tools", ""),
    ("--no-session-persistence", None),
    ("--strict-mcp-config", None),
    ("--disable-slash-commands", None),
    ("--settings", NO_HOOKS_SETTINGS),
)


class ClaudeCLIProvider:
    """Runs one single-turn, tool-less ``claude -p`` per completion."""

    name = "claude"

    def __init__(
        self,
        *,
        executable: str = "claude",
        model: str | None = None,
        effort: str | None = None,
        timeout: float = Settings.claude_timeout,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.model = model
        self.effort = effort
        self.timeout = timeout
        self._executable = executable
        self._env = dict(os.environ if env is None else env)

    @property
    def endpoint(self) -> str:
        """The `claude` command each completion runs."""
        return self._executable

    def flag_support(self) -> FlagSupport:
        """The flags of this provider's executable (cached per executable)."""
        return detect_flags(self._executable, self._env)

    def argv(self, request: LLMRequest, support: FlagSupport) -> list[str]:
        """The command line for ``request``; the prompt itself travels on stdin."""
        args = [self._executable, "-p", "--output-format", "json", "--max-turns", "1"]
        for flag, value in _LEAN_FLAGS:
            if support.supports(flag):
                args += [flag] if value is None else [flag, value]
        model = request.model or self.model
        if model and support.supports("--model"):
            args += ["--model", model]
        if self.effort and support.supports("--effort"):
            args += ["--effort", self.effort]
        return [*args, "--system-prompt", request.system]

    def child_env(self) -> dict[str, str]:
        """Ours plus the variables that keep the nested run lean and out of acecode."""
        env = {**self._env, **CHILD_ENV}
        if self.effort:
            env[EFFORT_ENV] = self.effort
        return env

    async def complete(self, request: LLMRequest) -> Completion:
        support = await asyncio.to_thread(self.flag_support)
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv(request, support),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self.child_env(),
                start_new_session=True,
            )
        except OSError as exc:
            raise ProviderError(f"cannot start {self._executable}: {exc}", retryable=False) from exc
        try:
            stdout, stderr = await process.communicate(request.prompt.encode("utf-8"))
        except BaseException:
            # Timeout or cancellation: never leave a headless claude (or its children) behind.
            _kill_group(process)
            with contextlib.suppress(ProcessLookupError):
                await process.wait()
            raise
        return parse_output(process.returncode, stdout, stderr)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL the child's process group (it leads its own session); the child alone on Windows."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()


def parse_output(returncode: int | None, stdout: bytes, stderr: bytes) -> Completion:
    """Read claude's JSON result, or raise a :class:`ProviderError` that says what failed."""
    text = stdout.decode("utf-8", errors="replace").strip()
    try:
        payload: Any = json.loads(text)
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        detail = (stderr.decode("utf-8", errors="replace").strip() or text)[-500:]
        raise ProviderError(
            f"claude exited {returncode} without a JSON result: {detail or '(no output)'}",
            retryable=False,
        )
    if payload.get("is_error") or returncode or payload.get("subtype", "success") != "success":
        raise result_error(payload, returncode, stderr)
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    input_parts = [
        usage.get(key)
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    counted = [value for value in input_parts if isinstance(value, int)]
    output_tokens = usage.get("output_tokens")
    cost = payload.get("total_cost_usd")
    cache_write, cache_read = (value if isinstance(value, int) else 0 for value in input_parts[1:])
    by_ttl = usage.get("cache_creation") if isinstance(usage.get("cache_creation"), dict) else {}
    cache_write_1h = by_ttl.get("ephemeral_1h_input_tokens")
    return Completion(
        text=str(payload.get("result") or ""),
        input_tokens=sum(counted) if counted else None,
        output_tokens=output_tokens if isinstance(output_tokens, int) else None,
        cost_usd=float(cost) if isinstance(cost, int | float) else None,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        cache_write_1h_tokens=min(cache_write_1h, cache_write)
        if isinstance(cache_write_1h, int)
        else 0,
        truncated=payload.get("stop_reason") == "max_tokens",
    )


def result_error(payload: dict[str, Any], returncode: int | None, stderr: bytes) -> ProviderError:
    """A failed result as one line: subtype, API status, stop reason, and claude's own words.

    Claude Code already retried API errors itself (up to 10 retries, minutes of
    backoff), so only a server-side failure (``api_error_status`` 5xx, 529
    overload included) is worth another attempt; a 429 on a subscription is a
    usage limit that does not lift within the retry window, and any other
    error (authentication, bad request, max turns, a crash during execution)
    would fail the same way again.
    """
    subtype = str(payload.get("subtype") or "error")
    status = payload.get("api_error_status")
    status = status if isinstance(status, int) else None
    parts = [subtype]
    if status is not None:
        parts.append(f"API status {status}")
    for key in ("stop_reason", "terminal_reason"):
        value = payload.get(key)
        if value and value not in ("stop_sequence", "completed", "end_turn"):
            parts.append(f"{key} {value}")
    if returncode:
        parts.append(f"exit {returncode}")
    message = _error_text(payload) or stderr.decode("utf-8", errors="replace").strip()[-300:]
    return ProviderError(
        f"claude reported {', '.join(parts)}: {message or '(claude gave no message)'}",
        retryable=status is not None and status >= 500,
        status=status,
    )


def _error_text(payload: dict[str, Any]) -> str:
    """``result`` for API errors, ``errors`` for max turns and execution errors."""
    pieces = []
    result = payload.get("result")
    if isinstance(result, str) and result.strip():
        pieces.append(result.strip())
    errors = payload.get("errors")
    if isinstance(errors, list):
        pieces += [str(item).strip() for item in errors if str(item).strip()]
    return " ".join(" / ".join(pieces).split())[:500]
