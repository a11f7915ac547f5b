"""What the curator is shown of the playbook: bounded, whatever the playbook's size.

Sending the whole playbook made every cycle cost in step with it (about 25k
tokens at 1,000 entries). The curator needs only the entries that bear on
this session, so its view is, within ``budget_tokens`` (counted as the
condenser counts, :func:`acecode.transcript.text.estimate_tokens`):

1. every entry the session cited, the reflector tagged, or a judged conflict
   names: always shown, as the reflection is about them;
2. the entries on the short "possibly stale" and "retire candidate" lists,
   so the curator can UPDATE or DELETE them;
3. the entries most relevant to the reflection (BM25 over the reflector's
   analysis and tag rationales, :mod:`acecode.playbook.relevance`);
4. what budget is left, filled with the best entries by the injection's
   ranking (:func:`acecode.playbook.ranking.select_within_budget`), so the
   curator sees the playbook's strongest rules too.

A playbook that fits whole is shown whole. The view ends with one line that
says how many entries were left out, per section, so the curator knows the
playbook is larger. The IDs it may name in UPDATE, MERGE and DELETE are
exactly the shown ones: :func:`refuse_unseen` skips any operation naming
another, with the reason.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from acecode.playbook import ranking, relevance
from acecode.playbook.formatting import format_entry
from acecode.playbook.operations import OperationOutcome
from acecode.playbook.schema import SECTION_NAMES
from acecode.transcript.text import estimate_tokens

DEFAULT_BUDGET_TOKENS = 4_000
# Each short list (possibly stale, retire candidates) names at most this many entries.
MAX_LISTED = 10
NONE = "(none)"


@dataclass(frozen=True)
class Listed:
    """An entry offered to the curator on a short list, with why."""

    name: str
    note: str


@dataclass
class CuratorView:
    """The entries the curator is shown, what was left out, and the short lists."""

    playbook: dict[str, Any]
    shown: frozenset[str]
    total: int
    left_out: dict[str, int]
    stale: list[Listed] = field(default_factory=list)
    retire: list[Listed] = field(default_factory=list)
    tokens: int = 0

    def omitted_line(self) -> str:
        """One line: whether the curator sees the whole playbook, or how much is left out
        (``""`` for an empty playbook)."""
        missing = sum(self.left_out.values())
        if not self.total:
            return ""
        if not missing:
            return f"(All {self.total} entries of the playbook are shown.)"
        per_section = ", ".join(f"{section} {count}" for section, count in self.left_out.items())
        return (
            f"(The playbook has {self.total} entries; {missing} are not shown here: "
            f"{per_section}. Only the IDs shown above may be named in UPDATE, MERGE or DELETE.)"
        )

    def summary(self) -> dict[str, Any]:
        """JSON-ready figures for the cycle's report."""
        return {
            "shown": len(self.shown),
            "total": self.total,
            "left_out": dict(self.left_out),
            "estimated_tokens": self.tokens,
            "possibly_stale": [item.name for item in self.stale],
            "retire_candidates": [item.name for item in self.retire],
        }


def render_listed(items: Sequence[Listed]) -> str:
    """One line per listed entry, or ``(none)``."""
    return "\n".join(f"- [{item.name}] {item.note}" for item in items) or NONE


def entry_tokens(entry: Mapping[str, Any]) -> int:
    """What one entry's line adds to the curator's prompt."""
    return estimate_tokens(format_entry(dict(entry)) + "\n")


def header_tokens(section: str) -> int:
    """What a section's header adds before its first entry."""
    return estimate_tokens(f"\n## {section}\n")


def reflection_query(reflection: Mapping[str, Any]) -> str:
    """The text the relevance of entries is measured against: the analysis and the
    rationales of the reflector's tags."""
    tags = reflection.get("bullet_tags") or []
    rationales = [str(tag.get("rationale") or "") for tag in tags if isinstance(tag, dict)]
    return "\n".join([str(reflection.get("analysis") or ""), *rationales])


def tagged_names(reflection: Mapping[str, Any]) -> list[str]:
    """The entry IDs the reflector tagged, in order, each once."""
    tags = reflection.get("bullet_tags") or []
    names = (str(tag.get("name")) for tag in tags if isinstance(tag, dict) and tag.get("name"))
    return list(dict.fromkeys(names))


class _Picker:
    """The entries taken so far, in a running token count."""

    def __init__(self, located: dict[str, ranking.Ranked], budget: int) -> None:
        self.located, self.budget = located, budget
        self.taken: dict[str, ranking.Ranked] = {}
        self.sections: set[str] = set()
        self.tokens = 0

    def cost(self, item: ranking.Ranked) -> int:
        header = 0 if item.section in self.sections else header_tokens(item.section)
        return header + entry_tokens(item.entry)

    def take(self, name: str, *, always: bool = False) -> bool:
        """Take entry ``name`` if it exists and fits (``always``: even if it does not)."""
        item = self.located.get(name)
        if item is None:
            return False
        if name in self.taken:
            return True
        cost = self.cost(item)
        if not always and self.tokens + cost > self.budget:
            return False
        self.taken[name] = item
        self.sections.add(item.section)
        self.tokens += cost
        return True


def build_view(
    playbook: Mapping[str, Any],
    reflection: Mapping[str, Any],
    *,
    budget_tokens: int = DEFAULT_BUDGET_TOKENS,
    cited_ids: Iterable[str] = (),
    conflict_names: Iterable[str] = (),
    stale: Sequence[Listed] = (),
    retire: Sequence[Listed] = (),
    pinned: Set[str] = frozenset(),
) -> CuratorView:
    """The curator's view of ``playbook`` for this ``reflection`` (see the module docstring).

    ``stale`` and ``retire`` are the full candidate lists, best to offer first;
    at most ``MAX_LISTED`` of each are offered, and only those whose entries fit.
    """
    sections = playbook.get("sections") or {}
    ranked = ranking.ranked_entries(sections, pinned)
    located = {item.entry["name"]: item for item in ranked}
    picker = _Picker(located, max(budget_tokens, 0))
    whole = sum(picker.cost(item) for item in ranked)
    if whole <= picker.budget:
        for item in ranked:
            picker.take(item.entry["name"], always=True)
        return _view(
            sections, picker, len(ranked), list(stale[:MAX_LISTED]), list(retire[:MAX_LISTED])
        )
    for name in (*cited_ids, *tagged_names(reflection), *conflict_names):
        picker.take(name, always=True)
    offered_stale = _offer(picker, stale)
    offered_retire = _offer(picker, retire)
    _take_relevant(picker, ranked, reflection_query(reflection))
    _fill_with_best(picker, sections, pinned)
    return _view(sections, picker, len(ranked), offered_stale, offered_retire)


def _offer(picker: _Picker, items: Sequence[Listed]) -> list[Listed]:
    offered = []
    for item in items:
        if len(offered) == MAX_LISTED:
            break
        if picker.take(item.name):
            offered.append(item)
    return offered


def _take_relevant(picker: _Picker, ranked: list[ranking.Ranked], query: str) -> None:
    """The entries BM25 finds relevant to the reflection, most relevant first, while they fit."""
    if not query.strip():
        return
    candidates = [p for p, item in enumerate(ranked) if item.entry["name"] not in picker.taken]
    index = relevance.build_index([item.entry["text"] for item in ranked], candidates)
    for slot, _score in relevance.relevant(index, query):
        picker.take(ranked[candidates[slot]].entry["name"])


def _fill_with_best(
    picker: _Picker, sections: Mapping[str, Sequence[dict[str, Any]]], pinned: Set[str]
) -> None:
    """Whatever budget is left, filled with the best remaining entries, every section
    getting its share (the injection's selection)."""
    rest = {
        section: [
            entry for entry in sections.get(section) or () if entry["name"] not in picker.taken
        ]
        for section in SECTION_NAMES
    }
    selection = ranking.select_within_budget(
        rest,
        picker.budget - picker.tokens,
        lambda _section, entry: entry_tokens(entry),
        lambda section: 0 if section in picker.sections else header_tokens(section),
        pinned,
    )
    for item in selection.chosen:
        picker.take(item.entry["name"], always=True)


def _view(
    sections: Mapping[str, Sequence[dict[str, Any]]],
    picker: _Picker,
    total: int,
    stale: list[Listed],
    retire: list[Listed],
) -> CuratorView:
    """The shown entries in playbook order, and the per-section count of the others."""
    shown: dict[str, list[dict[str, Any]]] = {}
    left_out: dict[str, int] = {}
    for section in SECTION_NAMES:
        entries = list(sections.get(section) or ())
        kept = [entry for entry in entries if entry["name"] in picker.taken]
        shown[section] = kept
        if len(kept) < len(entries):
            left_out[section] = len(entries) - len(kept)
    return CuratorView(
        playbook={"sections": shown},
        shown=frozenset(picker.taken),
        total=total,
        left_out=left_out,
        stale=stale,
        retire=retire,
        tokens=picker.tokens,
    )


def operation_ids(operation: Any) -> list[Any]:
    """The existing-entry IDs an operation names (UPDATE/DELETE target, MERGE sources)."""
    if not isinstance(operation, dict):
        return []
    kind = operation.get("type")
    if kind in ("UPDATE", "DELETE"):
        return [operation.get("target_id")]
    if kind == "MERGE" and isinstance(operation.get("source_ids"), list):
        return list(operation["source_ids"])
    return []


def refuse_unseen(
    operations: Sequence[Any], shown: Set[str], known: Set[str]
) -> tuple[list[Any], list[dict[str, Any]]]:
    """Split ``operations`` into those that name only shown IDs and the refused rest.

    ``known`` are the IDs of the playbook the view was cut from. A refused
    operation comes back as a skipped outcome (``OperationOutcome.as_dict``,
    ``index`` its position in ``operations``) whose reason says which IDs it
    named: "not found" for an ID the playbook did not have (it may exist by
    the time the operations are applied, if another cycle added it, and the
    curator never saw it), "not shown to the curator" for one it had. A
    missing or empty ID is left to the operations' own validation.
    """
    allowed: list[Any] = []
    refused: list[dict[str, Any]] = []
    for position, operation in enumerate(operations):
        named = [n for n in operation_ids(operation) if isinstance(n, str) and n.strip()]
        absent = [name for name in named if name not in known]
        hidden = [name for name in named if name in known and name not in shown]
        if not (absent or hidden):
            allowed.append(operation)
            continue
        field_name = "source_ids" if operation["type"] == "MERGE" else "target_id"
        reasons = [f"{field_name} {name!r} not found" for name in absent]
        reasons += [f"{field_name} {name!r} was not shown to the curator" for name in hidden]
        outcome = OperationOutcome(position, operation["type"], False, "; ".join(reasons))
        refused.append(outcome.as_dict())
    return allowed, refused
