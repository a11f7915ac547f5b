"""Random team histories of a playbook, and the true counters every merge must reach.

A history is a list of :class:`Step` on a few branches that all start from
one root commit: a *commit* applies edits to the branch's playbook (add a
rule, rate one, edit its text, move it, delete it), a *merge* merges another
branch into it, in any direction and any order, so criss-cross merges (two
merge bases) and same-ID clashes (two branches adding different rules under
the next free ID) come up all the time.

Every commit carries the set of events in its history (:class:`Events`): one
per rule added, per rating given, per rule deleted. A merge's history is the
union of its parents', so what its playbook must hold is known without
looking at any merge: every rule added and never deleted, exactly once, with
one ``helpful``/``harmful`` per rating event (:func:`check_merged`). Which ID
or text a rule ends with is the merge's choice; each text starts with
``rule<N>``, so an entry is traced to its rule whatever it is called.

Texts are words: an edit swaps one word for a fresh one, as a curator's
refinement keeps most of a rule. Rules never share a text (two branches
never learn the very same sentence: that case has its own tests).

:class:`Replay` runs a history against a ``merge`` callable, which is the
pure model of git's recursive merge below (:func:`git_merge_model`) or a real
``git merge`` (tests/team).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from hypothesis import strategies as st

from acecode.playbook.merge3 import merge_playbooks
from acecode.playbook.schema import (
    SECTION_NAMES,
    SECTION_SLUGS,
    empty_playbook,
    format_keypoint_name,
    iter_entries,
    max_slug_number,
    new_entry,
)
from acecode.store.playbook_file import serialize_playbook

OP_KINDS = ("add", "rate", "rate", "edit", "move", "delete")
WORDS_PER_RULE = 5  # of its own, after the common words every rule shares
COMMON_WORDS = ("always", "tests")
_EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
Event = tuple[str, int, int]  # ("add" | "delete" | "helpful" | "harmful", rule, serial)


@dataclass(frozen=True)
class Op:
    """One edit of a branch's playbook: ``pick`` chooses the entry, ``arg`` the detail."""

    kind: str
    pick: int
    arg: int


@dataclass(frozen=True)
class Step:
    """A commit of ``ops`` on ``branch``, or a merge of branch ``other`` into ``branch``.

    A merge takes the head ``other`` had ``lag`` commits ago: a teammate's
    branch as last fetched. Two branches merging each other's older heads is
    how criss-cross histories arise.
    """

    branch: int
    other: int | None = None
    lag: int = 0
    ops: tuple[Op, ...] = ()

    def __str__(self) -> str:
        if self.other is not None:
            return f"b{self.branch} merges b{self.other}~{self.lag}"
        ops = ", ".join(f"{op.kind}({op.pick},{op.arg})" for op in self.ops)
        return f"b{self.branch} commits {ops}"


ops = st.builds(
    Op,
    kind=st.sampled_from(OP_KINDS),
    pick=st.integers(min_value=0, max_value=20),
    arg=st.integers(min_value=0, max_value=20),
)


# More additions, mostly to the first section: both branches adding there is a same-ID clash.
learning_ops = st.builds(
    Op,
    kind=st.sampled_from(("add", "add", *OP_KINDS)),
    pick=st.integers(min_value=0, max_value=20),
    arg=st.sampled_from((0, 0, 0, 1, 2, 3, 4, 5, 6)),
)


@st.composite
def histories(draw: st.DrawFn, branches: int = 3, max_steps: int = 14) -> list[Step]:
    """Commits and merges on ``branches`` branches; merges are about half the steps."""
    count = draw(st.integers(min_value=2, max_value=branches))
    steps = []
    for _ in range(draw(st.integers(min_value=2, max_value=max_steps))):
        branch = draw(st.integers(min_value=0, max_value=count - 1))
        if draw(st.booleans()):
            other = draw(st.integers(min_value=0, max_value=count - 2))
            lag = draw(st.sampled_from((0, 0, 1, 2)))
            steps.append(Step(branch, other if other < branch else other + 1, lag))
        else:
            steps.append(Step(branch, ops=tuple(draw(st.lists(ops, min_size=1, max_size=3)))))
    return steps


@st.composite
def criss_cross_histories(draw: st.DrawFn, rounds: int = 3) -> list[Step]:
    """Two branches that learn, then merge each other, round after round.

    In each round both branches commit, ``b0`` merges ``b1``'s head, and
    ``b1`` mostly merges ``b0``'s head from before that merge: from the
    second round on, every merge has two merge bases (a criss-cross).
    """
    steps = []
    for _ in range(draw(st.integers(min_value=2, max_value=rounds))):
        for branch in (0, 1):
            learned = draw(st.lists(learning_ops, min_size=1, max_size=3))
            steps.append(Step(branch, ops=tuple(learned)))
        steps.append(Step(0, 1, lag=0))
        steps.append(Step(1, 0, lag=draw(st.sampled_from((1, 1, 1, 0)))))
    return steps


def rule_of(text: str) -> int:
    """The rule an entry's text belongs to (every text starts with ``rule<N>``)."""
    return int(text.split(maxsplit=1)[0].removeprefix("rule"))


@dataclass
class Counter:
    """Fresh numbers for rules, words, events and time stamps, shared by all branches."""

    value: int = 0

    def next(self) -> int:
        self.value += 1
        return self.value


@dataclass(frozen=True)
class Events:
    """What happened in a commit's history: a set, so a merge is a union."""

    items: frozenset[Event] = frozenset()

    def __or__(self, other: Events) -> Events:
        return Events(self.items | other.items)

    def plus(self, *events: Event) -> Events:
        return Events(self.items | set(events))

    def expected(self) -> dict[int, tuple[int, int]]:
        """Rule -> (helpful, harmful) for every rule added and never deleted."""
        added = {rule for kind, rule, _ in self.items if kind == "add"}
        alive = added - {rule for kind, rule, _ in self.items if kind == "delete"}
        counts = {rule: [0, 0] for rule in alive}
        for kind, rule, _ in self.items:
            if kind in ("helpful", "harmful") and rule in counts:
                counts[rule][kind == "harmful"] += 1
        return {rule: (helpful, harmful) for rule, (helpful, harmful) in counts.items()}


def _entries(playbook: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return list(iter_entries(playbook))


def _remove(playbook: dict[str, Any], name: str) -> None:
    for entries in playbook["sections"].values():
        entries[:] = [e for e in entries if e["name"] != name]


def _text(rule: int, words: list[str]) -> str:
    return " ".join([f"rule{rule}", *words])


def apply_ops(
    playbook: dict[str, Any], ops: tuple[Op, ...], events: Events, fresh: Counter
) -> tuple[dict[str, Any], Events]:
    """The branch's playbook after ``ops``, with a new time stamp, and its new history."""
    book = copy.deepcopy(playbook)
    for op in ops:
        entries = _entries(book)
        if op.kind == "add" or not entries:
            rule = fresh.next()
            section = SECTION_NAMES[op.arg % len(SECTION_NAMES)]
            slug = SECTION_SLUGS[section]
            name = format_keypoint_name(slug, max_slug_number([e for _, e in entries], slug) + 1)
            words = [*COMMON_WORDS, *(f"w{rule}x{i}" for i in range(WORDS_PER_RULE))]
            book["sections"][section].append(new_entry(name, _text(rule, words)))
            events = events.plus(("add", rule, fresh.next()))
            continue
        section, entry = entries[op.pick % len(entries)]
        rule = rule_of(entry["text"])
        if op.kind == "rate":
            key = "harmful" if op.arg % 3 == 0 else "helpful"
            entry = {**entry, key: entry[key] + 1}
            events = events.plus((key, rule, fresh.next()))
        elif op.kind == "edit":
            words = entry["text"].split()[1:]
            words[op.arg % len(words)] = f"e{fresh.next()}"
            entry = {**entry, "text": _text(rule, words)}
        elif op.kind == "move":
            section = SECTION_NAMES[op.arg % len(SECTION_NAMES)]
        else:
            _remove(book, entry["name"])
            events = events.plus(("delete", rule, fresh.next()))
            continue
        _remove(book, entry["name"])
        book["sections"][section].append(entry)
    book["last_updated"] = (_EPOCH + timedelta(seconds=fresh.next())).isoformat()
    return book, events


def check_merged(playbook: dict[str, Any], events: Events, where: str) -> None:
    """Every living rule once, with exactly the ratings of its history; IDs unique."""
    found: dict[int, tuple[int, int]] = {}
    names = [entry["name"] for _, entry in _entries(playbook)]
    assert len(names) == len(set(names)), f"{where}: an ID is used twice: {names}"
    for _, entry in _entries(playbook):
        rule = rule_of(entry["text"])
        assert rule not in found, f"{where}: rule{rule} is in the playbook twice"
        found[rule] = (entry["helpful"], entry["harmful"])
    expected = events.expected()
    assert found == expected, f"{where}: (helpful, harmful) by rule {found} != {expected}"


@dataclass
class Commit:
    """A commit of the model: its parents, its playbook, its history's events."""

    id: int
    parents: tuple[int, ...]
    playbook: dict[str, Any]
    events: Events = field(default_factory=Events)
    key: Any = None  # the backend's name for it (a git commit hash)


Merge = Callable[[int, int], dict[str, Any]]


class Graph:
    """Commits by id and their ancestry, as ``git merge-base --all`` sees it."""

    def __init__(self) -> None:
        self.commits: dict[int, Commit] = {}
        self._ancestors: dict[int, frozenset[int]] = {}

    def add(self, commit: Commit) -> Commit:
        self.commits[commit.id] = commit
        return commit

    def ancestors(self, commit: int) -> frozenset[int]:
        """``commit`` and everything it descends from."""
        if commit not in self._ancestors:
            found = {commit}
            for parent in self.commits[commit].parents:
                found |= self.ancestors(parent)
            self._ancestors[commit] = frozenset(found)
        return self._ancestors[commit]

    def merge_bases(self, a: int, b: int) -> list[int]:
        """The best common ancestors of ``a`` and ``b`` (none is an ancestor of another)."""
        common = self.ancestors(a) & self.ancestors(b)
        return sorted(
            c for c in common if not any(c != d and c in self.ancestors(d) for d in common)
        )


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return serialize_playbook(a) == serialize_playbook(b)


def git_merge_model(graph: Graph, fresh: Counter) -> Merge:
    """git's recursive (ort) merge of one file with acecode's driver, as a function.

    Two or more merge bases are merged first, pairwise, into a virtual commit
    (the driver in ``--virtual-base`` mode); a side equal to the base, or two
    equal sides, resolve without the driver, as git does for equal blobs.
    """

    def merge_files(base: dict, ours: dict, theirs: dict, virtual: bool) -> dict:
        if _same(ours, theirs) or _same(base, theirs):
            return ours
        if _same(base, ours):
            return theirs
        return merge_playbooks(base, ours, theirs, virtual_base=virtual).playbook

    def merge(ours: int, theirs: int, virtual: bool = False) -> dict[str, Any]:
        bases = graph.merge_bases(ours, theirs)
        if not bases:
            base = empty_playbook()
        else:
            merged = bases[0]
            for other in bases[1:]:
                book = merge(merged, other, virtual=True)
                merged = graph.add(Commit(-fresh.next(), (merged, other), book)).id
            base = graph.commits[merged].playbook
        ours_book, theirs_book = graph.commits[ours].playbook, graph.commits[theirs].playbook
        return merge_files(base, ours_book, theirs_book, virtual)

    return merge


class Backend(Protocol):
    """Where a history runs: the model of git below, or a real repository."""

    def commit(self, branch: int, playbook: dict[str, Any]) -> Any:
        """Commit ``playbook`` on ``branch``; returns the commit's key (e.g. its hash)."""
        ...

    def merge(self, branch: int, ours: Commit, theirs: Commit) -> tuple[dict[str, Any], Any]:
        """Merge ``theirs`` into ``branch`` (whose head is ``ours``): playbook and key."""
        ...


class ModelBackend:
    """The history merged by :func:`git_merge_model`."""

    def __init__(self, graph: Graph, fresh: Counter) -> None:
        self._merge = git_merge_model(graph, fresh)

    def commit(self, branch: int, playbook: dict[str, Any]) -> None:
        return None

    def merge(self, branch: int, ours: Commit, theirs: Commit) -> tuple[dict[str, Any], None]:
        return self._merge(ours.id, theirs.id), None


class Replay:
    """Runs a history on a backend and checks every merge against the events."""

    def __init__(self, branches: int = 3) -> None:
        self.fresh = Counter(1000)
        self.graph = Graph()
        ops = (Op("add", 0, 0), Op("add", 0, 1), Op("rate", 0, 1))
        book, events = apply_ops(empty_playbook(), ops, Events(), self.fresh)
        self.root = self.graph.add(Commit(self.fresh.next(), (), book, events))
        self.heads = {branch: [self.root.id] for branch in range(branches)}
        self.merges = 0

    def run(self, steps: list[Step], backend: Backend | None = None) -> None:
        """Every step in order; ``backend`` defaults to the model of git."""
        backend = backend or ModelBackend(self.graph, self.fresh)
        for number, step in enumerate(steps, 1):
            head = self.graph.commits[self.heads[step.branch][-1]]
            if step.other is None:
                book, events = apply_ops(head.playbook, step.ops, head.events, self.fresh)
                commit = Commit(self.fresh.next(), (head.id,), book, events)
                commit.key = backend.commit(step.branch, book)
                self.heads[step.branch].append(self.graph.add(commit).id)
                continue
            heads = self.heads[step.other]
            theirs = self.graph.commits[heads[max(0, len(heads) - 1 - step.lag)]]
            if theirs.id in self.graph.ancestors(head.id):
                continue  # already up to date
            book, key = backend.merge(step.branch, head, theirs)
            if head.id in self.graph.ancestors(theirs.id):  # fast-forward
                self.heads[step.branch].append(theirs.id)
                continue
            events = head.events | theirs.events
            commit = Commit(self.fresh.next(), (head.id, theirs.id), book, events, key)
            self.heads[step.branch].append(self.graph.add(commit).id)
            self.merges += 1
            check_merged(book, events, f"step {number} ({step})")
