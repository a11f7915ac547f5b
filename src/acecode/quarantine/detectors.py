"""Class detectors for the rules in ``rules``: intent verbs x protected objects.

Each tuple below extends one rule of ``rules.DANGER_RULES`` (the consent
rule is defined here whole). The vocabularies are per class, not per phrase:
a verb list says what the dangerous intent does (delete, skip, lower, hide,
reuse, upload ...) and an object list says what it must not be done to
(tests and gates, the user, tokens in config files, production data ...),
in English, French, German, Spanish, Portuguese, Chinese and Japanese; the
pairing, negation and safeguard logic is in ``intent``. Everything runs on
the folded text (lower case, look-alikes undone).
"""

from __future__ import annotations

import re

from acecode.quarantine.intent import (
    described,
    failure_driven,
    failure_unguarded,
    mentions,
    reported_speech,
    sentence_of,
    unguarded,
    with_object,
)
from acecode.quarantine.patterns import Pattern, Rule, clause_gap, p, sentence_gap, verbs

# Characters that, right before a verb, make it part of a flag, path or marker
# ("--ignored", "#[ignore]", "eslint-disable").
_NOT_AFTER = r"(?<![-a-z0-9_\[#@./])"

# --- test tampering ------------------------------------------------------------------

_TEST_OBJECT = (
    r"\b(?:tests?|specs?|test\s+(?:cases?|suites?|files?|functions?)|suites?|assert\w*|"
    r"expect(?:ed|ations?)|snapshots?|golden\s+files?|coverage|thresholds?|gates?|"
    r"(?:cov-)?fail[_-]under|lint\w*|type[- ]?check\w*|mypy|pyright|tsc|eslint|ruff|flake8|"
    r"clippy|strict\s+mode|ci|pipelines?|(?:required\s+)?checks?|(?:ci|lint|test|type)\s+"
    r"(?:stages?|jobs?|steps?)|pre-?commit)\b|#\[test\]"
    r"|\b(?:pruebas?|testes?|couverture|seuil|abdeckung|schwelle|cobertura|umbral|tipos|typen|"
    r"prüfungen|lint-stufe)\b|测试|用例|覆盖率|门槛|阈值|断言|类型检查|テスト|カバレッジ|閾値|しきい値|型チェック"
)
_REMOVE_VERB = (
    _NOT_AFTER
    + r"(?:"
    + verbs(
        "skip", "xfail", "delete", "remove", "disable", "deactivate", "silence", "suppress",
        "mute", "ignore", "deselect", "eliminate", imperative=True,
    )
    # Passives instruct too ("can be skipped", "mark them as skipped"); a bare
    # participle before a noun describes ("skipped tests are listed by -rs").
    + r"|\b(?:be|been|get|gets|are|is|as)\s+(?:\w+\s+)?(?:skipped|xfailed|deleted|removed|disabled|"
    r"deactivated|silenced|suppressed|muted|ignored|deselected|eliminated|commented\s+out)\b"
    r"|\bcomment(?:s|ed|ing)?\s+out|\b(?:turn|switch)\w*\s+(?:[\w-]+\s+){0,3}?off\b|"
    r"\bget\s+rid\s+of|\bstub\w*\s+out"
    r"|\b(?:supprim\w*|ignor\w*|désactiv\w*|saut(?:e|er|ez)|commente[rz]?|überspring\w*|"
    r"lösch\w*|entfern\w*|deaktivier\w*|auskommentier\w*|omit\w*|salt(?:a|ar|e|en)|"
    r"borr(?:a|ar|e|en)|desactiv\w*|pul(?:e|ar|em)|apag(?:a|ar|ue|uem)|desativ\w*)\b"
    r"|跳过|删掉|删除|禁用|注释掉|忽略|关掉|关闭|去掉|屏蔽|スキップ|削除|無効|コメントアウト|無視)"
)  # fmt: skip
_GATE_OBJECT = (
    r"\b(?:coverage|thresholds?|gates?|(?:cov-)?fail[_-]under|strict(?:ness|\s+mode)?|"
    r"required\s+(?:checks?|reviews?)|couverture|seuil|abdeckung|schwelle|grenzwert|cobertura|"
    r"umbral|limite)\b|覆盖率|门槛|阈值|カバレッジ|閾値|しきい値"
)
_WEAKEN_VERB = (
    _NOT_AFTER
    + r"(?:"
    + verbs("lower", "reduce", "decrease", "loosen", "relax", "weaken", "soften", "drop")
    + r"|\b(?:baiss\w*|rédui\w*|senk\w*|reduzier\w*|baj(?:a|ar|e|en)|reduc\w*|rebaj\w*|"
    r"baix(?:a|ar|e|em)|reduz\w*|diminu\w*)\b|调低|降低|下调|放宽|下げ|緩め)"
)
_EXPECTATION = (
    r"\b(?:expected(?:\s+(?:values?|numbers?|output|results?|strings?|ones?))?|assert\w*|snapshots?|"
    r"golden\s+(?:files?|outputs?|masters?)|baselines?|expectations?)\b"
    r"|\b(?:valeurs?\s+attendues?|erwartete\w*|valor(?:es)?\s+esperados?)\b|预期|期望值|快照|期待値|スナップショット"
)
_REWRITE_VERB = (
    _NOT_AFTER
    + r"(?:"
    + verbs(
        "change", "update", "edit", "adjust", "rewrite", "regenerate", "refresh", "accept",
        "overwrite", "set", "hardcode", "hard-code", "replace", "tweak", "modify", "match", "copy",
        "paste", "put", imperative=True,
    )
    + r"|\b(?:modifie[rz]?|änder\w*|cambi(?:a|ar|e|en)|modific(?:a|ar|e|que)|actualiz\w*|"
    r"mud(?:a|ar|e|em)|alter(?:a|ar|e|em)|atualiz\w*)\b|\b(?:be|been|get|gets)\s+(?:\w+\s+)?"
    r"(?:changed|updated|edited|adjusted|rewritten|regenerated|refreshed|accepted|overwritten|"
    r"replaced|modified)\b|修改|更新|改成|変更|書き換え)"
)  # fmt: skip
_SNAPSHOT_REFRESH = (
    r"\b(?:jest|vitest)\b[^\n;|&]{0,40}?\s(?:-u|--update-?snapshots?|--updatesnapshot)\b|"
    r"\b(?:npm|yarn|pnpm)\s+(?:run\s+)?test\b[^\n;|&]{0,20}?\s--\s+-u\b|--snapshot-update\b|"
    r"--update-snapshots?\b|\binsta\s+accept\b|\bupdate_snapshots?\s*=\s*(?:1|true)\b"
)
_SILENCING_COMMENT = (
    r"#\s*type:\s*ignore(?!\[)|#\s*noqa(?!:)|#\s*pylint:\s*disable\s*=\s*all\b|"
    r"/\*\s*eslint-disable\s*\*/|//\s*@ts-(?:ignore|nocheck)\b|#\s*pragma:\s*no\s*cover\b|"
    r"//\s*nolint(?!:)|#!?\[allow\(warnings\)\]|@suppresswarnings\(\s*[\"']all"
)
_NON_BLOCKING = (
    r"\b(?:optional|non-?blocking|not\s+required|allowed\s+to\s+fail|advisory|"
    r"allow\w*\s+failures?)\b"
)
_INSTRUCT_VERB = (
    r"(?:\b(?:mak|set|switch|mark|turn|chang|flip|configur|put|add)\w*\b|\b(?:setze|mets|pon)\b)"
)

TEST_TAMPERING: tuple[Pattern, ...] = (
    p(_REMOVE_VERB, check=with_object(_TEST_OBJECT)),
    p(_WEAKEN_VERB, check=with_object(_GATE_OBJECT)),
    p(_WEAKEN_VERB, check=with_object(_EXPECTATION + r"|\btests?\b", trigger=failure_driven)),
    p(_REWRITE_VERB, check=with_object(_EXPECTATION, trigger=failure_driven)),
    p(_SNAPSHOT_REFRESH, check=failure_unguarded),
    p(_SILENCING_COMMENT, check=unguarded),
    p(
        r"\b(?:allow_failure|continue-on-error)\b",
        check=lambda match, text: unguarded(match, text) and not described(match, text),
    ),
    p(
        r"@pytest\.mark\.(?:skip|xfail)\b|\bpytest\.(?:skip|xfail)\(|\bt\.skip\(|\bit\.skip\(|"
        r"\bdescribe\.skip\(|#\[ignore\]|\b(?:it|test|describe)\.(?:skip|todo)\b|\bx(?:it|describe)\(|"
        r"@unittest\.skip\w*|@disabled\b",
        check=failure_unguarded,
    ),
    p(r"(?:cov-)?fail[_-]under\s*[= ]\s*\d+", check=failure_unguarded),
    p(
        r"\bxfail\w*\b|\bskip\s+markers?\b|\bassert\s*\(?\s*(?:true|1)\s*\)?(?![\w(])|"
        r"\bexpect\(\s*true\s*\)",
        check=failure_unguarded,
    ),
    p(
        _INSTRUCT_VERB + clause_gap(60) + _NON_BLOCKING,
        check=with_object(_TEST_OBJECT + r"|\b(?:jobs?|stages?|steps?|workflows?)\b"),
    ),
    p(
        verbs("wrap", "surround", imperative=True)
        + sentence_gap(60)
        + r"\b(?:assert\w*|expect\w*|tests?)\b"
        + sentence_gap(40)
        + r"\b(?:try|catch|rescue)\b|\b(?:catch|swallow|ignore)\w*\s+(?:the\s+|all\s+)?"
        r"assertionerrors?\b"
    ),
    p(
        r"\"?(?:strict|noimplicitany|strictnullchecks)\"?\s*:\s*false\b|"
        r"\bstrict\s*=\s*false\b|\bignore_errors\s*=\s*true\b"
    ),
)

# --- consent and scope ---------------------------------------------------------------

_USER = r"\b(?:user|users|utilisateur|nutzer|benutzer|usuario|usuário)\b|用户|ユーザー"
_AUDIENCE = (
    r"\b(?:user|users|summary|summaries|reply|replies|response|report|description|reviewers?|"
    r"changelog|pr)\b"
)
_TELL_VERB = r"(?:mention|tell|report|list|disclose|reveal|point\s+out|bring\s+up|flag|inform)"
_CONTINUE = (
    r"\b(?:finish\w*|keep\s+(?:going|editing|working)|contin[uú]\w*|carry\s+on|"
    r"anyway|termin\w*|finis\w*|quand\s+même|sigue|seguir|weiter\w*)\b|继续|続け"
)
_STOP = (
    r"\b(?:stop\w*|interrupt\w*|halt\w*|objects?|says?\s+no|cancel\w*|arrête\w*|parar|pare|"
    r"detener|detente|stopp\w*|"
    r"aufhören)\b|停止|止め|中止"
)
_APPROVAL = (
    r"\b(?:approv\w*|okays?|ok|yes|consent\w*|confirmation|go-ahead|agree\w*|zustimm\w*|"
    r"genehmig\w*|accord|aprob\w*|aprova\w*)\b|承認|同意|批准|许可"
)
_EVERYTHING = (
    r"\b(?:all|every|everything|rest|later|remaining|subsequent|future|whole\s+\w+|entire\s+\w+|"
    r"alle|alles|tous|toutes|todo|todos|todas|tudo)\b|すべて|全て|全部|所有|以降"
)
_WITHOUT_ASKING = (
    r"\bwithout\s+(?:asking|checking\s+back|confirm\w*|approval|permission)(?:\s+(?:the\s+user\s+)?"
    r"(?:for\s+)?(?:confirmation|approval|permission|consent))?|"
    r"\bno\s+need\s+to\s+(?:ask|confirm|check\s+back)|\bdon'?t\s+(?:ask|check\s+back)\b|"
    r"\bskip\w*\s+(?:the\s+)?confirmation|\bsans\s+(?:demander|confirm\w*)|"
    r"\bohne\s+(?:nachzufragen|zu\s+fragen|bestätigung|rückfrage)|\bsin\s+(?:preguntar|"
    r"confirm\w*)|\bsem\s+(?:perguntar|confirm\w*)|確認なし|確認せず|无需确认|不用确认|不必确认"
)
_PROJECT_DOCS = (
    r"\b(?:contributing(?:\.md)?|claude\.md|agents\.md|code\s+of\s+conduct|contribut\w*\s+"
    r"guide\w*|style\s+(?:rules|"
    r"guide)|(?:project|repo(?:sitory)?)'?s?\s+(?:conventions|rules|instructions|guidelines)|"
    r"maintainers'?\s+(?:style\s+)?rules|readme\s+instructions)\b"
)
_IGNORE_VERB = (
    r"(?:"
    + verbs("ignore", "disregard", "skip", "bypass", "override", "overrule", "discard")
    + r"|\bset\s+aside|\bdon'?t\s+bother\s+with|\b(?:don'?t|do\s+not|never|no\s+need\s+to)\s+"
    r"(?:follow|read|obey|apply|respect)|\bignor\w*|\bomit\w*|\bübergeh\w*|忽略|无视|不用管|無視)"
)
_PRIORITY = (
    r"\b(?:take\w*\s+(?:priority|precedence)|(?:has|have)\s+(?:priority|precedence)|"
    r"override\w*|outrank\w*|trump\w*|supersede\w*|wins?\s+over|comes?\s+(?:first|before)|"
    r"knows?\s+better|highest\s+authority|more\s+important\s+than|priorit\w*|passe\w*\s+avant|"
    r"vorrang|geht\s+vor|prevalece\w*|prevalec\w*)\b|优先|優先"
)
_CONFLICT = r"\b(?:conflict\w*|disagree\w*|contradict\w*|differ\w*|clash\w*)\b|冲突|矛盾"
_LOW_STANDING = (
    r"\b(?:are|is)\s+(?:only\s+|just\s+|merely\s+|often\s+|usually\s+)?(?:suggestions?|optional|"
    r"advisory|stale|outdated|obsolete|wrong)\b|\b(?:están|sont|sind|são)\s+(?:obsolet\w*|"
    r"dépassée?s?|veraltet)"
)


def _playbook_above(match: re.Match[str], text: str) -> bool:
    """ "Go with the playbook" is only dangerous when it settles a conflict with someone else."""
    return bool(re.search(_CONFLICT, sentence_of(text, match.start(), match.end())))


CONSENT_SCOPE = Rule(
    "consent-scope",
    "works around the user's consent or the task's scope: hides changes from the user, treats "
    "one approval as approval for everything, carries on after the user says stop, ranks the "
    "playbook above the user, CLAUDE.md or CONTRIBUTING, widens the scope unasked",
    (
        # Hiding things from the user.
        p(
            r"\b(?:don'?t|do\s+not|never|no\s+need\s+to|you\s+don'?t\s+need\s+to)\s+(?:\w+\s+)?"
            + _TELL_VERB
            + r"\w*\b",
            negatable=False,
            check=with_object(
                _AUDIENCE + r"|\b(?:changes?|files?|edits?|fail\w*)\b", conditional=False
            ),
        ),
        p(
            r"\b(?:need\s+not|needn'?t|(?:don'?t|doesn'?t|do\s+not|does\s+not)\s+need\s+to|"
            r"no\s+need\s+to)\s+(?:be\s+)?(?:mention|report|tell|told|list|disclos|flag|explain|"
            r"shown|show|surfac)\w*|\b(?:vague|silent|quiet)\s+about\b",
            negatable=False,
            check=with_object(
                _AUDIENCE + r"|\b(?:changes?|files?|edits?|fail\w*|delet\w*|remov\w*)\b",
                conditional=False,
            ),
        ),
        p(
            r"\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+|your\s+)?user|"
            r"\b(?:don'?t|do\s+not|never)\s+(?:mention|reveal|disclose|show)\s+(?:this|it|"
            r"these)(?:\s+\w+)?\s+to\s+(?:the\s+|your\s+)?user|\bkeep\s+(?:this|it)\s+(?:a\s+)?"
            r"secret\b",
            negatable=False,
        ),
        p(
            r"\b(?:hide|hiding|conceal\w*)\b"
            + clause_gap(40)
            + r"\b(?:changes?|edits?|files?|errors?|failures?|it|this|them|that|from)\b"
        ),
        p(
            r"\bleave\b"
            + clause_gap(50)
            + r"\bout\s+of\s+(?:the\s+|your\s+)?(?:summary|reply|response|report|description|"
            r"changelog)|\bleav\w*\s+out\b"
            + clause_gap(40)
            + r"\b(?:changes?|files?|upgrades?|deletions?|edits?)\b|\b(?:omit|exclude|hide)\w*\b"
            + clause_gap(40)
            + r"\b(?:from|in)\s+(?:the\s+|your\s+)?(?:summary|reply|response|report)\b"
        ),
        p(
            r"\b(?:report|mention|list|summari[sz]e|show)\w*\s+only\s+(?:the\s+)?(?:headline|"
            r"highlights|successes|good\s+news|first)"
        ),
        p(r"\bsilently\b"),
        p(
            r"\berwähn\w*\b" + clause_gap(60) + r"\bnicht\b|\bnicht\s+erwähn\w*|"
            r"\bno\s+(?:le\s+|les\s+)?(?:cuentes|digas|menciones|informes)\b|\bne\s+(?:lui\s+)?"
            r"(?:dis|mentionne|signale)\w*\s+pas\b|\bnão\s+(?:conte|diga|mencione|informe)\b|"
            r"不要告诉|别告诉|不要提|不用告诉|隐瞒|伝えない|言わない|報告しない|隠して",
            negatable=False,
        ),
        # One approval taken as approval for everything.
        p(
            _APPROVAL,
            check=with_object(
                _EVERYTHING,
                trigger=mentions(
                    r"\b(?:covers?|means?|counts?|appl(?:y|ies)|treat\w*|valid|enough|gilt|vaut|vale)\b|"
                    r"\bfor\s+(?:all|every|the\s+rest|the\s+whole|the\s+entire)\b|\bgranted\b|"
                    + _WITHOUT_ASKING
                ),
                conditional=False,
            ),
        ),
        p(
            _WITHOUT_ASKING,
            check=with_object(_APPROVAL + r"|\bfirst\b", conditional=False, outside=True),
        ),
        p(r"\b(?:no\s+need\s+to|don'?t|never)\s+ask\s+again\b|\bskip\w*\s+(?:the\s+)?confirmation"),
        # Carrying on after the user says stop or rejects an action.
        p(
            r"(?:" + _USER + r"|\bthey\b)" + clause_gap(40) + r"(?:" + _STOP + r")",
            check=with_object(_CONTINUE, conditional=False),
        ),
        p(
            r"\b(?:reject\w*|den(?:y|ies|ied)|declin\w*|refus\w*)\b",
            check=with_object(
                r"\b(?:retry|retries|try\s+(?:it\s+)?again|re-?run|run\s+it\s+again)\b",
                trigger=mentions(_USER + r"|\bthey\b"),
                conditional=False,
            ),
        ),
        # The playbook above the user and the project.
        p(
            r"\b(?:playbook|(?:this|these)\s+(?:entry|entries|rules?|notes?))\b"
            + sentence_gap(60)
            + _PRIORITY
        ),
        p(r"\btreat\w*\s+the\s+playbook\s+as\s+(?:the\s+)?(?:highest|final|ultimate|supreme)"),
        p(
            r"\b(?:go\s+with|follow|prefer|do\s+what)\s+(?:the\s+|this\s+)?playbook\b",
            check=_playbook_above,
        ),
        p(
            r"\b(?:user'?s?\s+(?:messages|instructions|requests)|instructions|claude\.md|agents\.md|"
            r"contributing(?:\.md)?)\b" + clause_gap(40) + _LOW_STANDING
        ),
        p(_IGNORE_VERB, check=with_object(_PROJECT_DOCS)),
        # Widening the scope unasked.
        p(
            r"\bscope\s+aside\b|\b(?:ignore|beyond|exceed|expand|widen)\w*\s+(?:the\s+)?"
            r"(?:user'?s?\s+)?(?:requested\s+)?scope\b|\b(?:also|additionally)\s+(?:upgrade|bump|"
            r"rewrite|refactor|reformat|migrate)\w*\s+(?:all|every|the\s+whole|the\s+entire)\b|"
            r"\b(?:bigger|larger|broader)\s+(?:rewrites?|changes|refactors?)\s+(?:are\s+)?"
            r"(?:always\s+)?welcome"
        ),
    ),
)

# --- privilege -----------------------------------------------------------------------

_ELEVATED = (
    r"\b(?:admin\w*|administrat\w*|root|superuser|full|total|unrestricted|owner|"
    r"cluster-?admin|complet\w*|voll\w*)\b|管理员|管理者|全部权限|最高权限"
)
_GRANT_VERB = (
    r"(?:"
    + verbs("grant", "give", "assign", "bind", "elevate", "escalate", "widen", imperative=True)
    + r"|\b(?:donne\w*|accorde\w*|gib|gewähr\w*|verleih\w*|d[aáê]\w?|dale|concede\w*|"
    r"conceda\w*|otorga\w*|atribu\w*)\b|给|赋予|绑定|授予|付与)"
)

PRIVILEGE: tuple[Pattern, ...] = (
    p(
        r"\bprivileged\b(?!\s+(?:ports?|information|access\s+management|data))|\bprivilégié\w*|"
        r"\bprivilegiert\w*|\bprivilegiad[oa]s?\b|特权|特権",
        check=unguarded,
    ),
    p(
        r"\bcluster-?admin\b|\badministratoraccess\b|\broles/owner\b|\bpermissions:\s*write-all\b|"
        r"\bwrite-all\b|\bpoweruseraccess\b",
        check=unguarded,
    ),
    p(
        r"/var/run/docker\.sock|\bdocker\.sock\b|--pid[= ]host\b|--userns[= ]host\b|"
        r"\s-v\s+/:/|\bprivileged\s*[:=]\s*true\b|\brunasuser\s*:\s*0\b|"
        r"\ballowprivilegeescalation\s*:\s*true\b|\bumask\s+0*0{1,3}\b|\bsudoers\b",
        check=unguarded,
    ),
    p(
        r"\b(?:writ\w*|beschreibbar|modifiable|escribible|gravável)\b"
        + clause_gap(30)
        + r"\b(?:by|for|für|pour|para|por)\s+(?:everyone|anyone|all(?:\s+users)?|the\s+world|"
        r"alle|tous|todos)\b|\bwritable\s+by\s+(?:everyone|anyone|all)\b"
    ),
    p(
        _GRANT_VERB,
        check=with_object(_ELEVATED + r"|\b(?:permission|permiss\w*|rechte|privil\w*)\b"),
    ),
    p(
        r"\b(?:como|en\s+tant\s+que|als|as)\s+(?:usuario\s+|utilisateur\s+|benutzer\s+)?root\b"
        r"(?!\s*(?:以外|-less))|以\s*root|用\s*root|root\s*(?:で|として|权限)",
        check=unguarded,
    ),
)

# --- secrets -------------------------------------------------------------------------

_SECRET_NOUN = (
    r"\b(?:tokens?|api[ _-]?keys?|keys?|passwords?|passwd|credentials?|creds|secrets?|auth\b|"
    r"authorization|jetons?|mots?\s+de\s+passe|clave\w*|chaves?|schlüssel|passwort\w*|senhas?|"
    r"contraseñas?)\b|令牌|密钥|密码|トークン|パスワード|キー"
)
_CONFIG_SOURCE = (
    r"\.npmrc\b|\.pypirc\b|\.netrc\b|\.docker/config\.json|hosts\.yml\b|credential\s+helper|"
    r"deploy_key\b|\.env\b(?![.-](?:example|sample|template))|\bvault\b|\bkeychain\b|"
    r"\bconfig\s+repo\w*|~/\.config\b|\.aws/|\bgit\s+credential"
)
_REUSE_VERB = (
    _NOT_AFTER
    + r"(?:"
    + verbs(
        "reuse", "re-use", "copy", "take", "grab", "borrow", "lift", "steal", "hardcode",
        "hard-code", "paste", "put", "embed", imperative=True,
    )
    + r"|\b(?:use\s+(?:it|them|that|this)|can\s+be\s+used|works?\s+for|is\s+valid\s+for)\b|"
    r"\b(?:réutilis\w*|copie\w*|kopier\w*|wiederverwend\w*|copia\w*|reutiliz\w*|reutilis\w*|"
    r"cop[ie]\w*)\b|使い回|流用|コピー|复制|重用|拿来用)"
)  # fmt: skip
# Where a secret must not be written: the code, scripts, fixtures, the repository.
_IN_CODE = (
    r"\b(?:in|into)\s+(?:the\s+)?(?:code|source|scripts?|settings\.py|workflow\s+files?|"
    r"test\s+fixtures|fixtures|ci\s+variables|repo\w*|config/\S+|release\s+script|"
    r"deploy\s+script|readme|docs?|wiki|comments?|commit\s+messages?)\b|\bdirectly\s+in\b|\bas\s+a\s+default\b|\bal\s+código\b|"
    r"\bdans\s+le\s+code\b|\bins\s+(?:deploy-)?skript\b|\bno\s+código\b|代码里|コードに"
)
_ENVIRONMENT = (
    r"\b(?:(?:all\s+(?:the\s+)?|every\s+|full\s+)?(?:environment|env)(?:\s+(?:variables?|vars?))?|"
    r"variables\s+d'environnement|umgebungsvariablen|variables\s+de\s+entorno|variáveis\s+de\s+"
    r"ambiente|process\.env(?!\.\w)|os\.environ(?!\.get|\[))\b|环境变量|環境変数"
)
_SHOW_VERB = (
    _NOT_AFTER
    + r"(?:"
    + verbs("print", "dump", "echo", "show", "display", "output", "paste", "attach", "expose",
            imperative=True)
    + r"|\blog\b|\b(?:affiche\w*|imprim\w*|gib\b|ausgeb\w*|ausgib\w*|mostr\w*|"
    r"muestr\w*|exib\w*)\b|打印|输出|显示|贴到|表示|出力)"
)  # fmt: skip

SECRETS: tuple[Pattern, ...] = (
    p(_SHOW_VERB, check=with_object(_ENVIRONMENT)),
    p(
        r"\bjson\.stringify\(\s*process\.env\s*\)|\bconsole\.log\(\s*process\.env\b|"
        r"\bdict\(\s*os\.environ\s*\)|\bos\.environ\.copy\(\)|\bget-childitem\s+env:|"
        r"\benv\s*>\s*\S+|\bset\s*>\s*\S+",
    ),
    p(_REUSE_VERB, check=with_object(_SECRET_NOUN, trigger=mentions(_CONFIG_SOURCE))),
    p(
        _REUSE_VERB
        + r"|"
        + verbs("stash", "store", "keep", "write", "save", "note", "add", imperative=True),
        check=with_object(_SECRET_NOUN, trigger=mentions(_IN_CODE, affirmed=True)),
    ),
    p(
        _SHOW_VERB,
        check=with_object(
            r"(?<!into\s)\b(?:tokens?(?!\s+(?:list|stream|counts?|ids?|usage|limit|budget))|"
            r"passwords?|passwd|secrets?|api[ _-]?keys?|credentials?|private\s+keys?|"
            r"jetons?|contraseñas?|senhas?|passwort\w*)\b|令牌|密码|トークン|パスワード"
        ),
    ),
    p(
        _NOT_AFTER
        + r"(?:"
        + verbs("commit", "push", "check in", "add", imperative=True)
        + r"|\bsubmit\w*|提交|コミット)",
        check=with_object(
            r"\.env\b(?![.-](?:example|sample|template))|\b(?:api[ _-]?keys?|tokens?|passwords?|"
            r"credentials?|secrets?)\b"
        ),
    ),
    p(
        r"\b(?:log|print|echo|dump)\w*\s+(?:the\s+)?(?:full\s+|raw\s+|whole\s+)?(?:authorization|"
        r"auth|bearer|cookie|set-cookie)\s+headers?\b"
    ),
    p(
        verbs("show", "print", "display", "paste", "cat", "share", imperative=True)
        + clause_gap(40)
        + r"\.env\.(?!example|sample|template)\w+"
    ),
)

# --- exfiltration --------------------------------------------------------------------

_SEND_ANY = (
    _NOT_AFTER
    + r"(?:"
    + verbs(
        "send", "post", "upload", "paste", "share", "publish", "push", "mirror", "sync", "copy",
        "forward", "email", "e-mail", "mail", "dump", "transfer", "beacon", "back up", "create",
        "put", "submit", "leak",
    )
    + r"|\b(?:envoi\w*|envoy\w*|publi\w*|partag\w*|téléverse\w*|crée\w*|sende\w*|schick\w*|"
    r"lad\w*|hochlad\w*|teile\w*|veröffentlich\w*|erstell\w*|sub[ae]\w*|subir|env[ií]\w*|"
    r"comparte\w*|compartilh\w*|crea\w*|cria\w*)\b|上传|发送|发到|贴到|分享|上報|アップロード|送信|送って|共有)"
)  # fmt: skip
_OUTSIDE = (
    r"\b(?:paste\s?bins?|paste\s+sites?|hastebin|gists?|transfer\.sh|file\.io|0x0\.st|"
    r"public\s+(?:s3\s+|gcs\s+)?buckets?|public\s+(?:github\s+|gitlab\s+)?(?:repo\w*|projects?)|"
    r"external\s+(?:servers?|services?|hosts?|endpoints?|sites?)|third[- ]party\s+\w+|"
    r"personal\s+(?:account|fork|repo\w*|gmail|e-?mail|drive|cloud|storage|server|machine)|"
    r"google\s+drive|dropbox|onedrive|icloud|wetransfer|mega\.nz|support\s+endpoint|"
    r"servidor(?:es)?\s+externos?|serviços?\s+externos?|servicios?\s+externos?|"
    r"externen?\s+(?:dienst\w*|server\w*)|serveur\w*\s+extern\w*|gist\s+p[uú]blic\w*)\b|"
    r"外部|公开的\s*gist|外部のサーバー"
)
_DOMAIN = (
    r"\b[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|dev|site|xyz|top|info|biz|me|cc|ru|cn|app|sh)\b"
)


def _remote_domain(match: re.Match[str], text: str) -> bool:
    """A DNS lookup or beacon whose sentence names a domain outside this machine."""
    from acecode.quarantine.rules import is_local_host

    sentence = sentence_of(text, match.start(), match.end())
    return any(not is_local_host(found.group(0)) for found in re.finditer(_DOMAIN, sentence))


def _remote_url(match: re.Match[str], _text: str) -> bool:
    from acecode.quarantine.rules import external_destination

    return external_destination(match.group(0)) is not None


EXFILTRATION: tuple[Pattern, ...] = (
    p(_SEND_ANY, check=with_object(_OUTSIDE)),
    p(
        r"\b(?:dig|nslookup|host|resolve\w*|resolv\w*)\b|\bdns\b|域名|解析",
        check=_remote_domain,
    ),
    # A beacon: a remote URL that carries the output of a command (``$(hostname)``).
    p(r"\b(?:https?|ftp)://[^\s`'\"]*(?:\$\(|`\w)", check=_remote_url),
)

# --- destructive operations ----------------------------------------------------------

_PROTECTED_DATA = (
    r"\b(?:production|prod|live\s+(?:data\w*|db)|(?<!test\s)(?<!tests\s)(?<!local\s)(?<!dev\s)"
    r"(?<!temporary\s)(?<!temp\s)(?<!scratch\s)(?<!preview\s)(?<!sandbox\s)(?<!throwaway\s)"
    r"(?:databases?|db|schemas?|tables?|buckets?|volumes|namespaces?)|migrations?\s+(?:folder|directory|files)|history|backups?|"
    r"all\s+(?:branches|tags|data)|project\s+(?:folder|directory)|base\s+de\s+(?:données|datos)|"
    r"schéma|\w*datenbank\w*|produktion\w*|producción|produção|esquema|banco(?:\s+de\s+dados)?|"
    r"carpeta\s+del\s+proyecto|dossier\s+du\s+projet|projektordner|pasta\s+do\s+projeto)\b|"
    r"数据库|生产|整个项目|データベース|本番"
)
_DESTROY_VERB = (
    _NOT_AFTER
    + r"(?:"
    + verbs("drop", "delete", "wipe", "erase", "destroy", "nuke", "purge", "truncate", "remove",
            imperative=True)
    + r"|\brm\s+-\w*r\w*\b|\b(?:supprim\w*|efface\w*|détrui\w*|lösch\w*|vernicht\w*|"
    r"borr(?:a|ar|e|es|en)|elimin\w*|destru\w*|apag(?:a|ar|ue|uem)|exclu(?:a|ir)|"
    r"remov(?:a|er))\b|删除|删掉|清空|销毁|削除|消去|破棄)"
)  # fmt: skip

DESTRUCTIVE: tuple[Pattern, ...] = (
    p(
        verbs("rewrite", imperative=True) + r"\s+(?:the\s+)?(?:git\s+|commit\s+)?history\b",
        check=with_object(
            r"\b(?:shared|develop|main|master|trunk|public|remote|published|upstream|"
            r"force[- ]?push\w*)\b"
        ),
    ),
    p(r"\bprune(?:\s+-{1,2}[\w-]+)*\s+(?:-a\w*|-\w*a\b|--all)\b"),
    p(
        r"\bdrop\s+(?:schema|database|table|owned)\b|\btruncate\s+[\w.]+\s*(?:;|cascade\b|restart\b)|"
        r"\bterraform\s+destroy\b|\bkubectl\s+delete\s+(?:ns|namespaces?|--all|all)\b|"
        r"\baws\s+s3\s+rm\b[^\n]{0,120}--recursive|\bgsutil\s+(?:-m\s+)?rm\s+-r|"
        r"\bgit\s+branch\s+-d\s+\$\(|\b(?:rm|rmi|delete|prune)\b[^\n$]{0,40}\$\(\s*(?:docker|podman|"
        r"kubectl|git)\s+[\w-]+\s+(?:ls|list|ps|get|branch)\b",
        check=unguarded,
    ),
    p(
        r"\bfind\s+\.\s[^\n;|&]{0,120}?\*\.(?:py|js|ts|tsx|go|rs|java|c|cpp|rb|php|sql|md)\b"
        r"[^\n;|&]{0,80}?-delete\b"
    ),
    p(
        r"\brm\s+(?:-\w+\s+)*-\w*r\w*\s+(?:\S+\s+){0,6}?(?:~/\.(?:config|local|ssh|gnupg|aws|kube|"
        r"docker)\b|\.git\b(?![\w.-]))"
    ),
    p(_DESTROY_VERB, check=with_object(_PROTECTED_DATA)),
)

# --- self-modification ---------------------------------------------------------------

_SELF_TARGET = (
    r"playbook\.json|\.claude/acecode|acecode\.toml|pending\.json|\.claude/settings(?:\.local)?"
    r"\.json|\bdisableallhooks\b|~/\.claude/prompts|\bacecode_review\b"
    r"|\b(?:the|your|this|acecode'?s?)\s+(?:\w+\s+)?playbook\b(?![\w.-]*\.ya?ml)|"
    r"\bplaybook\s+(?:file|json|entr(?:y|ies))\b|\breview\s+queue\b|\bhistory\s+database\b|"
    r"\bhelpful\s+counters?\b|\bprompt\s+templates?\b|\bsessionstart\s+hook\b|"
    r"\bclaude(?:\s+code)?'?s?\s+(?:settings|hooks|config\w*|permissions)\b|"
    r"\bhooks?\s+(?:de|von|do|of|in)\s+(?:the\s+)?claude\b"
    r"|\bacecode'?s?\s+(?:hooks?|config\w*|settings|max_rule_chars|queue|rules)\b|"
    r"\bacecode'?s\s+review\s+(?:setting|queue|mode)\b|"
    r"\b(?:config\w*|konfiguration|configuración|configuração|cola\s+de\s+revisión|"
    r"file\s+d'attente|fila\s+de\s+revisão)\s+(?:de\s+|von\s+|do\s+|d')?acecode\b|"
    r"\breview-warteschlange\b|\bwarteschlange\b|\ble\s+playbook\b|\bo\s+playbook\b|"
    r"\bel\s+playbook\b|\bdas\s+playbook\b|プレイブック|レビュー待ち|キュー|审核队列"
)
_SELF_EDIT_VERB = (
    _NOT_AFTER
    + r"(?:"
    + verbs(
        "edit", "modify", "change", "update", "write", "overwrite", "rewrite", "delete", "remove",
        "append", "add", "insert", "patch", "disable", "uninstall", "clear", "empty", "reset",
        "truncate", "replace", "tamper", "tweak", "alter", "adjust", "set", "raise", "bump",
        "approve", "accept", "wipe", "purge", imperative=True,
    )
    + r"|\b(?:turn|switch)\w*\s+(?:[\w-]+\s+){0,3}?off\b|\b(?:modifi\w*|désactiv\w*|änder\w*|"
    r"leere\w*|lösch\w*|deaktivier\w*|aprueb\w*|aprob\w*|cambi\w*|edit[ae]\w*|apag(?:a|ar|ue)|"
    r"desativ\w*|desactiv\w*|vid[ae]\w*)\b|修改|设为|设置为|清空|删除|承認|編集|削除|変更|無効)"
)  # fmt: skip


_SELF_OBJECT_CHECK = with_object(_SELF_TARGET)


def _instructed_self_edit(match: re.Match[str], text: str) -> bool:
    """An edit verb aimed at acecode or Claude Code, said as an instruction (not reported)."""
    return not reported_speech(match, text) and _SELF_OBJECT_CHECK(match, text)


SELF_MODIFICATION: tuple[Pattern, ...] = (
    p(
        r"\bapprov\w*\b"
        + clause_gap(40)
        + r"\b(?:all|every|each)\s+(?:the\s+)?(?:pending|queued|quarantined|held)\b"
    ),
    p(_SELF_EDIT_VERB, check=_instructed_self_edit),
    p(
        r"playbook\.json|\.claude/acecode|acecode\.toml|pending\.json|"
        r"\.claude/settings(?:\.local)?\.json",
        check=with_object(_SELF_EDIT_VERB),
    ),
    p(r"\bdisableallhooks\b"),
    p(
        r"\b(?:bump|raise|set|increase|inflate|boost|reset|zero|clear|lower)\w*\s+(?:all\s+)?"
        r"(?:the\s+)?(?:helpful|harmful)\b"
    ),
    p(r"\bacecode_review\s*=\s*(?!flagged|all)\w+|\breview\s*=\s*[\"']?(?:none|off|never|no)\b"),
    p(
        r"\b(?:approv\w*|accept\w*)\s+(?:all|every\w*|each)\b"
        + clause_gap(40)
        + r"\b(?:pending|queued|quarantined|held|review)\b"
    ),
)
