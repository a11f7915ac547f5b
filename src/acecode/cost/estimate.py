"""What a cycle can cost at most, computed before any LLM call, and what one call can.

The budget admits a cycle only if this estimate fits, and the cycle then draws
every call on it (:mod:`acecode.cost.gate`): nothing is asked of the budget
after the first call, so an admitted cycle always finishes. So the estimate is
built as an upper bound of everything the cycle may send, role by role, from what
is known before the first call:

* the reflector: its request exactly as it will be sent (condensed transcript,
  playbook view, template), built once and sent as built;
* the curator: its template filled with what is already known (the lists of
  possibly stale entries and retire candidates, the open conflicts, the
  repository), plus the largest reflection the reflector's ``max_tokens``
  allows, re-serialised (:data:`REQUOTE_FACTOR`), plus the largest view of the
  playbook its budget allows and the digest of the project's instructions as read
  at admission;
* the safety review: once per layer the cycle may write (the project's and the
  user's), its template plus the texts the curator may propose: at most its
  ``max_tokens`` of them in all (they come from its reply), re-serialised, and one
  verdict for each of at most ten;
* the judge: once per layer, its template plus :data:`PLANNED_PAIRS` pairs of
  texts of the longest length the quarantine lets through (``max_rule_chars``).
  The judge is sized to what the cycle holds when its pairs are known
  (:func:`acecode.cost.gate.fits`): the planned pairs, and more when the calls
  before it cost less than their bounds, as they almost always do;
* every call's output at its role's ``max_tokens``, which the Anthropic and
  OpenAI APIs never exceed (a reply cut there is not asked again: the roles keep
  what it holds whole); a prompt's fixed head priced as a cache write (the
  first call that sends it writes it, at 1.25x the input price for 5 minutes,
  2x for an hour).

Prompts are counted at 3 UTF-8 bytes per token, which over-counts English and
code (about 4 bytes per token) and CJK text (3 bytes per character, about one
token each).

Where it can still be wrong (docs: README "Cost"): text that tokenizes
denser than 3 bytes per token (long base64 or hex runs the redaction left
alone); a failed attempt that the provider billed (a timeout after the
answer was generated) before a retry; the ``claude`` provider, which gets no
``max_tokens`` (Claude Code picks its own output limit) and adds its own
framing (measured at 1.23x the prompt, counted here as 1.3x); and a price
table older than a price change. A call that would not fit in what the cycle
holds asks the budget for more first (:func:`acecode.cost.budget.extend`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from acecode.cost.pricing import Price, price_for
from acecode.llm.base import CACHE_1H
from acecode.project.config import Settings

if TYPE_CHECKING:
    from acecode.pipeline.curator_lists import CuratorLists
    from acecode.roles.prompt import RolePrompt

BYTES_PER_TOKEN = 3
# A reply quoted into the next prompt is re-serialised (JSON keys and escapes).
REQUOTE_FACTOR = 1.5
# `claude -p` frames the prompt with its own system text (bench/claude_provider_bench.py).
CLAUDE_FRAMING_FACTOR = 1.3
# JSON around one reviewed text: {"id": 10, "text": "..."} with its indentation.
TEXT_OVERHEAD_BYTES = 40
# JSON around one judged pair: {"pair": "p10", "A": "...", "B": "..."}.
PAIR_OVERHEAD_BYTES = 48
# Pairs the judge is planned for up front (of the longest texts: several of the usual
# length); more when the cycle's calls left room.
PLANNED_PAIRS = 1
# The providers that send acecode's prompt-cache marker (and so may bill a cache write).
CACHE_MARKING_PROVIDERS = frozenset({"anthropic"})


# estimate_tokens counts 4 ASCII characters, or 1 other character (at most 4 UTF-8
# bytes), per token: a view within B of its tokens is within 4 * B bytes.
BYTES_PER_VIEW_TOKEN = 4
# Section headers a view may add (five sections, "## NAME" and blank lines), and the
# line saying what the view left out.
HEADERS_BYTES = 5 * 60 + 400


def _view_bound(
    playbook: dict[str, Any], whole: str, budget_tokens: int, always: Sequence[str]
) -> int:
    """Bytes a bounded view (``acecode.playbook.curator_view.build_view``) can take: the
    whole playbook when it fits, else its budget plus the entries it shows whatever
    the budget (``always``)."""
    from acecode.playbook.formatting import format_entry
    from acecode.playbook.schema import iter_entries

    wanted = set(always)
    forced = sum(
        len(format_entry(dict(entry)).encode("utf-8")) + 1
        for _, entry in iter_entries(playbook)
        if entry.get("name") in wanted
    )
    bounded = BYTES_PER_VIEW_TOKEN * max(budget_tokens, 0) + forced + HEADERS_BYTES
    return min(len(whole.encode("utf-8")), bounded)


def bound_tokens(text: str) -> int:
    """An over-count of ``text``'s tokens: its UTF-8 bytes / 3."""
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


@dataclass(frozen=True)
class RoleEstimate:
    """Upper bounds of one role's call: input tokens (of which ``cacheable_tokens`` are
    its fixed head, billed as a cache write at worst), output tokens, and the model it
    runs on (None: the provider's)."""

    input_tokens: int
    output_tokens: int
    cacheable_tokens: int = 0
    model: str | None = None

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class CycleEstimate:
    """Upper bounds of a cycle's tokens and cost (``usd`` None: a model's price is unknown)."""

    model: str | None
    roles: dict[str, RoleEstimate] = field(default_factory=dict)
    usd: float | None = None

    @property
    def tokens(self) -> int:
        return sum(role.input_tokens + role.output_tokens for role in self.roles.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "usd": self.usd,
            "tokens": self.tokens,
            "by_role": {
                name: {
                    "input_tokens": role.input_tokens,
                    "output_tokens": role.output_tokens,
                    "cacheable_tokens": role.cacheable_tokens,
                    "model": role.model,
                }
                for name, role in self.roles.items()
            },
        }


def request_bound(
    system: str,
    prompt: str,
    cacheable_chars: int,
    max_tokens: int,
    *,
    provider: str | None,
    model: str | None = None,
) -> RoleEstimate:
    """The bounds of one request as it will be sent."""
    framing = CLAUDE_FRAMING_FACTOR if provider == "claude" else 1.0
    cacheable = bound_tokens(system + prompt[:cacheable_chars]) if cacheable_chars > 0 else 0
    return RoleEstimate(
        input_tokens=math.ceil(bound_tokens(system + prompt) * framing),
        output_tokens=max_tokens,
        cacheable_tokens=cacheable if provider in CACHE_MARKING_PROVIDERS else 0,
        model=model,
    )


def role_cost(role: RoleEstimate, price: Price, cache_ttl: str | None) -> float:
    """USD of a call at its bounds: its fixed head written to the cache when a marker is
    sent (``cache_ttl``), at that lifetime's price, unless even its bound is shorter
    than the shortest prefix the model caches (then the real head is too: no write)."""
    shortest = price.cache_min_tokens or 0
    cacheable = role.cacheable_tokens if role.cacheable_tokens >= shortest else 0
    written = cacheable if cache_ttl else 0
    hour = written if cache_ttl == CACHE_1H else 0
    return price.cost(role.input_tokens, role.output_tokens, 0, written, hour)


def _prompt_bound(request: RolePrompt, provider: str | None, extra_bytes: int = 0) -> RoleEstimate:
    """A role's bounds from its request filled with what is known, plus ``extra_bytes`` of
    what is not known yet (a reply of an earlier call, a playbook view)."""
    known = request_bound(
        request.system,
        request.prompt,
        request.cacheable_chars,
        request.max_tokens,
        provider=provider,
        model=request.model,
    )
    framing = CLAUDE_FRAMING_FACTOR if provider == "claude" else 1.0
    extra = math.ceil(math.ceil(extra_bytes / BYTES_PER_TOKEN) * framing)
    return RoleEstimate(
        known.input_tokens + extra, known.output_tokens, known.cacheable_tokens, known.model
    )


def _listed_bound(items: Sequence[Any]) -> str:
    """The short list as the view renders it at its longest: its MAX_LISTED longest lines."""
    from acecode.playbook.curator_view import MAX_LISTED, render_listed

    longest = sorted(items, key=lambda item: -len(f"{item.name}{item.note}"))[:MAX_LISTED]
    return render_listed(longest)


def role_bounds(
    reflector: RolePrompt,
    playbook: dict[str, Any],
    cited_ids: Sequence[str],
    conflicts: Sequence[Any],
    lists: CuratorLists,
    settings: Settings,
    provider: str | None = None,
    layers: int = 1,
    digest: str | None = None,
) -> dict[str, RoleEstimate]:
    """Each role's worst case for this cycle (see the module docstring); ``layers`` is how
    many layers it may write (2 when the user layer may get rules too), ``digest`` the
    digest of the project's instructions the curator will be shown (None: not read yet,
    its longest is counted).

    The curator is shown a view cut from the playbook within its token budget, plus
    the entries it is always shown (tagged, cited, in a conflict); what the reflector
    may tag is bounded by what it was shown, itself bounded by its own budget.
    """
    from acecode.habits.notes import NOTES_BOUND_BYTES
    from acecode.instructions.digest import digest_bound
    from acecode.project.repository import repository_line
    from acecode.roles.ask import role_prompt
    from acecode.roles.curator import (
        MAX_OPERATIONS,
        curator_fields,
        default_max_removals,
        render_conflicts,
    )
    from acecode.roles.curator import MAX_TOKENS as CURATOR_MAX_TOKENS
    from acecode.roles.judge import reply_tokens as judge_reply_tokens
    from acecode.roles.prompt import render_playbook
    from acecode.roles.safety_review import MIN_REPLY_TOKENS
    from acecode.roles.safety_review import reply_tokens as review_reply_tokens

    whole = render_playbook(playbook)
    cited = list(dict.fromkeys(str(name) for name in cited_ids))
    reflector_view = _view_bound(playbook, whole, settings.reflector_budget_tokens, cited)
    named = [*cited, *(name for c in conflicts for name in (c.first_name, c.second_name))]
    curator_view = min(
        len(whole.encode("utf-8")),
        reflector_view + _view_bound(playbook, whole, settings.curator_budget_tokens, named),
    )
    reflection = math.ceil(reflector.max_tokens * REQUOTE_FACTOR) * BYTES_PER_TOKEN
    # The digest the curator will be shown, as read at admission; else its longest.
    unknown_digest = 0 if digest is not None else digest_bound(settings.instructions_budget_tokens)
    curator = role_prompt(
        role="curator",
        template="curator.txt",
        fields=curator_fields(
            "",
            "",
            _listed_bound(lists.stale),
            _listed_bound(lists.retire),
            render_conflicts(conflicts),
            repository_line(),
            default_max_removals(playbook) if lists.max_removals is None else lists.max_removals,
            instructions=digest or "",
        ),
        max_tokens=CURATOR_MAX_TOKENS,
    )
    # The texts come from the curator's reply: at most its max_tokens in all (a real
    # token may hold more than 3 bytes: REQUOTE_FACTOR), and the JSON around each of ten.
    texts = (
        math.ceil(CURATOR_MAX_TOKENS * REQUOTE_FACTOR) * BYTES_PER_TOKEN
        + MAX_OPERATIONS * TEXT_OVERHEAD_BYTES
    )
    review = _per_layer(
        role_prompt(role="safety_review", template="safety_review.txt", fields={"texts": ""}),
        layers,
        provider,
        extra_bytes=texts,
        output=review_reply_tokens(MAX_OPERATIONS) + (layers - 1) * MIN_REPLY_TOKENS,
    )
    pairs = PLANNED_PAIRS * (2 * settings.max_rule_chars + PAIR_OVERHEAD_BYTES)
    judge = _per_layer(
        role_prompt(role="judge", template="judge.txt", fields={"pairs": ""}),
        layers,
        provider,
        extra_bytes=pairs,
        output=judge_reply_tokens(PLANNED_PAIRS) + (layers - 1) * judge_reply_tokens(0),
    )
    return {
        "reflector": _prompt_bound(reflector, provider),
        "curator": _prompt_bound(
            curator, provider, reflection + curator_view + unknown_digest + NOTES_BOUND_BYTES
        ),
        "safety_review": review,
        "judge": judge,
    }


def _per_layer(
    template: RolePrompt, layers: int, provider: str | None, *, extra_bytes: int, output: int
) -> RoleEstimate:
    """A role called once per layer: its template ``layers`` times, ``extra_bytes`` of data
    spread over the calls, ``output`` tokens in all; the fixed head written once."""
    one = _prompt_bound(template, provider)
    data = _prompt_bound(template, provider, extra_bytes).input_tokens - one.input_tokens
    return RoleEstimate(one.input_tokens * layers + data, output, one.cacheable_tokens, one.model)


def price_roles(
    roles: dict[str, RoleEstimate], model: str | None, cache_ttl: str | None
) -> float | None:
    """USD of ``roles`` at their bounds, each at its model's price (None: one is unknown)."""
    total = 0.0
    for role in roles.values():
        price = price_for(role.model or model)
        if price is None:
            return None
        total += role_cost(role, price, cache_ttl)
    return total


def estimate_cycle(
    reflector: RolePrompt,
    playbook: dict[str, Any],
    cited_ids: Sequence[str],
    conflicts: Sequence[Any],
    lists: CuratorLists,
    settings: Settings,
    *,
    provider: str | None,
    model: str | None,
    cache_ttl: str | None = None,
    layers: int = 1,
    digest: str | None = None,
) -> CycleEstimate:
    """The cycle's upper bounds, priced for each role's model when the table knows it."""
    roles = role_bounds(
        reflector, playbook, cited_ids, conflicts, lists, settings, provider, layers, digest
    )
    return CycleEstimate(model=model, roles=roles, usd=price_roles(roles, model, cache_ttl))
