"""How many examples each fuzz property ran, for the summary at the end of the session.

Hypothesis does not report per-test example counts in the pytest output, and
the issue asks for them; each property calls ``ran(name)`` once per example.
"""

from __future__ import annotations

from collections import Counter

EXAMPLES: Counter[str] = Counter()


def ran(name: str) -> None:
    """Count one example of the property ``name``."""
    EXAMPLES[name] += 1
