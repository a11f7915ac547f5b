"""The floor's detectors: piping a download to a shell, and sending files or
the environment to an outside address."""

from __future__ import annotations

import re

from acecode.quarantine.addresses import OUTSIDE, outside
from acecode.quarantine.floor.secrets import _STORE, _source
from acecode.quarantine.reading import Hit, Reading, first
from acecode.quarantine.words import alternation, compile_any, concepts, verbs

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
_PIPE_VERB = re.compile(verbs("pipe feed stream redirect"))
_SHELL_TARGET = re.compile(
    r"\b(?:in)?to\s+(?:a\s+|the\s+|your\s+)?(?:(?:ba|z|k)?sh|shell|bash|terminal|interpreter|"
    r"python|powershell)\b|\bdans\s+(?:un\s+)?(?:shell|bash|sh)\b|\bin\s+(?:eine\s+)?(?:shell|bash)"
)
_DOWNLOAD_THEN_RUN = re.compile(
    r"(?:" + verbs("download fetch grab") + r"|\bcurl|\bwget)"
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
        "send post upload transmit forward leak attach paste push sync mirror rsync scp copy",
        "share submit beacon dump contribute transfer drop create publish",
    ),
    r"\bback(?:s|ed|ing)?\s+up\b",
    r"\b(?:e-?)?mail(?:s|ed|ing)?\b(?!\s+(?:address|account|server|client))",
    alternation(
        r"envoi\w* envoy\w* envoie\w* téléverse\w* partag\w* colle[rz]? joins? sende\w*",
        r"schick\w* hochlad\w* hochzulad\w* lad\w* teile\w* häng\w* anhäng\w* env[ií]\w*",
        r"sub[ae]\w* subir stuur\w* sturen verstuur\w* versturen verzend\w* upload\w* deel\w*",
        r"plak\w* загруж\w*",
        r"pega\w* adjunt\w* comparte\w* cole cola colar anex\w* compartilh\w* mand[ae]\w*",
        r"invi[ae]\w* carica\w* incolla\w* allega\w* отправ\w* загруз\w* выложи\w*",
        r"прикреп\w* вставь\w*",
    ),
    r"发送|发到|上传|贴到|粘贴到|传到|寄给|送信|送って|アップロード|貼り付け|添付|投稿",
)
# Verbs that carry a file away (not "paste it into the chat").
_SHIP = compile_any(
    verbs(
        "upload send post sync mirror rsync scp transfer attach push forward email e-mail",
        "beacon leak",
    ),
    r"\bback(?:s|ed|ing)?\s+up\b",
    alternation(
        r"envoi\w* envoie\w* téléverse\w* sende\w* schick\w* hochlad\w* hochzulad\w*",
        r"env[ií]\w* stuur\w* sturen verstuur\w* versturen verzend\w* загруж\w*",
        r"sub[ae]\w* invi[ae]\w* carica\w* отправ\w* загруз\w*",
    ),
    r"发送|上传|传到|送信|アップロード",
)
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
    for found in reading.asked(_TRANSFER_COMMAND):
        host = OUTSIDE.search(found.group(0))
        if host is None or not outside(host):
            continue
        return Hit(found.group(0).strip()[:80], host.group(0))
    return None


_BEACON = re.compile(r"\b(?:https?|ftp)://[^\s`'\"]*(?:\$\(|`\w)")


def _beacon(reading: Reading) -> Hit | None:
    """A remote URL that carries this machine's data (``https://x.io/$(hostname)``)."""
    for found in reading.asked(_BEACON):
        host = OUTSIDE.match(found.group(0))
        if host is not None and outside(host):
            return Hit(found.group(0))
    return None


# The user as the recipient of a transfer, right after its verb ("send the user the
# link", "send me a summary", "envoie à l'utilisateur", "schick dem Nutzer", "stuur de
# gebruiker") or later in its clause ("send its link to the user"); "the user's" is an
# owner, not a recipient.
_USER = r"(?:the\s+(?:user|requester)|me|us)\b(?!['’]s)"
_TO_USER_NEXT = re.compile(
    rf"\s+(?:(?:it|them|this|that)\s+)?(?:(?:back\s+|on\s+)?to\s+)?{_USER}"
    r"|\s+(?:à|a)\s+l['’]utilisat(?:eur|rice)\b"
    r"|\s+(?:dem|der|an\s+den|an\s+die)\s+(?:nutzer\w*|benutzer\w*|anwender\w*)"
    r"|\s+(?:aan\s+)?de\s+gebruiker\b|\s+(?:al|a\s+la)\s+usuari[oa]\b|\s+ao\s+usu[aá]rio\b"
    r"|\s+(?:all['’]|a\s+)utente\b|\s+пользовател[юя]\b"
)
_TO_USER_LATER = re.compile(rf"\b(?:to|with)\s+{_USER}")
# What marks an address as where the data goes: "to https://...", "to this webhook: ...",
# "on the public fork github.com/...", "naar https://...", "sur https://..."; not a link's
# apposition ("the link to the issue (https://...)").
_DESTINATION = re.compile(
    r"(?<!link\s)(?<!links\s)(?<!url\s)(?<!page\s)(?:\b(?:to|into|onto|at|on|via|through|over|"
    r"an|auf|nach|naar|op|à|sur|vers|dans|a|en|para|em|no|na|su|in|на|в)|到|至)"
    r"(?:\s+[\w-]+){0,3}\s*:?\s*[`'\"]?\s*$"
)


def _sent_out(action: re.Match[str], target: re.Match[str]) -> bool:
    """Is ``target`` where ``action`` sends the data? Not a link given to the user: when
    the user is the recipient ("send the user the link (https://...)"), a host counts only
    where it is marked as the destination ("... and the log to https://..."); a public
    place by name (a paste site, a public channel) always does."""
    text = action.string
    hosts = [group for group in target.groups() if group]
    if not hosts:
        return True
    clause = text[action.end() : target.start()]
    if not (_TO_USER_NEXT.match(text, action.end()) or _TO_USER_LATER.search(clause)):
        return True
    return bool(_DESTINATION.search(text[max(0, target.start() - 40) : target.start()]))


def _exfiltration(reading: Reading) -> Hit | None:
    return first(
        lambda: _transfer_command(reading),
        lambda: reading.find(_RAW_SOCKET),
        lambda: reading.find(
            _TRANSFER,
            OUTSIDE,
            within="sentence",
            prose=True,
            accept=outside,
            pair=_sent_out,
        ),
        lambda: reading.find(_SHIP, _STORE, prose=True, accept=_source),
        lambda: _beacon(reading),
    )


# What this module reads, for the learned screen (``floor.VOCABULARY``).
VOCABULARY = concepts(
    action={"transfer": _TRANSFER, "ship": _SHIP, "pipe": _PIPE_VERB},
    object={"shell": _SHELL_TARGET},
    command={
        "pipe-command": _PIPE_COMMAND,
        "transfer-command": _TRANSFER_COMMAND,
        "socket": _RAW_SOCKET,
    },
)
