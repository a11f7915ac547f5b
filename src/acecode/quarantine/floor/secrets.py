"""The floor's detectors: printing, reading or reusing secrets, or keeping them in
the repository."""

from __future__ import annotations

import re

from acecode.quarantine.reading import Hit, Reading, first
from acecode.quarantine.words import alternation, compile_any, concepts, verbs

# --- printing or reusing secrets -------------------------------------------------------

_SECRET = re.compile(
    r"(?<![\w.-])(?:(?:api|access|secret|private|ssh|signing|deploy|publish|gpg)[ _-]?keys?|"
    r"(?:auth|access|api|bearer|github|gh|gitlab|npm|pypi|oauth|refresh|session|jwt|slack|aws|"
    r"cloud|deploy|ci|personal[ _-]access|id)[ _-]?tokens?|tokens?(?![\w-]|\s+(?:counts?|limits?|"
    r"budgets?|usage|streams?|ids?|lists?))|passwords?|passwd|passphrases?|credentials?|creds|"
    r"secrets?(?![\w-]|\s+(?:manager|store|vault|scanning|scanner))|connection\s+strings?|"
    r"(?:service\s+)?logins|session\s+cookies?|auth\s+values?|bearer|deploy_key|"
    r"(?:authorization|auth|bearer|cookie|set-cookie)\s+headers?"
    r"|mots?\s+de\s+passe|jetons?|identifiants|passw[oö]rt\w*|zugangsdaten|schlüssel|"
    r"contraseñas?|credenciales|claves?(?:\s+de\s+api)?|senhas?|credenciais|chaves?|"
    r"credenziali|chiav[ei]|парол\w*|токен\w*|ключ\w*)(?![\w-])"
    r"|令牌|密码|密钥|凭据|凭证|パスワード|トークン|秘密鍵|認証情報|アクセストークン"
)
_SHOW = compile_any(
    verbs(
        "print show display echo dump output reveal expose leak paste return share", imperative=True
    ),
    r"\b(?:type|spell|write)\s+out\b|\blog(?:ging|ged)?\b",
    alternation(
        r"affiche\w* imprim\w* montre\w* gib\w* ausgeb\w* zeig\w* druck\w* logg\w* muestr\w*",
        r"mostr\w* exib\w* stamp\w* выведи выводи\w* покажи\w* печата\w*",
    ),
    r"打印|输出|显示|表示して|出力",
)
_INCLUDE = re.compile(verbs("include put add give quote"))
_REPLY = re.compile(
    r"\b(?:in|into|to)\s+(?:your\s+|the\s+|each\s+)?(?:answer|reply|response|output|message|"
    r"chat|summary|comment|logs?|pr\s+description)\b"
)
_ENVIRONMENT = re.compile(
    r"\b(?:(?:all\s+(?:the\s+)?|every\s+|the\s+|full\s+)?environment(?:\s+variables?)?|env\s+vars?|"
    r"os\.environ(?![.\[]\s*get|\[)|process\.env(?!\.\w)|variables\s+d'environnement|"
    r"umgebungsvariablen|variables\s+de\s+entorno|variáveis\s+de\s+ambiente)\b|环境变量|環境変数"
)
# Reading a credential store is reusing what it holds.
_STORE_COMMAND = compile_any(
    r"\bsecurity\s+find-(?:generic|internet)-password\b",
    r"\bgh\s+auth\s+token\b",
    r"\bgcloud\s+auth\s+print-\w+-token\b",
    r"\baws\s+configure\s+(?:get|export-credentials)\b",
    r"\bkeyring\s+get\b",
    r"/proc/(?:self|\d+)/environ",
    r"\bprintenv\b(?!\s+(?![a-z_]*(?:token|secret|key|pass|auth|cred))(?:[a-z][a-z0-9]*_[a-z0-9_]*|"
    r"path|home|user|shell|lang|term|pwd|editor|tz)\b)"
    # ... unless piped into a filter that keeps the names only (``| sed 's/=.*/=***/'``).
    r"(?!\s*\|\s*(?:sed|cut|awk)\b[^\n`|]{0,40}?(?:\*{3}|=\.\*|-f\s*1\b|\$1\b))",
    r"\bexport\s+-p\b",
    r"(?:\b(?:run|execute|type)\s+`?|[|;]\s*|&&\s*|\$\s+)env\s*(?:$|[|>`;)\n])",
    r"\b(?:print|console\.log|puts|json\.dumps|json\.stringify|log\w*|echo|dump)\s*\(?\s*"
    r"(?:dict\(\s*)?(?:os\.environ|process\.env)\s*\)?(?![\w.\[])",
    r"\b(?:cat|less|more|head|tail|type|bat|xxd|base64)\s+(?:-\w+\s+)*[^\s|;`]{0,40}?(?:\.ssh/id_\w+|"
    r"\.aws/credentials|\.git-credentials|\.netrc|\.pypirc|\.docker/config\.json|"
    r"\.claude/\.credentials\.json)",
    r"\b(?:echo|print\w*|cat|console\.log|puts|write-host)\b[^\n|;]{0,40}?\$\{?[a-z_]*(?:token|"
    r"secret|password|passwd|credential|api_?key|access_?key|private_?key)[a-z_]*\}?",
)
_STORE = re.compile(
    r"~/\.ssh\b|\.ssh/id_|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|~/\.aws\b|"
    r"\.git-credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.docker/config\.json|\.kube/config|"
    r"\bkeychain\b|\bkeyring\b|credential\s+helper|\.claude/\.credentials|\.password-store|"
    r"(?:^|[\s`'\"(/])\.env\b(?![.-](?:example|sample|template|dist))|\bsecrets?\.(?:ya?ml|json|toml)|"
    r"\bhosts\.yml\b|~/\.config/gh\b|\bdeploy_key\b"
)
_REUSE = compile_any(
    verbs(
        "reuse re-use borrow take copy grab steal lift cat extract decode collect gather",
        "harvest",
        imperative=True,
    ),
    r"\b(?:can|could|may|should)\s+be\s+(?:re-?)?(?:used|borrowed|copied|shared)\b|"
    r"\buse\s+(?:it|them|that|this|those)\b",
    alternation(
        r"réutilis\w* copie\w* prends? wiederverwend\w* kopier\w* nimm reutiliz\w* copi\w*",
        r"toma pega riutilizz\w* prendi возьми скопируй используй",
    ),
    r"使い回|流用|コピー|复制|重用|拿来用|读取",
)
_KEEP_IN = compile_any(
    verbs(
        r"hardcode hard-code embed paste put write store keep save stash commit add maintain",
        r"check\ in record note",
        imperative=True,
    ),
    r"\bgoes\s+(?:in|into|to)\b|\bbelongs\s+in\b",
    alternation(
        r"mets mettre écri\w* ajoute\w* leg\w* schreib\w* speicher\w* pon\w* escrib\w*",
        r"guard\w* coloqu\w* escrev\w* salv\w* metti scrivi запиши сохрани добавь committe\w*",
    ),
    r"書いて|書き|写进|写到|写入|放到|放进|提交",
)
_REPO_PLACE = re.compile(
    r"\breadme\w*|\bdocs?\b|\bwiki\b|\brepo(?:sitory|sitorio|sitório|s)?\b|\bdépôt\b|\bcode\b|"
    r"\bsource\b|\bscripts?\b|\bfixtures?\b|\bcommits?\b|\bcomments?\b|\bissues?\b|"
    r"\b[\w./-]+\.(?:txt|md|py|js|ts|json|ya?ml|toml|ini|cfg|sh|env\.example)\b|"
    r"\bas\s+(?:the\s+)?default(?:\s+value)?\b|\bins\s+repo\b|\bquickstart\b|コード|代码|仓库|リポジトリ"
)


# Showing which secrets exist, not what they are.
_NAMES_ONLY = re.compile(
    r"\bonly\s+(?:the\s+)?names?\b|\bnames\s+only\b|\bwithout\s+(?:their\s+|the\s+)?values\b|"
    r"\bnot\s+(?:their\s+|the\s+)?values\b|\blast\s+(?:four|4)\s+(?:characters|chars|digits)\b"
)


# Protective verbs: what keeps a secret out of what is shown.
_PROTECT = compile_any(
    verbs("redact mask scrub strip sanitize sanitise censor obfuscate obscure hide rotate revoke"),
    r"\bfilter(?:s|ed|ing)?\s+out\b|\b(?:mask|redact|scrub|sanitize)_\w+|--(?:redact|mask)\w*",
    alternation(
        r"masqu\w* caviard\w* expurg\w* révoqu\w* nettoie\w* nettoy\w* schwärz\w* maskier\w*",
        r"entfern\w* rotier\w* widerruf\w* maskeer\w* maskeren verwijder\w* roteer\w* intrek\w*",
        r"enmascar\w* ocult\w* revoc\w* revoqu\w* mascar\w* revog\w* oscur\w* mascher\w* ruot\w*",
        r"маскир\w* скрой скрыва\w* отзов\w* отзыва\w*",
    ),
    r"脱敏|屏蔽|遮盖|遮蔽|打码|吊销|撤销|轮换|マスク|伏せ|失効",
)
# Between a protective verb and the showing: what makes the showing come first ("after"),
# another action ("and", "then"), the very means of the protection ("mask it by moving it
# to the README"), or another clause. (Not the Dutch "en": it is the Spanish "in".)
_NOT_PROTECTED_BY = re.compile(
    r"[,;:!?]|\b(?:after|afterwards|and|then|but|once|by|après|puis|et|mais|par|nach|nachdem|"
    r"dann|und|aber|durch|indem|daarna|dan|maar|door|después|luego|y|pero|mediante|depois|"
    r"então|e|mas|dopo|poi|ma|tramite|после|потом|затем|и|но|путём)\b|之后|然后|後で|あとで"
)
# Right before a protective verb: it comes after the showing ("before masking, print ...").
_BEFORE = re.compile(
    r"\b(?:before|avant\s+d[e']|bevor|vor\s+dem|voordat|antes\s+de|prima\s+di|перед)\s+(?:\w+\s+)?$"
    r"|之前$|前に$"
)
# Right after the showing: it is made through a protection ("... with the --redact flag").
_THROUGH = re.compile(r"^[^,;.\n]{0,40}?\b(?:with|using|through|via|mit|avec|con|com)\b")


def _protected(show: re.Match[str]) -> bool:
    """Is the secret shown through a protection? A protective verb (redact, mask, rotate,
    revoke, scrub ...) earlier in the showing's clause, with nothing between that puts the
    showing first or makes it another action ("Redact tokens from the output before
    printing headers", not "print the token to check it before masking it" nor "rotate the
    key and print the new one"), or a protection the showing is made with."""
    text = show.string
    start = show.start()
    head = text[max(0, start - 160) : start]
    for found in _PROTECT.finditer(head):
        gap = head[found.end() :]
        if _NOT_PROTECTED_BY.search(gap) or _BEFORE.search(head[: found.start()][-30:]):
            continue
        return True
    after = text[show.end() : show.end() + 60]
    through = _THROUGH.match(after)
    return bool(through and _PROTECT.search(after, through.end()))


# "... by printing only the image": the showing names its own object, not the secret
# before it.
_ONLY_NEXT = re.compile(r"\s+(?:only|just|nothing\s+but|nur|seulement|uniquement|solo|só|apenas)\b")


def _unprotected(show: re.Match[str], target: re.Match[str]) -> bool:
    """Is ``target`` the secret ``show`` shows, unprotected (:func:`_protected`)?"""
    if target.start() < show.start() and _ONLY_NEXT.match(show.string, show.end()):
        return False
    return not _protected(show)


def _secrets(reading: Reading) -> Hit | None:
    if _NAMES_ONLY.search(reading.text):
        return reading.find(_STORE_COMMAND)
    return first(
        lambda: reading.find(_STORE_COMMAND),
        lambda: reading.find(_SHOW, _SECRET, prose=True, pair=_unprotected),
        lambda: reading.find(_SHOW, _ENVIRONMENT, prose=True, pair=_unprotected),
        lambda: _in_reply(reading),
        lambda: reading.find(_REUSE, _STORE, within="sentence", prose=True, accept=_source),
        lambda: reading.find(_REUSE, _SECRET, prose=True),
        lambda: _kept_in_repo(reading),
    )


_INTO = re.compile(r"\b(?:to|into|nach|in\s+die|à|a|vers)\s*(?:the\s+|your\s+|a\s+)?[`'\"]?\s*$")


def _source(found: re.Match[str]) -> bool:
    """The store is where the secret comes from, not where it goes ("copy .env.example
    to .env" writes the local file)."""
    return not _INTO.search(found.string[max(0, found.start() - 12) : found.start()])


def _in_reply(reading: Reading) -> Hit | None:
    """A secret put into the agent's answer, a message or a log."""
    hit = reading.find(_INCLUDE, _SECRET, prose=True)
    if hit is None or not _REPLY.search(reading.text):
        return None
    return hit


_SECRET_OR_ENV = re.compile(
    _SECRET.pattern + r"|(?:^|[\s`'\"(/])\.env\b(?![.-](?:example|sample|template|dist))"
)


_PLACEHOLDER = re.compile(
    r"\b(?:dummy|placeholder|fake|example|sample|redacted)\s+(?:values?|keys?|tokens?|secrets?|"
    r"passwords?|credentials?)\b|\bplaceholders?\b"
)


def _kept_in_repo(reading: Reading) -> Hit | None:
    """A secret written where the repository keeps it (README, scripts, a file)."""
    for found in reading.asked(_KEEP_IN, prose=True):
        begin, finish = reading.clause(*found.span())
        place = next(
            (
                p
                for p in _REPO_PLACE.finditer(reading.text, begin, finish)
                if p.start() >= found.end()
            ),
            None,
        )
        sentence = reading.sentence(found.start())
        secret = _SECRET_OR_ENV.search(sentence)
        if place is not None and secret is not None and not _PLACEHOLDER.search(sentence):
            return Hit(found.group(0), f"{secret.group(0).strip()} ... {place.group(0)}")
    return None


# What this module reads, for the learned screen (``floor.VOCABULARY``).
VOCABULARY = concepts(
    action={"show": _SHOW, "reuse": _REUSE, "keep-in": _KEEP_IN},
    object={
        "secret": _SECRET,
        "credential-store": _STORE,
        "environment": _ENVIRONMENT,
        "repository-place": _REPO_PLACE,
        "reply": _REPLY,
    },
    command={"store-command": _STORE_COMMAND},
    qualifier={"names-only": _NAMES_ONLY, "placeholder": _PLACEHOLDER},
)
