"""What a cycle can cost at most, computed before any LLM call.

The budget gate admits a cycle only if this estimate fits, so it is built as
an upper bound, role by role, from what is known before the first call:

* input: the reflector's prompt exactly as it will be sent (condensed
  transcript, playbook view, template), and for the later calls their
  templates, the playbook view and the largest reply the earlier call may
  give; counted at 3 UTF-8 bytes per token, which over-counts English and
  code (about 4 bytes per token) and CJK text (3 bytes per character, about
  one token each);
* output: each call's ``max_tokens``, which the Anthropic and OpenAI APIs
  never exceed; the safety review and the judge are counted even though a
  cycle calls them only when there is something to review or judge.

Where it can still be wrong (docs: README "Cost"): text that tokenizes
denser than 3 bytes per token (long base64 or hex runs the redaction left
alone); a failed attempt that the provider billed (a timeout after the
answer was generated) before a retry; the ``claude`` provider, which gets no
``max_tokens`` (Claude Code picks its own output limit) and adds its own
framing (measured at 1.23x the prompt, counted here as 1.3x); and a price
table older than a price change.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from acecode.config import Settings
from acecode.cost.pricing import price_for
from acecode.llm.base import DEFAULT_MAX_TOKENS

BYTES_PER_TOKEN = 3
# A reply quoted into the next prompt is re-serialised (indented JSON, escapes).
REQUOTE_FACTOR = 1.5
# `claude -p` frames the prompt with its own system text (bench/claude_provider_bench.py).
CLAUDE_FRAMING_FACTOR = 1.3
# JSON around one judged pair: {"pair": "12", "A": "...", "B": "..."} and a newline.
PAIR_OVERHEAD_BYTES = 40


# The short lists (possibly stale, retire candidates): at most MAX_LISTED lines of an
# entry name and a short note each; their entries are part of the view's budget.
LISTED_BOUND = "x" * (10 * 300)
# estimate_tokens counts 4 ASCII characters, or 1 other character (at most 4 UTF-8
# bytes), per token: a view within B of its tokens is within 4 * B bytes.
BYTES_PER_VIEW_TOKEN = 4
# Section headers a view may add (five sections, "## NAME" and blank lines).
HEADERS_BYTES = 5 * 60


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
    """Upper bounds of one role's call."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class CycleEstimate:
    """Upper bounds of a cycle's tokens and cost (``usd`` None: the model's price is unknown)."""

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
                name: {"input_tokens": role.input_tokens, "output_tokens": role.output_tokens}
                for name, role in self.roles.items()
            },
        }


def _prompt(template: str, **fields: str) -> str:
    from acecode.roles.ask import SYSTEM_PROMPT
    from acecode.roles.prompt import fill_template
    from acecode.templates import load_template

    return SYSTEM_PROMPT + fill_template(load_template(template), **fields)


def _longest_text_bytes(playbook: dict[str, Any], settings: Settings) -> int:
    """The longest text a judged pair can hold: an entry's, or a new text's. A new text
    reaches the judge only after the quarantine screen, which holds texts over
    ``max_rule_chars`` and (by default) texts not in English, so it is counted at one
    byte per character."""
    longest = settings.max_rule_chars
    for entries in playbook.get("sections", {}).values():
        for entry in entries:
            longest = max(longest, len(str(entry.get("text", "")).encode("utf-8")))
    return longest


def role_bounds(
    messages: Any,
    playbook: dict[str, Any],
    cited_ids: Sequence[str],
    conflicts: Sequence[Any],
    settings: Settings,
    agent: Any = None,
) -> dict[str, RoleEstimate]:
    """Each role's worst case for this cycle (see the module docstring).

    The reflector and the curator are shown views cut from the playbook within their
    token budgets, plus the entries they are always shown (cited, tagged, in a
    conflict); the whole playbook bounds each too. The curator's view depends on the
    reflection, unknown before the first call: what the reflector may tag is bounded by
    what it was shown.
    """
    from acecode.roles.curator import render_conflicts
    from acecode.roles.judge import MIN_REPLY_TOKENS, TOKENS_PER_PAIR
    from acecode.roles.prompt import render_playbook, render_transcript
    from acecode.roles.reflector import reflector_mode

    whole = render_playbook(playbook)
    cited = list(dict.fromkeys(str(name) for name in cited_ids))
    reflector_bound = _view_bound(playbook, whole, settings.reflector_budget_tokens, cited)
    reflector_in = bound_tokens(
        _prompt(
            "reflector.txt",
            transcript=render_transcript(messages, agent),
            playbook="",
            cited_ids=", ".join(cited) if cited else "(none)",
            mode=reflector_mode(cited),
        )
    ) + math.ceil(reflector_bound / BYTES_PER_TOKEN)
    # The curator's view holds what the reflector tagged (bounded by what it was shown),
    # the cited entries and the conflicts' entries, then fills its own budget.
    named = [*cited, *(name for c in conflicts for name in (c.first_name, c.second_name))]
    curator_bound = min(
        len(whole.encode("utf-8")),
        reflector_bound + _view_bound(playbook, whole, settings.curator_budget_tokens, named),
    )
    requoted = math.ceil(DEFAULT_MAX_TOKENS * REQUOTE_FACTOR)
    curator_in = (
        requoted
        + bound_tokens(
            _prompt(
                "curator.txt",
                reflector_output="",
                playbook="",
                possibly_stale=LISTED_BOUND,
                retire_candidates=LISTED_BOUND,
                conflicts=render_conflicts(conflicts),
            )
        )
        + math.ceil(curator_bound / BYTES_PER_TOKEN)
    )
    roles = {
        "reflector": RoleEstimate(reflector_in, DEFAULT_MAX_TOKENS),
        "curator": RoleEstimate(curator_in, DEFAULT_MAX_TOKENS),
        "safety_review": RoleEstimate(
            requoted + bound_tokens(_prompt("safety_review.txt", texts="")), DEFAULT_MAX_TOKENS
        ),
    }
    pairs = settings.judge_max_pairs
    if pairs > 0:
        pair_bytes = 2 * _longest_text_bytes(playbook, settings) + PAIR_OVERHEAD_BYTES
        roles["judge"] = RoleEstimate(
            bound_tokens(_prompt("judge.txt", pairs="")) + math.ceil(pairs * pair_bytes / 3),
            max(MIN_REPLY_TOKENS, TOKENS_PER_PAIR * pairs),
        )
    return roles


def estimate_cycle(
    messages: Any,
    playbook: dict[str, Any],
    cited_ids: Sequence[str],
    conflicts: Sequence[Any],
    settings: Settings,
    *,
    provider: str | None,
    model: str | None,
    agent: Any = None,
) -> CycleEstimate:
    """The cycle's upper bounds, priced for ``model`` when the price table knows it."""
    roles = role_bounds(messages, playbook, cited_ids, conflicts, settings, agent)
    if provider == "claude":
        roles = {
            name: RoleEstimate(
                math.ceil(role.input_tokens * CLAUDE_FRAMING_FACTOR), role.output_tokens
            )
            for name, role in roles.items()
        }
    price = price_for(model)
    usd = (
        None
        if price is None
        else sum(price.cost(role.input_tokens, role.output_tokens) for role in roles.values())
    )
    return CycleEstimate(model=model, roles=roles, usd=usd)
