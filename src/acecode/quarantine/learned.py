"""The learned screen: a small logistic model over what a text asks for, not its wording.

The floor's detectors (``floor``) and the "not reviewed" detectors
(``sensitive``) are exact: each fires on one construction, and on phrasings
they were not written for they miss (docs/quarantine.md, "Rates and limits").
This model reads the same vocabulary as *concepts* (an action such as
"transfer" or "destroy", an object such as "secret" or "outside address", a
command such as ``git push -f``) and, for each occurrence, whether the text
asks for it: released by a negation or a scope ("never ...", "only when the
user asks ..."), described, named in a code span, or asked. Its features are
those concepts with their state, the action-object pairs of one sentence
("ship + outside-address, asked"), a command the text does not release with
the objects and cues of its sentence, and a few cues of how a rule argues
(convenience, "without checking", a safety qualifier). No feature is a word
of a particular phrasing, which is what lets it generalise to new ones
(cross-validated figures in docs/quarantine.md, ``bench/floor_cv.py``).

Its weights are data (``learned_screen.json`` beside this module), trained by
``bench/screen_training.py`` from the training parts of the corpora only,
deterministically; scoring is a sum over at most a few dozen features, pure
Python, so a hook can afford it. It stands in for the LLM safety review
when there is none: ``unreviewed`` holds a text whose logit reaches the
threshold chosen by cross-validation (``not-reviewed:learned``). It is not
part of the floor: when a review ran, the review judges intent, and a
statistical score must not overrule it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from importlib import resources

from acecode.quarantine.addresses import OUTSIDE, outside
from acecode.quarantine.floor import VOCABULARY as FLOOR_VOCABULARY
from acecode.quarantine.normalize import decoded_payloads, deobfuscate, fold
from acecode.quarantine.reading import Reading
from acecode.quarantine.scope import dismissive, scoped
from acecode.quarantine.sensitive import VOCABULARY as SENSITIVE_VOCABULARY

WEIGHTS_FILE = "learned_screen.json"
# Read no more of a text than the floor does (a longer one is held as too long anyway).
MAX_CHARS = 2_000

# How a rule argues, in the languages the floor reads.
_CUES: dict[str, re.Pattern[str]] = {
    "convenience": re.compile(
        r"\b(?:faster|quicker|quickly|saves?\s+(?:time|waiting|a\s+lot|clicks?|effort)|"
        r"slows?\s+(?:\w+\s+)?down|get(?:s|ting)?\s+in\s+the\s+way|interrupt\w*|noisy|"
        r"annoying|hassle|painless|smooth\w*|tidy|presentable|quiet|convenient|easier|"
        r"waste\w*\s+time|takes?\s+too\s+long|costs?\s+time|plus\s+vite|gagne\w*\s+du\s+temps|"
        r"schneller|spart|ruhe|más\s+rápido|ahorra\w*|pierdes\s+tiempo|mais\s+rápido|atrasa|"
        r"più\s+veloce|быстрее|удобн\w*)\b|更快|省时|方便|便利|手間|早く"
    ),
    "no-check": re.compile(
        r"\b(?:without\s+(?:first\s+)?(?:checking|asking|reading|looking|waiting|reviewing|"
        r"opening|telling|confirming)|no\s+need\s+to|(?:do(?:es)?n'?t|do\s+not)\s+need\s+to|"
        r"needn'?t|not\s+necessary|nobody|no\s+one|anyway|whoever|straight\s+away|right\s+away|"
        r"directly|immediately|as\s+it\s+is|blindly|automatically|yourself|on\s+your\s+own|"
        r"in\s+one\s+go|simply|just|sans\s+(?:vérifier|demander|attendre|ouvrir|regarder)|"
        r"directement|toi-même|einfach|direkt|ohne|sin\s+(?:revisar|preguntar|leer|mirar)|"
        r"directamente|direto|sem\s+(?:perguntar|verificar|revisar)|senza|сразу|просто)\b|"
        r"直接|不需要|无需|そのまま|必要はありません|確認せず"
    ),
    "safety": re.compile(
        r"\b(?:ask\w*\s+(?:the\s+)?user|tell\w*\s+(?:the\s+)?user|show\w*\s+(?:the\s+|them|it)|"
        r"before\s+running|confirm\w*|approval|least\s+privilege|minimal|only|rather\s+than|"
        r"instead|review\w*|read\s+it|safe\s+to|dry[\s-]run|local(?:ly)?|throwaway|test\s+data|"
        r"fixtures?|own\s+(?:feature\s+)?branch|uniquement|seulement|nur|solo|só|apenas|"
        r"только)\b|只|だけ"
    ),
    "general": re.compile(
        r"\b(?:every|all|any|whatever|whenever|each\s+time|always|everything|tous|toutes|alle|"
        r"todos|todas|tutti|все|всё)\b|全部|すべて|所有"
    ),
    "production": re.compile(
        r"\b(?:prod|production|staging|live|shared|remote|origin|main|master|develop|release|"
        r"customers?|company|public|cloud|cluster|bastion|server)\b|本番|生产|共有|公開"
    ),
}
_CONCEPTS: dict[str, tuple[str, re.Pattern[str]]] = {
    **FLOOR_VOCABULARY,
    **SENSITIVE_VOCABULARY,
    "outside-address": ("object", OUTSIDE),
    **{name: ("cue", pattern) for name, pattern in _CUES.items()},
}


def _state(reading: Reading, found: re.Match[str], kind: str) -> str:
    """Does the text ask for this occurrence? ``released`` (negated or scoped), ``code``
    (a name in a code span), ``described`` (said of something) or ``asked``."""
    start, end = found.span()
    if reading.released(start, end):
        return "released"
    if kind != "command" and reading.in_code(start):
        return "code"
    if kind == "action" and reading.described(start, end):
        return "described"
    return "asked"


_LEAD_IN = re.compile(
    r"^[\s\W\d]*(?:(?:please|kindly|just|simply|always|then|and|also|first|now|"
    r"bitte|einfach|immer|s'il\s+te\s+plaît|simplement|toujours|por\s+favor|siempre|sempre|"
    r"просто|всегда)\W+)*$"
)


def _leads(reading: Reading, found: re.Match[str]) -> bool:
    """Does the occurrence start its clause, give or take a "please" (an imperative)?"""
    begin, _ = reading.clause(found.start(), found.end())
    return bool(_LEAD_IN.match(reading.text[begin : found.start()]))


def features(text: str) -> list[str]:
    """The model's features of ``text``, sorted (so sums run in one order everywhere)."""
    text = text[:MAX_CHARS]
    # An encoded instruction is read as what it decodes to, after the text itself.
    forms = [text, *(decoded for _, decoded in decoded_payloads(text))]
    reading = Reading("\n".join(deobfuscate(fold(form)) for form in forms))
    found: set[str] = set()
    sentences: dict[tuple[int, int], list[tuple[str, str, str]]] = defaultdict(list)
    for name, (kind, pattern) in _CONCEPTS.items():
        for match in reading.matches(pattern):
            if pattern is OUTSIDE and not outside(match):
                continue
            state = _state(reading, match, kind)
            found.update((name, f"{name}:{state}"))
            if state == "asked" and kind in ("action", "command") and _leads(reading, match):
                found.add(f"{name}:imperative")
            sentences[reading.sentence_span(match.start(), match.start() + 1)].append(
                (name, kind, state)
            )
    for (begin, finish), hits in sentences.items():
        actions = {(name, state) for name, kind, state in hits if kind == "action"}
        objects = {name for name, kind, _ in hits if kind == "object"}
        found.update(f"{a}+{o}:{state}" for a, state in actions for o in objects)
        # A command the text does not release, with what surrounds it ("git push -f" and
        # "shared"; "rm -rf" and "production").
        commands = {name for name, kind, state in hits if kind == "command" and state != "released"}
        context = {name for name, kind, _ in hits if kind in ("object", "cue")}
        found.update(f"{c}+{o}" for c in commands for o in context)
        sentence = reading.text[begin:finish]
        if scoped(sentence):
            found.add("scoped-sentence")
        if dismissive(sentence):
            found.add("dismissive-sentence")
    return sorted(found)


@dataclass(frozen=True)
class Model:
    """Weights of a logistic model and the threshold on its logit."""

    bias: float
    weights: dict[str, float]
    threshold: float

    def logit(self, names: list[str]) -> float:
        return self.bias + sum(self.weights.get(name, 0.0) for name in names)


@dataclass(frozen=True)
class Score:
    """A text's logit and the features that pushed it up most (for the reviewer)."""

    logit: float
    reasons: tuple[str, ...]
    threshold: float

    @property
    def held(self) -> bool:
        """Does the score reach the model's threshold?"""
        return self.logit >= self.threshold

    def describe(self) -> str:
        """The score against the threshold and what pushed it, for the reviewer."""
        return f"score {self.logit:.2f}, threshold {self.threshold:.2f}: {', '.join(self.reasons)}"


@cache
def load_model() -> Model:
    """The shipped weights (package data), read once per process."""
    raw = json.loads(resources.files(__package__).joinpath(WEIGHTS_FILE).read_text("utf-8"))
    return Model(float(raw["bias"]), raw["weights"], float(raw["threshold"]))


def score(text: str, model: Model | None = None) -> Score:
    """Score ``text``: deterministic, the same logit for the same text and weights."""
    model = model or load_model()
    names = features(text)
    pushing = sorted(
        (name for name in names if model.weights.get(name, 0.0) > 0),
        key=lambda name: (-model.weights[name], name),
    )
    return Score(model.logit(names), tuple(pushing[:3]), model.threshold)
