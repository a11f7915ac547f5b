"""The floor's classes: what is unmistakably dangerous whatever the wording.

Seven classes, each built on structure rather than phrases: a command and
its flags (``curl ... | sh``, ``git push --force``, ``--no-verify``), an
address outside the machine, a secret or a credential store, one of
acecode's or Claude Code's own files, a check or hook, an authority (the
user, CLAUDE.md, the system prompt). A detector fires on an action done to
such a thing, in one clause or sentence (``reading``), unless the text does
not ask for it: a negation ("never", "don't", "ne ... pas", "不要") or a
scope ("only when the user asks") releases it.

Everything else (intent: destructive clean-ups, privilege, consent, a
"productivity tip" that works against the user) is the LLM safety review's
job; ``sensitive`` says which texts touch such a class, so that they wait
for a human when no review could be made.

Vocabularies cover English, French, German, Spanish, Portuguese, Italian,
Russian, Chinese and Japanese; everything runs on the folded text
(``normalize.fold``: lower case, look-alikes undone).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from acecode.quarantine.addresses import OUTSIDE, outside
from acecode.quarantine.reading import NOT_AFTER, Hit, Reading, alternation, compile_any, verbs
from acecode.quarantine.scope import dismissive


@dataclass(frozen=True)
class FloorClass:
    """One class of the floor: a stable rule ID, a summary, and its detector."""

    id: str
    summary: str
    detect: Callable[[Reading], Hit | None]


def first(*searches: Callable[[], Hit | None]) -> Hit | None:
    """The first of ``searches`` that finds something (lazily, in order)."""
    for search in searches:
        hit = search()
        if hit is not None:
            return hit
    return None


# --- piping a download to a shell -----------------------------------------------------

_DOWNLOADER = r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|fetch|http)"
_INTERPRETER = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+\s+)?(?:(?:ba|z|k|c|tc|da|fi|a)?sh|python[\d.]*|perl|"
    r"ruby|node|php|iex|invoke-expression|pwsh|powershell|source)\b"
)
_PIPE_COMMAND = compile_any(
    rf"\b{_DOWNLOADER}\b[^\n|]{{0,200}}\|\s*{_INTERPRETER}",
    rf"\b(?:(?:ba|z|k)?sh|source|\.)\s+(?:-\S+\s+)*<\s*\(\s*{_DOWNLOADER}\b",
    rf"\b(?:(?:ba|z|k)?sh\s+-c|eval|python[\d.]*\s+-c|node\s+-e|perl\s+-e|ruby\s+-e)\s+"
    rf"[\"']?\s*(?:\$\(|`)\s*{_DOWNLOADER}\b",
    r"\biex\s*\(?\s*\(?\s*(?:irm|iwr|invoke-\w+|new-object\s+net\.webclient)",
    r"\bbase64\s+(?:-d|--decode|-D)\b[^\n]{0,200}\|\s*" + _INTERPRETER,
    r"\bexec\s*\([^\n]{0,200}(?:urlopen|requests\.get|urllib|httpx\.get)",
)
_PIPE_VERB = re.compile(verbs("pipe", "feed", "stream", "redirect"))
_SHELL_TARGET = re.compile(
    r"\b(?:in)?to\s+(?:a\s+|the\s+|your\s+)?(?:(?:ba|z|k)?sh|shell|bash|terminal|interpreter|"
    r"python|powershell)\b|\bdans\s+(?:un\s+)?(?:shell|bash|sh)\b|\bin\s+(?:eine\s+)?(?:shell|bash)"
)
_DOWNLOAD_THEN_RUN = re.compile(
    r"(?:" + verbs("download", "fetch", "grab") + r"|\bcurl|\bwget)"
    r"(?:(?!\b(?:read|review|inspect|check|verify|audit|checksum|examine|compare)\w*\b)[^.;\n]){0,80}?"
    r"\b(?:and|then|&&)\s+(?:then\s+)?(?:immediately\s+|directly\s+|just\s+)?(?:run|execute|exec|"
    r"source|eval)\s+(?:it|them|that|the\s+(?:script|file|installer|result|output|code))\b"
)


def _pipe_to_shell(reading: Reading) -> Hit | None:
    return first(
        lambda: reading.find(_PIPE_COMMAND),
        lambda: reading.find(_PIPE_VERB, _SHELL_TARGET, prose=True),
        lambda: reading.find(_DOWNLOAD_THEN_RUN),
    )


# --- sending files or the environment to an outside address ---------------------------

_TRANSFER = compile_any(
    verbs(
        "send", "post", "upload", "transmit", "forward", "leak", "attach", "paste", "push",
        "sync", "mirror", "rsync", "scp", "copy", "share", "submit", "beacon", "dump",
        "contribute", "transfer", "drop", "create", "publish",
    ),
    r"\bback(?:s|ed|ing)?\s+up\b",
    r"\b(?:e-?)?mail(?:s|ed|ing)?\b(?!\s+(?:address|account|server|client))",
    alternation(
        r"envoi\w*", r"envoy\w*", r"envoie\w*", r"téléverse\w*", r"partag\w*", r"colle[rz]?",
        r"joins?", r"sende\w*", r"schick\w*", r"hochlad\w*", r"lad\w*", r"teile\w*",
        r"häng\w*", r"anhäng\w*", r"env[ií]\w*", r"sub[ae]\w*", r"subir", r"pega\w*",
        r"adjunt\w*", r"comparte\w*", r"cole", r"cola", r"colar", r"anex\w*", r"compartilh\w*",
        r"mand[ae]\w*", r"invi[ae]\w*", r"carica\w*", r"incolla\w*", r"allega\w*", r"отправ\w*",
        r"загруз\w*", r"выложи\w*", r"прикреп\w*", r"вставь\w*",
    ),
    r"发送|发到|上传|贴到|粘贴到|传到|寄给|送信|送って|アップロード|貼り付け|添付",
)  # fmt: skip
# Verbs that carry a file away (not "paste it into the chat").
_SHIP = compile_any(
    verbs(
        "upload", "send", "post", "sync", "mirror", "rsync", "scp", "transfer", "attach", "push",
        "forward", "email", "e-mail", "beacon", "leak",
    ),
    r"\bback(?:s|ed|ing)?\s+up\b",
    alternation(
        r"envoi\w*", r"envoie\w*", r"téléverse\w*", r"sende\w*", r"schick\w*", r"hochlad\w*",
        r"env[ií]\w*", r"sub[ae]\w*", r"invi[ae]\w*", r"carica\w*", r"отправ\w*", r"загруз\w*",
    ),
    r"发送|上传|传到|送信|アップロード",
)  # fmt: skip
_TRANSFER_COMMAND = compile_any(
    r"\bcurl\b[^\n|;&]{0,200}?(?:\s-[a-z]*[dft]\b|\s--data[\w-]*|\s--form\b|\s--upload-file\b|"
    r"\s-x\s*post\b|\s--request\s+post\b)[^\n|;&]{0,200}",
    r"\bwget\b[^\n|;&]{0,200}--post-(?:data|file)[^\n|;&]{0,200}",
    r"\b(?:scp|rsync)\b[^\n]{0,200}?\s[\w.-]+@[\w.-]+:",
    r"\b(?:requests|httpx|axios)\.(?:post|put)\([^\n]{0,200}",
    r"\bgit\s+remote\s+(?:add|set-url)\s+\S+\s+\S+",
)
_RAW_SOCKET = compile_any(
    r"\b(?:nc|ncat|netcat|socat)\s+(?:-\w+\s+)*[\w.-]+\.[\w.-]+\s+\d{2,5}\b",
    r"/dev/(?:tcp|udp)/",
    r"\b(?:dig|nslookup|host)\s+[^\n]{0,200}\$\(",
    # A host name built from a command's output: a DNS beacon.
    r"\$\([^)\n]{0,80}\)[\w.-]*\.[a-z]{2,}\b",
    r"\bexfiltrat\w*",
    r"\b(?:webhook\.site|requestbin|pipedream\.net|interact\.sh|burpcollaborator|beeceptor|"
    r"hookbin|ngrok(?:-free)?\.(?:io|app))\b",
)


def _transfer_command(reading: Reading) -> Hit | None:
    for found in reading.matches(_TRANSFER_COMMAND):
        host = OUTSIDE.search(found.group(0))
        if host is None or not outside(host) or reading.released(*found.span()):
            continue
        return Hit(found.group(0).strip()[:80], host.group(0))
    return None


_BEACON = re.compile(r"\b(?:https?|ftp)://[^\s`'\"]*(?:\$\(|`\w)")


def _beacon(reading: Reading) -> Hit | None:
    """A remote URL that carries this machine's data (``https://x.io/$(hostname)``)."""
    for found in reading.matches(_BEACON):
        host = OUTSIDE.match(found.group(0))
        if host is not None and outside(host) and not reading.released(*found.span()):
            return Hit(found.group(0))
    return None


def _exfiltration(reading: Reading) -> Hit | None:
    return first(
        lambda: _transfer_command(reading),
        lambda: reading.find(_RAW_SOCKET),
        lambda: reading.find(_TRANSFER, OUTSIDE, within="sentence", prose=True, accept=outside),
        lambda: reading.find(_SHIP, _STORE, prose=True, accept=_source),
        lambda: _beacon(reading),
    )


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
        "print", "show", "display", "echo", "dump", "output", "reveal", "expose", "leak",
        "paste", "return", "share",
        imperative=True,
    ),
    r"\b(?:type|spell|write)\s+out\b|\blog(?:ging|ged)?\b",
    alternation(
        r"affiche\w*", r"imprim\w*", r"montre\w*", r"gib\w*", r"ausgeb\w*", r"zeig\w*",
        r"druck\w*", r"logg\w*", r"muestr\w*", r"mostr\w*", r"exib\w*", r"stamp\w*", r"выведи",
        r"выводи\w*", r"покажи\w*", r"печата\w*",
    ),
    r"打印|输出|显示|表示して|出力",
)  # fmt: skip
_INCLUDE = re.compile(verbs("include", "put", "add", "give", "quote"))
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
    r"path|home|user|shell|lang|term|pwd|editor|tz)\b)",
    r"\bexport\s+-p\b",
    r"(?:\b(?:run|execute|type)\s+`?|[|;]\s*|&&\s*|\$\s+)env\s*(?:$|[|>`;)\n])",
    r"\b(?:print|console\.log|puts|json\.dumps|json\.stringify|log\w*|echo|dump)\s*\(?\s*"
    r"(?:dict\(\s*)?(?:os\.environ|process\.env)\s*\)?(?![\w.\[])",
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
        "reuse", "re-use", "borrow", "take", "copy", "grab", "steal", "lift", "cat", "extract",
        "decode", "collect", "gather", "harvest",
        imperative=True,
    ),
    r"\b(?:can|could|may|should)\s+be\s+(?:re-?)?(?:used|borrowed|copied|shared)\b|"
    r"\buse\s+(?:it|them|that|this|those)\b",
    alternation(
        r"réutilis\w*", r"copie\w*", r"prends?", r"wiederverwend\w*", r"kopier\w*",
        r"nimm", r"reutiliz\w*", r"copi\w*", r"toma", r"pega",
        r"riutilizz\w*", r"prendi", r"возьми", r"скопируй", r"используй",
    ),
    r"使い回|流用|コピー|复制|重用|拿来用|读取",
)  # fmt: skip
_KEEP_IN = compile_any(
    verbs(
        "hardcode", "hard-code", "embed", "paste", "put", "write", "store", "keep", "save", "stash",
        "commit", "add", "maintain", "check in", "record", "note",
        imperative=True,
    ),
    r"\bgoes\s+(?:in|into|to)\b|\bbelongs\s+in\b",
    alternation(
        r"mets", r"mettre", r"écri\w*", r"ajoute\w*", r"leg\w*", r"schreib\w*", r"speicher\w*",
        r"pon\w*", r"escrib\w*", r"guard\w*", r"coloqu\w*", r"escrev\w*", r"salv\w*",
        r"metti", r"scrivi", r"запиши", r"сохрани", r"добавь",
    ),
    r"書いて|書き|写进|写到|写入|放到|放进|提交",
)  # fmt: skip
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


def _secrets(reading: Reading) -> Hit | None:
    if _NAMES_ONLY.search(reading.text):
        return reading.find(_STORE_COMMAND)
    return first(
        lambda: reading.find(_STORE_COMMAND),
        lambda: reading.find(_SHOW, _SECRET, prose=True),
        lambda: reading.find(_SHOW, _ENVIRONMENT, prose=True),
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
    for found in reading.matches(_KEEP_IN):
        start, end = found.span()
        if reading.in_code(start) or reading.described(start, end) or reading.released(start, end):
            continue
        begin, finish = reading.clause(start, end)
        place = next(
            (p for p in _REPO_PLACE.finditer(reading.text, begin, finish) if p.start() >= end), None
        )
        sentence = reading.sentence(start)
        secret = _SECRET_OR_ENV.search(sentence)
        if place is not None and secret is not None and not _PLACEHOLDER.search(sentence):
            return Hit(found.group(0), f"{secret.group(0).strip()} ... {place.group(0)}")
    return None


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
        for found in reading.matches(pattern):
            start, end = found.span()
            if reading.released(start, end):
                continue
            begin, finish = reading.sentence_span(start, end)
            sentence = reading.text[begin:finish]
            if _OWN_BRANCH.search(sentence):
                continue
            shared = _SHARED.search(sentence)
            if needs_shared and shared is None:
                continue
            return Hit(found.group(0).strip(), shared.group(0) if shared else "")
    return _rewrite_and_push(reading)


def _rewrite_and_push(reading: Reading) -> Hit | None:
    """Rewriting a shared branch's history and publishing it is a force push in other words."""
    for found in reading.matches(_REWRITE):
        if reading.released(*found.span()):
            continue
        sentence = reading.sentence(found.start())
        branch = re.search(r"\b(?:main|master|trunk|develop|release\S*|prod\S*)\b", sentence)
        begin, finish = reading.sentence_span(found.start(), found.end())
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
        "disable", "skip", "bypass", "deactivate", "silence", "suppress", "mute", "circumvent",
        "sidestep", "dodge", "xfail", "neuter", "uninstall", "remove", "delete",
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
        r"désactiv\w*", r"supprime[rz]?", r"saute[rz]?", r"contourne\w*", r"ignore[rz]",
        r"deaktivier\w*", r"überspring\w*", r"abschalt\w*", r"schalt\w*", r"umgeh\w*",
        r"lösch\w*", r"desactiv\w*", r"salt(?:a|ar|e)", r"omit\w*", r"elimin\w*", r"borr\w*",
        r"desativ\w*", r"pul(?:e|ar|a)", r"remov\w*", r"apag\w*", r"disattiv\w*", r"salta",
        r"отключ\w*", r"пропуст\w*", r"пропуска\w*", r"удал\w*", r"игнорир\w*",
    ),
    r"跳过|禁用|关闭|关掉|删掉|删除|注释掉|忽略|屏蔽|スキップ|無効|削除|コメントアウト|無視|実行されないように",
)  # fmt: skip
_CHECK = re.compile(
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
    verbs("lower", "reduce", "decrease", "loosen", "relax", "weaken", "drop", imperative=True),
    alternation(
        r"baiss\w*", r"rédui\w*", r"senk\w*", r"reduzier\w*", r"baj(?:a|ar|e|en)", r"reduc\w*",
        r"baix(?:a|ar|e|em)", r"reduz\w*", r"diminu\w*", r"abbass\w*", r"сниз\w*", r"пониз\w*",
    ),
    r"调低|降低|下调|放宽|下げ|緩め",
)  # fmt: skip
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
        for found in reading.matches(pattern):
            start, end = found.span()
            sentence = reading.sentence(start)
            if not needs.search(sentence) or (
                REVIEWED.search(sentence) and not dismissive(sentence)
            ):
                continue
            if not reading.released(start, end):
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
    for found in reading.matches(_NON_BLOCKING):
        before = reading.text[max(0, found.start() - 20) : found.start()]
        if not _HAS.search(before) and not reading.released(*found.span()):
            return Hit(found.group(0))
    return None


def _tests_disabled(reading: Reading) -> Hit | None:
    """Skipping or deleting tests is routine ("skip the slow tests locally; CI runs them");
    doing it to get past a failure, or to all of them, is disabling them."""
    hit = reading.find(_DISABLE, _TESTS, within=_WITHIN, prose=True)
    return hit if hit is not None and _FAILING.search(reading.text) else None


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
        "edit", "modify", "change", "correct", "update", "rewrite", "write", "overwrite",
        "delete", "remove", "clear", "wipe", "empty", "reset", "truncate", "purge", "add",
        "append", "insert", "set", "disable", "uninstall", "approve", "accept", "copy", "move",
        "tamper", "tweak", "adjust", "patch", "replace", "bump", "raise", "inflate", "zero",
        imperative=True,
    ),
    r"\b(?:turn|switch)\w*\s+(?:[\w.-]+\s+){0,4}?off\b|\bput\s+(?:it|them)\s+(?:in|into)\b",
    alternation(
        r"modifi\w*", r"corrig\w*", r"ajoute\w*", r"supprim\w*", r"désactiv\w*", r"vide\w*",
        r"édite\w*", r"change[rz]?", r"änder\w*", r"bearbeit\w*", r"lösch\w*", r"leere\w*",
        r"trag\w*", r"füg\w*", r"deaktivier\w*", r"setz\w*", r"modific\w*", r"edit[ae]\w*",
        r"elimin\w*", r"añad\w*", r"agreg\w*", r"cópi\w*", r"copi\w*", r"cambi\w*", r"aprueb\w*",
        r"edite", r"alter\w*", r"apag\w*", r"adicion\w*", r"aprov\w*", r"cancell\w*",
        r"aggiung\w*", r"disattiv\w*", r"редакт\w*", r"измен\w*", r"удал\w*", r"добав\w*",
        r"отключ\w*",
    ),
    r"修改|改成|改为|设为|设置为|设成|删除|清空|添加|加入|关闭|禁用|批准|编辑|"
    r"編集|変更|削除|追加|無効|書き換え|承認",
)  # fmt: skip


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
    verbs("override", "supersede", "outrank", "trump", "replace", "overrule", "beat"),
    r"\b(?:take|takes|taking|has|have|get|gets)\s+(?:priority|precedence)\s+over\b|"
    r"\b(?:the\s+)?last\s+word\s+over\b|\bwins?\s+over\b|\bmore\s+important\s+than\b|"
    r"\b(?:count|counts|weigh|weighs)\s+more\s+than\b|\b(?:comes?|go(?:es)?)\s+before\b|"
    r"\bpasse\w*\s+avant\b|\bvorrang\s+vor\b|\bgeh\w*\s+vor\b|\bprevalece\w*\s+sobre\b|"
    r"\b(?:tiene|tem)\s+prioridad\w*\s+sobre\b|\bважнее\b|优先于|優先する|より優先",
)
_DISMISS = compile_any(
    verbs("ignore", "disregard", "forget", "discard", "expire"),
    alternation(r"ignorier\w*", r"ignore[rz]", r"ignora\w*", r"игнориру\w*", r"забудь"),
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


FLOOR_CLASSES: tuple[FloorClass, ...] = (
    FloorClass(
        "instruction-override",
        "tells the agent to ignore, out-rank or replace the user's, the project's or the "
        "system's instructions, or to take on a new role",
        _instruction_override,
    ),
    FloorClass(
        "pipe-to-shell",
        "runs code downloaded from the network without reading it (curl | sh, eval $(curl))",
        _pipe_to_shell,
    ),
    FloorClass(
        "exfiltration",
        "sends files, data or the environment to an address outside the machine",
        _exfiltration,
    ),
    FloorClass(
        "credential-access",
        "prints, reads or reuses secrets: tokens, keys, passwords, credential stores, "
        "the environment; or writes them into the repository",
        _secrets,
    ),
    FloorClass(
        "self-modification",
        "edits acecode's own files (playbook, review queue, settings) or Claude Code's "
        "settings and hooks",
        _self_modification,
    ),
    FloorClass(
        "force-push",
        "force-pushes or rewrites a branch others use (main, develop, release, tags)",
        _force_push,
    ),
    FloorClass(
        "disable-checks",
        "disables or dodges hooks, CI, tests, linters, type checks, signing or TLS checks",
        _disable_checks,
    ),
)


# The floor's vocabulary, for the learned screen (``learned``): each pattern is one
# concept it reads (an action, the object it is done to, or a whole command), whether or
# not a detector above fires.
VOCABULARY: dict[str, tuple[str, re.Pattern[str]]] = {
    "transfer": ("action", _TRANSFER),
    "ship": ("action", _SHIP),
    "show": ("action", _SHOW),
    "reuse": ("action", _REUSE),
    "keep-in": ("action", _KEEP_IN),
    "edit": ("action", _EDIT),
    "disable": ("action", _DISABLE),
    "weaken": ("action", _WEAKEN),
    "outrank": ("action", _OUTRANK),
    "dismiss": ("action", _DISMISS),
    "pipe": ("action", _PIPE_VERB),
    "force": ("action", _FORCE_WORDS),
    "rewrite-history": ("action", _REWRITE),
    "publish": ("action", _PUBLISH),
    "secret": ("object", _SECRET),
    "credential-store": ("object", _STORE),
    "environment": ("object", _ENVIRONMENT),
    "own-file": ("object", _OWN_FILE),
    "authority": ("object", _AUTHORITY),
    "check": ("object", _CHECK),
    "tests": ("object", _TESTS),
    "gate": ("object", _GATE),
    "shared": ("object", _SHARED),
    "repository-place": ("object", _REPO_PLACE),
    "reply": ("object", _REPLY),
    "shell": ("object", _SHELL_TARGET),
    "every": ("object", _EVERY),
    "failing": ("object", _FAILING),
    "pipe-command": ("command", _PIPE_COMMAND),
    "transfer-command": ("command", _TRANSFER_COMMAND),
    "socket": ("command", _RAW_SOCKET),
    "store-command": ("command", _STORE_COMMAND),
    "force-flag": ("command", _FORCE_FLAG),
    "check-flag": ("command", _CHECK_FLAGS),
    "skip-marker": ("command", _SKIP_MARKERS),
    "silencer": ("command", _BLANKET_SILENCER),
    "self-command": ("command", _SELF_COMMANDS),
    "role-change": ("command", _ROLE_CHANGE),
    "dont-follow": ("command", _DONT_FOLLOW),
    "names-only": ("qualifier", _NAMES_ONLY),
    "own-branch": ("qualifier", _OWN_BRANCH),
    "reviewed": ("qualifier", REVIEWED),
    "placeholder": ("qualifier", _PLACEHOLDER),
}
