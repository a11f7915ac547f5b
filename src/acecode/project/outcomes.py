"""How learning went: the small files that say what became of every session.

Each ended session either starts a learning cycle or is not learned, and each
cycle ends with one of four statuses:

* ``ok``: the cycle ran and changed the playbook or the review queue;
* ``nothing-new``: it ran and changed nothing (no new messages, the LLM
  found nothing to add or rate, or the triage found nothing to learn and
  made no LLM call);
* ``skipped``: it did not try (too small to teach anything, acecode off for
  the project, no messages), with the reason;
* ``failed``: it tried and could not (no LLM provider, an LLM error, a reply
  without JSON), with the reason. A store error (corrupt playbook, lock
  timeout) is the caller's to report and leaves no record.

Only ``ok`` and ``nothing-new`` mark a transcript as learned; a skipped or
failed session stays due, so a resumed session or ``acecode bootstrap``
learns it later. Three files in the state folder (``.claude/acecode``) keep
this, written by the hooks and the learner, read by ``doctor``, ``history``
and the session-start notice:

* ``logs/learn.log``: one timestamped line per decision: a hook that starts
  the learner or does not (and why), and every cycle's status, reason and
  provider;
* ``cycles.jsonl``: one JSON record per cycle (``acecode history``, ``doctor``);
* ``last-cycle.json``: the last cycle that was not skipped, so that a trivial
  session cannot hide an earlier failure from the session-start notice.

Only ``os``, ``json`` and ``time`` (and :mod:`acecode.project.state_folder`, which creates the
state folder with its ``.gitignore``): the hooks import this module.
"""

from __future__ import annotations

import json
import os
import time
from typing import IO, TYPE_CHECKING, Any

from acecode.project.state_folder import ensure_folder_of, folder_of

if TYPE_CHECKING:
    from acecode.project.state_folder import StateFolder

OK = "ok"
NOTHING_NEW = "nothing-new"
SKIPPED = "skipped"
FAILED = "failed"
LEARNED = (OK, NOTHING_NEW)
# Sources of a cycle someone started on purpose: they learn even a small session, and
# nothing learns a transcript they skipped unless they run it again.
BY_HAND_SOURCES = ("cli", "library")
# Sources of a cycle started in a shell (by hand or ``acecode bootstrap``); every other
# source is a hook's (session-end, pre-compact, subagent-stop, catch-up).
SHELL_SOURCES = (*BY_HAND_SOURCES, "bootstrap")

LOG_PARTS = ("logs", "learn.log")
CYCLES_FILE = "cycles.jsonl"
LAST_CYCLE_FILE = "last-cycle.json"
# A reason is one line for people; the full story is in the report and diagnostics.
MAX_REASON_CHARS = 500


def started_by_hook(source: object) -> bool:
    """True for a cycle a hook started: it ran with the agent's environment, unwatched."""
    return source not in SHELL_SOURCES


def one_line(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """``text`` on one line, clipped to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def log_file(state_dir: StateFolder) -> str:
    """``<state dir>/logs/learn.log``."""
    return os.path.join(folder_of(state_dir), *LOG_PARTS)


def _append_to(state_dir: StateFolder, *parts: str) -> IO[str]:
    """The file ``parts`` of the state folder, opened to append (folders created first)."""
    path = os.path.join(ensure_folder_of(state_dir), *parts)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return open(path, "a", encoding="utf-8")


def append_log(state_dir: StateFolder, text: str) -> bool:
    """Append one timestamped line to learn.log; False (and nothing raised) when the
    disk refuses: a log line must never stop a hook or a cycle."""
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {one_line(text, 4 * MAX_REASON_CHARS)}\n"
    try:
        with _append_to(state_dir, *LOG_PARTS) as handle:
            handle.write(line)
    except OSError:
        return False
    return True


def record_outcome(state_dir: StateFolder, record: dict[str, Any]) -> None:
    """Keep a finished cycle's record in ``cycles.jsonl`` (and, unless it was skipped,
    in ``last-cycle.json``). Raises ``OSError`` when the disk refuses.

    One ``write`` of one line in append mode, so concurrent cycles never
    interleave their records.
    """
    data = json.dumps(record, ensure_ascii=False, default=str)
    with _append_to(state_dir, CYCLES_FILE) as handle:
        handle.write(data + "\n")
    if record.get("status") != SKIPPED:
        folder = folder_of(state_dir)
        target = os.path.join(folder, LAST_CYCLE_FILE)
        # The temp name has the shape acecode.store.atomic's stale-file cleanup knows.
        temp = os.path.join(folder, f".{LAST_CYCLE_FILE}.{os.getpid():08x}.tmp")
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(data + "\n")
        os.replace(temp, target)


def read_outcomes(state_dir: StateFolder) -> list[dict[str, Any]]:
    """Every cycle record, oldest first; unreadable lines are skipped."""
    try:
        with open(os.path.join(folder_of(state_dir), CYCLES_FILE), encoding="utf-8") as handle:
            lines = handle.readlines()
    except OSError:
        return []
    records = []
    for line in lines:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # a torn line, or one nested to no end
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def last_attempt(state_dir: StateFolder) -> dict[str, Any] | None:
    """The record of the last cycle that was not skipped, or None."""
    from acecode.project.bounds import read_json

    try:
        record = read_json(os.path.join(folder_of(state_dir), LAST_CYCLE_FILE), "cycle record")
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def describe_provider(record: dict[str, Any]) -> str:
    """``provider anthropic (why it was chosen), model m, at URL (from VARIABLE)`` from a
    cycle record: each value with the setting it came from; "" when the cycle never chose
    a provider (it was skipped before)."""
    provider = record.get("provider")
    if not provider:
        return ""
    model = record.get("model") or "(provider default)"
    why = record.get("provider_reason")
    endpoint = record.get("provider_endpoint")
    return (
        f"provider {provider}"
        + (f" ({why})" if why else "")
        + f", model {model}"
        + (f", at {endpoint}" if endpoint else "")
    )
