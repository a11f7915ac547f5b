"""Playbook builders shared by the consolidation tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from acecode.playbook.schema import SECTION_SLUGS, empty_playbook
from support.playbooks import entry

Builder = Callable[..., dict[str, Any]]


@pytest.fixture
def make_playbook() -> Builder:
    """``make_playbook(n)``: ``n`` distinct entries spread over the sections, in order.

    Entry ``i`` has text ``"tip <i>: ..."`` of about 60 characters and the
    counters given by ``counters(i)`` (default 0/0).
    """

    def build(
        count: int, counters: Callable[[int], tuple[int, int]] = lambda i: (0, 0)
    ) -> dict[str, Any]:
        playbook = empty_playbook()
        sections = list(SECTION_SLUGS.items())
        numbers = dict.fromkeys(SECTION_SLUGS, 0)
        for i in range(count):
            section, slug = sections[i % len(sections)]
            numbers[section] += 1
            helpful, harmful = counters(i)
            text = f"tip {i}: run the focused test file before the whole suite to save time"
            playbook["sections"][section].append(
                entry(f"{slug}-{numbers[section]:03d}", text, helpful, harmful)
            )
        return playbook

    return build
