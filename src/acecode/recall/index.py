"""The recall index: every entry's triggers in one small file the tool hooks read.

``<project>/.claude/acecode/recall-index.json`` (git-ignored, like the injection
cache of :mod:`acecode.hooks.rendered`) holds::

    {"format": 1, "acecode": "0.3.0",
     "inputs": [["<file>", <stat>], ...], "env": [["ACECODE_...", null], ...],
     "active": true, "recall": true, "recall_before": true, "experiments": false,
     "entries": {"mis-003": {"text": "...", "section": "...", "version": "1a2b3c4d",
                             "score": 2}},
     "failures": [[["Bash", "shell", ...], "Bash", "npm test",
                   "npm error Missing script: <q>", "", "mis-003", ["npm", "Missing", "script"]]],
     "patterns": [[["Read"], "Read", "file_path", "(^|/)status\\\\.md$", "ctx-002",
                   "status.md", false]]}

Each row starts with the tool names it applies to (a shell trigger to every shell
tool, an ``Edit`` pattern to ``MultiEdit`` too).

It is built from what injection serves (both layers, held arrivals left out:
:func:`acecode.hooks.rendered.served_playbook`) and both layers' provenance
(:mod:`acecode.recall.triggers`), so user-layer and pinned entries take part.
Each failure trigger carries the words its error must show and each pattern the
text its matches must contain (:mod:`acecode.recall.literals`): the fast path
(:mod:`acecode.recall.gate`) rules most calls out with ``in`` alone.

The file names its own inputs: every file it was built from with its ``stat``
and every setting variable with its value. The gate re-checks exactly those, so
it needs no knowledge of where they live; a change in any of them (a cycle
saved the playbook, provenance or a switch changed) makes the next hook build
it again, and ``acecode learn`` and the CLI commands that change the playbook
build it ahead of time (:func:`acecode.cli.common.refresh_injection`).
"""

from __future__ import annotations

import os
from typing import Any

import acecode
from acecode.project.file_stat import stat_key
from acecode.project.layer import Layer

INDEX_NAME = "recall-index.json"
FORMAT = 1
PROVENANCE_NAME = "provenance.json"  # acecode.store.provenance.PROVENANCE_NAME
ARRIVALS_NAME = "arrivals.tsv"  # acecode.arrivals.marks.MARKS_NAME


def index_file(project: str) -> str:
    return Layer.of_project(project).state_file(INDEX_NAME)


def input_files(project: str) -> list[str]:
    """Every file the index is built from: both layers' playbook and provenance, the
    switch and settings files, and this machine's record of arrived entries."""
    from acecode.hooks.rendered import switch_files

    layer, user = Layer.of_project(project), Layer.user()
    return [
        layer.playbook,
        user.playbook,
        layer.state_file(PROVENANCE_NAME),
        user.state_file(PROVENANCE_NAME),
        *switch_files(project),
        layer.state_file(ARRIVALS_NAME),
    ]


def input_variables() -> tuple[str, ...]:
    """The setting variables the index depends on (the injection's, which hold recall's)."""
    from acecode.hooks.rendered import SETTING_VARIABLES

    return SETTING_VARIABLES


def inputs(project: str) -> tuple[list[list[Any]], list[list[Any]]]:
    """The index's key: ``[file, stat]`` of every input file and ``[variable, value]``."""
    files = [[path, stat_key(path)] for path in input_files(project)]
    env = [[name, os.environ.get(name)] for name in input_variables()]
    return files, env


def build(project: str) -> dict[str, Any]:
    """The index of ``project`` as it is now (see the module docstring)."""
    from acecode.experiments.plan import entry_version, raw_provenance
    from acecode.hooks.rendered import served_playbook
    from acecode.playbook.schema import iter_entries
    from acecode.recall.literals import required_literal
    from acecode.recall.triggers import trigger_tools, triggers_of

    files, env = inputs(project)  # taken before reading: a save meanwhile means one more build
    limits, playbook = served_playbook(project)
    index: dict[str, Any] = {
        "format": FORMAT,
        "acecode": acecode.__version__,
        "inputs": files,
        "env": env,
        "active": bool(limits.get("active")) and playbook is not None,
        "recall": bool(limits.get("recall", True)),
        "recall_before": bool(limits.get("recall_before", True)),
        "experiments": bool(limits.get("experiments")),
        "entries": {},
        "failures": [],
        "patterns": [],
    }
    if playbook is None:
        return index
    origins = raw_provenance((Layer.of_project(project), Layer.user()))
    for section, entry in iter_entries(playbook):
        name = entry["name"]
        triggers = triggers_of(entry, origins.get(name, ()))
        if not triggers:
            continue
        index["entries"][name] = {
            "text": entry["text"],
            "section": section,
            "version": entry_version(entry),
            "score": int(entry.get("helpful") or 0) - int(entry.get("harmful") or 0),
        }
        for trigger in triggers.failures:
            tools = sorted(trigger_tools(trigger.tool))
            index["failures"].append([tools, *trigger, name, trigger.words()])
        for pattern in triggers.patterns:
            literal, fold = required_literal(pattern.pattern)
            tools = sorted(pattern.tools())
            row = [tools, pattern.tool, pattern.field, pattern.pattern, name, literal, fold]
            index["patterns"].append(row)
    return index


def is_current(index: dict[str, Any], project: str) -> bool:
    """True when ``index`` was built from the inputs as they are now."""
    files, env = inputs(project)
    return (
        index.get("format") == FORMAT
        and index.get("acecode") == acecode.__version__
        and index.get("inputs") == files
        and index.get("env") == env
    )


def current_index(project: str) -> dict[str, Any]:
    """The project's index: the file when it is current, else built and written now."""
    from acecode.hooks.cache_files import read_cache_file, write_cache_file

    path = index_file(project)
    index = read_cache_file(path)
    if index is not None and is_current(index, project):
        return index
    index = build(project)
    write_cache_file(path, index)
    return index
