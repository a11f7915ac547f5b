"""The injected texts, cached so that the common case costs one small file read.

Rendering needs the store (migration), the settings, the on/off switches
(TOML), the ranking and the relevance index: together many times the
interpreter's own start time. Their result only changes when one of their
inputs does, so it is cached in two files of ``.claude/acecode/``, each read
by one hook:

- ``injection-cache.json`` (``SessionStart``): whether acecode is active here,
  the session-start text and the names it holds;
- ``injection-index.json`` (``UserPromptSubmit``): the entries that did not
  fit, preformatted, and their BM25 postings for the per-prompt top-up.

Both carry the same key, made of every input: acecode's version, the
``stat`` of the playbook (an atomic save always gives a new inode), of the
user's template override and the packaged template, of the pins file and of
the files that hold the on/off switch and the settings (the two
``acecode.toml`` and the local ``switch.toml``), the environment variables of
the two budgets and of the quarantine's two settings, the ``stat`` of the user layer
and its pins (:mod:`acecode.project.layers`): a cycle in any project that changes the
user layer thus invalidates every project's cache; and the ``stat`` of the
record of this machine's decisions about texts (``arrivals.tsv``, see
:mod:`acecode.arrivals`), so that approving an entry that arrived with the
repository injects it at the next session; and the ``stat`` of the learning
cycle's record of which entries repeat an instruction Claude Code loads
(``instruction-overlap.json``, :mod:`acecode.instructions.overlap`). Those
entries are left out of both files (for Claude Code only: the model already
has the instruction), and named in ``repeats``. The instruction files that
decided it are read when the cache is rendered, never on a hit; the cache
keeps their ``stat`` (``watched``), and a hit re-checks those few (none when no
entry was left out), so an edited CLAUDE.md renders again. The key is taken *before*
rendering, so a playbook saved meanwhile just causes one more render on the
next hook.

What keeps the text from the model is cached with it, for the session-start
notice (:mod:`acecode.hooks.notice`) to say: a project playbook that cannot be
read (``error``: nothing is injected), a user layer that cannot be read
(``user_layer_error``: the project's entries are), and the project's
configuration problems (``config_off``: a switch file that cannot be read, so
acecode is off; ``config_ignored``: settings it ignores), and the entries that
arrived from elsewhere and are held (``arrivals``: they are left out of both
files, :mod:`acecode.arrivals.split`). Entries the hold-back experiments measured
to hurt are left out of both files too, until the user keeps them in review
(``classes.json``, in the key). All of them depend
only on files in the key, so a broken file costs one render, not one per
session. A miss in the ``SessionStart`` hook renders only its own file; the
index (tokenising every entry) is built by the first prompt that needs it, or
ahead of time by :func:`prime`, which the background learner calls after
every save.
"""

from __future__ import annotations

import os
from typing import Any

import acecode
from acecode.experiments.files import CLASSES, experiments_path
from acecode.hooks.cache_files import read_cache_file, write_cache_file
from acecode.hooks.context import user_template_override
from acecode.project.file_stat import stat_key
from acecode.project.layer import Layer
from acecode.project.layers import user_playbook_file

TEMPLATE = "playbook.txt"
CACHE_NAME = "injection-cache.json"
INDEX_NAME = "injection-index.json"
PINS_NAME = "pins.json"  # acecode.project.pins.PINS_NAME; a test keeps them equal
PROVENANCE_NAME = "provenance.json"  # acecode.store.provenance.PROVENANCE_NAME
# The experiment settings (acecode.project.config, user file and environment only).
EXPERIMENT_VARIABLES = ("ACECODE_EXPERIMENTS", "ACECODE_HOLDBACK_RATE", "ACECODE_HOLDBACK_MAX")
# acecode.agents.DEFAULT_AGENT, without importing the registry on a cache hit.
DEFAULT_AGENT = "claude-code"
SWITCH_NAME = "acecode.toml"  # acecode.project.control.CONFIG_NAME; a test keeps them equal
LOCAL_SWITCH_NAME = "switch.toml"  # acecode.project.control.SWITCH_NAME; a test keeps them equal
# The settings the rendering reads, as environment variables (see acecode.project.config): the
# two budgets, the quarantine's two settings for the entries that arrived
# (acecode.arrivals) and the experiments' (acecode.experiments).
SETTING_VARIABLES = (
    "ACECODE_INJECTION_BUDGET_CHARS",
    "ACECODE_TOPUP_BUDGET_CHARS",
    "ACECODE_MAX_RULE_CHARS",
    "ACECODE_LANGUAGES",
    "ACECODE_RECALL",
    "ACECODE_RECALL_BEFORE",
    *EXPERIMENT_VARIABLES,
)
ARRIVALS_NAME = "arrivals.tsv"  # acecode.arrivals.marks.MARKS_NAME; a test keeps them equal
# acecode.instructions.overlap.OVERLAP_NAME; a test keeps them equal.
OVERLAP_NAME = "instruction-overlap.json"
# acecode.arrivals.mode.FLOOR_ONLY_NAME (no LLM provider: arrivals are judged by the floor
# alone); a test keeps them equal.
FLOOR_ONLY_NAME = "arrivals-floor-only"
# The quarantine's settings by default (acecode.project.config.Settings; a test keeps them equal):
# "" languages are the user's own (acecode.quarantine.user_languages).
DEFAULT_MAX_RULE_CHARS = 600
DEFAULT_LANGUAGES = ""
# Where each input sits in the key.
_PLAYBOOK, _PROJECT_SWITCH, _USER_SWITCH, _ENVIRONMENT, _USER_LAYER = 1, 5, 6, 7, 8
_LOCAL_SWITCH, _FLOOR_ONLY = 10, 16


def _packaged_template() -> str:
    return os.path.join(os.path.dirname(acecode.__file__), "prompts", TEMPLATE)


def switch_files(project: str) -> tuple[str, str, str]:
    """The project's local switch, its ``acecode.toml`` and the user's
    (``acecode.project.control.switch_files``)."""
    return (
        Layer.of_project(project).state_file(LOCAL_SWITCH_NAME),
        os.path.join(project, ".claude", SWITCH_NAME),
        os.path.join(os.path.expanduser("~"), ".claude", SWITCH_NAME),
    )


def inputs_key(project: str) -> list[Any]:
    """Everything the rendered texts depend on, cheap to compute (stats and variables)."""
    local_switch, project_switch, user_switch = switch_files(project)
    layer, user = Layer.of_project(project), Layer.user()
    return [
        acecode.__version__,
        stat_key(layer.playbook),
        stat_key(user_template_override(TEMPLATE)),
        stat_key(_packaged_template()),
        stat_key(layer.state_file(PINS_NAME)),
        stat_key(project_switch),
        stat_key(user_switch),
        [os.environ.get(name) for name in SETTING_VARIABLES],
        stat_key(user.playbook),
        stat_key(user.state_file(PINS_NAME)),
        stat_key(local_switch),
        stat_key(layer.state_file(ARRIVALS_NAME)),
        # What the hold-back plan (acecode.experiments.plan) reads besides the playbook:
        # both layers' provenance (the signatures) and the concluded classes.
        stat_key(layer.state_file(PROVENANCE_NAME)),
        stat_key(user.state_file(PROVENANCE_NAME)),
        stat_key(experiments_path(layer, CLASSES)),
        # Which entries repeat an instruction Claude Code loads (the learning cycle's).
        stat_key(layer.state_file(OVERLAP_NAME)),
        stat_key(layer.state_file(FLOOR_ONLY_NAME)),
    ]


def _no_playbook(key: list[Any]) -> bool:
    """True when neither layer has a playbook file: nothing to inject, nothing to cache."""
    return key[_PLAYBOOK] is None and key[_USER_LAYER] is None


def _template_text() -> str:
    """``acecode.prompts.templates.load_template(TEMPLATE)`` with the paths of the key:
    the user's override when it can be used, else the packaged template."""
    override = user_template_override(TEMPLATE)
    if os.path.exists(override):
        from acecode.prompts.templates import read_override

        text, _problem = read_override(override, TEMPLATE)  # the notice says the problem
        if text is not None:
            return text
    with open(_packaged_template(), encoding="utf-8") as handle:
        return handle.read()


def _limits(project: str, key: list[Any]) -> dict[str, Any]:
    """Whether acecode is active here, the two budgets, the quarantine's settings for arrived
    entries and the project's configuration problems (``config_off``,
    ``config_ignored``: see the module docstring).

    Without switch files and budget variables, that is "active, defaults, no
    problems" (what ``acecode.project.control.activity`` and
    ``acecode.project.config.load_settings`` answer then; a test checks it), known
    without importing either: together they cost several times this hook's
    budget. Otherwise both are asked; the session-only switches
    (``ACECODE_SKIP``) are left out because the hook checks them before it
    gets here and the answer is cached. The user's own file is the notice's
    other source (:mod:`acecode.hooks.user_checks`), so it is not listed here.
    """
    from acecode.playbook.budget import DEFAULT_INJECTION_BUDGET, DEFAULT_TOPUP_BUDGET

    switches = (key[_LOCAL_SWITCH], key[_PROJECT_SWITCH], key[_USER_SWITCH])
    need_review = key[_FLOOR_ONLY] is None
    if not any(switches) and not any(key[_ENVIRONMENT]):
        return {
            "need_review": need_review,
            "active": True,
            "reason": "",
            "budget": DEFAULT_INJECTION_BUDGET,
            "topup_budget": DEFAULT_TOPUP_BUDGET,
            "experiments": False,
            "recall": True,
            "recall_before": True,
            "max_rule_chars": DEFAULT_MAX_RULE_CHARS,
            "languages": DEFAULT_LANGUAGES,
            "config_off": [],
            "config_ignored": [],
        }
    from pathlib import Path

    from acecode.project.config import load_settings
    from acecode.project.config_check import as_notices, project_problems
    from acecode.project.control import activity

    root = Path(project)
    state = activity(root, env={})
    settings = load_settings(root)
    return {
        "need_review": need_review,
        "active": state.active,
        "reason": state.reason,
        "budget": settings.injection_budget_chars,
        "topup_budget": settings.topup_budget_chars,
        "experiments": settings.experiments,
        "holdback_rate": settings.holdback_rate,
        "holdback_max": settings.holdback_max,
        "recall": settings.recall,
        "recall_before": settings.recall_before,
        "max_rule_chars": settings.max_rule_chars,
        "languages": settings.languages,
        **as_notices(project_problems(root)),
    }


def _pins(playbook: str) -> list[str]:
    """The names pinned beside ``playbook``; a broken pins file is reported and ignored."""
    from acecode.project.pins import pins_or_none

    return pins_or_none(playbook)


def _both_layers(
    path: str, start: dict[str, Any], write: bool = True, deadline: float | None = None
) -> tuple[dict[str, Any], list[str], str]:
    """The project layer at ``path`` and the user layer as one playbook, their pins, and
    where to read them; the user layer alone when ``path`` is that layer. A user layer
    that cannot be read is left out and named in ``start["user_layer_error"]``. The
    project layer's held arrivals are left out (:mod:`acecode.hooks.arrival_view`; ``write``
    False: without writing their records; ``deadline``: when their first screen stops)."""
    from acecode.hooks.arrival_view import without_held_arrivals
    from acecode.project.layers import combine, is_user_layer
    from acecode.store.reading import read_playbook

    user = user_playbook_file()
    if is_user_layer(path):
        return read_playbook(path), _pins(path), path
    playbook = read_playbook(path) if os.path.exists(path) else None
    if playbook is not None:
        playbook = without_held_arrivals(path, playbook, start, write, deadline)
    mine = _user_layer(user, start) if os.path.exists(user) else None
    if mine is None:
        return combine(playbook, None), _pins(path), path
    where = f"{path} and {user}" if playbook is not None else user
    return combine(playbook, mine), [*_pins(path), *_pins(user)], where


def _user_layer(user: str, start: dict[str, Any]) -> dict[str, Any] | None:
    """The user layer, or None when it cannot be read (the reason goes into ``start``): a
    broken user layer must not keep every project's own playbook from being injected."""
    from acecode.store.errors import PlaybookError
    from acecode.store.reading import read_playbook

    try:
        return read_playbook(user)
    except PlaybookError as exc:
        start["user_layer_error"] = str(exc)
        return None


def _render(
    project: str,
    key: list[Any],
    with_index: bool,
    path: str | None = None,
    agent: str = DEFAULT_AGENT,
    write: bool = True,
    deadline: float | None = None,
) -> tuple[dict, dict]:
    """The contents of the cache and (when asked, else ``{}``) of the index, for ``key``.

    ``path`` is the project layer (default: the project's playbook), shown
    together with the user layer; the settings and the switches are the
    project's, the pins those beside each layer. The text is measured as
    ``agent``'s cap counts and never exceeds that cap. A project layer that
    cannot be read gives no text and its reason in ``error``. ``write=False``
    leaves the state folder as it is (the arrivals' records are not written).
    ``deadline`` (``time.monotonic()``) bounds the first screen of arrived entries:
    what it did not reach is held, and both files say ``incomplete`` so that the
    next hook goes on instead of reading them.
    """
    limits = _limits(project, key)
    if agent != DEFAULT_AGENT:
        from acecode.agents import get_agent

        cap = get_agent(agent).context_cap
        limits["budget"] = min(limits["budget"], cap.limit)
        limits["topup_budget"] = min(limits["topup_budget"], cap.limit)
        measure = cap.measure
    else:
        from acecode.playbook.budget import context_length as measure
    start: dict[str, Any] = {"key": key, **limits}
    if not limits["active"]:
        return start, dict(start)
    from acecode.experiments.classes import HELPS, names_in, withheld
    from acecode.experiments.plan import plan_fields
    from acecode.playbook.injection import render_injection
    from acecode.playbook.schema import without_names
    from acecode.store.errors import PlaybookError

    state = Layer.of_project(project)
    layer = path or state.playbook
    try:
        playbook, pinned, where = _both_layers(layer, start, write, deadline)
    except PlaybookError as exc:
        start["error"] = str(exc)
        return start, dict(start)
    from acecode.hooks.arrival_view import RELEASED, index_arrivals

    released = set(start.pop(RELEASED, ()))
    helps = frozenset(names_in(state, HELPS))
    playbook = without_names(playbook, withheld(state))  # measured to hurt: in review
    if agent == DEFAULT_AGENT:
        playbook = _without_repeats(project, state, playbook, start)
    injection = render_injection(
        playbook, _template_text(), limits["budget"], frozenset(pinned), where, measure, helps
    )
    start.update(
        text=injection.text,
        injected=injection.injected,
        total=injection.total,
        left_out=len(injection.left_out),
        pinned=pinned,
        **plan_fields(
            state,
            playbook,
            injection.text,
            injection.injected,
            pinned,
            limits,
            (Layer(layer), Layer.user()),
        ),
    )
    if not with_index:
        return start, {}
    watched = {"watched": start["watched"]} if "watched" in start else {}
    from acecode.hooks.topup_build import topup_index_of

    index = {"key": key, **limits, **watched, **topup_index_of(playbook, injection.left_out)}
    return start, index_arrivals(index, start, playbook, injection.injected, released)


def _without_repeats(
    project: str, state: Layer, playbook: dict[str, Any], start: dict[str, Any]
) -> dict[str, Any]:
    """``playbook`` without the entries that repeat an instruction Claude Code loads at
    session start (:mod:`acecode.instructions.overlap`); they go into
    ``start["repeats"]``, and the files that decided it into ``start["watched"]`` with
    their ``stat`` (a change there re-renders, see :func:`_cached`)."""
    from acecode.instructions.overlap import repeated_at_start, watched_files
    from acecode.playbook.schema import iter_entries

    texts = {str(entry.get("name")): str(entry.get("text")) for _, entry in iter_entries(playbook)}
    records = repeated_at_start(project, state.state_file(OVERLAP_NAME), texts)
    if not records:
        return playbook
    start["repeats"] = [
        {key: record.get(key) for key in ("name", "label", "line", "instruction", "reason")}
        for record in records
    ]
    start["watched"] = [[path, stat_key(path)] for path in watched_files(project, records)]
    gone = {record["name"] for record in records}
    sections = {
        section: [entry for entry in entries if entry.get("name") not in gone]
        for section, entries in playbook.get("sections", {}).items()
    }
    return {**playbook, "sections": sections}


def served_playbook(project: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """What the hooks serve in ``project``: its settings (``active``, ``recall``,
    ``recall_before``...) and both layers as one playbook, held arrivals left out; the
    playbook is None when acecode is off here or the project layer cannot be read. For
    the recall index (:mod:`acecode.recall.index`), which must serve what injection does.
    """
    from acecode.store.errors import PlaybookError

    limits = _limits(project, inputs_key(project))
    if not limits["active"]:
        return limits, None
    try:
        playbook, _pins, _where = _both_layers(
            Layer.of_project(project).playbook, dict(limits), write=False
        )
    except PlaybookError:
        return limits, None
    return limits, playbook


def render_uncached(project: str, playbook: str) -> dict[str, Any]:
    """What :func:`session_start` would give if ``playbook`` were the project's, not cached
    (for ``acecode doctor`` and ``stats`` run on another ``--playbook``)."""
    return _render(project, inputs_key(project), with_index=False, path=playbook, write=False)[0]


def _cached(project: str, name: str, key: list[Any]) -> dict[str, Any] | None:
    """The cache file's data when its key is ``key`` and none of the instruction files
    that left entries out changed (only those are checked, and only when there are)."""
    data = read_cache_file(Layer.of_project(project).state_file(name))
    if data is None or data.get("key") != key:
        return None
    for path, stat in data.get("watched") or ():
        if stat_key(path) != stat:
            return None
    return data


_NOTHING = {"active": True, "reason": "", "text": "", "injected": [], "total": 0, "left_out": 0}


def cache_name(base: str, agent: str) -> str:
    """The cache file of ``agent``: each agent's cap measures differently."""
    if agent == DEFAULT_AGENT:
        return base
    stem, dot, ext = base.rpartition(".")
    return f"{stem}-{agent}{dot}{ext}"


def session_start(
    project: str, agent: str = DEFAULT_AGENT, write: bool = True, deadline: float | None = None
) -> dict[str, Any]:
    """What ``SessionStart`` injects: ``active``, ``reason``, ``text``, ``injected``
    (names), ``total`` and ``left_out`` (counts), ``budget``, ``topup_budget``, and what
    keeps it from the model (``error``, ``user_layer_error``, ``config_off``,
    ``config_ignored``: see the module docstring).

    A project without a playbook file (nor a user layer) gets an empty text
    and no cache. ``write=False`` renders a miss without caching it (``acecode
    doctor`` writes nothing in the folder it is run from). ``deadline``: see
    :func:`_render`; a cached state the screen left ``incomplete`` is a miss.
    """
    key = inputs_key(project)
    if _no_playbook(key):
        return dict(_NOTHING)
    name = cache_name(CACHE_NAME, agent)
    cached = _cached(project, name, key)
    if cached is not None and not cached.get("incomplete"):
        return cached
    start, _ = _render(project, key, with_index=False, agent=agent, write=write, deadline=deadline)
    if write:
        write_cache_file(Layer.of_project(project).state_file(name), start)
    return start


def topup_index(
    project: str, agent: str = DEFAULT_AGENT, deadline: float | None = None
) -> dict[str, Any]:
    """The top-up candidates (``names``, ``sections``, ``lines``, ``relevance``,
    ``section_order``, ``topup_budget``, ``active``) and the arrived entries a review
    released (``released``); rendered and cached on a miss like :func:`session_start`."""
    key = inputs_key(project)
    if _no_playbook(key):
        return {"active": False}
    cached = _cached(project, cache_name(INDEX_NAME, agent), key)
    if cached is not None and not cached.get("incomplete"):
        return cached
    return _render_both(project, key, agent, deadline)[1]


def _render_both(
    project: str, key: list[Any], agent: str = DEFAULT_AGENT, deadline: float | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    start, index = _render(project, key, with_index=True, agent=agent, deadline=deadline)
    layer = Layer.of_project(project)
    write_cache_file(layer.state_file(cache_name(CACHE_NAME, agent)), start)
    write_cache_file(layer.state_file(cache_name(INDEX_NAME, agent)), index)
    return start, index


def prime(project: str) -> dict[str, Any]:
    """Render and cache both files now (after a save), so the next hooks only read;
    returns what :func:`session_start` would."""
    key = inputs_key(project)
    if _no_playbook(key):
        return dict(_NOTHING)
    return _render_both(project, key)[0]
