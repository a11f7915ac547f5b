"""The quarantine floor: what may never enter the playbook unreviewed by a human.

Whatever enters the playbook is injected into every later session, so a
poisoned rule is a persistent prompt injection. ``screen_text`` decides,
deterministically and in well under a millisecond of CPU for a normal
entry, whether a proposed text is held for a human whatever the LLM safety
review says. It holds only what is unmistakable whatever the wording:

1. the seven classes of ``floor.FLOOR_CLASSES``, read on the folded text,
   its de-obfuscated form and every payload decoded from it (base64, hex,
   escapes), so spelling tricks do not hide an instruction;
2. hidden characters: zero-width, bidirectional and other invisible
   characters are a finding in themselves (they are removed only from the
   forms the detectors read, never from the text that would be stored);
3. obfuscation itself: a word mixing Latin with look-alike letters, or an
   encoded payload that decodes to readable text, has no business in a tip;
4. texts that are not guidance: raw logs and stack traces, code dumps;
5. length beyond ``max_chars``.

Intent is the safety review's job (``unreviewed``). The rule IDs are stable
(reports, the queue and the docs refer to them); ``docs/quarantine.md``
lists each with what it catches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from acecode.quarantine.floor import FLOOR_CLASSES
from acecode.quarantine.normalize import (
    decoded_payloads,
    deobfuscate,
    fold,
    hidden_characters,
    mixed_script_word,
)
from acecode.quarantine.reading import Reading

if TYPE_CHECKING:
    from acecode.project.config import Settings

DEFAULT_MAX_CHARS = 600
# A text longer than the limit is flagged as too long anyway; only its first
# max(max_chars, MIN_SCAN_CHARS) characters are screened for a more telling rule,
# so the screen stays fast whatever an LLM returns.
MIN_SCAN_CHARS = 2_000
DETAIL_LIMIT = 120

RULE_IDS: tuple[str, ...] = (
    *(floor_class.id for floor_class in FLOOR_CLASSES),
    "hidden-characters",
    "obfuscation",
    "not-guidance:log",
    "not-guidance:code",
    "too-long",
)


@dataclass(frozen=True)
class Verdict:
    """The screen's answer: ``flagged`` with the ``rule`` ID and ``detail`` of what matched."""

    flagged: bool
    rule: str = ""
    detail: str = ""


PASSED = Verdict(False)

_LOG_LINE = re.compile(
    r"^\s*(?:traceback \(most recent call last\)|file \".*\", line \d+|at [\w$.<>/]+\(.*\)|"
    r"\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}|"
    r"\[?(?:info|debug|warn|warning|error|fatal|trace|critical)\]?[:\s]|"
    r"[\w.]*(?:error|exception|warning)(?::\s|$)|npm err!|e {2,}\S|> {3}|[-=_]{5,}|\^+\s*$|"
    r"\d+ (?:passed|failed|errors?)\b|thread '.*' panicked|goroutine \d+|"
    r"\d+:\d+\s+(?:error|warning)\b|\S+:\d+:\d+:?\s)",
)
_TRACEBACK = re.compile(r"traceback \(most recent call last\)|exception in thread \"")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}:\d{2}")
_CODE_LINE = re.compile(
    r"^\s*(?:def |class |import |from \S+ import |return\b|if .*:$|for .*:$|while .*:$|"
    r"else:|elif |try:|except\b|finally:|with .*:$|@\w+|const |let |var |function\b|"
    r"public |private |protected |#include|package |func |fn |impl |struct |}|\{|\)|\]|"
    r"//|/\*|\*/|\*\s|<[/\w][^>]*>|\w[\w.]*\s*(?:[-+*/]?=|:=)\s*\S|\w[\w.]*\(.*\)\s*;?$)"
    r"|[;{}]\s*$|:\s*$",
)
_FENCE = re.compile(r"^\s*(?:```|~~~)", re.MULTILINE)
_SYMBOL = re.compile(r"[^\w\s]")
MIN_LINES_FOR_STRUCTURE = 3
MIN_CODE_LINES = 5
MIN_FENCED_LINES = 4
SYMBOL_RATIO_LIMIT = 0.30
MIN_CHARS_FOR_SYMBOL_RATIO = 60


def snippet(text: str) -> str:
    """``text`` on one line, cut to ``DETAIL_LIMIT`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= DETAIL_LIMIT else text[: DETAIL_LIMIT - 3] + "..."


def _danger(text: str) -> Verdict | None:
    """A dangerous-rule match in any form of ``text``, else hidden or obfuscated content."""
    folded = fold(text)
    forms = [("", folded)]
    deobfuscated = deobfuscate(folded)
    if deobfuscated != folded:
        forms.append(("after de-obfuscation", deobfuscated))
    payloads = decoded_payloads(text)
    for encoding, decoded in payloads:
        decoded_folded = fold(decoded)
        forms.append((f"decoded {encoding}", decoded_folded))
        forms.append((f"decoded {encoding}", deobfuscate(decoded_folded)))
    distinct: dict[str, str] = {}
    for where, form in forms:
        distinct.setdefault(form, where)
    readings = [(where, Reading(form)) for form, where in distinct.items()]
    for floor_class in FLOOR_CLASSES:
        for where, reading in readings:
            found = floor_class.detect(reading)
            if found is not None:
                suffix = f" ({where})" if where else ""
                return Verdict(True, floor_class.id, f"{snippet(found.describe())!r}{suffix}")
    hidden = hidden_characters(text)
    if hidden:
        index, name = hidden[0]
        more = f" and {len(hidden) - 1} more" if len(hidden) > 1 else ""
        return Verdict(True, "hidden-characters", f"{name} at character {index}{more}")
    word = mixed_script_word(text)
    if word is not None:
        return Verdict(True, "obfuscation", f"word {word!r} mixes Latin and look-alike letters")
    if payloads:
        encoding, decoded = payloads[0]
        return Verdict(True, "obfuscation", f"{encoding} payload decodes to {snippet(decoded)!r}")
    return None


def _not_guidance(text: str) -> Verdict | None:
    lines = [line for line in text.lower().splitlines() if line.strip()]
    if _TRACEBACK.search(text.lower()):
        return Verdict(True, "not-guidance:log", "contains a stack trace")
    if len(_TIMESTAMP.findall(text.lower())) >= MIN_LINES_FOR_STRUCTURE:
        return Verdict(True, "not-guidance:log", "several timestamped log lines")
    if len(lines) >= MIN_LINES_FOR_STRUCTURE:
        log_lines = sum(bool(_LOG_LINE.match(line)) for line in lines)
        if log_lines * 2 >= len(lines):
            return Verdict(True, "not-guidance:log", f"{log_lines} of {len(lines)} lines are log")
    fenced = len(_FENCE.findall(text)) >= 2 and len(lines) - 2 >= MIN_FENCED_LINES
    code_lines = sum(bool(_CODE_LINE.search(line)) for line in lines)
    if fenced or (len(lines) >= MIN_CODE_LINES and code_lines * 5 >= len(lines) * 3):
        return Verdict(True, "not-guidance:code", f"{code_lines} of {len(lines)} lines are code")
    visible = "".join(text.split())
    if len(visible) >= MIN_CHARS_FOR_SYMBOL_RATIO:
        ratio = len(_SYMBOL.findall(visible)) / len(visible)
        if ratio > SYMBOL_RATIO_LIMIT:
            return Verdict(True, "not-guidance:code", f"{ratio:.0%} of characters are symbols")
    return None


def screen_text(
    text: str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> Verdict:
    """Screen one proposed playbook text; ``Verdict.flagged`` means send it to review.

    Pure and deterministic: same text, same verdict. The dangerous rules come
    first so a long, foreign or log-like text that also carries an
    instruction is reported under the more telling rule.
    """
    stripped = text.strip()
    scanned = stripped[: max(max_chars, MIN_SCAN_CHARS)]
    verdict = _danger(scanned) or _not_guidance(scanned)
    if verdict is not None:
        return verdict
    if len(stripped) > max_chars:
        return Verdict(True, "too-long", f"{len(stripped)} characters (limit {max_chars})")
    return PASSED


def floor_verdict(text: str, settings: Settings) -> Verdict:
    """``screen_text`` under the project's ``max_rule_chars`` setting."""
    return screen_text(text, max_chars=settings.max_rule_chars)
