"""What one session gets, at serve time: the hold-back draw applied and the exposure recorded.

The injection cache (:mod:`acecode.hooks.rendered`) holds the full
session-start text, the version of every entry in it and, with experiments
on, the entries eligible for the hold-back with their exact line in the
text (:mod:`acecode.experiments.plan`). So a cache hit stays one file read:
the draw (:mod:`acecode.experiments.draw`) picks the entries this session
does without, their lines are cut out of the text, and one line is appended
to the exposure log, ``experiments/exposures.jsonl``::

    {"at": "2026-03-02T09:00:00Z", "session": "3f2c...", "agent": "claude-code",
     "event": "start", "source": "startup", "transcript": "/home/.../3f2c....jsonl",
     "entries": ["pat-001@1a2b3c4d", ...],
     "drawn": ["mis-002", ...], "drawn_versions": {"mis-002": "9f8e7d6c", ...},
     "held": ["mis-002"], "rate": 0.2, "max": 3}

``entries`` are the entries injected (name and a hash of the text: the
version), ``drawn`` the entries in the draw (``drawn_versions`` their
versions: a rewritten entry is a new rule, measured afresh), ``held`` the
ones held back; the last five only with experiments on. A top-up adds a line with
``"event": "topup"`` and the entries it injected; recall at a tool call one with
``"event": "recall"`` or ``"warn"`` (:func:`record_recall`). One ``write`` of one line
to a file opened for appending: concurrent hooks do not interleave, and no
lock or database is needed.

Only ``os`` and ``time`` are imported here, with :mod:`acecode.text.lean_json`'s
encoder: the tool hooks record here too, and must not pay for ``json``.
"""

from __future__ import annotations

import os
import time

from acecode.experiments.files import EXPOSURES, announced_flag, experiments_path
from acecode.text.lean_json import dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the tool hooks' hit path)
if TYPE_CHECKING:
    from typing import Any

    from acecode.project.state_folder import StateFolder

SILENT_SOURCES = ("compact",)  # acecode.hooks.notice.SILENT_SOURCES


def announcement(held: int, most: int) -> str:
    """The line shown once, at the first session start with experiments on."""
    return (
        f"acecode: experiments are on: each session holds back up to {most} learned rules "
        f"at random (this one: {held}) to measure whether they help; "
        "`acecode impact --rules` shows the results, `experiments = false` in "
        "~/.claude/acecode.toml turns it off"
    )


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def append_exposure(state: StateFolder, record: dict[str, Any]) -> None:
    """Append one record to the exposure log; best effort (a hook never fails on it)."""
    line = dumps(record) + "\n"
    try:
        folder = experiments_path(state)
        if not os.path.isdir(folder):
            from acecode.project.state_folder import ensure_folder_of

            ensure_folder_of(state)
            os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, EXPOSURES), "a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError as exc:
        from acecode.project.diagnostics import diagnose

        diagnose("exposure_log", f"could not record the injection: {exc}")


def _drop(text: str, held: list[str], experiment: dict[str, Any]) -> str:
    """``text`` without the lines of ``held`` (and without a section header left empty)."""
    eligible = experiment["eligible"]
    emptied: dict[str, int] = {}
    for name in held:
        section, line = eligible[name]
        text = text.replace("\n" + line, "", 1)
        emptied[section] = emptied.get(section, 0) + 1
    shown = experiment.get("shown") or {}
    for section, count in emptied.items():
        if count < shown.get(section, 0):
            continue
        header = f"## {section}\n"
        if header + "\n" in text:
            text = text.replace(header + "\n", "", 1)
        else:
            text = text.replace("\n\n" + header, "\n", 1)
    return text


def held_in_session(start: dict[str, Any], session: str) -> list[str]:
    """The entries the hold-back draw keeps from ``session`` (none with experiments off).

    ``start`` is the session-start state (:func:`acecode.hooks.rendered.session_start`);
    the draw is a keyed hash of the session and the eligible entries, so the
    session start and every later hook of the session (recall,
    :mod:`acecode.hooks.tools`) hold back the same entries.
    """
    experiment = start.get("experiment")
    if not experiment or not session or not experiment.get("eligible"):
        return []
    from acecode.experiments.draw import held_back

    return held_back(
        bytes.fromhex(experiment["salt"]),
        session,
        experiment["eligible"],
        experiment["rate"],
        experiment["max"],
    )


def serve_start(
    project_state: StateFolder, start: dict[str, Any], payload: dict, agent: str, event: str
) -> tuple[str, list[str], list[str], str | None]:
    """The session-start text for this session, the names it holds, the names held back,
    and the one-time announcement (or None); records the exposure.

    ``start`` is :func:`acecode.hooks.rendered.session_start`'s answer, ``event``
    ``"start"`` (SessionStart) or ``"fallback"`` (the first prompt served it).
    """
    text = start.get("text", "")
    names = list(start.get("injected", ()))
    session = payload.get("session_id")
    session = session if isinstance(session, str) else ""
    experiment = start.get("experiment")
    held = held_in_session(start, session)
    if held:
        text = _drop(text, held, experiment)
        names = [name for name in names if name not in held]
    if not text:  # nothing reached the session, nothing to record
        return text, names, held, None
    versions = start.get("versions") or {}
    record: dict[str, Any] = {
        "at": _now(),
        "session": session,
        "agent": agent,
        "event": event,
        "source": payload.get("source") if isinstance(payload.get("source"), str) else None,
        "transcript": payload.get("transcript_path")
        if isinstance(payload.get("transcript_path"), str)
        else None,
        "entries": [f"{name}@{versions.get(name, '')}" for name in names],
    }
    if experiment:
        drawn = sorted(experiment.get("eligible") or ())
        record.update(
            drawn=drawn,
            drawn_versions={name: versions.get(name, "") for name in drawn},
            held=held,
            rate=experiment["rate"],
            max=experiment["max"],
        )
    append_exposure(project_state, record)
    note = None
    if experiment and payload.get("source") not in SILENT_SOURCES:
        note = _announce_once(len(held), experiment["max"])
    return text, names, held, note


def _announce_once(held: int, most: int) -> str | None:
    """The announcement when the user has not seen it yet (the flag file is created now)."""
    flag = announced_flag()
    if os.path.exists(flag):
        return None
    try:
        os.makedirs(os.path.dirname(flag), exist_ok=True)
        with open(flag, "x", encoding="utf-8") as handle:
            handle.write(_now() + "\n")
    except OSError:  # already told by a parallel hook, or nowhere to remember it: stay quiet
        return None
    return announcement(held, most)


def record_topup(
    project_state: StateFolder, session: object, agent: str, entries: list[str]
) -> None:
    """Record the entries (``name@version``) a top-up injected into ``session``."""
    append_exposure(
        project_state,
        {
            "at": _now(),
            "session": session if isinstance(session, str) else "",
            "agent": agent,
            "event": "topup",
            "entries": entries,
        },
    )


def record_recall(project_state: StateFolder, record: dict[str, Any]) -> None:
    """Record one recall or pre-call warning (:mod:`acecode.hooks.tools`): ``event``
    ``recall`` or ``warn``, the ``entries`` shown (``name@version``), the ``tool``, the
    failure's ``signature`` (a recall only), the ``call`` (its ``tool_use_id``: the
    transcript says what it was and what came next) and the ``transcript``."""
    append_exposure(project_state, {"at": _now(), **record})


def with_message(output: dict | None, note: str | None) -> dict | None:
    """``output`` with ``note`` added to its ``systemMessage`` (on a line of its own)."""
    if not note:
        return output
    output = dict(output or {})
    earlier = output.get("systemMessage")
    output["systemMessage"] = f"{earlier}\n{note}" if earlier else note
    return output
