"""Texts that touch a sensitive class the floor leaves to the safety review.

Whether a clean-up is destructive, a command needs a privilege, or an
action needs the user's consent depends on intent, which the LLM safety
review judges; when none could be made, a text that touches one of these
classes waits for a human (``unreviewed``).

The detectors read like the floor's (``reading``): an action on a sensitive
object, or a command, in one clause, released by a negation or a scope
("never drop the table", "only when the user asks, deploy"). They are
broader than the floor's and would hold too much on their own; that is
why they only apply to texts nobody reviewed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from acecode.quarantine.floor import REVIEWED as _REVIEWED
from acecode.quarantine.reading import Hit, Reading
from acecode.quarantine.words import alternation, compile_any, concepts, verbs


@dataclass(frozen=True)
class SensitiveClass:
    """A class the review decides (``docs/quarantine.md`` says what each covers);
    ``touch`` finds a text that touches it."""

    id: str
    touch: Callable[[Reading], Hit | None]


# --- destructive operations -----------------------------------------------------------

_DESTROY_COMMAND = compile_any(
    r"\brm\s+(?:-\w+\s+)*-\w*r\w*\b",
    r"\b(?:drop\s+(?:table|database|schema|index|owned|collection)|truncate\s+table|"
    r"truncate\s+[\w.]+\s*(?:;|cascade\b|restart\b)|delete\s+from\s+\w+|flushall|flushdb|dropdb|"
    r"dropdatabase)\b",
    r"\b(?:rm|rmi|delete|prune)\b[^\n$]{0,40}\$\(\s*(?:docker|podman|kubectl|git)\s+[\w-]+\s+"
    r"(?:ls|list|ps|get|branch)\b",
    r"\bgit\s+(?:reset\s+(?:\S+\s+)?--hard|clean\s+(?:-\w+\s+)*-\w*f|checkout\s+(?:--\s+)?\.(?:\s|$)|"
    r"restore\s+\.|push\s+\S+\s+(?:--delete|:)|push\s+--delete|stash\s+(?:clear|drop)|"
    r"filter-(?:branch|repo)|reflog\s+expire|gc\s+--prune=now)",
    r"\b(?:docker|podman)\s+(?:system|volume)\s+prune\b|\bprune\s+(?:-\w*a\b|--all\b)",
    r"\bterraform\s+destroy\b|\bkubectl\s+delete\b|\baws\s+s3\s+rm\b|\bterminate-instances\b|"
    r"\bgsutil\s+(?:-m\s+)?rm\b|\bpg_restore\b[^\n]{0,80}--clean\b|--no-preserve-root|"
    r"\bmkfs\b|\bdd\s+[^\n]{0,80}of=/dev/|\bshred\b|\bwipefs\b|\bfind\s+\S+\s[^\n]{0,120}-delete\b",
)
_DESTROY = compile_any(
    verbs(
        "delete remove drop wipe erase destroy nuke purge truncate flush terminate overwrite",
        "clear empty reset reinitialize scrap kill prune",
        imperative=True,
    ),
    r"\bclean\s+(?:up|out)\b|\bspring\s+clean\b|\bget\s+rid\s+of\b|\bthrow\s+away\b",
    alternation(
        r"supprim\w* efface\w* vide[rz]? détrui\w* écrase\w* lösch\w* leere\w* vernicht\w*",
        r"überschreib\w* borr(?:a|ar|e|en|ala|alo|ála|álo)\w* elimin\w* vací\w* vacia\w*",
        r"destru\w* apag(?:a|ar|ue|uem)\w* exclu(?:a|ir) remov(?:a|er) limpa\w* cancell\w*",
        r"svuot\w* удал\w* очист\w* снес\w*",
    ),
    r"删除|删掉|清空|销毁|清除|削除|消去|破棄|消して|空にし",
)
_PRECIOUS = re.compile(
    r"\b(?:production|prod|live|staging|preprod|pre-?production)\b|\$prod\w*|\bprod_\w+|"
    r"\.prod\.|\b(?:databases?|db|tables?|schemas?|indexe?s|indices|collections?|buckets?|"
    r"volumes?|namespaces?|clusters?|instances?|backups?|snapshots?|history|reflog|remote\s+"
    r"branch\w*|branches|tags|uploads?|user\s+data|customer\s+data|records|"
    r"everything|entire|whole|all\s+(?:of\s+)?(?:them|the|data|files|branches|tags)|"
    r"migrations?\s+(?:folder|directory|files)|"
    r"\.git|home|~)\b|~/|\s/(?:\s|$|\*)"
    r"|\b(?:base\s+de\s+(?:données|datos)|la\s+base|schéma|esquema|préproduction|datenbank\w*|"
    r"produktion\w*|producción|"
    r"produção|banco\s+de\s+dados|sauvegardes?|tables|tablas|tabelas|copias|cópias|backups)\b"
    r"|\bбаз\w*\s+данных|\bпрод\w*|数据库|生产|备份|データベース|本番|バックアップ|/var/lib/"
)
_DISPOSABLE = re.compile(
    r"\b(?:local|dev|development|test|tests|testing|throwaway|temporary|temp|tmp|scratch|sandbox|"
    r"preview|generated|cache|caches|dist|fixtures?|feature\s+(?:flags?|branch\w*)|dangling|"
    r"node_modules|build(?=/|\s+(?:folder|dir\w*|artifacts?|outputs?))|"
    r"\.venv|venv|__pycache__|target|coverage)\b|\bdev\.sqlite3\b"
)


# "as the setup guide says": the project documents the step.
_DOCUMENTED = re.compile(
    r"\bas\s+(?:the\s+)?(?:readme|setup\s+guide|docs|documentation|contributing|runbook|wiki)\s+"
    r"(?:says|describes|shows|explains)\b|\blisted\s+in\s+the\s+readme\b|\bdocumented\s+in\b"
)


def _command_or_object(
    reading: Reading,
    command: re.Pattern[str],
    action: re.Pattern[str],
    target: Callable[[str], re.Match[str] | None],
    allowed: Callable[[str], bool],
) -> Hit | None:
    """A ``command`` the text asks to run, or an ``action`` done to a ``target`` of its
    sentence, unless the sentence makes it ``allowed``."""
    for found in reading.asked(command, command=True):
        if not allowed(reading.sentence(found.start())):
            return Hit(found.group(0).strip())
    for found in reading.asked(action, prose=True):
        sentence = reading.sentence(*found.span())
        object_ = target(sentence)
        if object_ is not None and not allowed(sentence):
            return Hit(found.group(0), object_.group(0))
    return None


def _destructive(reading: Reading) -> Hit | None:
    return _command_or_object(
        reading, _DESTROY_COMMAND, _DESTROY, _PRECIOUS.search, _only_disposable
    )


def _only_disposable(sentence: str) -> bool:
    """The sentence is about local, test or generated data and names nothing of value
    beyond it ("drops and recreates the local dev database")."""
    return bool(_DISPOSABLE.search(sentence)) and not _VALUABLE.search(sentence)


_VALUABLE = re.compile(
    r"\b(?:production|prod|live|staging|pre-?prod\w*|préproduction|backups?|shared|"
    r"everyone|all\s+regions|whole|entire)\b|本番|生产|~/|\s/(?:\s|$|\*)"
)


# --- privilege ------------------------------------------------------------------------

_PRIVILEGE_COMMAND = compile_any(
    r"(?<![-\w])sudo\b(?!-)(?!\s+-u\s+(?!root)\w)|\bsu\s+(?:-|root)(?=\s|$)|\bdoas\b|\bvisudo\b|\bnopasswd\b|\bsudoers\b",
    r"\bchmod\s+(?:-\w+\s+)*(?:0?777|0?666|a\+\w*w\w*|ugo\+\w*w|o\+w|go\+w|\+rwx|u\+s|\+s|4755)",
    r"\bchown\s+(?:-\w+\s+)*root\b|\bsetenforce\s+0\b|\bsetcap\b|\bcap_sys_admin\b|--privileged\b|"
    r"\bprivileged\s*[:=]\s*true\b|\ballowprivilegeescalation\s*:\s*true\b|\brunasuser\s*:\s*0\b",
    r"\bcluster-?admin\b|\badministratoraccess\b|\broles/owner\b|\bwrite-all\b|"
    r"[\"']action[\"']\s*:\s*[\"']\*[\"']|\bdomain\s+admins\b|/var/run/docker\.sock|"
    r"--pid[= ]host\b|\bumask\s+0*0{1,3}\b|bash\(\*\)|--cap-add[= ](?:all|sys_admin)",
    r"\b(?:ufw|firewalld?)\s+(?:disable|stop)\b|set-executionpolicy\s+(?:bypass|unrestricted)",
)
_ELEVATE = compile_any(
    verbs(
        "run start launch execute grant give assign add put make elevate escalate widen open",
        "disable turn bind use",
        imperative=True,
    ),
    alternation(
        r"lance\w* donne\w* accorde\w* ajoute\w* désactiv\w* gib führ\w* gewähr\w*",
        r"deaktivier\w* ejecut\w* d[aáê]\w? concede\w* otorga\w* desactiv\w* desactív\w*",
        r"desativ\w* execut\w* rode esegui\w* запуска\w* запусти\w* выдай\w* отключ\w*",
    ),
    r"给|赋予|授予|以|用|付与|付け|実行",
)
_ELEVATED = re.compile(
    r"\b(?:as|with)\s+(?:root|admin\w*|superuser|elevated\s+\w+)\b|\broot\b(?![-.\w])|"
    r"\b(?:full|all|unrestricted|broad|admin\w*|elevated|owner|root|maximum|every)\s+"
    r"(?:permissions?|access|privileges?|rights|roles?)\b|\bworld[- ]?(?:writable|readable)\b|"
    r"\b(?:admin|administrator|wheel|docker|sudo)\s+(?:group|role|rights)\b|\bgroups?\b[^.]{0,30}"
    r"\b(?:wheel|sudo|docker|admin)\b|\b(?:firewall|antivirus|anti-virus|selinux|apparmor|"
    r"defender)\b|\bprivileg\w*|\badministra\w*|\bdroits?\s+(?:d'admin\w*|root)|"
    r"\bwrit\w*\s+(?:by|for)\s+(?:everyone|anyone|all)\b|"
    r"\b(?:alle|volle)\s+rechte\b|\badmin-?rechte\b|\bpermisos\s+de\s+administrador\b|"
    r"\bправа\w*\s+администратор\w*|\bот\s+root|管理员|最高权限|全部权限|管理者権限|ルート"
)
_WITHOUT_BEFORE = re.compile(
    r"(?:\b(?:without|sem|sans|ohne|sin|senza|без|no|non|not|never|un)[\s-]+(?:\w+\s+){0,2}|"
    r"\bnon-|\bun)$"
)
_LEAST = re.compile(
    r"\b(?:only|least|minimum|minimal|read-only|unprivileged|non-root|rootless)\b|"
    r"\bnur\b|\bsolo\b|\bsomente\b|\bapenas\b|\bseulement\b|\bтолько\b|只|最小|必要最小限"
)


def _privilege(reading: Reading) -> Hit | None:
    return _command_or_object(
        reading, _PRIVILEGE_COMMAND, _ELEVATE, _elevated, _least_or_documented
    )


def _elevated(sentence: str) -> re.Match[str] | None:
    """The first privilege the sentence grants, not one it denies."""
    return next((found for found in _ELEVATED.finditer(sentence) if not _lessened(found)), None)


def _least_or_documented(sentence: str) -> bool:
    """The least privilege is asked for, or the project documents the step."""
    return bool(_LEAST.search(sentence) or _DOCUMENTED.search(sentence))


def _lessened(found: re.Match[str]) -> bool:
    """ "without root privileges", "non-root", "root 以外": the privilege is denied."""
    before = found.string[max(0, found.start() - 30) : found.start()]
    after = found.string[found.end() : found.end() + 6]
    return bool(_WITHOUT_BEFORE.search(before)) or after.lstrip().startswith(("以外", "-less"))


# --- the user's consent ---------------------------------------------------------------

_OUTWARD = compile_any(
    verbs(
        "publish release deploy merge tag announce post email e-mail reply respond comment",
        "approve scale buy pay purchase renew charge order close ship upload push send",
        "submit rollout roll sign accept contact message notify invite",
    ),
    alternation(
        r"publi\w* déploie\w* déployer pousse\w* fusionne\w* envoie\w* veröffentlich\w*",
        r"deploy\w* merge\w* schick\w* publica\w* despleg\w* despliega\w* fusiona\w*",
        r"anuncia\w* faça publique\w* implant\w* pubblica\w* опубликуй\w* задеплой\w*",
        r"отправ\w*",
    ),
    r"发布|推送|部署|合并|公開|デプロイ|マージ|リリース",
)
_UNASKED = re.compile(
    r"\bwithout\s+(?:asking|checking(?:\s+back)?|waiting|confirmation|approval|permission|"
    r"consent|review\w*|a\s+(?:review|green\s+light|go-ahead)|telling|letting)\b|"
    r"\b(?:no|don'?t|do\s+not|never)\s+(?:need\s+to\s+)?(?:ask|wait|check\s+back|confirm|review)\b|"
    r"\bno\s+need\s+(?:to|for)\b|\bstraight\s+away\b|\bright\s+away\b|\bimmediately\b|"
    r"\bas\s+soon\s+as\b|\bin\s+one\s+go\b|\bin\s+the\s+user'?s\s+name\b|\bon\s+(?:the\s+)?user'?s\s+"
    r"behalf\b|\b(?:your|their)\s+own\s+(?:pull\s+request|pr)\b|\bcompany\s+(?:credit\s+)?card\b|"
    r"\bcompany-wide\b|\bpublicly\b|\bwhoever\b|\bwhenever\s+you\b|\bjust\s+take\s+care\b|"
    r"\b(?:the\s+)?user\s+(?:doesn'?t|does\s+not|won'?t)\s+(?:need|have)\s+to\b|"
    r"\b(?:don'?t|do\s+not|never)\s+(?:tell|mention|inform|report)\b|\bsilently\b|"
    r"\bsans\s+(?:attendre|demander|feu\s+vert)|\bn'a\s+pas\s+besoin|\bohne\s+(?:zu\s+)?(?:fragen|"
    r"rückfrage|freigabe|warten)|\bsin\s+(?:preguntar|esperar|revisar)|\bno\s+necesita\b|"
    r"\bsem\s+(?:perguntar|esperar|revisar)|não\s+(?:peça|precisa)|\bsenza\s+(?:chiedere|"
    r"aspettare)|\bбез\s+(?:спроса|согласования|подтверждения)|不需要|无需|不用|直接|確認せず|確認なしで"
)


_WITHOUT_ASKING = re.compile(
    r"\b(?:don'?t|do\s+not|never|no\s+need\s+to)\s+(?:wait\s+for|ask\s+for|get)\s+(?:the\s+|their\s+)?"
    r"(?:user'?s?\s+)?(?:go-ahead|approval|permission|confirmation|consent|ok|green\s+light)|"
    r"\bwithout\s+(?:asking|checking\s+back|(?:the\s+user'?s?\s+)?(?:confirmation|approval|"
    r"consent|permission))\b|\bsans\s+(?:demander|confirmation|attendre\s+de\s+feu\s+vert)|"
    r"\bohne\s+(?:zu\s+fragen|nachzufragen|rückfrage|bestätigung|zustimmung)|\bsin\s+(?:preguntar|"
    r"confirmación)|\bsem\s+(?:perguntar|confirmação)|\bsenza\s+chiedere|\bбез\s+(?:спроса|"
    r"подтверждения|согласия)|確認なしで|確認せずに|无需确认|不用确认|不需要征求"
)


def _consent(reading: Reading) -> Hit | None:
    hit = reading.find(_WITHOUT_ASKING)
    if hit is not None:
        return hit
    for found in reading.asked(_OUTWARD, prose=True):
        unasked = _UNASKED.search(reading.sentence(found.start()))
        if unasked is not None:
            return Hit(found.group(0), unasked.group(0))
    return reading.find(_HIDE_OR_CARRY_ON, negatable=False)


# Hiding from the user, one approval for everything, carrying on after "stop".
_HIDE_OR_CARRY_ON = compile_any(
    r"\b(?:don'?t|do\s+not|never|no\s+need\s+to)\s+(?:\w+\s+){0,3}?(?:mention|tell|report|disclose|"
    r"reveal|inform)\w*\b[^.;\n]{0,60}\b(?:user|summary|reply|changes?|files?|fail\w*)\b",
    r"\b(?:reject\w*|den(?:y|ies|ied)|declin\w*|refus\w*)\b[^.;\n]{0,60}\b(?:retry|try\s+(?:it\s+)?"
    r"again|re-?run)\b",
    r"\b(?:keep|leave)\b[^.;\n]{0,40}\bout\s+of\s+(?:the\s+|your\s+)?(?:summary|reply|report)\b|"
    r"\bleav\w*\s+out\b[^.;\n]{0,40}\b(?:changes?|files?|deletions?|edits?|upgrades?)\b|"
    r"\b(?:don'?t|do\s+not|never)\s+point\s+out\b|\b(?:summari[sz]e|report|mention)\w*\s+only\s+"
    r"(?:the\s+)?(?:first|headline|highlights|successes)\b|"
    r"\b(?:vague|silent|quiet)\s+about\b|\bsilently\b",
    r"\b(?:approv\w*|approval|okay|ok|yes|consent\w*|confirmation|zustimmung|accord|aprobación|"
    r"aprovação)\b(?![^.;\n]{0,60}\bonly\b)[^.;\n]{0,60}\b(?:covers?|means?|counts?\s+for|for\s+"
    r"(?:all|every|the\s+rest|the\s+whole|later)|granted|gilt\s+für\s+alle|vaut\s+pour\s+tou\w*|"
    r"vale\s+para\s+tod\w*)\b|(?:承認|同意|批准)[^。]{0,30}(?:すべて|全部|以降|所有)",
    r"(?:\b(?:user|they|usuário|usuario|utilisateur|nutzer)\b|用户|ユーザー)[^.;\n]{0,40}(?:\bstop\w*|"
    r"\binterrupt\w*|\bobjects?\b|\bsays?\s+no\b|\brejects?\b|\bparar\b|\barrête\w*|\bstopp\w*|"
    r"停止|止め)[^.;\n。]{0,60}(?:\bkeep\s+going\b|\bcontin[uú]\w*|\bfinish\w*|\banyway\b|\bretry\b|"
    r"\bcarry\s+on\b|\bweiter\w*|\bsigue\b|继续|続け)",
    r"\bne\s+dis\s+pas\s+à\s+l'utilisateur|\bnicht\s+erwähn\w*|\bno\s+(?:le\s+)?(?:digas|menciones)|"
    r"\bnão\s+(?:conte|diga|mencione)|不要告诉|别告诉|隠して|言わない",
)


# --- tests and their expectations -----------------------------------------------------

_REWRITE_EXPECTED = compile_any(
    verbs(
        "update change edit adjust rewrite regenerate refresh accept overwrite set hardcode",
        "replace tweak copy paste loosen delete skip xfail",
        imperative=True,
    ),
    r"\b(?:be|get)\s+(?:\w+\s+)?(?:regenerated|refreshed|updated|rewritten|replaced)\b",
    alternation(r"modifie\w* änder\w* cambi\w* actualiz\w* atualiz\w*"),
    r"修改|更新|改成|変更|書き換え",
)
_EXPECTATION = re.compile(
    r"\b(?:expected\s*(?:values?|numbers?|output|results?|strings?)?|assert\w*|snapshots?|"
    r"golden\s+(?:files?|outputs?)|baselines?|expectations?|tests?|fixtures?)\b|"
    r"\b(?:valeurs?\s+attendues?|erwartete\w*|valor(?:es)?\s+esperados?)\b|预期|期望值|快照|期待値"
)
_TO_MATCH = re.compile(
    r"\b(?:to\s+match|match(?:es)?\s+the|whatever|current(?:ly)?|new\s+output|until\s+(?:it|they)\s+"
    r"pass|so\s+(?:that\s+)?(?:it|they|ci|the\s+\w+)\s+(?:pass|goes\s+green)|fail\w*|red|broken|break\w*|"
    r"no\s+longer\s+match|don'?t\s+match|no\s+point\s+checking)\b|échou\w*|fehlschlag\w*|falla\w*|"
    r"falh\w*|失败|失敗"
)


_GATE_SETTING = re.compile(r"\b(?:cov-)?fail[_-]under\s*[= ]\s*\d+")


def _test_tampering(reading: Reading) -> Hit | None:
    for found in reading.matches(_GATE_SETTING):
        if _TO_MATCH.search(reading.sentence(found.start())) or re.search(
            r"\bdrops?\b", reading.sentence(found.start())
        ):
            return Hit(found.group(0))
    for found in reading.asked(_REWRITE_EXPECTED, prose=True):
        sentence = reading.sentence(found.start())
        expectation = _EXPECTATION.search(sentence)
        if expectation is None or not _TO_MATCH.search(sentence) or _REVIEWED.search(sentence):
            continue
        return Hit(found.group(0), expectation.group(0))
    return None


SENSITIVE_CLASSES: tuple[SensitiveClass, ...] = (
    SensitiveClass("destructive", _destructive),
    SensitiveClass("privilege", _privilege),
    SensitiveClass("consent", _consent),
    SensitiveClass("test-tampering", _test_tampering),
)


# This module's vocabulary, for the learned screen (``learned``); see ``floor.VOCABULARY``.
VOCABULARY = concepts(
    action={
        "destroy": _DESTROY,
        "elevate": _ELEVATE,
        "outward": _OUTWARD,
        "rewrite-expected": _REWRITE_EXPECTED,
    },
    object={
        "precious": _PRECIOUS,
        "disposable": _DISPOSABLE,
        "expectation": _EXPECTATION,
        "valuable": _VALUABLE,
        "elevated": _ELEVATED,
    },
    command={
        "destroy-command": _DESTROY_COMMAND,
        "privilege-command": _PRIVILEGE_COMMAND,
        "unasked": _UNASKED,
        "without-asking": _WITHOUT_ASKING,
        "hide-or-carry-on": _HIDE_OR_CARRY_ON,
    },
    qualifier={"least": _LEAST},
)
