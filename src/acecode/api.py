"""The library entry point: run one learning cycle from Python, no environment needed.

:func:`learn` is what ``acecode learn`` does for one transcript, with
everything the command takes from the environment passed as arguments: the
session (a file or a list of messages), the project (whose
``.claude/playbook.json`` is learned into) and the LLM provider object. What
is not passed still comes from the environment, as for the command. The
project and provider are bound to the call through context variables, so
calls for different projects or providers may run concurrently in one
process (threads, or :func:`alearn` tasks in one event loop).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acecode.errors import LearnInputError

if TYPE_CHECKING:
    from acecode.llm.base import Provider
    from acecode.pipeline.cycle_report import CycleReport

Source = str | os.PathLike[str] | Iterable[Mapping[str, Any]]


async def alearn(
    source: Source,
    *,
    project: str | os.PathLike[str] | None = None,
    provider: Provider | None = None,
    dry_run: bool = False,
) -> CycleReport:
    """:func:`learn` for callers already inside an event loop."""
    from acecode.llm.base import check_provider
    from acecode.llm.client import using_provider
    from acecode.pipeline.cycle import run_cycle
    from acecode.pipeline.session_source import MessageList, message_list
    from acecode.project import paths

    if provider is not None:
        check_provider(provider)
    session: Path | MessageList
    if isinstance(source, str | os.PathLike):
        session = Path(source)
        if not session.is_file():
            raise LearnInputError(f"{session}: no such transcript file")
    else:
        session = message_list(source)
    root = None if project is None else Path(project).resolve()
    if root is not None and not root.is_dir():
        raise LearnInputError(f"{root}: the project folder does not exist")
    with paths.using_project(root), using_provider(provider):
        return await run_cycle(
            session,
            playbook_path=paths.playbook_path(root) if root is not None else None,
            source="library",
            dry_run=dry_run,
        )


def learn(
    source: Source,
    *,
    project: str | os.PathLike[str] | None = None,
    provider: Provider | None = None,
    dry_run: bool = False,
) -> CycleReport:
    """Learn from one session and return the cycle's report.

    ``source`` is a Claude Code transcript file (``.jsonl``) or a list of
    messages: acecode's flat ``{"role": "user" | "assistant", "content": str}``
    dicts (optional fields as :func:`load_transcript` returns them) or the
    records of a transcript file (see :mod:`acecode.pipeline.session_source`).
    ``project`` is the project folder whose ``.claude/playbook.json`` is
    learned into (default: ``$CLAUDE_PROJECT_DIR``, else the current
    directory). ``provider`` is an LLM provider object such as
    :class:`AnthropicProvider`, :class:`OpenAIProvider` or
    :class:`ClaudeCLIProvider`; without one the environment chooses, as for
    the ``acecode`` command. ``dry_run`` computes the changes without saving.

    The report's ``status`` is ``ok``, ``nothing-new``, ``skipped`` or
    ``failed`` (with ``reason``); an LLM failure is a ``failed`` report, not an
    exception. Raises :class:`LearnInputError` for a missing file or folder, a
    file that is not a transcript (no line is a JSON record) or a malformed
    message, :class:`ProviderInterfaceError` for a ``provider`` that lacks
    ``name``, ``model``, ``timeout`` or an async ``complete``, and
    :class:`~acecode.store.PlaybookError` when the playbook cannot be read or
    written; all derive from :class:`AcecodeError`.
    """
    return asyncio.run(alearn(source, project=project, provider=provider, dry_run=dry_run))
