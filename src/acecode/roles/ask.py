"""The plumbing every role shares: fill a template, call the LLM, parse JSON, never raise.

A role is "build fields -> :func:`ask_json` -> shape the dict". Failures of
any kind (no provider configured, retries exhausted, a reply without JSON, a
bug) surface as exceptions here and are turned into the role's documented
empty result by :func:`never_raises`, with a diagnostic and one stderr line.
A caller that must tell "failed" from "found nothing" (the learning cycle)
opens :func:`collect_failures` around its calls and gets each failure's
reason instead of the stderr line: it reports the failure itself, so that
each failure is printed once.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec

from acecode.errors import AcecodeError
from acecode.llm import complete, extract_json
from acecode.llm.base import DEFAULT_MAX_TOKENS
from acecode.llm.jsonx import salvage_json
from acecode.project.diagnostics import diagnose, warn
from acecode.prompts.templates import load_template
from acecode.roles.prompt import RolePrompt, fill_split

SYSTEM_PROMPT = (
    "You are a careful reviewer inside acecode, a tool that helps a coding agent learn "
    "from its sessions. Follow the instructions in the user message and answer with "
    "exactly one JSON object, without any text before or after it."
)

P = ParamSpec("P")

_failures: ContextVar[list[str] | None] = ContextVar("acecode_role_failures", default=None)


@contextmanager
def collect_failures() -> Iterator[list[str]]:
    """Collect ``"<role>: <reason>"`` for every role call that fails inside the block; the
    caller reports them (no stderr line is printed for them)."""
    failures: list[str] = []
    token = _failures.set(failures)
    try:
        yield failures
    finally:
        _failures.reset(token)


class NoJSONError(AcecodeError, ValueError):
    """The reply contained no JSON object."""


def role_model(role: str) -> str | None:
    """The model a role runs on when its own setting names one (``judge_model``,
    ``safety_review_model``); None: the provider's model, as for every other role."""
    from acecode.project.config import load_settings

    settings = load_settings()
    chosen = {"judge": settings.judge_model, "safety_review": settings.safety_review_model}
    return chosen.get(role, "").strip() or None


def role_prompt(
    *,
    role: str,
    template: str,
    fields: dict[str, str],
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> RolePrompt:
    """``template`` filled with ``fields``, with its fixed head marked for the prompt cache."""
    prompt, fixed = fill_split(load_template(template), **fields)
    return RolePrompt(
        role=role,
        system=SYSTEM_PROMPT,
        prompt=prompt,
        cacheable_chars=fixed,
        max_tokens=max_tokens,
        model=role_model(role),
    )


async def ask(request: RolePrompt, diagnostic_name: str) -> dict[str, Any]:
    """Send ``request`` and return the JSON object of the reply; of a reply cut off at
    ``max_tokens``, what it holds whole (:func:`acecode.llm.jsonx.salvage_json`)."""
    completion = await complete(
        request.system,
        request.prompt,
        role=request.role,
        diagnostic_name=diagnostic_name,
        max_tokens=request.max_tokens,
        model=request.model,
        cacheable_chars=request.cacheable_chars,
    )
    diagnose(
        diagnostic_name,
        f"# PROMPT\n{request.prompt}\n\n{'=' * 80}\n\n# RESPONSE\n{completion.text}\n",
    )
    # A cut reply's first whole object may be one of its inner ones (an operation):
    # read the reply's own object as far as it is whole instead.
    read = salvage_json if completion.truncated else extract_json
    data = read(completion.text)
    if data is None:
        preview = completion.text.strip()[:200] or "(empty reply)"
        cut = " (cut off at max_tokens)" if completion.truncated else ""
        raise NoJSONError(f"the reply contained no JSON object{cut}: {preview!r}")
    return data


async def ask_json(
    *,
    role: str,
    template: str,
    fields: dict[str, str],
    diagnostic_name: str,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> dict[str, Any]:
    """Send ``template`` filled with ``fields`` and return the JSON object of the reply."""
    request = role_prompt(role=role, template=template, fields=fields, max_tokens=max_tokens)
    return await ask(request, diagnostic_name)


def never_raises(
    role: str, empty: Callable[[], dict[str, Any]]
) -> Callable[[Callable[P, Awaitable[dict[str, Any]]]], Callable[P, Awaitable[dict[str, Any]]]]:
    """Decorate a role so any exception becomes a fresh copy of its empty result."""

    def decorate(
        func: Callable[P, Awaitable[dict[str, Any]]],
    ) -> Callable[P, Awaitable[dict[str, Any]]]:
        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> dict[str, Any]:
            try:
                return await func(*args, **kwargs)
            except Exception as exc:
                # Never an empty reason: an exception without a message is named by its type.
                reason = " ".join(str(exc).split()) or type(exc).__name__
                collected = _failures.get()
                if collected is not None:
                    collected.append(f"{role}: {reason}")
                else:
                    warn(f"{role} skipped: {reason}")
                diagnose(
                    f"{role}_error", f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc()}"
                )
                return empty()

        return wrapper

    return decorate


def as_text(value: Any) -> str:
    """A string field of a reply; anything else becomes ``""``."""
    return value if isinstance(value, str) else ""


def dict_items(value: Any) -> list[dict[str, Any]]:
    """The dict elements of a list field; a non-list becomes ``[]``."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
