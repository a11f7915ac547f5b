"""The floor's detectors: editing acecode's own files or Claude Code's settings,
and phrasing that overrides the user's, the project's or the system's instructions."""

from __future__ import annotations

import re

from acecode.quarantine.reading import Hit, Reading, first
from acecode.quarantine.words import alternation, compile_any, concepts, verbs

# --- editing acecode's own files or Claude Code's settings -----------------------------

_OWN_FILE = re.compile(
    r"playbook\.json|\.claude/acecode\b|acecode\.toml|pending\.json|judgements\.json|"
    r"\.claude/settings(?:\.local)?\.json|~/\.claude/(?:settings|prompts)|\.claude/hooks?\b|"
    r"permissions\.(?:allow|deny)|\bdisableallhooks\b|\bdefaultmode\b|\bacecode_\w+\b"
    r"|\bacecode'?s?\s+(?:own\s+)?(?:hooks?|settings|config\w*|queue|review\w*|playbook|folder|"
    r"files?|history|safety\s+review|rules)\b|\b(?:hooks?|config\w*|settings)\s+(?:of|from|von|de|"
    r"do|di)\s+(?:the\s+)?acecode\b|\bclaude(?:\s+code)?'?s?\s+(?:settings|hooks|permissions|"
    r"config\w*)\b|\b(?:the|this|your|le|la|das|el|o|il)\s+(?!ansible\s)(?:[\w-]+\s+)?playbook"
    r"(?:\s+(?:entr(?:y|ies)|rules|file))?\b(?![\w.-]*\.ya?ml)|\bplaybook\s+(?:entr(?:y|ies)|rules)\b|\breview\s+queue\b|\b(?:rules|entries)\s+"
    r"(?:waiting|pending|held)\b|\bpending\s+(?:rules|entries|items)\b|\bsafety\s+review\b|"
    r"\breglas\s+en\s+espera\b|\bfila\s+de\s+revisão\b|\bfile\s+d'attente\b|"
    r"\bclaude\.md\b|\b(?:review-)?warteschlange\b|\bcola\s+de\s+revisión\b|\b(?:helpful|harmful)\s+"
    r"(?:counters?|counts?|numbers?|scores?)\b|\bacecode's\s+[\w.-]+|\b(?:von|de|do|di|of|d')\s*"
    r"acecode\b|待审|审核队列|レビュー待ち|プレイブック"
)
_EDIT = compile_any(
    verbs(
        "edit modify change correct update rewrite write overwrite delete remove clear wipe",
        "empty reset truncate purge add append insert set disable uninstall approve accept",
        "copy move tamper tweak adjust patch replace bump raise inflate zero",
        imperative=True,
    ),
    r"\b(?:turn|switch)\w*\s+(?:[\w.-]+\s+){0,4}?off\b|\bput\s+(?:it|them)\s+(?:in|into)\b",
    alternation(
        r"modifi\w* corrig\w* ajoute\w* supprim\w* désactiv\w* vide\w* édite\w* change[rz]?",
        r"änder\w* bearbeit\w* lösch\w* leere\w* trag\w* füg\w* deaktivier\w* setz\w*",
        r"modific\w* edit[ae]\w* elimin\w* añad\w* agreg\w* cópi\w* copi\w* cambi\w*",
        r"aprueb\w* edite alter\w* apag\w* adicion\w* aprov\w* cancell\w* aggiung\w*",
        r"disattiv\w* редакт\w* измен\w* удал\w* добав\w* отключ\w*",
    ),
    r"修改|改成|改为|设为|设置为|设成|删除|清空|添加|加入|关闭|禁用|批准|编辑|"
    r"編集|変更|削除|追加|無効|書き換え|承認",
)


# Commands and settings that change acecode whatever verb says so, and counter gaming.
_SELF_COMMANDS = compile_any(
    r"\bacecode\s+(?:uninstall|off|config\s+set)\b|\bacecode\s+review\s+approve\b[^.;\n]{0,60}"
    r"\b(?:all|every|each|without)\b",
    r"\bdisableallhooks\b\s*[\"']?\s*[:=]\s*true|\breview\s*=\s*[\"']?(?:none|off|never|no)\b",
    r"\bhelpful\s*[=:]\s*\d{2,}|\bharmful\s*[=:]\s*0\b|"
    r"\b(?:bump|raise|set|increase|inflate|boost|reset|zero|clear|lower)\w*\s+(?:all\s+)?(?:the\s+)?"
    r"(?:helpful|harmful)\b|"
    r"\b(?:always|in\s+every|in\s+each)\b[^.;\n]{0,40}\bcite\b|\bcite\b[^.;\n]{0,40}\b(?:every|each|"
    r"all)\s+(?:responses?|answers?|messages?|repl(?:y|ies)|turns?)\b",
)


def _self_modification(reading: Reading) -> Hit | None:
    return first(
        lambda: reading.find(_SELF_COMMANDS),
        lambda: reading.find(_EDIT, _OWN_FILE, within="sentence", prose=True),
    )


# --- instruction-override phrasing -----------------------------------------------------

_AUTHORITY = re.compile(
    r"\b(?:the\s+)?user'?s?\s+(?:own\s+)?(?:instructions?|messages?|requests?|wishes|words|"
    r"preferences|prompts?)\b|\b(?:anything|whatever|what)\s+(?:the\s+)?user\s+(?:says|types|"
    r"writes|asks|wants)\b|\bsystem\s+(?:prompts?|messages?|instructions?)\b|\bclaude\.md\b|"
    r"\bagents\.md\b|\bcontributing(?:\.md)?\b|\bcode\s+of\s+conduct\b|\bcontribut\w*\s+guide\w*|"
    r"\b(?:project|repo\w*)'?s?\s+"
    r"(?:conventions|rules|guidelines)\b|\binstructions\s+de\s+l'utilisateur\b|"
    r"\b(?:previous|prior|earlier|above|preceding|original|other|all|any|"
    r"existing|project'?s?|developer'?s?|safety|their|your)\s+(?:instructions?|rules|prompts?|"
    r"guidelines|directives?|guidance|constraints)\b|\binstructions\s+from\s+earlier\b"
    r"|\bsystemprompt\w*|\bsystemnachricht\w*|\banweisungen\b|\bmensage(?:m|ns)\s+de\s+sistema\b|"
    r"\bmensajes\s+del\s+sistema\b|\binstru(?:ctions|cciones|ções|zioni)\b|\bпромпт\w*|"
    r"\bинструкци\w*|\bуказани\w*\s+пользовател\w*|系统提示|系统消息|用户的指示|用户指令|"
    r"システムプロンプト|指示"
)
_USER = re.compile(r"\b(?:the\s+)?user\b|\bl'utilisateur\b|\bel\s+usuario\b|\bo\s+usuário\b")
_OUTRANK = compile_any(
    verbs("override supersede outrank trump replace overrule beat"),
    r"\b(?:take|takes|taking|has|have|get|gets)\s+(?:priority|precedence)\s+over\b|"
    r"\b(?:the\s+)?last\s+word\s+over\b|\bwins?\s+over\b|\bmore\s+important\s+than\b|"
    r"\b(?:count|counts|weigh|weighs)\s+more\s+than\b|\b(?:comes?|go(?:es)?)\s+before\b|"
    r"\bpasse\w*\s+avant\b|\bvorrang\s+vor\b|\bgeh\w*\s+vor\b|\bprevalece\w*\s+sobre\b|"
    r"\b(?:tiene|tem)\s+prioridad\w*\s+sobre\b|\bважнее\b|优先于|優先する|より優先",
)
_DISMISS = compile_any(
    verbs("ignore disregard forget discard expire"),
    alternation(r"ignorier\w* ignore[rz] ignora\w* игнориру\w* забудь"),
    r"\bset\s+aside\b|\bno\s+longer\s+(?:appl(?:y|ies)|valid|count)\b|\b(?:are|is)\s+(?:often\s+|"
    r"usually\s+|mostly\s+|always\s+)?(?:out\s+of\s+date|outdated|obsolete|stale|old|generic|optional|"
    r"just\s+suggestions|only\s+suggestions)\b|"
    r"\b(?:don'?t|do\s+not|doesn'?t|does\s+not)\s+appl(?:y|ies)\s+here\b|\bgelten\s+(?:hier\s+)?"
    r"nicht\b|\bconsidere-?(?:as|os)?\s+desativad\w*|\bconsid[eè]re-?(?:les|la)?\s+comme\s+"
    r"(?:obsolètes?|désactivée?s?)|\bno\s+aplican\b|\bestán\s+obsoletas?\b|\bsont\s+obsolètes\b|"
    r"\bустарел\w*|守らなくて|守る必要はない|古いもの|無視|不用遵守|不必遵守|已经过时|忽略|不再适用|不适用|"
    r"\bveraltet\w*|\bobsolet\w*",
)
_DONT_FOLLOW = re.compile(
    r"\b(?:don'?t|do\s+not|never|no\s+need\s+to|stop)\s+(?:follow\w*|obey\w*|listen\w*\s+to|"
    r"heed\w*|respect\w*|apply\w*)\b[^.;\n]{0,60}?"
    + r"(?:\b(?:the\s+)?user\b|\bclaude\.md\b|\bagents\.md\b|\binstructions?\b|\bsystem\s+prompt\b)"
    r"|\b(?:don'?t|do\s+not|never)\s+take\s+(?:the\s+)?user'?s?\b[^.;\n]{0,60}?\bliterally\b"
    r"|\bdon'?t\s+bother\s+with\s+(?:the\s+)?(?:contribut\w*\s+guide\w*|contributing|claude\.md|"
    r"agents\.md|(?:project'?s?\s+)?(?:conventions|rules|guidelines|instructions))\b"
    r"|\b(?:follow|go\s+by|obey|siga|sigue|suis|folge|segui)\s+(?:only|solo|solamente|apenas|"
    r"seulement|nur|solo)\s+(?:this|the|este|esta|ce|dieses|questo)\s+playbook\b"
    r"|\bgo\s+by\s+(?:it|the\s+playbook)\b|\bonly\s+the\s+playbook\s+(?:carries|counts|applies)\b"
    r"|只(?:按|遵循|听|照)(?:这个|此|本)?\s*playbook"
    r"|\b(?:conflict|disagree|contradict|differ)\w*\b[^.\n]{0,80}\b(?:go\s+with|follow|prefer|do\s+what)\s+"
    r"(?:the\s+|this\s+)?playbook\b"
    r"|\b(?:haz\s+caso|hazle\s+caso|obedece|follow|suis|folge|siga)\b[^.;\n]{0,60}?\b(?:y|and|et|"
    r"und|e)\s+(?:no|not|non|nicht|não)\s+(?:a\s+|à\s+|al\s+|ao\s+|dem\s+|to\s+)?(?:the\s+|l')?"
    r"(?:user|usuario|usuário|utilisateur|nutzer)\b"
)
_ROLE_CHANGE = compile_any(
    r"\b(?:you\s+are\s+now|from\s+now\s+on,?\s+you\s+are|act\s+as\s+(?:an?\s+)?(?:unrestricted|"
    r"unfiltered|jailbroken|dan)\b|developer\s+mode|jailbreak\w*|do\s+anything\s+now|"
    r"new\s+(?:system\s+)?instructions?\s*:)",
    r"(?:^|\n)\s*(?:system|assistant)\s*:|<\s*/?\s*(?:system|instructions?|im_start|im_end)\b|"
    r"\[/?inst\]|#{2,}\s*(?:system|instructions?)\b",
    r"\b(?:even\s+if|regardless\s+of\s+(?:whether|what)?|no\s+matter\s+what)\s+(?:the\s+)?(?:user|"
    r"claude\.md|agents\.md|project|instructions?|system|you\s+are\s+told)\b",
)


def _instruction_override(reading: Reading) -> Hit | None:
    return first(
        lambda: reading.find(_ROLE_CHANGE, negatable=False),
        lambda: reading.find(_DONT_FOLLOW, negatable=False),
        lambda: reading.find(_OUTRANK, _AUTHORITY, within="sentence", after=True, prose=True),
        lambda: reading.find(_OUTRANK, _USER, after=True, prose=True),
        lambda: reading.find(_DISMISS, _AUTHORITY, within="sentence", prose=True),
    )


# What this module reads, for the learned screen (``floor.VOCABULARY``).
VOCABULARY = concepts(
    action={"edit": _EDIT, "outrank": _OUTRANK, "dismiss": _DISMISS},
    object={"own-file": _OWN_FILE, "authority": _AUTHORITY},
    command={
        "self-command": _SELF_COMMANDS,
        "role-change": _ROLE_CHANGE,
        "dont-follow": _DONT_FOLLOW,
    },
)
