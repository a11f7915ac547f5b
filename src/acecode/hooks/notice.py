"""The lines shown to the user at session start when acecode needs them.

Every state that stops injection or learning is said here, one line each
naming the file and the fix, because the hook's stderr never reaches the
screen:

- a settings file that cannot be read (``.claude/acecode.toml``, the local
  switch, ``~/.claude/acecode.toml``): acecode is off until it is fixed, so
  this line is shown even where acecode is thereby off;
- a project playbook that cannot be read (nothing is injected or learned) and a
  user layer that cannot be read (its rules are not injected);
- settings acecode ignores (a typo, a wrong type), named by file and key;
- no LLM provider, a budget that stops learning, or a folder or cost ledger
  learning cannot write (named as such, never as a budget);
- learned rules waiting in the review queue (they reach no session until
  approved), counted apart from those that wait only for a safety review (the
  next cycle or ``acecode review --retry`` lands the ones it passes), a last
  learning cycle that failed, and rules the hold-back
  experiments measured to make their failure more frequent
  (:mod:`acecode.experiments`; they wait for the user to look at them);
- a save of a playbook that a killed process left half done and that cannot be
  finished or undone (:mod:`acecode.store.commit`; one that can is settled here);
- a project playbook with entries this machine did not write, at first sight,
  and entries that arrived later and are held for review
  (:mod:`acecode.arrivals.announce`).

The lines go into the SessionStart output's ``systemMessage``, which Claude
Code shows to the user (``SessionStart:startup says: ...``) and does not send
to the model. They are shown when a session starts, resumes or is cleared, not
after a compaction, and never on a prompt. Where acecode is off, only the
unreadable settings are said, and a project switched off (``acecode off``, or a
team's ``enabled = false``) says so once per session; an opt-in user's projects
not turned on stay silent.

Good news comes last: the rules the last sessions' cycles added, said once at
the next session start (:mod:`acecode.project.learned_notice`).

Cheap by design: the project's states come with the injection cache
(:mod:`acecode.hooks.rendered`), the user's from their own cache
(:mod:`acecode.hooks.user_checks`), the queue and the last cycle from two
small JSON files; TOML is read only in a project without a playbook that has
settings files of its own.
"""

from __future__ import annotations

import os
from typing import Any

from acecode.project import outcomes
from acecode.project.layer import Layer

QUEUE_FILE = "pending.json"  # acecode.quarantine.queue.QUEUE_FILE (a test keeps them equal)
# The rule of a queued text that waits only for a safety review, and the prefix of its
# variants (acecode.quarantine.unreviewed.NOT_REVIEWED; a test keeps them equal).
NOT_REVIEWED = "not-reviewed"
COMMIT_SUFFIX = ".commit"  # acecode.store.commit.COMMIT_SUFFIX (a test keeps them equal)
MERGE_RULE = "merge-conflict"  # acecode.edits.merge_driver.REVIEW_RULE (a test keeps them equal)
LEARNED, BY_HAND, FROM_MERGE = "learned", "by hand", "merge"
ORIGIN_WORDS = {LEARNED: "learned", BY_HAND: "you added by hand", FROM_MERGE: "from a git merge"}
# The session a project's "acecode is off" line was last shown in (once per session).
OFF_NOTICE_FILE = "off-notice"
REASON_CHARS = 120
SILENT_SOURCES = ("compact",)
PREFIX = "acecode: "


def waits_for_a_review(item: Any) -> bool:
    """A queued text that waits only for the safety review (the next cycle's or
    ``acecode review --retry``), not for a person."""
    rule = item.get("rule") if isinstance(item, dict) else None
    return isinstance(rule, str) and (rule == NOT_REVIEWED or rule.startswith(NOT_REVIEWED + ":"))


def _pending_items(project: str) -> list[Any]:
    from acecode.project.bounds import read_json

    try:
        data = read_json(Layer.of_project(project).state_file(QUEUE_FILE), "review queue")
    except (OSError, ValueError):
        return []
    pending = data.get("pending") if isinstance(data, dict) else None
    return pending if isinstance(pending, list) else []


def _origin(item: Any) -> str:
    """Where a held text came from: a learning cycle names its session, git's merge driver
    its rule; anything else was written by hand (``acecode add`` or ``edit``)."""
    if not isinstance(item, dict):
        return LEARNED
    if isinstance(item.get("session"), str):
        return LEARNED
    return FROM_MERGE if item.get("rule") == MERGE_RULE else BY_HAND


def review_line(items: list[Any]) -> str | None:
    """``N learned rules await review ...``, naming by hand and merged ones as such."""
    if not items:
        return None
    counts = {origin: 0 for origin in ORIGIN_WORDS}
    for item in items:
        counts[_origin(item)] += 1
    total = len(items)
    verb = "awaits" if total == 1 else "await"
    present = [(origin, n) for origin, n in counts.items() if n]
    if len(present) == 1:
        ((origin, _n),) = present
        noun = "rule" if total == 1 else "rules"
        head = (
            f"{total} learned {noun}"
            if origin == LEARNED
            else f"{total} {noun} {ORIGIN_WORDS[origin]}"
        )
        return f"{head} {verb} review (run `acecode review`)"
    parts = ", ".join(f"{n} {ORIGIN_WORDS[origin]}" for origin, n in present)
    return f"{total} rules await review: {parts} (run `acecode review`)"


def waiting_line(count: int) -> str | None:
    """``N learned rules wait for the safety review ...`` (texts no review passed yet)."""
    if not count:
        return None
    rules, verb = ("rule waits", "is") if count == 1 else ("rules wait", "are")
    return (
        f"{count} learned {rules} for the safety review and {verb} not in the playbook yet "
        "(the next learning cycle reviews them, or run `acecode review --retry`)"
    )


def _review_and_failure(project: str, learning_blocked: bool) -> list[str]:
    """Rules awaiting review, and the last cycle's failure unless learning is blocked
    anyway (a missing provider or a budget says more than an older failure)."""
    parts = []
    items = _pending_items(project)
    waiting = [item for item in items if waits_for_a_review(item)]
    review = review_line([item for item in items if not waits_for_a_review(item)])
    parts += [line for line in (review, waiting_line(len(waiting))) if line]
    layer = Layer.of_project(project)
    last = outcomes.last_attempt(layer)
    if not learning_blocked and last is not None and last.get("status") == outcomes.FAILED:
        reason = outcomes.one_line(str(last.get("reason") or "no reason recorded"), REASON_CHARS)
        log = os.path.join(".claude", "acecode", *outcomes.LOG_PARTS)
        parts.append(f"the last learning cycle failed: {reason} (see {log} or `acecode doctor`)")
    hurting = measured_to_hurt(layer)
    if hurting:
        parts.append(hurting)
    return parts


def _playbook_lines(start: dict[str, Any]) -> list[str]:
    """What the injection cache says keeps the playbook from the model."""
    lines = []
    if start.get("error"):
        lines.append(
            f"the playbook was not injected and sessions are not learned from: "
            f"{start['error']}; fix the file or move it aside (`acecode doctor`)"
        )
    if start.get("user_layer_error"):
        lines.append(
            f"your user layer was not injected: {start['user_layer_error']}; "
            "fix the file or move it aside (`acecode doctor`)"
        )
    return lines


def _project_config(project: str, start: dict[str, Any] | None) -> dict[str, list[str]]:
    """The project's configuration problems: from the injection cache when the project
    has a playbook, else read now, and only when it has settings files at all."""
    if start is not None:
        return {key: list(start.get(key) or ()) for key in ("config_off", "config_ignored")}
    from acecode.hooks.rendered import switch_files

    local, shared, _user = switch_files(project)
    if not (os.path.exists(local) or os.path.exists(shared)):
        return {"config_off": [], "config_ignored": []}
    from pathlib import Path

    from acecode.project.config_check import as_notices, project_problems

    return as_notices(project_problems(Path(project)))


def session_notice(
    project: str,
    start: dict[str, Any] | None = None,
    session: object = None,
    user: dict[str, Any] | None = None,
) -> str | None:
    """The lines to show (see the module docstring), or None when all is well.

    ``start`` is the project's session-start state (``rendered.session_start``),
    None for a project without any playbook; ``session`` the session's ID, for the
    lines said once per session; ``user`` the user checks when the hook has them already
    (:func:`acecode.hooks.user_checks.user_notices`).
    """
    from acecode.hooks.user_checks import user_notices

    mine = _project_config(project, start)
    user = user if user is not None else user_notices(project)
    lines = [*mine["config_off"], *user.get("config_off", ()), *interrupted_saves(project)]
    if start is not None:
        lines += _playbook_lines(start)
    learning = [*_unwritable(project), *user.get("learning", ())]
    when_active = [
        *mine["config_ignored"],
        *user.get("config_ignored", ()),
        *learning,
        *_arrivals(project, start),
        *_review_and_failure(project, bool(learning)),
    ]
    active, reason = _activity(project, start)
    if active:
        lines += when_active + _learned(project)
    else:
        lines += _off_once(project, reason, session)
    return "\n".join(PREFIX + line for line in lines) if lines else None


def _unwritable(project: str) -> list[str]:
    """A line when the project's state folder or the playbook's folder cannot be written
    (a cheap look at permissions and types: a hook writes nothing to find out)."""
    from acecode.project.writable import looks_unwritable

    layer = Layer.of_project(project)
    for folder in (layer.state_folder, os.path.dirname(layer.playbook)):
        problem = looks_unwritable(folder, folder=True)
        if problem:
            return [
                f"sessions are not learned from: {problem}, and learning writes there "
                "(the playbook, its history, the state folder); make it writable "
                "(`acecode doctor`)"
            ]
    return []


def interrupted_saves(project: str) -> list[str]:
    """Finish the saves a killed learner left half done in either layer (one ``stat`` each
    when there is none, :mod:`acecode.store.commit`); a line for each that cannot be."""
    lines = []
    for layer in (Layer.of_project(project), Layer.user()):
        if not os.path.exists(layer.state_file(os.path.basename(layer.playbook) + COMMIT_SUFFIX)):
            continue
        from acecode.store.commit import settle_pending
        from acecode.store.errors import PlaybookError

        try:
            settle_pending(layer, timeout=0.5)
        except PlaybookError as exc:
            lines.append(f"{exc} (`acecode doctor`)")
    return lines


def _learned(project: str) -> list[str]:
    """The rules the last sessions taught, said once (:mod:`acecode.project.learned_notice`)."""
    from acecode.project.learned_notice import learned_line, take_learned

    line = learned_line(take_learned(Layer.of_project(project)))
    return [line] if line else []


def _off_once(project: str, reason: str, session: object) -> list[str]:
    """``off in this project (why)``, once per session, where the project's switch (``acecode
    off``, or a shared ``enabled = false``) turned acecode off; an opt-in user's projects
    not turned on stay silent, as the user chose."""
    from acecode.project.control import TURNED_OFF

    if not reason.startswith(TURNED_OFF):
        return []
    marker = Layer.of_project(project).state_file(OFF_NOTICE_FILE)
    told = _read_text(marker)
    if isinstance(session, str) and told == session:
        return []
    if isinstance(session, str):
        _write_text(marker, session)
    return [
        f"off in this project ({reason}): nothing is injected or learned; "
        "`acecode on` turns it back on"
    ]


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def _write_text(path: str, text: str) -> None:
    """Best effort: a marker that cannot be written only means the line comes again."""
    from acecode.project.state_folder import ensure_state_folder

    try:
        ensure_state_folder(os.path.dirname(path))
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError:
        pass


def _arrivals(project: str, start: dict[str, Any] | None) -> list[str]:
    """The lines about entries that arrived with the repository (only where some did)."""
    if start is None or not start.get("arrivals"):
        return []
    from acecode.arrivals.announce import arrival_lines

    return arrival_lines(project, start)


def _activity(project: str, start: dict[str, Any] | None) -> tuple[bool, str]:
    """Whether acecode acts here, and why not: the injection cache knows; without switch
    files it does (the hook has checked ``ACECODE_SKIP``); else ask the switches."""
    if start is not None:
        return bool(start.get("active")), str(start.get("reason") or "")
    from acecode.hooks.rendered import switch_files

    if not any(os.path.exists(path) for path in switch_files(project)):
        return True, ""
    from pathlib import Path

    from acecode.project.control import activity

    state = activity(Path(project))
    return state.active, state.reason


def measured_to_hurt(state: str) -> str | None:
    """The line naming the entries the hold-back experiments found harmful and that wait
    for the user (not injected meanwhile), or None."""
    from acecode.experiments.classes import withheld

    names = sorted(withheld(state))
    if not names:
        return None
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    verb = "makes its failure" if len(names) == 1 else "make their failures"
    pronoun = "it is" if len(names) == 1 else "they are"
    return (
        f"{shown} {verb} more frequent in randomised hold-back experiments: {pronoun} no "
        "longer injected; keep or delete with `acecode review`"
    )


def with_notice(
    output: dict[str, Any] | None,
    project: str,
    payload: dict,
    start: dict[str, Any] | None = None,
    user: dict[str, Any] | None = None,
) -> dict | None:
    """``output`` (the injection, or None) with the notice as ``systemMessage`` when there
    is one to show for this kind of session start (``start``, ``user``: see
    :func:`session_notice`)."""
    if payload.get("source") in SILENT_SOURCES:
        return output
    notice = session_notice(project, start, payload.get("session_id"), user)
    if notice is None:
        return output
    return {**(output or {}), "systemMessage": notice}
