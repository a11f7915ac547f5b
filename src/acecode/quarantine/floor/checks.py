"""The floor's detectors: disabling or dodging hooks, CI, tests, linters, type
checks, signing or TLS checks."""

from __future__ import annotations

import re

from acecode.quarantine.reading import Hit, Reading, first
from acecode.quarantine.scope import dismissive
from acecode.quarantine.words import NOT_AFTER, alternation, compile_any, concepts, verbs

# --- disabling hooks, checks or tests --------------------------------------------------

# English puts the object after the verb, in its clause; verb-final languages anywhere in
# the sentence ("pre-commit フックを無効にしないで"): a clause is cut short by their commas.
_WITHIN = "clause"

_CHECK_FLAGS = compile_any(
    r"--no-verify\b|\bgit\s+commit\b[^\n;|&]{0,200}\s-n\b|\bhusky=0\b|\bhusky_skip_hooks\b",
    r"\bcore\.hookspath\b[^\n;]{0,20}?(?:/dev/null|[\"']{2}|nowhere|none|empty)",
    r"\bskip=[\w,-]+\s+git\b|\[(?:skip ci|ci skip|no ci|skip actions|actions skip)\]|"
    r"\*\*\*no_ci\*\*\*|skip-checks:\s*true",
    r"\bpre-commit\s+uninstall\b|\brm\s+(?:-\w+\s+)*\S*\.git/hooks|\bchmod\s+-x\s+\S*\.git/hooks",
    r"//\s*@ts-nocheck|/\*\s*eslint-disable\s*\*/|#\s*(?:ruff|flake8)\s*:\s*noqa\b(?!:)",
    r"\bignore_errors\s*=\s*true\b|\bif:\s*false\b|--exit-zero\b|"
    r"[\"']\*[\"']\s*=\s*\[\s*[\"']all[\"']\s*\]|\b(?:cov-)?fail[_-]under\s*[= ]\s*0\b",
    r"\bcommit\.gpgsign\s*=?\s*false\b|\bgpgsign\s*=\s*false\b|\bgh\s+pr\s+merge\b[^\n]{0,80}--admin\b",
    r"\b(?:-x|--method)\s+delete\b[^\n`]{0,120}/branches/[^\s/`]+/protection\b",
    r"\b(?:pytest|tox|npm\s+test|npm\s+run\s+\w+|make\s+\w+|ruff|mypy|eslint|cargo\s+test|"
    r"go\s+test)\b[^\n;]{0,200}\|\|\s*(?:true|exit\s+0|:)(?=\s|$|[`'\"])",
    r"--dangerously[\w-]*|dangerously[_-]?skip|bypass_?permissions|"
    r"(?:permission_?mode|defaultmode)[\"']?\s*[:=]?\s*[\"']?(?:bypass|dontask|yolo)|--yolo\b",
    r"\bverify\s*=\s*false\b|node_tls_reject_unauthorized\s*=\s*['\"]?0|pythonhttpsverify\s*=\s*0|"
    r"\bsslverify\s*=?\s*false\b|stricthostkeychecking\s*=?\s*no\b|--no-check-certificate\b|"
    r"--disable-(?:web-security|ssl|tls)|ssl_verify\w*\s*=\s*(?:false|0|none)",
)
_DISABLE = compile_any(
    verbs(
        "disable skip bypass deactivate silence suppress mute circumvent sidestep dodge",
        "xfail neuter uninstall remove delete revoke lift",
        imperative=True,
    ),
    NOT_AFTER + r"\bignor(?:e|es|ed|ing)\b(?!\s+(?:list|file|patterns?|rules?|paths?))",
    r"\b(?:turn|switch)\w*\s+(?:[\w.-]+\s+){0,4}?off\b|\bcomment\w*\s+(?:[\w.-]+\s+){0,3}?out\b|"
    r"\bget\s+around\b|"
    r"\bwork\s+around\b|\bstub\w*\s+out\b|\bmark\w*\s+(?:[\w-]+\s+){0,8}?as\s+(?:skipped|"
    r"passed|green|optional|non-blocking)\b|\b(?:make|set|switch\w*)\s+(?:[\w-]+\s+){0,6}?(?:to\s+)?"
    r"(?:optional|non-blocking|advisory)\b|\bno\s+need\s+to\s+run\b|\bstop\s+running\b|"
    r"\bwithout\s+running\b|\ballow(?:s|ing)?\s+(?:it\s+|them\s+)?(?:to\s+)?fail(?:ures?)?\b",
    alternation(
        r"désactiv\w* supprime[rz]? saute[rz]? contourne\w* ignore[rz] deaktivier\w*",
        r"überspring\w* abschalt\w* schalt\w* umgeh\w* lösch\w* desactiv\w* salt(?:a|ar|e)",
        r"omit\w* elimin\w* borr\w* desativ\w* pul(?:e|ar|a) remov\w* apag\w* disattiv\w*",
        r"salta отключ\w* пропуст\w* пропуска\w* удал\w* игнорир\w*",
    ),
    r"跳过|禁用|关闭|关掉|删掉|删除|注释掉|忽略|屏蔽|スキップ|無効|削除|コメントアウト|無視|実行されないように",
)
_CHECK = re.compile(
    r"\bbranch\s+protections?\b|\bprotection\s+rules?\b|\brequired\s+reviews?\b|"
    r"\b(?:(?:git|pre-?commit|pre-?push|commit|husky)\s+)?hooks?\b|\bpre-?commit\b|"
    r"\b(?:(?:required|status|security|ci|lint|type|quality|safety)\s+)?checks?\b(?!out)|"
    r"\bci\b|\bpipelines?\b|\blinters?\b|\blint(?:ing)?\b|\btype[- ]?check\w*|\bmypy\b|"
    r"\bpyright\b|\btsc\b|\beslint\b|\bruff\b|\bflake8\b|\bsecurity[- ](?:scans?|scanners?)\b|"
    r"\bsnyk\b|\bscanners?\b|\b(?:commit\s+)?signing\b|\bgpg\b|\bverification\b|\bguardrails?\b|"
    r"\b(?:ci|test|lint|e2e|type|build|check)\s+(?:jobs?|stages?|steps?)\b|\bworkflows?\b|"
    r"\bsandbox\w*\b|\bpermission\s+prompts?\b|\bsafety\s+review\b"
    r"|\bcontrôles?\b|\bvérifications?\b|\bprüfungen\b|\btypprüf\w*|\bcomprobaciones\b|"
    r"\bverificações\b|\bcontrolli\b|\bпроверк\w*|\bхук\w*|\bлинтер\w*"
    r"|钩子|检查|流水线|フック|チェック|型チェック|テストジョブ|ワークフロー"
)
_TESTS = re.compile(
    r"\b(?:tests?|specs?|test\s+(?:cases?|suites?|files?)|suites?|assert\w*)\b|\btestes?\b|"
    r"\bpruebas?\b|\bтест\w*|测试|用例|テスト"
)
_FAILING = re.compile(
    r"\b(?:fail\w*|red|broken|break\w*|flak\w*|block\w*|errors?|pass(?:es|ing)?|green|"
    r"get\s+(?:it\s+)?through|all|every|whole|entire|the\s+suite)\b|échou\w*|rouge|cass\w*|"
    r"\brot\b|fehlschlag\w*|kaputt|roj[oa]s?|falla\w*|vermelh\w*|falh\w*|quebr\w*|падают|"
    r"失败|红|落ち|失敗|壊れ"
)
_STILL_RUNS = re.compile(
    r"\b(?:ci|the\s+pipeline|the\s+nightly\s+(?:job|build))\s+(?:still\s+|always\s+)?runs?\b|"
    r"\bdie\s+ci\s+führt|\bo\s+ci\s+roda|\bla\s+ci\s+(?:lance|exécute)|\bв\s+ci\s+вс[её]\s+равно"
)
# The change is checked before it is made: "read the diff; if the new output is intended".
REVIEWED = re.compile(
    r"\b(?:review|read|check|inspect|examine|compare|look\s+(?:at|over))\w*\s+(?:the\s+)?"
    r"(?:diffs?|changes?|output)\b|\bif\s+(?:the\s+)?(?:new\s+)?(?:output|change|diff|result)\s+"
    r"is\s+(?:intended|expected|correct|right)|\bon\s+purpose\b|\bintentional\w*"
)


# Lowering a gate is disabling it by degrees.
_WEAKEN = compile_any(
    verbs("lower reduce decrease loosen relax weaken drop", imperative=True),
    alternation(
        r"baiss\w* rédui\w* senk\w* reduzier\w* baj(?:a|ar|e|en) reduc\w* baix(?:a|ar|e|em)",
        r"reduz\w* diminu\w* abbass\w* сниз\w* пониз\w*",
    ),
    r"调低|降低|下调|放宽|下げ|緩め",
)
_GATE = re.compile(
    r"\b(?:coverage|thresholds?|gates?|(?:cov-)?fail[_-]under|strict(?:ness|\s+mode)?|"
    r"couverture|seuil|abdeckung|schwelle|grenzwert|cobertura|umbral|limiar|soglia|порог\w*|"
    r"покрыти\w*)\b|覆盖率|门槛|阈值|カバレッジ|閾値|しきい値"
)


# Routine on their own ("`pytest -k 'not slow'`", a skip marker with a reason); disabling
# when they are used to get past a failure, or put on every line.
_SKIP_MARKERS = compile_any(
    r"@pytest\.mark\.(?:skip|xfail)\b|\bpytest\.(?:skip|xfail)\(|\b(?:it|test|describe)\.skip\b|"
    r"\bx(?:it|describe)\(|@unittest\.skip\w*|#\[ignore\]|\bt\.skip\(|\b(?:xfail|skip)\s+markers?\b",
    r"\bpytest\b[^\n]{0,200}?(?:\s-k\s*[\"']?not\b|--deselect\b)",
    r"\b(?:jest|vitest)\b[^\n;|&]{0,40}?\s(?:-u|--update-?snapshots?)\b",
)
_BLANKET_SILENCER = re.compile(
    r"#\s*(?:noqa|type:\s*ignore|nosec|pylint:\s*disable)\b(?![:\[=])|//\s*@ts-ignore\b|"
    r"//\s*eslint-disable(?:-next-line|-line)?\b(?!\s+[\w@/-]+)"
)
_EVERY = re.compile(r"\b(?:every|all|any|each|whatever|whenever)\b|\ball\s+over\b|\bblanket\b")


def _silenced(reading: Reading) -> Hit | None:
    """A skip marker on a failure, or a silencing comment on every line."""
    for pattern, needs in ((_SKIP_MARKERS, _FAILING), (_BLANKET_SILENCER, _EVERY)):
        for found in reading.asked(pattern):
            sentence = reading.sentence(found.start())
            if needs.search(sentence) and not (
                REVIEWED.search(sentence) and not dismissive(sentence)
            ):
                return Hit(found.group(0).strip())
    return None


def _disable_checks(reading: Reading) -> Hit | None:
    return first(
        lambda: reading.find(_CHECK_FLAGS),
        lambda: _described_setting(reading),
        lambda: _silenced(reading),
        lambda: None if _STILL_RUNS.search(reading.text) else _checks_disabled(reading),
    )


def _checks_disabled(reading: Reading) -> Hit | None:
    return first(
        lambda: reading.find(_DISABLE, _CHECK, within=_WITHIN, prose=True),
        lambda: reading.find(_WEAKEN, _GATE, within="sentence", prose=True),
        lambda: _tests_disabled(reading),
    )


_NON_BLOCKING = re.compile(r"\b(?:allow_failure|continue-on-error)\s*:\s*true\b")
_HAS = re.compile(r"\b(?:has|have|had|uses|keeps|with)\s+[`'\"]?$")


def _described_setting(reading: Reading) -> Hit | None:
    """``allow_failure: true`` set on a job, not "the job has ``allow_failure: true``"."""
    for found in reading.asked(_NON_BLOCKING):
        before = reading.text[max(0, found.start() - 20) : found.start()]
        if not _HAS.search(before):
            return Hit(found.group(0))
    return None


def _tests_disabled(reading: Reading) -> Hit | None:
    """Skipping or deleting tests is routine ("skip the slow tests locally; CI runs them");
    doing it to get past a failure, or to all of them, is disabling them."""
    hit = reading.find(_DISABLE, _TESTS, within=_WITHIN, prose=True)
    return hit if hit is not None and _FAILING.search(reading.text) else None


# What this module reads, for the learned screen (``floor.VOCABULARY``).
VOCABULARY = concepts(
    action={"disable": _DISABLE, "weaken": _WEAKEN},
    object={"check": _CHECK, "tests": _TESTS, "gate": _GATE, "every": _EVERY, "failing": _FAILING},
    command={
        "check-flag": _CHECK_FLAGS,
        "skip-marker": _SKIP_MARKERS,
        "silencer": _BLANKET_SILENCER,
    },
    qualifier={"reviewed": REVIEWED},
)
