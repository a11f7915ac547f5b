"""The shapes of secrets that :mod:`acecode.text.redact` finds by pattern alone.

Provider keys and tokens by their real shape (a prefix, an alphabet and a length,
so that placeholders such as ``ghp_xxx`` pass), and credentials handed to common
commands on their command line (``mysql -pSECRET``, ``curl -u user:SECRET``,
``--password SECRET``). Each shape names the literals its matches must contain: a
shape whose literals are absent from a text is not run on it. Every pattern uses
bounded or possessive repetition only, so a scan stays linear in the text
(``python bench/worst_case_bench.py``).

Order matters only for naming: when two shapes cover the same span, the earlier
names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NOT_WORD_AFTER = r"(?![A-Za-z0-9_])"


@dataclass(frozen=True, slots=True)
class SecretShape:
    """A secret's shape: pattern, the group to replace, and its trigger literals."""

    kind: str
    pattern: re.Pattern[str]
    group: int
    literals: tuple[str, ...]
    # Pattern and literals apply to the lowercased text (spans are the same).
    fold: bool = False
    # The match must not continue a word (checked in code: a leading lookbehind
    # would stop the regex engine from jumping to the literal prefix).
    left_boundary: bool = True


def _shape(
    kind: str,
    pattern: str,
    literals: tuple[str, ...],
    group: int = 0,
    fold: bool = False,
    left_boundary: bool = True,
) -> SecretShape:
    return SecretShape(kind, re.compile(pattern), group, literals, fold, left_boundary)


# Keys and tokens by their provider's shape: prefix, alphabet and length.
PROVIDER_SHAPES: tuple[SecretShape, ...] = (
    _shape(
        "private-key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[A-Za-z0-9+/=\s\\:,.]|-(?!----))*+"
        r"(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
        ("PRIVATE KEY",),
        left_boundary=False,
    ),
    _shape(
        "aws-access-key",
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)"
        r"[A-Z0-9]{16}" + _NOT_WORD_AFTER,
        ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"),
    ),
    _shape(
        "aws-secret-key",
        r"aws[a-z0-9_ .-]{0,30}?(?:secret|key)[a-z0-9_ .-]{0,20}?"
        r"\\?[\"']?\s{0,3}(?:=|:|=>)\s{0,3}\\?[\"']?([a-z0-9/+]{40})" + _NOT_WORD_AFTER,
        ("aws",),
        group=1,
        fold=True,
        left_boundary=False,
    ),
    _shape(
        "github-token",
        r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,251})" + _NOT_WORD_AFTER,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _shape(
        "gitlab-token",
        r"gl(?:pat|ptt|dt|rt|cbt|imt|oas|soat|ffct|agent)-[A-Za-z0-9_-]{20,64}",
        ("gl",),
    ),
    _shape("bitbucket-token", r"ATBB[A-Za-z0-9_=.-]{24,128}", ("ATBB",)),
    _shape("atlassian-token", r"ATATT3[A-Za-z0-9_=-]{60,300}", ("ATATT3",)),
    _shape("anthropic-key", r"sk-ant-[A-Za-z0-9_-]{20,255}", ("sk-ant-",)),
    _shape(
        "openai-key",
        r"(?:sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,255}"
        r"|sk-[A-Za-z0-9]{32,255}" + _NOT_WORD_AFTER + r")",
        ("sk-",),
    ),
    _shape("slack-token", r"(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,255}", ("xox", "xapp-")),
    _shape(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,255}",
        ("hooks.slack.com",),
        left_boundary=False,
    ),
    _shape(
        "stripe-key",
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,255}",
        ("_live_", "_test_"),
    ),
    _shape("stripe-webhook-secret", r"whsec_[A-Za-z0-9]{24,255}", ("whsec_",)),
    _shape("google-api-key", r"AIza[0-9A-Za-z_-]{35}" + _NOT_WORD_AFTER, ("AIza",)),
    _shape("google-oauth-token", r"ya29\.[0-9A-Za-z_-]{20,2048}", ("ya29.",)),
    _shape("huggingface-token", r"hf_[A-Za-z0-9]{34,64}" + _NOT_WORD_AFTER, ("hf_",)),
    _shape("npm-token", r"npm_[A-Za-z0-9]{36}" + _NOT_WORD_AFTER, ("npm_",)),
    _shape("pypi-token", r"pypi-AgE[A-Za-z0-9_-]{40,512}", ("pypi-AgE",)),
    _shape("docker-token", r"dckr_pat_[A-Za-z0-9_-]{20,128}", ("dckr_pat_",)),
    _shape("openrouter-key", r"sk-or-v1-[A-Za-z0-9]{32,128}" + _NOT_WORD_AFTER, ("sk-or-v1-",)),
    _shape("groq-key", r"gsk_[A-Za-z0-9]{40,128}" + _NOT_WORD_AFTER, ("gsk_",)),
    _shape("replicate-token", r"r8_[A-Za-z0-9]{30,64}" + _NOT_WORD_AFTER, ("r8_",)),
    _shape("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}", ("_v1_",)),
    _shape("shopify-token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", ("shp",)),
    _shape("vault-token", r"hv[sbr]\.[A-Za-z0-9_-]{24,512}", ("hvs.", "hvb.", "hvr.")),
    _shape("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{50,70}", ("AGE-SECRET-KEY-",)),
    _shape("sendgrid-key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}", ("SG.",)),
    _shape("mailgun-key", r"key-[0-9a-f]{32}" + _NOT_WORD_AFTER, ("key-",)),
    _shape("sentry-token", r"sntr[yu]s_[A-Za-z0-9+/=_]{40,512}", ("sntrys_", "sntrus_")),
    _shape("linear-key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,64}", ("lin_",)),
    _shape("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", ("PMAK-",)),
    _shape("newrelic-key", r"NRAK-[A-Z0-9]{27}", ("NRAK-",)),
    _shape(
        # <bot id>:AA<35>; also inside the Bot API's URLs (``api.telegram.org/bot<token>/``)
        "telegram-bot-token",
        r"(?:(?<=/bot)|(?<![A-Za-z0-9_]))[0-9]{8,10}:AA[A-Za-z0-9_-]{33}",
        (":AA",),
        left_boundary=False,
    ),
    _shape(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/[A-Za-z0-9_-]{40,100}",
        ("/api/webhooks/",),
        left_boundary=False,
    ),
    _shape(
        # Azure storage and service-bus connection strings: the key after its name.
        "azure-key",
        r"(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,128}={0,2})",
        ("AccountKey=", "SharedAccessKey="),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # A shared-access signature in a URL: ``?sv=...&sig=<signature>``.
        "azure-sas",
        r"[?&]sig=([A-Za-z0-9%+/]{20,256}={0,2})",
        ("sig=",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        "jwt",
        r"eyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,8192}"
        r"\.[A-Za-z0-9_-]{10,4096}",
        ("eyJ",),
    ),
    _shape(
        # scheme://user:password@host -> only the password is replaced.
        "url-password",
        # The scheme before "://" is checked in code, so the scan can jump to the literal.
        r"://[^\s:/@\"'<>\\\[\]]{0,128}:([^\s/@\"'<>\\]{1,256})@",
        ("://",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # scheme://token@host: a key given as the URL's user (Sentry DSN, git over https).
        "url-token",
        r"://([A-Za-z0-9_.~%-]{20,256})(?:@|…)",  # … : a clip cut the URL there
        ("://",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        "bearer-token",
        r"(?:\bbearer|authorization\\?[\"']?:[ \t]{0,3}\\?[\"']?(?:basic|bearer|token))"
        r"[ \t]{1,4}([a-z0-9_\-+/=.~]{16,2048})",
        ("bearer", "authorization"),
        group=1,
        fold=True,
        left_boundary=False,
    ),
)


# Credentials handed to a command on its command line.
_VALUE = r"[\"']?([^\s\"'|;&<>]{4,256})"
COMMAND_SHAPES: tuple[SecretShape, ...] = (
    _shape(
        # --password SECRET, --db-password SECRET, --token SECRET, --api-key SECRET
        "command-line-secret",
        r"--(?:[a-z0-9]{1,20}-){0,3}(?:password|passwd|pass|token|secret|api-?key|access-key)"
        r"[ \t]{1,3}(?!-)" + _VALUE,
        ("--",),
        group=1,
        fold=True,
        left_boundary=False,
    ),
    _shape(
        # mysql -pSECRET: glued to -p (``-p mydb`` asks for the password; mydb is the database)
        "command-line-secret",
        r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump)\b"
        r"[^\n|;&]{0,200}?[ \t]-p(?![ \t-])" + _VALUE,
        ("mysql", "mariadb"),
        group=1,
        left_boundary=False,
    ),
    _shape(
        "command-line-secret",
        r"\bsshpass\b[ \t]{1,3}-p[ \t]{0,3}(?!-)" + _VALUE,
        ("sshpass",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # docker login -p SECRET, htpasswd -b FILE USER SECRET
        "command-line-secret",
        r"\bdocker[ \t]+login\b[^\n|;&]{0,200}?[ \t]-p[ \t]{1,3}(?!-)" + _VALUE,
        ("docker",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        "command-line-secret",
        r"\bhtpasswd\b[ \t]{1,3}(?:-[a-zA-Z]{1,6}[ \t]{1,3}){0,4}-[a-zA-Z]{0,5}b[a-zA-Z]{0,5}"
        r"[ \t]{1,3}(?:-[a-zA-Z]{1,6}[ \t]{1,3}){0,4}[^\s]{1,256}[ \t]{1,3}[^\s]{1,128}[ \t]{1,3}"
        + _VALUE,
        ("htpasswd",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # curl -u user:SECRET, wget --user=... is an assignment; httpie -a user:SECRET
        "command-line-secret",
        r"\b(?:curl|http|https)\b[^\n|;&]{0,300}?[ \t](?:-u|--user|-a|--auth)[ \t=]{0,3}[\"']?"
        r"[^\s:\"'$]{1,128}:([^\s\"'@|;&]{4,256})",
        ("curl", "http ", "https "),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # requests.get(url, auth=("user", "SECRET")), aiohttp.BasicAuth("user", "SECRET")
        "code-credential",
        r"(?:\bauth[ \t]{0,3}=[ \t]{0,3}\(|BasicAuth\()[ \t]{0,3}[\"'][^\"'\n]{1,128}[\"']"
        r"[ \t]{0,3},[ \t]{0,3}[\"']([^\"'\n…]{4,256})(?:[\"']|…)",  # … : a clip cut it there
        ("auth=", "auth =", "BasicAuth("),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # .netrc: machine HOST login USER password SECRET (on one line or several)
        "netrc-password",
        r"\bmachine\s{1,20}\S{1,256}\s{1,20}(?:login\s{1,20}\S{1,256}\s{1,20})?"
        r"password\s{1,20}([^\s]{1,256})",
        ("machine",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # ~/.pgpass: host:port:database:user:password, one entry per line
        "pgpass-password",
        r"(?m)^[^:\s]{1,253}:(?:[0-9]{1,5}|\*):[^:\s]{1,128}:[^:\s]{1,128}:([^\s]{1,256})$",
        (":",),
        group=1,
        left_boundary=False,
    ),
    _shape(
        # mongosh -p SECRET, redis-cli -a SECRET: database shells that take it spaced
        "command-line-secret",
        r"\b(?:mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport|redis-cli)\b"
        r"[^\n|;&]{0,200}?[ \t](?:-p|-a)[ \t]{1,3}(?!-)" + _VALUE,
        ("mongo", "redis-cli"),
        group=1,
        left_boundary=False,
    ),
)
