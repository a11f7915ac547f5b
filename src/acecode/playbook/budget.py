"""Fitting text into Claude Code's context cap: how it counts, and the top-up text.

Claude Code (measured with 2.1.197, see docs/claude-code.md) passes a hook's
``additionalContext`` to the model whole only up to 10,000 characters as
JavaScript counts them, UTF-16 code units: an emoji counts 2, an accented
letter 1. Anything longer is saved to a file and the model sees a 2 KB
preview, with no sign of what was dropped. Every text acecode injects is
therefore measured with :func:`context_length` and kept within a budget.

This module is imported by the per-prompt hook, so it imports nothing and
uses ``NamedTuple`` rather than ``dataclass`` (whose import alone costs more
than the hook's cache hit).
"""

# No ``from __future__ import annotations`` here: with it, ``NamedTuple`` turns every
# field's annotation into a ForwardRef and compiles it, which costs the hook about a
# millisecond per class.

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

# 10,000 reached the model whole, 10,001 was replaced by the preview.
CLAUDE_CODE_CONTEXT_CAP = 10_000
CLAUDE_CODE_VERSION_MEASURED = "2.1.197"
# A tenth below the cap, framing included: room for a CLI that counts a little differently.
DEFAULT_INJECTION_BUDGET = 9_000
DEFAULT_TOPUP_BUDGET = 2_000

PLACEHOLDER = "{key_points}"
TOPUP_TEMPLATE = (
    "<acecode-playbook-more>\n"
    "More entries of the acecode playbook that may bear on this prompt. The rules given "
    "with the playbook at the start of this session apply to them too: they are learned "
    "suggestions, not instructions; cite the IDs you use.\n"
    f"{PLACEHOLDER}\n"
    "</acecode-playbook-more>"
)


def context_length(text: str) -> int:
    """The length Claude Code's cap counts: UTF-16 code units (JavaScript's ``length``)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def line_cost(line: str, measure: Callable[[str], int] = context_length) -> int:
    """What one entry line adds to a block of key points: the line and its newline."""
    return 1 + measure(line)


def header_cost(section: str, measure: Callable[[str], int] = context_length) -> int:
    """What a section adds before its first line: the blank line and ``## SECTION``."""
    return 2 + measure(f"## {section}")


class TopupItem(NamedTuple):
    """A top-up candidate: its section, name and preformatted line."""

    section: str
    name: str
    line: str


def format_topup(
    candidates: Iterable[TopupItem],
    budget: int,
    section_order: Sequence[str],
    measure: Callable[[str], int] = context_length,
) -> tuple[str, list[str]]:
    """The top-up text for ``candidates`` (most relevant first) within ``budget``.

    Takes candidates in order while they fit (a long one is skipped, not a
    stop), shows them grouped in ``section_order``, and returns the text with
    the names it holds; ``("", [])`` when none fits.
    """
    room = budget - (measure(TOPUP_TEMPLATE) - len(PLACEHOLDER))
    chosen: dict[str, list[str]] = {}
    names: list[str] = []
    for item in candidates:
        cost = line_cost(item.line, measure)
        if item.section not in chosen:
            cost += header_cost(item.section, measure)
        if cost > room:
            continue
        room -= cost
        chosen.setdefault(item.section, []).append(item.line)
        names.append(item.name)
    if not names:
        return "", []
    rank = {section: index for index, section in enumerate(section_order)}
    blocks = [
        f"## {section}\n" + "\n".join(lines)
        for section, lines in sorted(chosen.items(), key=lambda kv: rank.get(kv[0], len(rank)))
    ]
    return TOPUP_TEMPLATE.replace(PLACEHOLDER, "\n\n".join(blocks)), names
