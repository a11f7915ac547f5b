"""Inputs built to trip a backtracking regex or a quadratic scan, as functions of a size.

The tests check that the parsers give the right answer on them; how their cost
grows with the size is measured by ``bench/worst_case_bench.py``, not by a timed
test (CPU-time ratios still swing on a busy machine).
"""

from __future__ import annotations

from collections.abc import Callable


def redact_adversarial(scale: int) -> str:
    """Secret-shaped text that would make a backtracking pattern explode, ``scale`` times over."""
    return "".join(
        [
            "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 12_500 * scale,
            "password=" * 3_125 * scale,
            "token " + "a1" * 6_250 * scale,
            "://" * 6_250 * scale,
            "-----END RSA PRIVATE KEY-----" * 125 * scale,
            ("x" * 60 + "\n") * 320 * scale + "-----END PRIVATE KEY-----",
            "eyJ" + "a" * 6_250 * scale + ".",
            # The command-line and prose shapes: their triggers, over and over.
            "--password " * 1_250 * scale,
            ("mysql " + "x" * 150 + " ") * 80 * scale,
            ("curl " + "a" * 250 + " -u ") * 50 * scale,
            "machine a login b " * 700 * scale,
            "auth=('" * 2_000 * scale,
            "password is " * 1_000 * scale,
            "PG" * 6_000 * scale + "PASSWORD=",
        ]
    )


# Replies an LLM could send that a naive JSON extractor scans quadratically, for a size n.
JSON_WORST_CASES: dict[str, Callable[[int], str]] = {
    "unbalanced open braces": lambda n: "{" * n,
    "close braces": lambda n: "}" * n,
    "open braces each opening a string": lambda n: '{"' * (n // 2),
    "open json fence then braces": lambda n: "```json\n" + "{" * n,
    "bare fence openers": lambda n: "```\n" * (n // 2),
    "json fence openers": lambda n: "```json\n" * (n // 3),
    "quote-brace pairs": lambda n: '"{' * (n // 2),
    "deep object nesting": lambda n: '{"a":' * (n // 2) + "1" + "}" * (n // 2),
    "deep array nesting": lambda n: "[" * n + "]" * n,
    "backslashes in an open string": lambda n: '{"' + "\\" * n,
    "brace-space-letter": lambda n: "{ x " * (n // 4),
    "fences with a brace each": lambda n: "```x\n{```" * (n // 5),
    "tiny invalid objects": lambda n: "{a}" * (n // 2),
}
