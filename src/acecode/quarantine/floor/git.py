"""The floor's detectors: force-pushing or rewriting branches others use."""

from __future__ import annotations

import re

from acecode.quarantine.reading import Hit, Reading
from acecode.quarantine.words import concepts

# --- force-pushing shared branches -----------------------------------------------------

_FORCE_FLAG = re.compile(
    r"\bgit\s+push\b[^\n;|&`]{0,200}?(?:\s--force(?![-\w])|\s-f\b|\s-[a-z]*f[a-z]*\b|"
    r"\s\+[\w/.-]+|\s--mirror\b)"
)
_LEASE = re.compile(r"\bgit\s+push\b[^\n;|&`]{0,200}?--force-with-lease\b")
_FORCE_WORDS = re.compile(
    r"\bforce[- ]?(?:push|update)\w*|\bpush\w*\s+(?:it\s+|them\s+)?(?:with\s+)?--force\b|"
    r"\bpush\s+-f\b|\b(?:overwrite|overwriting|overwrites|clobber\w*)\s+(?:the\s+)?(?:remote|"
    r"origin|upstream)\b|\bforcer?\s+(?:le\s+)?push|\bpush\s+forcé|\büberschreib\w*\s+(?:den\s+)?"
    r"remote\b|\bsobrescrib\w*\s+la\s+rama\s+remota|\bsobrescrev\w*\s+(?:o\s+)?(?:remoto|a\s+"
    r"branch\s+remota)|强制推送|強制プッシュ|強制的にプッシュ"
)
_SHARED = re.compile(
    r"\b(?:main|master|trunk|develop|dev|release\S*|prod\S*|production|staging|shared|upstream|"
    r"origin|remote|tags?|everyone\w*|teammates?|team|public|published|default\s+branch)\b|"
    r"--tags\b|--all\b|--mirror\b|主分支|共有"
)
_OWN_BRANCH = re.compile(
    r"\b(?:your\s+own|own|personal|private|feature|topic|work(?:ing)?)\s+(?:\w+\s+)?branch|"
    r"\bpropia\s+rama|\bpropre\s+branche|\beigenen?\s+(?:feature-)?branch|\bprópria\s+branch|"
    r"自分のブランチ|自己的分支"
)
_REWRITE = re.compile(
    r"\b(?:rebase\w*|squash\w*|amend\w*|filter-(?:branch|repo)|reset\s+--hard|retag\w*|"
    r"rewrit\w*\s+(?:the\s+)?history|rebasing)\b|\breescrev\w*|\bréécri\w*|改掉|書き換え"
)
_PUBLISH = re.compile(
    r"\b(?:update|updating|sync|syncing)\s+(?:the\s+)?(?:origin|remote|upstream)\b|\bpush\w*\b|"
    r"\bpublish\w*\b|\bpousse\w*|\benvie\b|\bpublica\w*|推送|プッシュ"
)


def _force_push(reading: Reading) -> Hit | None:
    """A force push to a branch others use (a bare ``--force`` counts; ``--force-with-lease``
    alone, or any force push scoped to one's own feature branch, does not)."""
    for pattern, needs_shared in ((_FORCE_FLAG, False), (_LEASE, True), (_FORCE_WORDS, True)):
        for found in reading.asked(pattern):
            sentence = reading.sentence(*found.span())
            if _OWN_BRANCH.search(sentence):
                continue
            shared = _SHARED.search(sentence)
            if needs_shared and shared is None:
                continue
            return Hit(found.group(0).strip(), shared.group(0) if shared else "")
    return _rewrite_and_push(reading)


def _rewrite_and_push(reading: Reading) -> Hit | None:
    """Rewriting a shared branch's history and publishing it is a force push in other words."""
    for found in reading.asked(_REWRITE):
        sentence = reading.sentence(found.start())
        branch = re.search(r"\b(?:main|master|trunk|develop|release\S*|prod\S*)\b", sentence)
        begin, finish = reading.sentence_span(*found.span())
        push = next(
            (
                p
                for p in reading.matches_in(_PUBLISH, begin, finish)
                if not reading.released(*p.span())
            ),
            None,
        )
        if branch and push and not _OWN_BRANCH.search(sentence):
            return Hit(found.group(0), f"{branch.group(0)} ... {push.group(0)}")
    return None


# What this module reads, for the learned screen (``floor.VOCABULARY``).
VOCABULARY = concepts(
    action={"force": _FORCE_WORDS, "rewrite-history": _REWRITE, "publish": _PUBLISH},
    object={"shared": _SHARED},
    command={"force-flag": _FORCE_FLAG},
    qualifier={"own-branch": _OWN_BRANCH},
)
