"""Deterministic corpus of coding-tip texts shared by the benchmarks.

Benchmarks need many distinct, realistic playbook entries without shipping a
data file or calling an LLM, so texts are composed from small vocabularies with
a seeded generator: the same ``n`` always yields the same texts.
"""

from __future__ import annotations

import random

_ACTIONS = (
    "Run",
    "Check",
    "Prefer",
    "Avoid",
    "Document",
    "Validate",
    "Cache",
    "Log",
    "Review",
    "Pin",
    "Mock",
    "Profile",
)
_SUBJECTS = (
    "the database migrations",
    "the HTTP client timeouts",
    "the pytest fixtures",
    "the Docker build cache",
    "the environment variables",
    "the async task queue",
    "the CLI argument parser",
    "the JSON schema",
    "the git pre-commit hooks",
    "the TypeScript build",
    "the React component props",
    "the SQL indexes",
    "the retry policy",
    "the log rotation",
    "the feature flags",
    "the API pagination",
    "the Terraform state",
    "the CI workflow matrix",
    "the Rust borrow checker errors",
    "the Go module versions",
)
_WHEN = (
    "before every commit",
    "when a test fails only in CI",
    "after upgrading a dependency",
    "before opening a pull request",
    "when the user reports a slow endpoint",
    "whenever a file is renamed",
    "before touching production configuration",
    "when adding a new endpoint",
)
_WHY = (
    "because silent failures are hard to trace later.",
    "so that reviewers can reproduce the change.",
    "since the project has no staging environment.",
    "to keep the feedback loop under a minute.",
    "because the user asked for explicit confirmation.",
    "as flaky behaviour usually starts there.",
)


def coding_tips(n: int, seed: int = 0) -> list[str]:
    """Return ``n`` distinct coding-tip sentences, the same ones for the same seed."""
    rng = random.Random(seed)
    seen: set[str] = set()
    tips: list[str] = []
    while len(tips) < n:
        text = (
            f"{rng.choice(_ACTIONS)} {rng.choice(_SUBJECTS)} {rng.choice(_WHEN)} {rng.choice(_WHY)}"
        )
        if len(seen) >= 11_000:  # vocabulary exhausted: number the rest
            text = f"{text} (variant {len(tips)})"
        if text not in seen:
            seen.add(text)
            tips.append(text)
    return tips
