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


_SECTION_SHARES = (
    ("PATTERNS & APPROACHES", 0.35),
    ("MISTAKES TO AVOID", 0.25),
    ("USER PREFERENCES", 0.15),
    ("PROJECT CONTEXT", 0.15),
    ("OTHERS", 0.10),
)
_MODULES = ("billing", "auth", "search", "ledger", "mailer", "gateway", "catalog", "reports")
_FILES = ("models.py", "views.py", "tasks.py", "schema.sql", "config.toml", "client.ts", "api.go")
_ERRORS = (
    "ModuleNotFoundError",
    "a stale lock file",
    "a flaky timeout",
    "an unpinned transitive dependency",
    "a missing migration",
    "a timezone-naive datetime",
    "an N+1 query",
    "a race on the shared cache",
)
_LIKES = (
    "small commits with imperative messages",
    "type hints on every public function",
    "pytest over unittest",
    "explicit error messages that name the file",
    "no new dependencies without asking",
    "British spelling in user-facing text",
    "tabs converted to four spaces",
    "a short plan before large refactors",
)


def _mistake(rng: random.Random) -> str:
    return (
        f"Do not ignore {rng.choice(_ERRORS)} in the {rng.choice(_MODULES)} module "
        f"{rng.choice(_WHEN)}, {rng.choice(_WHY)}"
    )


def _preference(rng: random.Random) -> str:
    return f"The user wants {rng.choice(_LIKES)} {rng.choice(_WHEN)}, {rng.choice(_WHY)}"


def _context(rng: random.Random) -> str:
    module, name = rng.choice(_MODULES), rng.choice(_FILES)
    return (
        f"The {module} code lives in src/{module}/{name}; {rng.choice(_ACTIONS).lower()} "
        f"{rng.choice(_SUBJECTS)} there {rng.choice(_WHEN)}."
    )


def _other(rng: random.Random) -> str:
    subject, module = rng.choice(_SUBJECTS), rng.choice(_MODULES)
    return f"Keep notes on {subject} for the {module} team {rng.choice(_WHY)}"


def playbook_sections(n: int, seed: int = 0) -> dict[str, list[dict[str, object]]]:
    """A playbook's sections with ``n`` distinct entries spread like a grown playbook
    (most in PATTERNS and MISTAKES), varied texts per section, some with counters."""
    rng = random.Random(seed)
    makers = {
        "MISTAKES TO AVOID": _mistake,
        "USER PREFERENCES": _preference,
        "PROJECT CONTEXT": _context,
        "OTHERS": _other,
    }
    slugs = {"PATTERNS & APPROACHES": "pat", "MISTAKES TO AVOID": "mis", "USER PREFERENCES": "pref"}
    slugs |= {"PROJECT CONTEXT": "ctx", "OTHERS": "oth"}
    tips = iter(coding_tips(n, seed))
    seen: set[str] = set()
    sections: dict[str, list[dict[str, object]]] = {}
    remaining = n
    for index, (section, share) in enumerate(_SECTION_SHARES):
        count = remaining if index == len(_SECTION_SHARES) - 1 else round(n * share)
        remaining -= count
        entries: list[dict[str, object]] = []
        while len(entries) < count:
            maker = makers.get(section)
            text = next(tips) if maker is None else maker(rng)
            if text in seen:
                text = f"{text} (case {len(seen)})"
            seen.add(text)
            helpful = rng.choice((0, 0, 0, 1, 2, 5))
            entries.append(
                {
                    "name": f"{slugs[section]}-{len(entries) + 1:03d}",
                    "text": text,
                    "helpful": helpful,
                    "harmful": rng.choice((0, 0, 0, 0, 1)),
                }
            )
        sections[section] = entries
    return sections
