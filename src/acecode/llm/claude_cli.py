"""Headless Claude Code (``claude -p --output-format json``) as a provider.

For Claude Code users with a subscription and no API key. The prompt goes in
on stdin (a transcript can exceed the kernel's per-argument limit), and the
nested run is kept from re-entering acecode twice over: the child gets
``ACECODE_HOOKS_DISABLED=1``, which acecode's hooks check, and
``--settings '{"disableAllHooks": true}'``, which stops every hook of that run.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from typing import Any

from acecode.llm.base import Completion, LLMRequest, ProviderError
from acecode.session_switch import NESTED_ENV

NO_HOOKS_SETTINGS = json.dumps({"disableAllHooks": True})


class ClaudeCLIProvider:
    """Runs one single-turn, tool-less ``claude -p`` per completion."""

    name = "claude"

    def __init__(
        self,
        *,
        executable: str,
        model: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.model = model
        self._executable = executable
        self._env = dict(os.environ if env is None else env)

    def argv(self, request: LLMRequest) -> list[str]:
        """The command line for ``request``; the prompt itself travels on stdin."""
        args = [
            self._executable,
            "-p",
            "--output-format",
            "json",
            "--max-turns",
            "1",
            "--allowedTools",
            "",
            "--settings",
            NO_HOOKS_SETTINGS,
            "--system-prompt",
            request.system,
        ]
        model = request.model or self.model
        if model:
            args += ["--model", model]
        return args

    def child_env(self) -> dict[str, str]:
        """The child's environment: ours plus the recursion guard."""
        return {**self._env, NESTED_ENV: "1"}

    async def complete(self, request: LLMRequest) -> Completion:
        try:
            process = await asyncio.create_subprocess_exec(
                *self.argv(request),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self.child_env(),
            )
        except OSError as exc:
            raise ProviderError(f"cannot start {self._executable}: {exc}", retryable=False) from exc
        try:
            stdout, stderr = await process.communicate(request.prompt.encode("utf-8"))
        except BaseException:
            # Timeout or cancellation: never leave a headless claude running behind us.
            if process.returncode is None:
                process.kill()
                await process.wait()
            raise
        return _parse_output(process.returncode, stdout, stderr)


def _parse_output(returncode: int | None, stdout: bytes, stderr: bytes) -> Completion:
    """Read claude's JSON result; failures are not retried (claude retries the API itself)."""
    text = stdout.decode("utf-8", errors="replace").strip()
    try:
        payload: Any = json.loads(text)
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        detail = (stderr.decode("utf-8", errors="replace").strip() or text)[-500:]
        raise ProviderError(
            f"claude exited {returncode} without a JSON result: {detail}", retryable=False
        )
    if payload.get("is_error") or returncode:
        raise ProviderError(
            f"claude reported an error (exit {returncode}): {str(payload.get('result', ''))[:500]}",
            retryable=False,
        )
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    input_parts = [
        usage.get(key)
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    ]
    counted = [value for value in input_parts if isinstance(value, int)]
    output_tokens = usage.get("output_tokens")
    cost = payload.get("total_cost_usd")
    return Completion(
        text=str(payload.get("result") or ""),
        input_tokens=sum(counted) if counted else None,
        output_tokens=output_tokens if isinstance(output_tokens, int) else None,
        cost_usd=float(cost) if isinstance(cost, int | float) else None,
    )
