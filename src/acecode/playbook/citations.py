"""Citations of playbook entries in the agent's replies.

The injected playbook asks the agent to cite the entries it used as
``[pat-001]``; the reflector then evaluates exactly those entries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

CITATION_PATTERN = re.compile(r"\[((?:pat|mis|pref|ctx|oth)-\d+|kpt_\d+)\]")


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block.get("text", "")
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        )
    return ""


def extract_cited_ids(messages: Iterable[dict[str, Any]]) -> list[str]:
    """IDs cited in assistant messages, de-duplicated, in order of first citation."""
    seen: dict[str, None] = {}
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for match in CITATION_PATTERN.finditer(_message_text(message.get("content"))):
            seen.setdefault(match.group(1), None)
    return list(seen)
