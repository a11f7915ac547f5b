"""Learning hooks: hand a transcript to ``acecode learn`` in a detached process.

Quitting Claude Code or compacting must never wait on an LLM, so these hooks
only decide *whether* to learn and start ``python -m acecode learn TRANSCRIPT
--source EVENT --project PROJECT`` in its own session (it survives Claude Code
exiting), with ``ACECODE_HOOKS_DISABLED=1`` so that a nested ``claude -p`` run
does not fire acecode's hooks again.

Every ended session is learned from by default, however it ended (``/exit``,
Ctrl-D and Ctrl-C give ``prompt_input_exit``, ``/clear`` gives ``clear``, a
closed terminal or a finished ``claude -p`` give ``other``, and ``logout``),
and so is every compaction. An explicit ``"playbook_update_on_exit": false``
or ``"playbook_update_on_clear": false`` in Claude Code's settings opts out of
the first two. Every decision, taken or not, is one line in
``.claude/acecode/logs/learn.log`` (:mod:`acecode.project.outcomes`); the learner's
stderr goes there too, each line stamped like the others
(:mod:`acecode.output.log_stream`), and the cycle adds its own status line.

``ACECODE_LEARN_COMMAND`` replaces the ``python -m acecode`` prefix of that
command (split like a shell would); the tests point it at a stub learner.
"""

from __future__ import annotations

import os
import sys

from acecode.project import outcomes
from acecode.project.layer import Layer
from acecode.project.project_root import resolve_project
from acecode.project.session_switch import NESTED_ENV

LEARN_COMMAND_ENV = "ACECODE_LEARN_COMMAND"

# SessionEnd reasons that a Claude Code setting set to an explicit false opts out of.
OPT_OUT_SETTINGS: dict[str, str] = {
    "prompt_input_exit": "playbook_update_on_exit",
    "clear": "playbook_update_on_clear",
}


def _learner_prefix() -> list[str]:
    override = os.environ.get(LEARN_COMMAND_ENV, "").strip()
    if override:
        import shlex

        return shlex.split(override)
    return [sys.executable, "-m", "acecode"]


def _log(project: str, text: str) -> None:
    outcomes.append_log(Layer.of_project(project), text)


def _missing_transcript(transcript: object) -> str | None:
    """Why ``transcript`` cannot be learned from, or None when it has content."""
    if not isinstance(transcript, str) or not transcript:
        return "the hook input names no transcript"
    try:
        size = os.path.getsize(transcript)
    except OSError as exc:
        return f"cannot read {transcript} ({exc.strerror or exc})"
    return f"{transcript} is empty" if size == 0 else None


def _inactive(project: str) -> str | None:
    """Why acecode must not learn in ``project`` (``acecode off``, ``opt_in``,
    ``ACECODE_SKIP``), or None."""
    from pathlib import Path

    from acecode.project.control import activity

    state = activity(Path(project))
    return None if state.active else state.reason


def _leaves_a_trace(project: str) -> bool:
    """Whether a project acecode is not active in may get a log line: only where acecode
    has been used or configured, so that an ``opt_in`` user's other projects stay clean."""
    from pathlib import Path

    from acecode.project.control import project_config

    state = Layer.of_project(project).state_folder
    return os.path.isdir(state) or project_config(Path(project)).exists()


def _may_learn(project: str, event: str, note: str) -> bool:
    """False (and one log line where acecode has a trace) when the project is inactive."""
    reason = _inactive(project)
    if reason is None:
        return True
    if _leaves_a_trace(project):
        _log(project, f"{event}: not learning{note}: acecode is not active here: {reason}")
    return False


def start_learner(transcript: object, source: str, project: str, note: str = "") -> bool:
    """Start the background cycle for a non-empty transcript; True when started.

    ``source`` is the event (``session-end``); ``note`` adds to its log lines, e.g.
    `` (reason clear)``.
    """
    missing = _missing_transcript(transcript)
    if missing:
        _log(project, f"{source}: not learning{note}: {missing}")
        return False
    _log(project, f"{source}: learning from {transcript}{note}")
    arguments = ["learn", str(transcript), "--source", source, "--project", project]
    error = _spawn(arguments, project)
    if error:
        from acecode.project.diagnostics import warn

        warn(f"could not start the background learner ({error}); {transcript} not learned")
        _log(project, f"{source}: not learning{note}: could not start the learner ({error})")
        return False
    return True


def start_catch_up(agent: str, project: str, session_id: object) -> None:
    """Start ``acecode catch-up`` in the background: learn ``agent``'s earlier sessions of
    ``project`` that no cycle has learned yet (the current session ``session_id`` aside).

    Nothing is logged here: the catch-up logs what it learns, and says nothing when
    there is nothing to catch up, so a session start costs one process start.
    """
    arguments = ["catch-up", "--agent", agent, "--project", project]
    if isinstance(session_id, str) and session_id:
        arguments += ["--except", session_id]
    error = _spawn(arguments, project, traceless=True)
    if error:
        _log(project, f"catch-up: could not start ({error})")


# The background review's state file; its lock is beside it (acecode.store.lock):
# acecode.pipeline.arrival_review.STATE_NAME (a test keeps them equal).
ARRIVAL_REVIEW_STATE = "arrival-review.json"


def arrival_review_running(project: str) -> bool:
    """Whether a background review of arrived entries holds the project's lock now (a
    non-blocking probe of the lock the job takes; False where that cannot be told)."""
    try:
        import fcntl
    except ImportError:  # Windows: start one; a second job leaves at once on the lock
        return False
    path = Layer.of_project(project).state_file(ARRIVAL_REVIEW_STATE + ".lock")
    try:
        handle = open(path, "a")  # noqa: SIM115 - closed below, the lock with it
    except OSError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        handle.close()
    return False


def start_arrival_review(project: str) -> None:
    """Start ``acecode review-arrivals`` in the background (:mod:`acecode.pipeline.arrival_review`)
    unless one runs already: it screens and reviews the entries that arrived with the
    repository while the session goes on. Never waits on it."""
    if arrival_review_running(project):
        return
    _log(
        project,
        "session-start: screening and reviewing the entries that arrived with the "
        "repository in the background",
    )
    error = _spawn(["review-arrivals", "--project", project], project)
    if error:
        _log(project, f"review-arrivals: could not start ({error})")


def _spawn(arguments: list[str], project: str, traceless: bool = False) -> str | None:
    """Start ``acecode ARGUMENTS`` detached (it outlives the agent), its stderr in
    learn.log (stamped by the learner; the file itself catches what bypasses Python);
    the reason when it could not be started. ``traceless``: where acecode has no logs
    folder yet, drop stderr instead of creating one."""
    import subprocess

    command = [*_learner_prefix(), *arguments]
    env = {**os.environ, NESTED_ENV: "1", "CLAUDE_PROJECT_DIR": project}
    layer = Layer.of_project(project)
    log_path = outcomes.log_file(layer)
    detach: dict = (
        {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS}
        if os.name == "nt"
        else {"start_new_session": True}
    )
    if traceless and not os.path.isdir(os.path.dirname(log_path)):
        log_path = os.devnull
    else:
        from acecode.output.log_stream import STDERR_TO_LOG_ENV

        env[STDERR_TO_LOG_ENV] = layer.state_folder  # the learner stamps its stderr lines
    try:
        with open(log_path, "a", encoding="utf-8") as log:
            subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # the cycle writes its own status line to the log
                stderr=log,
                cwd=project,
                env=env,
                **detach,
            )
    except OSError as exc:
        return str(exc.strerror or exc)
    return None


def opted_out(reason: str, project: str) -> str | None:
    """The explicit ``false`` setting that opts ``reason`` out of learning, or None."""
    setting = OPT_OUT_SETTINGS.get(reason)
    if setting is None:
        return None
    from pathlib import Path

    from acecode.project.config import claude_setting

    value, source = claude_setting(setting, project=Path(project))
    return f'"{setting}": false in {source}' if value is False else None


def on_session_end(payload: dict) -> None:
    """Learn from the finished session unless its end reason is explicitly opted out."""
    project = resolve_project(payload)
    reason = str(payload.get("reason") or "")
    note = f" (reason {reason})" if reason else ""
    if not _may_learn(project, "session-end", note):
        return
    why = opted_out(reason, project)
    if why:
        _log(project, f"session-end: not learning{note}: {why}")
        return
    start_learner(payload.get("transcript_path"), "session-end", project, note)


def on_pre_compact(payload: dict) -> None:
    """Learn before the context is summarised: always, when there is a transcript."""
    project = resolve_project(payload)
    trigger = payload.get("trigger")
    note = f" (trigger {trigger})" if isinstance(trigger, str) and trigger else ""
    if _may_learn(project, "pre-compact", note):
        start_learner(payload.get("transcript_path"), "pre-compact", project, note)


def on_subagent_stop(payload: dict) -> None:
    """Learn from a finished subagent's own transcript when ``learn_from_subagents``."""
    project = resolve_project(payload)
    if not _may_learn(project, "subagent-stop", ""):
        return
    from pathlib import Path

    from acecode.project.config import load_settings

    if not load_settings(Path(project)).learn_from_subagents:
        _log(project, "subagent-stop: not learning: learn_from_subagents is off")
        return
    start_learner(payload.get("agent_transcript_path"), "subagent-stop", project)
