"""Once per event, however many times acecode's hooks are installed.

Claude Code runs the hooks of every settings file (user, project, local) and of
enabled plugins, in parallel (measured with 2.1.197: the two copies start
within milliseconds of each other, with the same input). Commands that differ
(the user scope runs acecode by its full path, the project scope by name, the
plugin through its launcher) are not merged, so with acecode installed twice
every event reached two acecode processes: the playbook was injected twice and
two learners paid for every session.

So the first hook process for an event claims it, and every other copy exits
without a word. A claim is a file created with ``O_CREAT | O_EXCL``, which the
file system grants to exactly one process; its name is what identifies the
event in the hook input:

- the session (``session_id``; a ``/clear`` starts a new one);
- the event and its ``source``, ``trigger``, ``reason``, ``agent_id`` or
  ``tool_use_id`` (a tool hook answers once per call);
- the user input it belongs to: ``prompt_id`` (Claude Code gives every prompt,
  ``/compact`` and ``/clear`` its own) or ``turn_id`` (Codex); for a prompt
  without either, a checksum of its text.

The same name can legitimately come again: a session resumed twice (no prompt
id at ``SessionStart``, and a second ``SessionEnd`` of the same reason), two
automatic compactions within one long turn. So a claim is the same event only
while it is younger than :data:`SAME_EVENT_SECONDS`, more than any timeout
acecode installs its hooks with (30 s): Claude Code has killed a hook by then,
so no copy of an event can come later than that; and only when it was made from
the same *context*: the Claude Code (or Codex) process that ran the hook, which
every copy of an event shares and a resumed session does not (it is a new
process; measured with Claude Code 2.1.197: hook, ``sh``, ``claude``). The claim
file holds that process's id and start time (:func:`caller_context`, read from
``/proc``; where there is none, every young claim is the same event). Otherwise
the next event takes the following generation (``<name>.1``, ``.2``...), again
by ``O_EXCL``, so that copies of the repeat race for it as for the first.

Claims live in the user's state folder beside the user layer
(``~/.claude/acecode-user/acecode/claims/<session>/``), not in the project: a
hook claims before it knows whether acecode has anything to do in the project,
and a project where it has not must keep no trace of it. A session's folder is
removed :data:`CLAIM_MAX_AGE` after its last claim, when another session starts.

Claiming must never cost the user their playbook: when no claim can be written
(read-only home, full disk) the hook acts, as it did before claims existed.
Only ``os`` and ``time`` are imported: this runs in every hook.
"""

from __future__ import annotations

import os
import time

from acecode.project.layer import Layer
from acecode.project.state_folder import ensure_state_folder

CLAIMS_FOLDER = "claims"
# Longer than any hook timeout acecode installs (30 s): see the module docstring.
SAME_EVENT_SECONDS = 60.0
CLAIM_MAX_AGE = 3 * 24 * 3600  # seconds, like the session markers of acecode.hooks.inject
# What tells two events of one session apart: the event's own detail, and the user input.
DETAIL_FIELDS = ("source", "trigger", "reason", "agent_id", "tool_use_id")
INPUT_ID_FIELDS = ("prompt_id", "turn_id")
NAME_CHARS = 96
MAX_GENERATIONS = 10_000  # a guard: a session resumed this often within 3 days is not real


def claims_folder() -> str:
    """``~/.claude/acecode-user/acecode/claims``: in the user layer's state folder, for every
    project."""
    return Layer.user().state_file(CLAIMS_FOLDER)


def _safe(text: str) -> str:
    """``text`` as one file-name part: letters, digits, ``-`` and ``_`` only."""
    cleaned = "".join(c if c.isalnum() or c in "-_" else "_" for c in text.strip())
    return cleaned[:NAME_CHARS] or "_"


def _input_id(payload: dict) -> str:
    for field in INPUT_ID_FIELDS:
        value = payload.get(field)
        if isinstance(value, str) and value.strip():
            return value
    prompt = payload.get("prompt")
    if isinstance(prompt, str):
        import zlib  # only for a prompt without an id (older Claude Code versions)

        return f"text{zlib.crc32(prompt.encode('utf-8', 'replace')):08x}"
    return ""


def claim_name(event: str, payload: dict) -> tuple[str, str] | None:
    """The session folder and the claim's name for ``event``; None without a session id."""
    session = payload.get("session_id")
    if not isinstance(session, str) or not session.strip():
        return None
    parts = [event]
    for field in DETAIL_FIELDS:
        value = payload.get(field)
        if isinstance(value, str) and value:
            parts.append(value)
    parts.append(_input_id(payload))
    return _safe(session), ".".join(_safe(part) for part in parts if part)


def claim(event: str, payload: dict) -> bool:
    """True when this process is the first to handle ``event`` with this input (or when
    nothing can be recorded); False for another copy of an event already claimed."""
    name = claim_name(event, payload)
    if name is None:
        return True
    session, stem = name
    try:
        folder = _session_folder(session)
    except OSError:
        return True
    context = caller_context()
    for generation in range(MAX_GENERATIONS):
        path = os.path.join(folder, f"{stem}.{generation}")
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if _same_event(path, context):
                return False
            continue
        except OSError:
            return True
        try:
            os.write(fd, context.encode())
        except OSError:
            pass  # an empty claim reads as "the same context", as before contexts existed
        finally:
            os.close(fd)
        return True
    return True


def _same_event(path: str, context: str) -> bool:
    """Whether the claim at ``path`` is this very event: younger than
    :data:`SAME_EVENT_SECONDS` and made from the same context (or one not known)."""
    try:
        age = time.time() - os.stat(path).st_mtime
        with open(path, encoding="utf-8", errors="replace") as handle:
            holder = handle.read(64)
    except OSError:
        return False
    return age < SAME_EVENT_SECONDS and (not context or not holder or holder == context)


# Programs between the agent and the hook process: the shell Claude Code runs the command
# with, the plugin's launcher script (``sh``), wrappers.
_WRAPPERS = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "busybox", "env", "nice", "nohup"}
)


def caller_context() -> str:
    """The process that ran this hook (Claude Code, Codex) as ``<pid>:<start time>``:
    the nearest ancestor that is not a shell. Copies of one event share it; a resumed
    session is a new process. "" where it cannot be known (no ``/proc``): every young
    claim then counts as the same event, as before."""
    pid = os.getppid()
    for _ in range(8):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read()
            command = stat[stat.index(b"(") + 1 : stat.rindex(b")")].decode("utf-8", "replace")
            fields = stat[stat.rindex(b")") + 2 :].split()
            parent, started = int(fields[1]), fields[19].decode()
        except (OSError, ValueError, IndexError):
            return ""
        if command not in _WRAPPERS:
            return f"{pid}:{started}"
        if parent <= 1:
            return ""
        pid = parent
    return ""


def _session_folder(session: str) -> str:
    """The session's claims folder, created on first use (sweeping old sessions then)."""
    claims = claims_folder()
    folder = os.path.join(claims, session)
    if os.path.isdir(folder):
        return folder
    ensure_state_folder(os.path.dirname(claims))
    os.makedirs(claims, exist_ok=True)
    try:
        os.mkdir(folder)
    except FileExistsError:  # a copy of this event created it meanwhile
        return folder
    remove_old_sessions(claims, time.time())
    return folder


def remove_old_sessions(claims: str, now: float) -> None:
    """Remove the folders of sessions whose last claim is older than :data:`CLAIM_MAX_AGE`;
    best effort."""
    try:
        sessions = list(os.scandir(claims))
    except OSError:
        return
    for session in sessions:
        try:
            if not session.is_dir() or now - session.stat().st_mtime <= CLAIM_MAX_AGE:
                continue
            for entry in os.scandir(session.path):
                os.unlink(entry.path)
            os.rmdir(session.path)
        except OSError:
            continue
