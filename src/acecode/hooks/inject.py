"""Injection: the best of the playbook at every new context, relevant extras per prompt.

``SessionStart`` fires for every new context (``startup``, ``resume``,
``clear``) and after every compaction (``compact``), when what was injected
earlier has been summarised away, so it always injects: as many entries as
fit in the budget (``acecode.playbook.injection``). ``UserPromptSubmit`` then
adds, per prompt, the left-out entries most relevant to it (the top-up, see
``acecode.hooks.topup``). When ``SessionStart`` did not run for a session, its
first prompt injects the session-start text instead (the fallback).

Markers live in ``.claude/acecode/sessions/<session id>``: the first line
says which hook served the session, the following lines name every entry
injected into its current context, and every entry the hold-back draw kept
from it (:mod:`acecode.experiments`), so a top-up never repeats one nor
brings back one held back. Beside it, ``<session id>.recalled`` names the
entries recall showed at a tool call in this context (:mod:`acecode.recall.window`);
starting the marker removes it. What each session got is also appended to the
exposure log (:mod:`acecode.experiments.serve`). A new
``SessionStart`` (after ``/clear`` or a compaction) rewrites the marker.
Markers older than ``MARKER_MAX_AGE`` are removed whenever one is written. A
project without a playbook (neither its own nor the user layer), or where
acecode is off, gets no markers at all, so installing acecode for every
project leaves no trace where it has nothing to say.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from acecode.hooks.context import has_playbook
from acecode.hooks.markers import RECALLED_SUFFIX, marker_file
from acecode.hooks.rendered import DEFAULT_AGENT, session_start
from acecode.project.layer import Layer
from acecode.project.project_root import resolve_project
from acecode.project.state_folder import ensure_state_folder

MARKER_MAX_AGE = 3 * 24 * 3600  # seconds
# Seconds a hook may spend up to the end of the first screen of arrived entries, counted
# from the interpreter's start (approximated by the CPU time spent so far: a first run
# that compiles every module spends it before the handler starts): with the rendering
# around it, a hook stays well within 2 s, and what it has not screened waits (held) for
# the next hook and the background review (acecode.arrivals.verdicts).
SCREEN_SECONDS = 1.0
# ACECODE_SCREEN_SECONDS replaces it (a machine whose hooks may take longer).
SCREEN_SECONDS_ENV = "ACECODE_SCREEN_SECONDS"
# Agents whose SessionEnd does not come for every ending (docs/codex.md): their
# earlier sessions are caught up in the background when a new one starts.
CATCH_UP_AGENTS = ("codex",)


def _remove_stale_markers(folder: str, now: float) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_file() and now - entry.stat().st_mtime > MARKER_MAX_AGE:
                os.unlink(entry.path)
        except OSError:
            continue


def _mark(marker: str | None, source: str, names: Iterable[str]) -> None:
    """Start this session's marker: who served it and what it injected; best effort."""
    if marker is None:
        return
    folder = os.path.dirname(marker)
    try:
        ensure_state_folder(os.path.dirname(folder))  # git-ignored before anything is in it
        os.makedirs(folder, exist_ok=True)
        with open(marker, "w", encoding="utf-8") as handle:
            handle.write("".join(f"{line}\n" for line in (source, *names)))
    except OSError:
        return
    with contextlib.suppress(OSError):  # a new context: what recall showed may be shown again
        os.unlink(marker + RECALLED_SUFFIX)
    _remove_stale_markers(folder, time.time())


def _context_output(event: str, text: str) -> dict | None:
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _guarded(render: Callable[[str], Any], project: str, fallback: Any) -> Any:
    """``render(project)``, or ``fallback`` with one stderr line when the playbook is unusable."""
    try:
        return render(project)
    except Exception as exc:
        # Imported here, not above: importing the store costs more than the cache hit saves.
        from acecode.store.errors import PlaybookError

        if not isinstance(exc, PlaybookError):
            raise
        from acecode.project.diagnostics import diagnose, warn

        warn(f"{exc}; the playbook was not injected")
        diagnose("injection_skipped", str(exc))
        return fallback


def _screen_deadline() -> float:
    """When this hook stops screening arrived entries (``time.monotonic()``)."""
    try:
        seconds = float(os.environ.get(SCREEN_SECONDS_ENV) or SCREEN_SECONDS)
    except ValueError:
        seconds = SCREEN_SECONDS
    return time.monotonic() - time.process_time() + max(0.0, seconds)


def _session_state(
    project: str, agent: str, deadline: float | None = None
) -> dict[str, Any] | None:
    """The session-start state (``rendered.session_start``); None without any playbook."""
    if not has_playbook(project):
        return None
    return _guarded(lambda root: session_start(root, agent, deadline=deadline), project, None)


def _with_arrivals_reviewed(
    project: str, agent: str, start: dict[str, Any], user: dict[str, Any], deadline: float
) -> dict[str, Any] | None:
    """Where entries arrived with the repository: record whether an LLM review can be made
    here (:mod:`acecode.arrivals.mode`; the state is rendered again when that changed), and
    start the background review when entries wait for the screen or the review."""
    from acecode.arrivals.mode import record_reviewer

    state = Layer.of_project(project).state_folder
    if record_reviewer(state, not user.get("no_provider")):
        start = _session_state(project, agent, deadline) or start
    info = start.get("arrivals") or {}
    if info.get("unscreened") or (info.get("need_review") and info.get("reviewing")):
        from acecode.hooks.learn import start_arrival_review

        start_arrival_review(project)
    return start


def _reviewer_recorded(project: str) -> dict[str, Any]:
    """The user checks (the notice needs them anyway), with whether an LLM review can be
    made here recorded before the injection is first rendered. Recorded only after it,
    a first session without a provider rendered twice, screening a large arrival under
    both modes, and a 3,000-entry arrival's first SessionStart outlived a 2 s timeout."""
    from acecode.arrivals.mode import record_reviewer
    from acecode.hooks.user_checks import user_notices

    user = user_notices(project)
    record_reviewer(Layer.of_project(project).state_folder, not user.get("no_provider"))
    return user


def _injects(state: dict[str, Any]) -> bool:
    """Whether ``state`` has something to inject: acecode is active and the playbook
    could be read (otherwise the notice says why not)."""
    return bool(state.get("active")) and not state.get("error")


def on_session_start(payload: dict, agent: str = DEFAULT_AGENT) -> dict | None:
    """Inject at every new or compacted context and mark the session as served;
    add the user notice of :mod:`acecode.hooks.notice` when learning needs attention.

    For an agent whose session end is unreliable (Codex: no SessionEnd for a
    closed terminal), also start the background catch-up of its earlier sessions.
    """
    from acecode.hooks.notice import SILENT_SOURCES, with_notice

    deadline = _screen_deadline()
    project = resolve_project(payload)
    if agent in CATCH_UP_AGENTS and payload.get("source") == "startup":
        from acecode.hooks.learn import start_catch_up

        start_catch_up(agent, project, payload.get("session_id"))
    user = None
    if payload.get("source") not in SILENT_SOURCES and has_playbook(project):
        user = _reviewer_recorded(project)
    start = _session_state(project, agent, deadline)
    if start is not None and start.get("arrivals"):
        if user is None:
            from acecode.hooks.user_checks import user_notices

            user = user_notices(project)
        start = _with_arrivals_reviewed(project, agent, start, user, deadline)
    if start is None or not _injects(start):
        return with_notice(None, project, payload, start, user)
    from acecode.experiments.serve import serve_start, with_message

    text, names, held, note = serve_start(Layer.of_project(project), start, payload, agent, "start")
    marker = marker_file(project, payload.get("session_id"))
    _mark(marker, f"SessionStart:{payload.get('source')}", [*names, *held])
    output = with_notice(_context_output("SessionStart", text), project, payload, start, user)
    return with_message(output, note)


def _with_progress(output: dict | None, project: str, arrivals: Any) -> dict | None:
    """``output`` with the line saying that the background review of arrived entries is
    done, once, when it is (:func:`acecode.arrivals.announce.progress_line`)."""
    if not arrivals:
        return output
    from acecode.arrivals.announce import progress_line

    line = progress_line(project, arrivals)
    if line is None:
        return output
    from acecode.hooks.notice import PREFIX

    return {**(output or {}), "systemMessage": PREFIX + line}


def on_user_prompt_submit(payload: dict, agent: str = DEFAULT_AGENT) -> dict | None:
    """Top up a served session with relevant entries; serve an unserved one (fallback)."""
    project = resolve_project(payload)
    marker = marker_file(project, payload.get("session_id"))
    if marker is None or not has_playbook(project):
        return None
    deadline = _screen_deadline()
    if os.path.exists(marker):
        from acecode.hooks.topup import topup_text

        prompt = payload.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return None
        session = payload.get("session_id")
        text, arrivals = _guarded(
            lambda root: topup_text(root, prompt, marker, agent, session, deadline),
            project,
            ("", None),
        )
        return _with_progress(_context_output("UserPromptSubmit", text), project, arrivals)
    start = _session_state(project, agent, deadline)
    if start is None or not _injects(start):
        return None
    from acecode.experiments.serve import serve_start

    text, names, held, _note = serve_start(
        Layer.of_project(project), start, payload, agent, "fallback"
    )
    _mark(marker, "UserPromptSubmit", [*names, *held])
    return _context_output("UserPromptSubmit", text)
