"""Whether a rule names a file (or symbol) to say it is absent.

A rule learned from a "no such file" failure names the file on purpose: "this
is not a Node project, so `npm test` fails with no package.json". The file
being missing is the rule being right, so the stale check must not offer it to
the curator for deletion. An occurrence is *named as absent* when:

* a cue of absence comes right before it in its clause, with nothing between
  but articles and a noun for what it is: ``no package.json``, ``has no
  `parse_jsonl_file```, ``lacks a setup.py``, ``without a pyproject.toml``,
  ``no such file or directory: types/README.md``;
* it is the subject of a predicate of absence: ``X does not exist``, ``X is
  missing``, ``X was removed``, ``X is not checked in``, ``X no longer exists``,
  ``if X is absent``;
* later in its sentence, before the next name, the file or ``it`` is said to be
  absent: ``... from utils/helpers.py: that module does not exist``,
  ``... `render_x`: no such function exists``.

Anything else (``Missing imports in src/cli.py``, ``Never edit X``, ``When a test
in X is not found``) is a use of the name, checked as before. Measured on
``tests/data/staleness_absence.json`` (its held-out third split before this was
written): ``tests/staleness/test_absence_rules.py``.

Pure: ``re`` only.
"""

from __future__ import annotations

import re

_NOUN = r"(?:file|files|folder|directory|module|function|method|class|script|package|path)"
# What may stand between a cue and the name: articles, "such", the kind of thing it is.
_FILLER = rf"(?:(?:a|an|the|any|such|{_NOUN}|called|named|or)\s+)*"
_CUE_BEFORE = re.compile(
    rf"(?:\bno|\bwithout|\blacks?|\blacking|\bmissing|\babsent)\s+{_FILLER}[`'\"]?$",
    re.IGNORECASE,
)
# An error message quoted in the rule: "file or directory not found: test/x.py".
_ERROR_BEFORE = re.compile(r"(?:not found|no such file or directory):\s*[`'\"]?$", re.IGNORECASE)
_PREDICATE = (
    r"(?:(?:does|do|did)(?:\s+not|n't)\s+exist"
    r"|no\s+longer\s+exists?"
    r"|(?:is|are|was|were)\s+(?:missing|absent|gone|removed|deleted|dropped)"
    r"|(?:has|have)\s+been\s+(?:removed|deleted|dropped)"
    r"|(?:is|are|was|were)(?:\s+not|n't)\s+(?:there|here|present|in\b|kept|committed|"
    r"checked\s+in|tracked|produced|generated|created))"
)
_SUBJECT_OF = re.compile(rf"^[`'\"]?\s+{_PREDICATE}", re.IGNORECASE)
_SAID_LATER = re.compile(
    rf"\b(?:(?:the|that|this)\s+{_NOUN}|it)\s+{_PREDICATE}|\bno\s+such\s+{_NOUN}\s+exists?",
    re.IGNORECASE,
)
# Where a clause or a sentence ends, for the cue before a name and the mention after it.
_CLAUSE_END = re.compile(r"[.;,:!?](?:\s|$)|\s[-–—]\s")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def named_as_absent(text: str, start: int, end: int, next_name: int | None = None) -> bool:
    """True when the name at ``text[start:end]`` is said to be absent (module docstring);
    ``next_name`` is where the next name of the text starts, if any."""
    before = text[:start]
    clause_starts = [match.end() for match in _CLAUSE_END.finditer(before)]
    if _CUE_BEFORE.search(before[clause_starts[-1] if clause_starts else 0 :]):
        return True
    if _ERROR_BEFORE.search(before):
        return True
    after = text[end:]
    if _SUBJECT_OF.match(after):
        return True
    sentence = _SENTENCE_END.search(after)
    limit = sentence.start() if sentence else len(after)
    if next_name is not None:
        limit = max(0, min(limit, next_name - end))
    return bool(_SAID_LATER.search(after[:limit]))
