"""How long real models' replies to acecode's prompts are, role by role, against the bounds.

Run from the repository root::

    python bench/reply_lengths.py                 # every run committed under bench/relay/
    python bench/reply_lengths.py bench/relay/X   # some runs only

Each relayed run (``bench/relay/<run>/``, README there) holds what acecode sent
(``req-NNNN.json``) and what a real model, blind to any expected answer, wrote
back (``resp-NNNN.txt``), in full: the relay cuts what it returns to acecode at
the request's ``max_tokens``, not the file. For every reply: its role (from the
prompt's first line), its length in tokens as the relay counts them
(characters / 4), how many items it holds (findings and tags, operations,
verdicts) and how many the request asked about (texts, pairs). Printed per role:
replies, median / 90th percentile / longest reply, longest item, and how many
replies today's bound (``acecode.roles``) cuts, at the relay's count and at a
count 25 % higher (a real tokenizer counts code and paths denser than 4
characters a token). A run of the shared sessions' held-out third
(``bench/relay_split.py``; a folder named ``*held-out*``) is reported apart:
its first run says whether bounds set on the rest hold.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from acecode.llm.jsonx import extract_json, salvage_json  # noqa: E402
from acecode.prompts.templates import load_template  # noqa: E402
from acecode.roles import curator, judge, reflector, safety_review  # noqa: E402
from acecode.roles.prompt import fill_template, split_template  # noqa: E402

# A real tokenizer's count against the relay's 4 characters a token, for the margin column.
DENSER = 1.25
ROLES = ("reflector", "curator", "safety_review", "judge")
_OPENINGS = {
    "You are the reflector": "reflector",
    "You are the curator": "curator",
    "You are the safety reviewer": "safety_review",
    "You are the judge": "judge",
}
_TEMPLATES = {
    "reflector": "reflector.txt",
    "curator": "curator.txt",
    "safety_review": "safety_review.txt",
    "judge": "judge.txt",
}


def _today(role: str, prompt: str) -> bool:
    """Whether ``prompt`` was made from today's template (its fixed head, unchanged)."""
    head = fill_template(split_template(load_template(_TEMPLATES[role]))[0])
    return prompt.startswith(head)


@dataclass(frozen=True)
class Reply:
    run: str
    role: str
    current: bool  # asked with today's prompt (its fixed head as today's template has it)
    tokens: int
    items: int  # findings + tags, operations, verdicts
    asked: int  # texts or pairs in the request (0: not per item)
    longest_item: int  # tokens of its longest item

    def bound(self) -> int:
        """Today's ``max_tokens`` for this request."""
        if self.role == "reflector":
            return reflector.MAX_TOKENS
        if self.role == "curator":
            return curator.MAX_TOKENS
        if self.role == "safety_review":
            return safety_review.reply_tokens(self.asked)
        return judge.reply_tokens(self.asked)


def _prompt(request: dict[str, Any]) -> str:
    content = request["messages"][0]["content"]
    if isinstance(content, list):
        return "".join(str(block.get("text", "")) for block in content)
    return str(content)


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _items(role: str, data: dict[str, Any]) -> list[Any]:
    if role == "reflector":
        return [*(data.get("findings") or []), *(data.get("tags") or [])] or (
            [data.get("analysis")] if data.get("analysis") else []
        )
    if role == "curator":
        return list(data.get("operations") or [])
    return list(data.get("verdicts") or [])


def read_run(folder: Path) -> list[Reply]:
    """The replies of one relayed run."""
    replies = []
    for request_file in sorted(folder.glob("req-*.json")):
        reply_file = request_file.with_name(request_file.name.replace("req-", "resp-"))
        reply_file = reply_file.with_suffix(".txt")
        if not reply_file.exists():
            continue
        request = json.loads(request_file.read_text(encoding="utf-8"))
        prompt = _prompt(request)
        role = next((r for opening, r in _OPENINGS.items() if prompt.startswith(opening)), None)
        if role is None:
            continue
        text = reply_file.read_text(encoding="utf-8")
        data = extract_json(text) or salvage_json(text) or {}
        items = _items(role, data)
        asked = 0
        if role == "safety_review":
            asked = len(re.findall(r'^\{"id": \d+', prompt, re.M))
        elif role == "judge":
            asked = len(re.findall(r'^\{"pair": "p\d+"', prompt, re.M))
        longest = max((_tokens(json.dumps(item, ensure_ascii=False)) for item in items), default=0)
        run = _name(folder)
        current = _today(role, prompt)
        replies.append(Reply(run, role, current, _tokens(text), len(items), asked, longest))
    return replies


def runs(paths: Iterable[Path]) -> list[Path]:
    """Every folder holding relayed requests under ``paths``."""
    found = set()
    for path in paths:
        found |= {request.parent for request in path.rglob("req-*.json")}
    return sorted(found)


def _percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def table(replies: list[Reply]) -> list[str]:
    head = (
        f"{'role':14} {'replies':>7} {'median':>6} {'p90':>5} {'longest':>7} "
        f"{'items max':>9} {'longest item':>12} {'bound':>11} {'cut':>7} {'cut at 1.25x':>12}"
    )
    lines = [head]
    for role in ROLES:
        mine = [reply for reply in replies if reply.role == role]
        if not mine:
            continue
        tokens = [reply.tokens for reply in mine]
        bounds = sorted({reply.bound() for reply in mine})
        shown = str(bounds[0]) if len(bounds) == 1 else f"{bounds[0]}-{bounds[-1]}"
        cut = sum(reply.tokens > reply.bound() for reply in mine)
        denser = sum(reply.tokens * DENSER > reply.bound() for reply in mine)
        lines.append(
            f"{role:14} {len(mine):>7} {statistics.median(tokens):>6.0f} "
            f"{_percentile(tokens, 0.9):>5} {max(tokens):>7} "
            f"{max(reply.items for reply in mine):>9} {max(r.longest_item for r in mine):>12} "
            f"{shown:>11} {cut:>3} {cut / len(mine):>3.0%} {denser:>5} {denser / len(mine):>5.0%}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", type=Path, nargs="*", default=[ROOT / "bench" / "relay"])
    args = parser.parse_args()
    folders = runs(args.paths)
    replies = [reply for folder in folders for reply in read_run(folder)]
    print(f"{len(replies)} replies in {len(folders)} runs")
    print("bounds: reflector and curator fixed; safety review 48 + 48 a text; judge 48 + 48 a pair")
    today = [reply for reply in replies if reply.current]
    held = [reply for reply in today if "held-out" in reply.run]
    print("\nall runs, asked with today's prompts:", *table(today), sep="\n")
    if held:
        print("\nheld-out third of the shared sessions (first run):", *table(held), sep="\n")
    for folder in folders:
        mine = [reply for reply in replies if reply.run == _name(folder)]
        shares = sum(reply.current for reply in mine)
        asked = "today's prompts" if shares == len(mine) else f"{shares} of {len(mine)} today's"
        print(f"\n{_name(folder)} ({asked}):", *table(mine), sep="\n")


def _name(folder: Path) -> str:
    return str(folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder)


if __name__ == "__main__":
    main()
