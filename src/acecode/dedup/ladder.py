"""The de-duplication ladder applied to each curator ADD and UPDATE before it lands.

From ``ace-curator-consolidation.md`` ("De-duplication Rules", "Deterministic
Merge Logic"), with similarities on the spec's calibrated scale
(:mod:`acecode.dedup.similarity`) against every entry of the playbook:

1. best match >= ``identical`` (0.90), any section: do not add; credit the
   existing entry (helpful + 1).
2. best match in the *same section* >= ``similar`` (0.85): consolidate into
   it; do not add; credit it.
3. best match >= ``related`` (0.75): if the candidate is more specific than
   that entry (:func:`is_more_specific`), replace the entry's text with the
   candidate's and credit it; otherwise only credit it.
4. otherwise keep separate: apply the operation as proposed.

How the pipeline uses it::

    decision = decide(text, section, playbook, backend=b, cache=c, exclude=name_if_update)
    if decision.action == "add":
        ... apply the curator's ADD / UPDATE as proposed ...
    else:
        playbook = apply_decision(playbook, decision)   # credit or update the match
    report.append(decision.to_dict())

For a curator UPDATE of entry X pass ``exclude=X`` so the entry is not
compared with its own old text; a merging decision (:data:`MERGING_RUNGS`)
then means the new text duplicates another entry, and the UPDATE is replaced
by the decision.

Judged ladder (what the learning cycle runs). Similarity alone cannot tell a
paraphrase from its opposite, so the cycle passes ``verdicts``
(:class:`acecode.dedup.verdicts.Verdicts`) and the rungs become:

1. ``verbatim``: a near-verbatim entry (:mod:`acecode.dedup.verbatim`): credit it.
2. ``same``: an entry the judge called the same rule: credit it.
3. ``more_specific``: an entry the judge called more or less specific than the
   candidate: if the candidate is the more specific one, replace the entry's
   text with it and credit it (update); otherwise only credit the entry.
4. ``separate``: otherwise (different, conflicting or not judged): add.

Among several entries on one rung the most similar wins. A conflicting or
unjudged entry is never credited, whatever its similarity; and neither is an
entry whose *folded* texts (ones credited to it or replaced by it before,
:meth:`acecode.dedup.verdicts.Verdicts.folded_into`) the candidate conflicts
with: both sides are kept and the conflict is shown in review. Without
``verdicts`` (library callers) :func:`decide` is the unjudged ladder above,
which the cycle never applies.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from acecode import events
from acecode.dedup.backends import EmbeddingBackend, load_backend
from acecode.dedup.cache import EmbeddingCache, embed_texts
from acecode.dedup.similarity import calibrate
from acecode.dedup.verbatim import near_verbatim
from acecode.dedup.verdicts import Verdicts
from acecode.playbook.schema import iter_entries

Action = Literal["add", "credit", "update"]
Rung = Literal["identical", "similar", "related", "separate", "verbatim", "same", "more_specific"]
# Rungs that say the candidate *is* the matched entry (an UPDATE landing there is dropped).
MERGING_RUNGS = frozenset({"identical", "similar", "verbatim", "same"})
_ENV = {
    "identical": "ACECODE_LADDER_IDENTICAL",
    "similar": "ACECODE_LADDER_SIMILAR",
    "related": "ACECODE_LADDER_RELATED",
}
_WORD = re.compile(r"[A-Za-z0-9_]+")
_STOPWORD_TEXT = """
a an and are as at be before by do does for from has have if in into is it its not of on or so
than that the then there these this to was were when which while will with you your always never
should must can use using
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class LadderThresholds:
    """Rungs of the ladder, on the calibrated similarity scale."""

    identical: float = 0.90
    similar: float = 0.85
    related: float = 0.75

    @classmethod
    def from_env(cls) -> LadderThresholds:
        """Defaults overridden by ``ACECODE_LADDER_IDENTICAL/SIMILAR/RELATED``.

        A value that is not a number is ignored with a warning; values are
        clamped to [0, 1].
        """
        values: dict[str, float] = {}
        for field_name, var in _ENV.items():
            raw = os.environ.get(var)
            if raw is None or not raw.strip():
                continue
            try:
                number = float(raw)
            except ValueError:
                number = float("nan")
            if number != number:  # NaN
                events.warning(f"{var}={raw!r} is not a number; using the default")
                continue
            values[field_name] = min(1.0, max(0.0, number))
        return cls(**values)


@dataclass(frozen=True)
class LadderDecision:
    """What to do with one candidate, and why (recorded in the cycle report)."""

    action: Action
    rung: Rung
    candidate_text: str
    candidate_section: str
    matched_name: str | None = None
    matched_section: str | None = None
    similarity: float | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the curation report."""
        data = asdict(self)
        if self.similarity is not None:
            data["similarity"] = round(self.similarity, 4)
        return data


def content_terms(text: str) -> set[str]:
    """Lower-cased words that carry meaning: no stop words, no one-letter words.

    Identifiers are split at punctuation (``pathlib.Path`` gives ``pathlib``
    and ``path``) so that a tip naming ``pathlib`` and one naming
    ``pathlib.Path`` share terms.
    """
    words = (w.lower() for w in _WORD.findall(text))
    return {w for w in words if w not in _STOPWORDS and (len(w) > 1 or w.isdigit())}


def is_more_specific(candidate: str, existing: str) -> bool:
    """True when ``candidate`` refines ``existing`` rather than saying something else.

    Rule: the candidate has more distinct content terms (identifiers, tool
    names, numbers, domain words) than the existing text, and keeps at least
    half of the existing text's terms. The second half keeps a longer but
    different tip from overwriting the one it merely resembles.
    """
    new, old = content_terms(candidate), content_terms(existing)
    return len(new) > len(old) and len(new & old) * 2 >= len(old)


def decide(
    candidate_text: str,
    candidate_section: str,
    playbook: dict[str, Any],
    *,
    thresholds: LadderThresholds | None = None,
    backend: EmbeddingBackend | None = None,
    cache: EmbeddingCache | None = None,
    exclude: str | None = None,
    verdicts: Verdicts | None = None,
) -> LadderDecision:
    """Place one candidate on the ladder against ``playbook`` (not modified).

    ``candidate_section`` must be a canonical section name. ``backend``
    defaults to :func:`load_backend`; if that raises ``BackendUnavailable`` the
    caller should add the candidate unchecked (the degrade path). With
    ``verdicts`` the judged ladder decides (module doc); ``thresholds`` then
    play no part.
    """
    rungs = thresholds or LadderThresholds.from_env()
    others = [(s, e) for s, e in iter_entries(playbook) if e.get("name") != exclude]
    if not others:
        return LadderDecision(
            "add", "separate", candidate_text, candidate_section, reason="no other entry"
        )
    backend = backend or load_backend()
    texts = [str(e.get("text", "")) for _, e in others]
    vectors = embed_texts([candidate_text, *texts], backend, cache)
    sims = calibrate(vectors[1:] @ vectors[0], backend.paraphrase_cosine)
    for i, text in enumerate(texts):
        if text == candidate_text:
            sims[i] = 1.0

    best = int(sims.argmax())
    same = [i for i, (s, _) in enumerate(others) if s == candidate_section]
    best_same = max(same, key=lambda i: sims[i]) if same else None

    def on(index: int, action: Action, rung: Rung, reason: str) -> LadderDecision:
        section, entry = others[index]
        return LadderDecision(
            action=action,
            rung=rung,
            candidate_text=candidate_text,
            candidate_section=candidate_section,
            matched_name=str(entry.get("name")),
            matched_section=section,
            similarity=float(sims[index]),
            reason=reason,
        )

    if verdicts is not None:
        order = sorted(range(len(texts)), key=lambda i: -sims[i])
        return _judged(candidate_text, texts, order, verdicts, on)
    if sims[best] >= rungs.identical:
        return on(best, "credit", "identical", "nearly identical to an existing entry")
    if best_same is not None and sims[best_same] >= rungs.similar:
        return on(best_same, "credit", "similar", "consolidated into a similar entry")
    if sims[best] >= rungs.related:
        existing = str(others[best][1].get("text", ""))
        if is_more_specific(candidate_text, existing):
            return on(best, "update", "related", "candidate is more specific than the entry")
        return on(best, "credit", "related", "related entry is at least as specific")
    return on(best, "add", "separate", "no entry is related enough")


def _judged(
    candidate: str,
    texts: list[str],
    order: list[int],
    verdicts: Verdicts,
    on: Callable[[int, Action, Rung, str], LadderDecision],
) -> LadderDecision:
    """The judged ladder (module doc) over entries ``texts``, most similar first."""
    for i in order:
        if near_verbatim(candidate, texts[i]):
            return on(i, "credit", "verbatim", "near-verbatim duplicate of an existing entry")
    conflicts = [i for i in order if verdicts.conflict_with(candidate, texts[i]) is not None]
    foldable = [i for i in order if i not in conflicts]
    for i in foldable:
        if verdicts.may_merge(candidate, texts[i]):
            return on(i, "credit", "same", "judged the same rule as an existing entry")
    for i in foldable:
        specific = verdicts.more_specific(candidate, texts[i])
        if specific == candidate:
            return on(i, "update", "more_specific", "judged more specific than the entry")
        if specific is not None:
            return on(i, "credit", "more_specific", "the entry is judged more specific")
    if conflicts:
        first = conflicts[0]
        direct = verdicts.get(candidate, texts[first])
        how = (
            "the entry"
            if direct is not None and direct.verdict == "conflicting"
            else ("a rule folded into the entry")
        )
        return on(first, "add", "separate", f"judged conflicting with {how}; both kept")
    return on(order[0], "add", "separate", "no entry judged the same rule")


def apply_decision(playbook: dict[str, Any], decision: LadderDecision) -> dict[str, Any]:
    """A copy of ``playbook`` with a credit / update decision carried out.

    "credit" adds 1 to the matched entry's ``helpful``; "update" also replaces
    its text with the candidate's. "add" returns an unchanged copy: adding is
    the curator operation's job. A matched entry that no longer exists is
    ignored (the copy is unchanged).
    """
    result = copy.deepcopy(playbook)
    if decision.action == "add":
        return result
    for section, entry in iter_entries(result):
        if entry.get("name") == decision.matched_name and section == decision.matched_section:
            entry["helpful"] = int(entry.get("helpful", 0)) + 1
            if decision.action == "update":
                entry["text"] = decision.candidate_text
            break
    return result
