"""The judge: decide what two similar rule texts say to each other.

Embeddings propose pairs of texts that look alike; they cannot tell a
paraphrase from its opposite (MiniLM rates "Use single quotes ..." against
"Use double quotes ..." at 0.997). The judge answers, for every proposed pair
in one batched call, ``same``, ``more_specific`` (naming the side),
``different`` or ``conflicting``; :mod:`acecode.dedup.verdicts` turns the
answers into what may be merged.

Returns ``{"verdicts": [PairVerdict, ...]}``. Never raises: on any failure
(no provider, retries exhausted, a reply without JSON) the list is empty, and
an answer that cannot be read for a pair (unknown id, unknown verdict,
``more_specific`` without a side, two different answers for one pair) is left
out, so that pair has no verdict. No pairs means no call.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from acecode.dedup.verdicts import VERDICTS, PairVerdict
from acecode.roles.ask import as_text, ask, dict_items, never_raises, role_prompt
from acecode.roles.prompt import RolePrompt

ROLE = "judge"
# Room for one verdict line with a short reason per pair (real replies: up to 35 tokens
# at 4 characters a token; 48 leaves a denser tokenizer its margin) and the object around
# them; the cycle caps the pairs per call (``judge_max_pairs``, and what its reservation
# holds). A reply cut here keeps the verdicts it holds whole.
TOKENS_PER_PAIR = 48
MIN_REPLY_TOKENS = 48


def reply_tokens(pairs: int) -> int:
    """The judge's ``max_tokens`` for ``pairs`` pairs."""
    return MIN_REPLY_TOKENS + TOKENS_PER_PAIR * pairs


def empty_judgement() -> dict[str, Any]:
    """The result on any failure: no verdicts."""
    return {"verdicts": []}


def pair_ids(count: int) -> list[str]:
    """The ids the prompt gives the pairs: ``p1`` ... ``pN``."""
    return [f"p{index}" for index in range(1, count + 1)]


def render_pairs(pairs: Sequence[tuple[str, str]]) -> str:
    """One JSON object per line: ``{"pair": "p1", "A": ..., "B": ...}``."""
    return "\n".join(
        json.dumps({"pair": pair_id, "A": first, "B": second}, ensure_ascii=False)
        for pair_id, (first, second) in zip(pair_ids(len(pairs)), pairs, strict=True)
    )


def _normalise(value: Any) -> str:
    return as_text(value).strip().lower().replace("-", "_").replace(" ", "_")


def parse_verdicts(data: Any, pairs: Sequence[tuple[str, str]]) -> list[PairVerdict]:
    """The readable verdicts of a reply, in pair order (see the module doc for what is dropped)."""
    by_id = dict(zip(pair_ids(len(pairs)), pairs, strict=True))
    answers: dict[str, PairVerdict | None] = {}
    for item in dict_items(data.get("verdicts") if isinstance(data, dict) else None):
        pair_id = as_text(item.get("pair")).strip()
        if pair_id not in by_id:
            continue
        first, second = by_id[pair_id]
        verdict = _normalise(item.get("verdict"))
        side = as_text(item.get("specific")).strip().upper()
        if verdict not in VERDICTS or (verdict == "more_specific" and side not in ("A", "B")):
            parsed = None
        else:
            parsed = PairVerdict(
                first=first,
                second=second,
                verdict=verdict,  # type: ignore[arg-type]
                specific=(first if side == "A" else second) if verdict == "more_specific" else None,
                reason=as_text(item.get("reason")).strip(),
            )
        if pair_id in answers and answers[pair_id] != parsed:
            parsed = None  # two different answers for one pair: no verdict
        answers[pair_id] = parsed
    return [answer for pair_id in by_id if (answer := answers.get(pair_id)) is not None]


def judge_request(pairs: Sequence[tuple[str, str]]) -> RolePrompt:
    """The judge's request for ``pairs``, as it will be sent."""
    return role_prompt(
        role=ROLE,
        template="judge.txt",
        fields={"pairs": render_pairs(pairs)},
        max_tokens=reply_tokens(len(pairs)),
    )


@never_raises(ROLE, empty_judgement)
async def run_judge(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Judge each ``(A, B)`` pair of texts in one call; never raises."""
    if not pairs:
        return empty_judgement()
    data = await ask(judge_request(pairs), ROLE)
    return {"verdicts": parse_verdicts(data, pairs)}
