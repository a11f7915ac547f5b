"""Addresses outside this machine: where sent data would leave it.

An outside address is a URL, an e-mail address, an ``scp``/``rsync``
target (``user@host:``), an IP address or a bare domain name whose host is
not this machine or a reserved example or test domain; or a public place
by name (a public channel, group, forum or issue tracker, a paste site, a
gist, a personal account). "Send the PR to #backend-review" names an
internal channel, not an address, and ``http://localhost:8025`` stays here.
"""

from __future__ import annotations

import re

from acecode.quarantine.words import alternation

_LOCAL_SUFFIXES = (
    ".local", ".localhost", ".test", ".example", ".invalid", ".internal", ".lan",
    ".example.com", ".example.org", ".example.net",
)  # fmt: skip
_LOCAL_HOSTS = frozenset(
    {"localhost", "0.0.0.0", "[::1]", "::1", "example.com", "example.org", "example.net"}
)
_TLDS = (
    r"com|net|org|io|dev|app|site|xyz|top|info|biz|me|cc|ru|cn|co|ai|cloud|tech|online|"
    r"fr|de|es|pt|it|br|uk|nl|eu|us|jp|pw|tk|su|ly|gg"
)
_URL = r"\b(?:https?|ftp|wss?)://([^\s/'\"`<>)\]]+)"
_EMAIL = r"\b[\w.+-]+@([\w-]+(?:\.[\w-]+)+)(?![\w:-]|\.\w)"
_REMOTE_SHELL = r"\b[\w.-]+@([\w.-]+):"
_IP = r"\b((?:\d{1,3}\.){3}\d{1,3})\b"
_DOMAIN = rf"(?<![\w@./-])((?:[a-z0-9-]+\.)+(?:{_TLDS}))\b(?![\w-]|\.\w)"
_HOST = re.compile("|".join((_URL, _EMAIL, _REMOTE_SHELL, _IP, _DOMAIN)))

# Places that are public or personal by name, in the languages the floor reads.
PUBLIC_PLACE = (
    alternation(
        r"paste\s?bins?",
        r"paste\s+sites?",
        "hastebin",
        r"gists?",
        r"transfer\.sh",
        r"file\.io",
        r"public\s+(?:[#\w-]+\s+){0,3}?(?:channels?|groups?|forums?|issues?|repos?\w*|buckets?|"
        r"projects?|trackers?|servers?|chats?|rooms?)",
        r"personal\s+(?:accounts?|forks?|repos?\w*|gmail|e-?mail|drive|cloud|storage|servers?|"
        r"machines?|dropbox)",
        r"google\s+drive",
        "dropbox",
        "wetransfer",
        "discord",
        "telegram",
        "whatsapp",
        r"third[-\ ]party\s+(?:services?|servers?|sites?|tools?)",
        r"external\s+(?:servers?|services?|hosts?|endpoints?|sites?)",
        r"(?:vendor|partner|third[-\ ]party)'?s?\s+(?:\w+\s+)?(?:endpoints?|servers?|api|team|"
        r"support)",
        r"(?:groupe?|canal|salon|forum)\s+publi\w*",
        r"öffentlich\w*\s+(?:\w+\s+)?(?:kanal|gruppe|"
        r"forum|repo\w*)",
        r"(?:grupo|canal|foro|fórum)\s+p[uú]blico",
        r"servidor\w*\s+extern\w*",
        r"serveur\w*\s+extern\w*",
        r"externe[nr]?\s+server\w*",
        r"публичн\w+",
        r"внешн\w+\s+сервер\w*",
    )
    + r"|公开的?(?:群|频道|仓库|gist)|外部(?:の)?サーバー|外部服务器"
    + r"|公開(?:の)?(?:チャンネル|リポジトリ)"
)


def is_local_host(host: str) -> bool:
    """True for this machine, private names and the reserved example and test domains."""
    host = re.sub(r":\d+$", "", host.rsplit("@", 1)[-1].lower()).strip(".[]")
    return (
        host in _LOCAL_HOSTS
        or host.startswith(("127.", "10.", "192.168."))
        or host.endswith(_LOCAL_SUFFIXES)
        or "." not in host
    )


def outside_address(text: str) -> str | None:
    """The first address in ``text`` (folded) that is not this machine, else None."""
    for found in _HOST.finditer(text):
        host = next(group for group in found.groups() if group)
        if not is_local_host(host):
            return found.group(0)
    return None


OUTSIDE = re.compile(
    "|".join((_URL, _EMAIL, _REMOTE_SHELL, _IP, _DOMAIN, PUBLIC_PLACE)),
)


def outside(found: re.Match[str]) -> bool:
    """Is this match of ``OUTSIDE`` outside the machine (a public place always is)?"""
    hosts = [group for group in found.groups() if group]
    return not hosts or not is_local_host(hosts[0])
