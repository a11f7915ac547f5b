"""How the floor reads a text: sentences, clauses, and whether an action is released.

Every detector of the floor looks for an action (a verb, a command) and, for
most classes, the thing it is done to (a hook, a secret, an outside
address). ``Reading.find`` pairs them inside one *clause*, in either order
(verb-final languages put the object first), and drops an action that the
text does not actually ask for:

- a negation before it in its clause ("never", "don't", "ne ... pas",
  "nicht", "不要" ...) or after it in Japanese (``negation``);
- a negation between the verb and its object ("lade keine Logs hoch");
- a scope in its sentence: the action waits on the user ("only when the
  user asks", "if asked", ``scope``).

Clauses end at sentence punctuation, commas, colons, semicolons, dashes and
the words that start another clause ("but", "if", "when", "because" ...),
so "don't print the token; log its last four characters if you need to
tell tokens apart" pairs nothing. A numbered list of steps ("1) open X, 2)
delete Y") stays one sentence, so a scope at its start covers every step.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

from acecode.quarantine.negation import is_negated
from acecode.quarantine.scope import scoped

_SENTENCE_END = re.compile(r"[.!?](?=\s|$)(?!\s*(?:\d+[.)]|step\s+\d))|[。！？]|\n(?!\s*\d+[.)])")
_CLAUSE_END = re.compile(
    r"[.;:!?](?=\s|$)|,|\n|\s[-–—]{1,2}\s|[，。；！？、：]"
    r"|\b(?:but|however|otherwise|so|because|if|when|whenever|unless|until|before|after|while|"
    r"since|mais|quand|lorsque|si|aber|wenn|falls|weil|bevor|pero|cuando|porque|mas|quando|"
    r"porque|ma|perché|но|если|когда)\b|但|しかし|ので|から"
)
# A negation right before the object: "lade keine Logs hoch", "send nothing but the link".
# (Not "no": it is "in the" in Portuguese.)
_INNER_NEGATION = re.compile(
    r"(?:\b(?:keine?[nrs]?|nicht|niemals|never|not|nunca|não|jamais|pas|aucun\w*|nie|не|никогда)"
    r"\b|不要|别|禁止)\W*(?:\w+\W+){0,2}$"
)
# Said of the action, not asked for: "a rule that asks you to edit X", "the rules are
# approved with ...", "skipping them only moves the failure".
_REPORTED = re.compile(
    r"\b(?:asks?|asking|tells?|telling|wants?|requests?|urges?|instructs?)\s+(?:you\s+)?to\s+$"
)
_COPULA = re.compile(
    r"(?<!\bbe\s)\b(?:is|are|was|were|são|é|foram|foi|sont|est|sind|ist|wird|werden|son|es|"
    r"fue|sono|è)\s+$"
)
# "the change", "a push": a noun, not a verb. "before dropping", "after approving": the
# action is a step in a sequence the text is about, not an instruction on its own.
_NOUN_OR_STEP = re.compile(
    r"\b(?:the|a|an|this|that|these|those|your|my|our|their|its|each|every|no|before|after|"
    r"while|when|until)\s+$"
)
# "the nightly job runs `docker system prune`": a command named as what something does.
_RUN_BY = re.compile(r"\b(?:runs|executes|calls|invokes|uses)\s+[`'\"]?$")
_MODAL_BEFORE = re.compile(r"\b(?:can|could|should|must|may|might|will|would)\s+\S+\s+$")
_GERUND_DISMISSED = re.compile(
    r"[^.;!?\n]{0,80}?\b(?:(?:only|just)\s+(?:moves?|hides?|delays?|shifts?|postpones?)|"
    r"(?:is|are|was|would\s+be)\s+(?:never\s+|not\s+)?(?:bad|wrong|dangerous|risky|forbidden|"
    r"not\s+allowed|pointless|useless|a\s+mistake|harmful|unsafe)|(?:won'?t|doesn'?t|does\s+not|"
    r"will\s+not)\s+(?:help|fix|work))\b"
)
_PRONOUN_BEFORE = re.compile(r"\b(?:it|them)\s+(?:to\s+)?$")
_PRONOUN_WITHIN = re.compile(r"\s(?:it|them)\s")
_PRONOUN_AFTER = re.compile(
    r"\s+(?:it|them|those|these|that|this|sie|es|ihn|los|las|lo|la|os|as|les)\b|"
    r"-(?:le|la|les|lo|los|las|o|a|os|as)\b"
)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
MAX_CLAUSE = 300
MAX_SENTENCE = 500
# A detector looks at no more than this many occurrences of one pattern: a normal
# entry has a handful, and an adversarial wall of trigger words must stay linear
# (a text this long is held as too long anyway).
MAX_MATCHES = 300


@dataclass(frozen=True)
class Hit:
    """What a detector found: the action, and the object it is done to (may be empty)."""

    action: str
    target: str = ""

    def describe(self) -> str:
        found = self.action if not self.target else f"{self.action} ... {self.target}"
        return " ".join(found.split())


class Reading:
    """One folded text, cut into sentences and clauses once, for all detectors."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._matches: dict[re.Pattern[str], list[re.Match[str]]] = {}
        self._starts: dict[re.Pattern[str], list[int]] = {}
        self._scoped: dict[tuple[int, int], bool] = {}

    def matches(self, pattern: re.Pattern[str]) -> list[re.Match[str]]:
        """The first ``MAX_MATCHES`` occurrences of ``pattern``, found once per text."""
        found = self._matches.get(pattern)
        if found is None:
            found = []
            for match in pattern.finditer(self.text):
                found.append(match)
                if len(found) >= MAX_MATCHES:
                    break
            self._matches[pattern] = found
            self._starts[pattern] = [match.start() for match in found]
        return found

    def matches_in(self, pattern: re.Pattern[str], begin: int, finish: int) -> list[re.Match[str]]:
        """The occurrences of ``pattern`` that start inside ``[begin, finish)``."""
        found = self.matches(pattern)
        starts = self._starts[pattern]
        return found[bisect_left(starts, begin) : bisect_left(starts, finish)]

    @cached_property
    def _sentence_ends(self) -> list[int]:
        return [found.end() for found in _SENTENCE_END.finditer(self.text)]

    @cached_property
    def _clause_ends(self) -> list[int]:
        return [found.start() for found in _CLAUSE_END.finditer(self.text)]

    @cached_property
    def _clause_starts(self) -> list[int]:
        return [found.end() for found in _CLAUSE_END.finditer(self.text)]

    def sentence_span(self, start: int, end: int) -> tuple[int, int]:
        """Bounds of the sentence(s) around ``text[start:end]``.

        A sentence longer than ``2 * MAX_SENTENCE`` is read in fixed windows of
        that size, so that every position in one window sees the same text.
        """
        ends = self._sentence_ends
        before = bisect_right(ends, start)
        begin = ends[before - 1] if before else 0
        after = bisect_right(ends, end - 1)
        finish = ends[after] if after < len(ends) else len(self.text)
        if finish - begin > 2 * MAX_SENTENCE:
            window = begin + (start - begin) // MAX_SENTENCE * MAX_SENTENCE
            begin, finish = window, min(finish, max(window + 2 * MAX_SENTENCE, end))
        return begin, finish

    def sentence(self, start: int, end: int | None = None) -> str:
        """The sentence(s) around ``text[start:end]`` (by default, around ``start``)."""
        begin, finish = self.sentence_span(start, start + 1 if end is None else end)
        return self.text[begin:finish]

    def clause(self, start: int, end: int) -> tuple[int, int]:
        """Bounds of the clause around ``text[start:end]`` (the match may span breaks)."""
        starts = self._clause_starts
        index = bisect_right(starts, start)
        begin = starts[index - 1] if index else 0
        ends = self._clause_ends
        after = bisect_right(ends, end - 1)
        finish = ends[after] if after < len(ends) else len(self.text)
        return max(begin, start - MAX_CLAUSE), min(finish, end + MAX_CLAUSE)

    @cached_property
    def _code_spans(self) -> list[tuple[int, int]]:
        return [found.span() for found in _CODE_SPAN.finditer(self.text)]

    def in_code(self, start: int) -> bool:
        """Is ``start`` inside a code span (a command named, not a word of the prose)?"""
        return any(low < start < high for low, high in self._code_spans)

    def released(self, start: int, end: int) -> bool:
        """The text does not ask for the action at ``text[start:end]``: negated or scoped."""
        if is_negated(self.text, start, end):
            return True
        span = self.sentence_span(start, start + 1)
        if span not in self._scoped:
            self._scoped[span] = scoped(self.text[span[0] : span[1]])
        return self._scoped[span]

    def described(self, start: int, end: int) -> bool:
        """The verb at ``text[start:end]`` is said of something, not asked of the agent:
        reported ("asks you to edit"), a plain passive ("are approved with ...") or an
        -ing form judged bad ("skipping them only moves the failure")."""
        before = self.text[max(0, start - 40) : start]
        if _REPORTED.search(before) or _RUN_BY.search(before) or _NOUN_OR_STEP.search(before):
            return True
        if _COPULA.search(before) and not _MODAL_BEFORE.search(before):
            return True
        word = self.text[start:end]
        return word.endswith("ing") and bool(_GERUND_DISMISSED.match(self.text, end))

    def asked(
        self,
        pattern: re.Pattern[str],
        *,
        prose: bool = False,
        command: bool = False,
        negatable: bool = True,
    ) -> Iterator[re.Match[str]]:
        """The occurrences of ``pattern`` the text asks for, in order.

        Unless ``negatable`` is False, a released one (negated or scoped) is
        not asked for; nor is a ``prose`` word inside a code span (a name) or
        said of something (``described``), nor a ``command`` described.
        """
        for found in self.matches(pattern):
            start, end = found.span()
            if prose and self.in_code(start):
                continue
            if (prose or command) and self.described(start, end):
                continue
            if not (negatable and self.released(start, end)):
                yield found

    def find(
        self,
        action: re.Pattern[str],
        target: re.Pattern[str] | None = None,
        *,
        within: str = "clause",
        after: bool = False,
        negatable: bool = True,
        prose: bool = False,
        accept: Callable[[re.Match[str]], bool] | None = None,
        pair: Callable[[re.Match[str], re.Match[str]], bool] | None = None,
    ) -> Hit | None:
        """The first ``action`` the text asks for, done to a ``target`` in its clause.

        Without ``target`` the action alone counts (a command, a phrase).
        ``within="sentence"`` looks for the target in the whole sentence,
        ``after`` only after the action ("X outranks *the user*"); in a
        clause, a pronoun after the verb ("skip them") reaches back to the
        start of the sentence.
        ``negatable=False`` keeps an action whatever negates it (phrasings
        that are dangerous under a negation: "don't ask before ..."), and
        ``accept`` vets a target the pattern alone cannot (is this host remote?), and
        ``pair`` an action with its target (is the user the recipient of this send?).
        A ``prose`` action is a word of the sentence: one inside a code span
        is a name (``acecode review approve``), and one said of something
        (``described``) is not asked for.
        """
        for found in self.asked(action, prose=prose, negatable=negatable):
            if target is None:
                return Hit(found.group(0).strip())
            start, end = found.span()
            vet = accept
            if pair is not None:
                vet = partial_pair(pair, found, accept)
            object_ = self._target(action, target, start, end, within, after, vet)
            if object_ is not None:
                return Hit(found.group(0).strip(), object_)
        return None

    def _negated_elsewhere(self, action: re.Pattern[str], position: int) -> bool:
        """The target at ``position`` belongs to another, negated action of its own clause."""
        begin, _ = self.clause(position, position + 1)
        return any(
            is_negated(self.text, found.start(), found.end())
            for found in self.matches_in(action, begin, position)
        )

    def _target(
        self,
        action: re.Pattern[str],
        target: re.Pattern[str],
        start: int,
        end: int,
        within: str,
        after: bool,
        accept: Callable[[re.Match[str]], bool] | None,
    ) -> str | None:
        span = self.clause if within == "clause" else self.sentence_span
        begin, finish = span(start, end)
        pronoun = (
            _PRONOUN_AFTER.match(self.text, end)
            or _PRONOUN_BEFORE.search(self.text, max(0, start - 12), start)
            or _PRONOUN_WITHIN.search(self.text, start, end)
        )
        if within == "clause" and not after and pronoun:
            # "the hooks are slow, so skip them": the object stands earlier in the sentence.
            begin = min(begin, self.sentence_span(start, end)[0])
        own_clause = self.clause(start, end)
        for found in self.matches_in(target, end if after else begin, finish):
            if found.end() > finish:
                continue
            low, high = found.span()
            partial = low < end and high > start and not (start <= low and high <= end)
            if partial or (accept is not None and not accept(found)):
                continue
            if not own_clause[0] <= low < own_clause[1] and self._negated_elsewhere(action, low):
                continue  # "push to origin; never push the repo to personal forks"
            between = self.text[end:low] if low >= end else ""
            if between and _INNER_NEGATION.search(between):
                continue
            return found.group(0).strip()
        return None


def partial_pair(
    pair: Callable[[re.Match[str], re.Match[str]], bool],
    action: re.Match[str],
    accept: Callable[[re.Match[str]], bool] | None,
) -> Callable[[re.Match[str]], bool]:
    """``accept`` and ``pair`` for one action, as a vetting of its targets alone."""
    return lambda target: (accept is None or accept(target)) and pair(action, target)


def first(*searches: Callable[[], Hit | None]) -> Hit | None:
    """The first of ``searches`` that finds something (lazily, in order)."""
    for search in searches:
        hit = search()
        if hit is not None:
            return hit
    return None
