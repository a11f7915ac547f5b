"""``acecode bootstrap --relink``: re-link existing provenance to the right moment, no LLM call.

Provenance written before issue 26 linked every rule by word overlap of its text
and of the cycle's whole reflection against each failure's entire output, so the
failure with the longest output won most rules, and its error line could be
``Exit code 1``. For each learned or merged origin written that way (it has no
``link``) whose transcript is still there, the session is read again
(:class:`acecode.pipeline.evidence.EvidencePool`) and the evidence is matched
with the fallback the cycle now uses: the entry's own text against each
failure's command and error line, and against the user's messages. The new
evidence carries the signature computed from the whole output, and
``link: relinked``.

Origins written since (``link`` set: ``named``, ``finding``, ``overlap``) are
left alone, as are origins of entries that left the playbook, origins without
evidence to find (added by hand, imported, merged by de-duplication) and those
whose transcript is gone (Claude Code deletes sessions after 30 days by
default). The provenance file is rewritten once, under the playbook's lock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from acecode.playbook.schema import iter_entries
from acecode.project.layer import Layer, Where
from acecode.store.provenance import Evidence, Origin

if TYPE_CHECKING:
    from acecode.pipeline.evidence import EvidencePool

Pools = dict[str, "EvidencePool | None"]

RELINKED = "relinked"
_FROM_A_SESSION = ("learned", "merged")


@dataclass
class RelinkCounts:
    """What a relink did, origin by origin."""

    relinked: int = 0  # the evidence changed
    unchanged: int = 0  # the fallback found the same moment again
    current: int = 0  # linked by a cycle since issue 26: left alone
    transcript_gone: int = 0
    no_session: int = 0  # added by hand, imported, folded by de-duplication


def relink(playbook: Where, lock_timeout: float = 10.0) -> RelinkCounts:
    """Re-link the provenance of ``playbook``'s live entries (see the module)."""
    from acecode.store import load_playbook
    from acecode.store.atomic import atomic_write_text
    from acecode.store.lock import playbook_lock
    from acecode.store.provenance import provenance_path, read_ledger

    layer = Layer.of(playbook)
    counts = RelinkCounts()
    pools: Pools = {}
    with playbook_lock(layer, lock_timeout):
        texts = {entry["name"]: entry["text"] for _, entry in iter_entries(load_playbook(layer))}
        ledger = read_ledger(layer)
        for name, origins in ledger.entries.items():
            text = texts.get(name)
            if text is None:
                continue
            ledger.entries[name] = [_relinked(o, text, pools, counts) for o in origins]
        if counts.relinked:
            atomic_write_text(provenance_path(layer), ledger.serialize())
    return counts


def _relinked(origin: Origin, text: str, pools: Pools, counts: RelinkCounts) -> Origin:
    if origin.evidence.link:
        counts.current += 1
        return origin
    if origin.how not in _FROM_A_SESSION or not origin.transcript or _folded(origin):
        counts.no_session += 1
        return origin
    pool = _pool(origin.transcript, pools)
    if pool is None:
        counts.transcript_gone += 1
        return origin
    found = pool.match(text)
    evidence = Evidence.from_dict({**found, "link": RELINKED} if found["kind"] != "none" else found)
    if _same_moment(evidence, origin.evidence):
        counts.unchanged += 1
    else:
        counts.relinked += 1
    return replace(origin, evidence=evidence)


def _folded(origin: Origin) -> bool:
    """A group folded by semantic de-duplication: no moment of a session behind it."""
    return origin.how == "merged" and origin.reason.startswith("de-duplication folded")


def _same_moment(new: Evidence, old: Evidence) -> bool:
    return (new.kind, new.tool, new.command, new.error, new.request) == (
        old.kind,
        old.tool,
        old.command,
        old.error,
        old.request,
    )


def _pool(transcript: str, pools: Pools) -> EvidencePool | None:
    """The session's numbered moments, read once per transcript (None when it is gone)."""
    from acecode.agents import detect_agent
    from acecode.pipeline.evidence import EvidencePool
    from acecode.transcript import iter_messages

    if transcript not in pools:
        path = Path(transcript)
        if not path.is_file():
            pools[transcript] = None
        else:
            agent = detect_agent(path)
            pools[transcript] = EvidencePool.collect(iter_messages(path, agent=agent), agent)
    return pools[transcript]
