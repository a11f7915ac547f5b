"""Learning hooks: hand a transcript to ``acecode learn`` in a detached process.

Quitting Claude Code or compacting must never wait on an LLM, so these hooks
only decide *whether* to learn and start ``python -m acecode learn TRANSCRIPT
--source EVENT --project PROJECT`` in its own session (it survives Claude Code
exiting), with ``ACECODE_HOOKS_DISABLED=1`` so that a nested ``claude -p`` run
does not fire acecode's hooks again. The learner's stderr is appended to
``.claude/acecode/logs/learn.log``; the cycle's own report says what it did.

``ACECODE_LEARN_COMMAND`` replaces the ``python -m acecode`` prefix of that
command (split like a shell would); the tests point it at a stub learner.
"""

from __future__ import annotations

import os
import sys
import time

from acecode.hooks.context import resolve_project, state_path
from acecode.session_switch import NESTED_ENV
from acecode.state_folder import ensure_state_folder

LEARN_COMMAND_ENV = "ACECODE_LEARN_COMMAND"

# SessionEnd reasons that learn only when a Claude Code setting opts in (default off).
OPT_IN_REASONS: dict[str, str] = {
    "prompt_input_exit": "playbook_update_on_exit",
    "clear": "playbook_update_on_clear",
}


def _learner_prefix() -> list[str]:
    override = os.environ.get(LEARN_COMMAND_ENV, "").strip()
    if override:
        import shlex

        return shlex.split(override)
    return [sys.executable, "-m", "acecode"]


def _has_content(transcript: object) -> bool:
    if not isinstance(transcript, str) or not transcript:
        return False
    try:
        return os.path.getsize(transcript) > 0
    except OSError:
        return False


def start_learner(transcript: object, source: str, project: str) -> bool:
    """Start the background cycle for a non-empty transcript; True when started."""
    if not _has_content(transcript):
        return False
    import subprocess

    command = [
        *_learner_prefix(),
        "learn",
        str(transcript),
        "--source",
        source,
        "--project",
        project,
    ]
    env = {**os.environ, NESTED_ENV: "1", "CLAUDE_PROJECT_DIR": project}
    log_path = state_path(project, "logs", "learn.log")
    detach: dict = (
        {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS}
        if os.name == "nt"
        else {"start_new_session": True}
    )
    try:
        ensure_state_folder(state_path(project))  # git-ignored before anything is in it
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        with open(log_path, "a", encoding="utf-8") as log:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            log.write(f"{stamp} {source}: learning from {transcript}\n")
            log.flush()
            subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,  # the cycle's one-line summary lands in the log too
                stderr=log,
                cwd=project,
                env=env,
                **detach,
            )
    except OSError as exc:
        from acecode.diagnostics import warn

        reason = exc.strerror or exc
        warn(f"could not start the background learner ({reason}); {transcript} not learned")
        return False
    return True


def on_session_end(payload: dict) -> None:
    """Learn from the finished session unless its end reason is opted out."""
    project = resolve_project(payload)
    setting = OPT_IN_REASONS.get(str(payload.get("reason")))
    if setting is not None:
        from pathlib import Path

        from acecode.config import claude_setting

        if not claude_setting(setting, default=False, project=Path(project)):
            return
    start_learner(payload.get("transcript_path"), "session-end", project)


def on_pre_compact(payload: dict) -> None:
    """Learn before the context is summarised: always, when there is a transcript."""
    start_learner(payload.get("transcript_path"), "pre-compact", resolve_project(payload))


def on_subagent_stop(payload: dict) -> None:
    """Learn from a finished subagent's own transcript when ``learn_from_subagents``."""
    transcript = payload.get("agent_transcript_path")
    if not _has_content(transcript):
        return
    project = resolve_project(payload)
    from pathlib import Path

    from acecode.config import load_settings

    if load_settings(Path(project)).learn_from_subagents:
        start_learner(transcript, "subagent-stop", project)
