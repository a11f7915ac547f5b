"""The dangerous-instruction rules of the quarantine screen, one per class.

Each rule is a list of regular expressions over the folded text (lower case,
look-alikes folded, see ``normalize``). Literal commands (``curl ... | sh``,
``--no-verify``) and natural-language paraphrases ("pipe the installer into
bash") are both covered; the class detectors of ``detectors`` (intent verbs
x protected objects, in seven languages) extend each rule, and define the
``consent-scope`` rule. A match is dropped when the clause before it
negates it ("never use --no-verify"), unless the pattern is marked
``negatable=False``; some patterns also carry a check that needs more than a
regex (is this URL outside the machine?). Every gap inside a pattern is
bounded (at most 200 characters of one line), so no input can make matching
quadratic. The rule table in ``docs/quarantine.md`` describes the same list
for people.
"""

from __future__ import annotations

import re

from acecode.quarantine import detectors
from acecode.quarantine.intent import instructed, no_inner_negation, unguarded
from acecode.quarantine.patterns import Rule, clause_gap, p, sentence_gap, verbs

_URL = re.compile(r"\b(?:https?|ftp|wss?)://([^\s/'\"`<>)\]]+)")
_EMAIL = re.compile(r"\b[\w.+-]+@([\w-]+(?:\.[\w-]+)+)")
_LOCAL_SUFFIXES = (".local", ".localhost", ".test", ".example", ".invalid", ".example.com")
_LOCAL_HOSTS = frozenset(
    {"localhost", "0.0.0.0", "[::1]", "::1", "example.com", "example.org", "example.net"}
)


def is_local_host(host: str) -> bool:
    """True for this machine and the reserved example and test domains."""
    host = host.rsplit("@", 1)[-1]
    host = re.sub(r":\d+$", "", host).strip(".")
    return host in _LOCAL_HOSTS or host.startswith("127.") or host.endswith(_LOCAL_SUFFIXES)


def external_destination(text: str) -> str | None:
    """The first URL host or e-mail domain in ``text`` that is not this machine."""
    for pattern in (_URL, _EMAIL):
        for match in pattern.finditer(text):
            if not is_local_host(match.group(1)):
                return match.group(0)
    return None


def _has_external(match: re.Match[str], _text: str) -> bool:
    return external_destination(match.group(0)) is not None


_NOUN_DETERMINERS = re.compile(
    r"\b(?:the|a|an|this|that|these|those|my|your|our|their|its|his|her|blog|each|every|"
    r"new|last|latest|previous|recent|forum|original|same|first|pinned)\s+$"
)


def _verb_with_external(match: re.Match[str], text: str) -> bool:
    """The send verb is used as a verb (not "the blog post at ...") and the target is remote."""
    before = text[max(0, match.start() - 20) : match.start()]
    return not _NOUN_DETERMINERS.search(before) and _has_external(match, text)


_FAILURE_CONTEXT = re.compile(
    r"\b(?:fail\w*|broken|break\w*|red|errors?|flak\w*|pass(?:es|ing)?|green|dodge|around)\b"
)


def _in_failure_context(match: re.Match[str], text: str) -> bool:
    """Deselecting tests is routine; deselecting them to get past a failure is not."""
    start = max(text.rfind(". ", 0, match.start()), text.rfind("\n", 0, match.start()), 0)
    end_candidates = [
        i for i in (text.find(". ", match.end()), text.find("\n", match.end())) if i >= 0
    ]
    end = min(end_candidates) if end_candidates else len(text)
    return bool(_FAILURE_CONTEXT.search(text[start:end]))


_SECRET_SOURCES = re.compile(
    r"^\W*(?:\w+\W+){0,3}?from\s+(?:the\s+|an?\s+)?(?:env\w*|os\.environ|process\.env|"
    r"settings|config\w*|secrets?\s+manager|vault|keyring|ci\s+secrets)"
)


def _not_from_environment(match: re.Match[str], text: str) -> bool:
    """Reading a key *from the environment* is how code should get it; that passes."""
    return not _SECRET_SOURCES.search(text[match.end() : match.end() + 60])


# --- shared vocabulary -------------------------------------------------------------

_CREDENTIAL_NOUN = (
    r"(?:api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?(?:access[ _-]?)?keys?|"
    r"private[ _-]?keys?|ssh[ _-]?keys?|signing[ _-]?keys?|"
    r"(?:auth(?:entication)?|access|api|bearer|github|gh|gitlab|npm|pypi|oauth|refresh|session|"
    r"jwt|personal[ _-]access|secret|slack|discord|cloud|aws|deploy)[ _-]?tokens?|"
    r"secrets?|passwords?|passwd|passphrases?|credentials?|creds|session[ _-]?cookies?|"
    r"cookies|env(?:ironment)?[ _-]?(?:variables|vars)|\.env\b|keychain|keyring|"
    r"seed[ _-]phrases?|mnemonics?|wallets?)"
)
_SENSITIVE_DATA = (
    r"(?:" + _CREDENTIAL_NOUN + r"|source(?:\s+code)?|code\s?base|repo(?:sitory)?|"
    r"(?:the\s+)?contents?|files?|diffs?|git\s+history|transcripts?|conversations?|"
    r"chat(?:\s+history)?|session|logs?|history|customer\s+data|user\s+data|personal\s+data|"
    r"databases?|dumps?|~/\.|id_rsa|ssh)"
)
_REMOTE_WORD = (
    r"(?:urls?|endpoints?|servers?|webhooks?|hosts?|domains?|address(?:es)?|inbox|e-?mail|"
    r"mailbox|paste\s?bin|paste\s?sites?|gists?|buckets?|remote|third[- ]part(?:y|ies)|"
    r"external|outside|channels?|forms?|dns|https?://\S+|ftp://\S+|[\w.+-]+@[\w-]+\.[\w.]+|"
    r"[\w-]+\.(?:com|net|org|io|ru|cn|xyz|top|info|biz|me|cc|su|tk|pw)\b)"
)
_SHELL = (
    r"(?:(?:ba|z|k|c|tc|da|fi|a)?sh|python[\d.]*|perl|ruby|node|php|iex|invoke-expression|"
    r"pwsh|powershell|source)\b"
)
_DOWNLOADER = r"(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|http)"
_EXFIL_HOSTS = (
    r"(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app)|interact\.sh|"
    r"oast\.\w+|burpcollaborator|pastebin\.com|transfer\.sh|0x0\.st|hastebin|termbin|"
    r"\bix\.io|file\.io|beeceptor|hookbin)"
)
_CHECK_OBJECT = (
    r"(?:(?:the|all|any|every|failing|flaky|broken|these|those|our|your|its|their|unit|"
    r"integration|e2e|end-to-end|slow|pre-?commit|pre-?push|commit|git|security|safety|type|"
    r"lint|ci|required|status|remaining|red)\s+){0,4}"
    r"(?:tests?|test\s+suites?|specs?|ci|pipelines?|checks?|hooks?|pre-?commit|linters?|"
    r"linting|lint|type[- ]?check\w*|mypy|pyright|ruff|flake8|eslint|pylint|safety|security|"
    r"sandbox\w*|guardrails?|verification|validation|assertions?|code\s+review|reviews?|"
    r"scans?|scanners?|(?:test|ci|lint|type|build|check)\s+(?:failures?|errors?))\b"
    r"(?!\s+(?:database|db|data|fixtures?|files?|folder|dir\w*|cache|output|results?|server|"
    r"account|users?|names?|ids?|cases?\s+for|helpers?|utils?|environment|env|config\w*))"
)
_DISABLE_VERB = (
    r"(?:"
    + verbs(
        "disable", "skip", "bypass", "deactivate", "remove", "delete", "silence", "suppress",
        "mute", "circumvent", "sidestep", "dodge", "ignore", "xfail", "neuter", "short-circuit",
        imperative=True,
    )
    + r"|\b(?:turn|switch)(?:s|ed|ing)?\s+off|\bcomment(?:s|ed|ing)?\s+out|\bget\s+around|"
    r"\bwork\s+around|\bstub(?:s|bed|bing)?\s+out|\bno\s+need\s+to\s+run|"
    r"\b(?:don'?t|do\s+not|never)\s+(?:bother\s+)?(?:to\s+)?(?:run|execute|wait\s+for)|"
    r"\bstop\s+running|\bwithout\s+running|\bavoid\s+running)"
)  # fmt: skip
_SEND_VERB = verbs(
    "send", "post", "upload", "transmit", "forward", "leak", "email", "e-mail", "mail", "share",
    "report", "copy", "pipe", "push", "sync", "dump", "transfer", "deliver", "relay", "paste",
    "include", "attach", "embed", "append", "beacon", "submit",
)  # fmt: skip
_EDIT_VERB = (
    r"(?:"
    + verbs(
        "edit", "modify", "change", "update", "write", "overwrite", "rewrite", "delete", "remove",
        "append", "add", "insert", "patch", "disable", "uninstall", "clear", "reset", "truncate",
        "replace", "tamper", "tweak", "alter", "adjust", "configure", "reconfigure",
        imperative=True,
    )
    + r"|\bturn(?:s|ed|ing)?\s+off)"
)  # fmt: skip

# --- the rules ------------------------------------------------------------------------

INSTRUCTION_OVERRIDE = Rule(
    "instruction-override",
    "tells the agent to ignore or override earlier, later, user or project instructions, "
    "or to take on a new role",
    (
        p(
            r"(?:"
            + verbs(
                "ignore",
                "disregard",
                "forget",
                "override",
                "overrule",
                "bypass",
                "supersede",
                "discard",
            )
            + r"|\bset\s+aside|\b(?:don'?t|do\s+not|no\s+longer|never)\s+(?:follow|obey|"
            r"listen\s+to|heed|apply|respect)|\bstop\s+(?:following|obeying|listening\s+to)|"
            r"\bpay\s+no\s+attention\s+to)\s+"
            + clause_gap(40)
            + r"\b(?:previous|prior|earlier|above|preceding|later|subsequent|following|other|"
            r"any|all|user'?s?|system|project'?s?|developer'?s?|original|existing|safety|"
            r"conflicting|future|new)\b"
            + clause_gap(30)
            + r"\b(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|"
            r"guidance|polic(?:y|ies)|constraints?|restrictions?|messages?|requests?|orders|"
            r"commands|wishes|claude\.md|agents\.md)\b"
        ),
        p(
            r"(?:" + verbs("ignore", "disregard", "override", "forget") + r"|\b(?:don'?t|do\s+not|"
            r"never)\s+(?:follow|obey))\s+(?:the\s+|any\s+|all\s+)?(?:claude\.md|agents\.md|"
            r"system\s+prompt|(?:what|whatever)\s+(?:the\s+)?(?:user|claude\.md|agents\.md|project|"
            r"system\s+prompt|instructions?)\s+(?:says?|said|asks?|asked|wants?|tells?\s+you))"
        ),
        p(
            r"\b(?:overrides?|supersedes?|outranks?|trumps?|takes?\s+precedence\s+over|"
            r"(?:has|have|takes?)\s+(?:priority|precedence)\s+over|more\s+important\s+than|"
            r"(?:higher|greater)\s+priority\s+than|(?:weighs?|counts?)\s+more\s+than)\s+"
            r"(?:the\s+|any\s+|all\s+)?"
            r"(?:user'?s?|system|project'?s?|developer'?s?|previous|earlier|later|other|"
            r"existing)?\s*(?:instructions?|prompts?|rules|requests?|guidelines|claude\.md|"
            r"agents\.md|system\s+prompt|user)\b"
        ),
        p(
            r"\b(?:you\s+are\s+now|from\s+now\s+on,?\s+you|act\s+as\s+(?:an?\s+)?(?:unrestricted|"
            r"unfiltered|jailbroken|dan)\b|developer\s+mode|jailbreak\w*|do\s+anything\s+now|"
            r"new\s+(?:system\s+)?instructions?\s*:)",
            negatable=False,
        ),
        p(
            r"(?:^|\n)\s*(?:system|assistant)\s*:|<\s*/?\s*(?:system|instructions?|im_start|"
            r"im_end)\b|\[/?inst\]|#{2,}\s*(?:system|instructions?)\b",
            negatable=False,
        ),
        p(
            r"\b(?:even\s+if|regardless\s+of\s+(?:whether|what)?|no\s+matter\s+what)\s+"
            r"(?:the\s+)?(?:user|claude\.md|agents\.md|project|instructions?|system|you\s+are\s+"
            r"told)\b",
            negatable=False,
        ),
    ),
)

EXFILTRATION = Rule(
    "exfiltration",
    "sends data out of the machine: to a URL, an e-mail address, a paste site, a raw socket or DNS",
    (
        p(r"\bexfiltrat\w*"),
        p(_EXFIL_HOSTS),
        p(
            r"(?<![\w-])(?:send|post|upload|transmit|forward|leak|e-?mail|mail|beacon|submit|"
            r"deliver|relay|transfer|paste)\b" + sentence_gap(160) + r"(?:(?:https?|ftp|wss?)://"
            r"\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
            check=_verb_with_external,
        ),
        p(
            _SEND_VERB
            + sentence_gap(80)
            + r"(?<![\w-])"
            + _SENSITIVE_DATA
            + sentence_gap(100)
            + r"\b(?:to|into|in|via|at|with|through|onto|over)\s+"
            + sentence_gap(40)
            + _REMOTE_WORD,
            check=no_inner_negation,
        ),
        p(
            r"\bcurl\b[^\n|;&]{0,200}?(?:\s-[a-z]*[dft]\b|\s--data[\w-]*|\s--form\b|\s--upload-file\b|"
            r"\s-x\s*post\b|\s--request\s+post\b)[^\n|;&]{0,200}",
            check=_has_external,
        ),
        p(r"\bwget\b[^\n|;&]{0,200}--post-(?:data|file)"),
        p(r"\b(?:nc|ncat|netcat|socat)\s+(?:-\w+\s+)*[\w.-]+\s+\d{2,5}\b"),
        p(r"/dev/(?:tcp|udp)/"),
        p(r"\b(?:scp|rsync)\b[^\n]{0,200}\s[\w.-]+@[\w.-]+:"),
        p(r"\b(?:requests|httpx|axios)\.(?:post|put)\([^\n]{0,200}", check=_has_external),
        p(r"\b(?:mail|mailx|mutt)\s+-s\b|\bsendmail\b"),
        p(r"\b(?:dig|nslookup|host)\s+[^\n]{0,200}\$\("),
        *detectors.EXFILTRATION,
    ),
)

PIPE_TO_SHELL = Rule(
    "pipe-to-shell",
    "runs code fetched from the network without reading it (curl | sh, eval $(curl), "
    "download-and-run)",
    (
        p(
            r"\b"
            + _DOWNLOADER
            + r"\b[^\n|]{0,200}\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+\s+)?"
            + _SHELL
        ),
        p(r"\b(?:(?:ba|z|k)?sh|source|\.)\s+(?:-\S+\s+)*<\s*\(\s*" + _DOWNLOADER + r"\b"),
        p(r"\b(?:(?:ba|z|k)?sh\s+-c|eval)\s+[\"']?(?:\$\(|`)\s*" + _DOWNLOADER + r"\b"),
        p(r"\bbase64\s+(?:-d|--decode|-D)\b[^\n]{0,200}\|\s*(?:sudo\s+)?" + _SHELL),
        p(r"\bexec\s*\([^\n]{0,200}(?:urlopen|requests\.get|urllib|httpx\.get)"),
        p(r"\biex\s*\(?[^\n]{0,200}(?:downloadstring|new-object\s+net\.webclient|iwr|irm)"),
        p(
            verbs("pipe", "feed", "pass", "redirect", "stream")
            + clause_gap(60)
            + r"\b(?:download\w*|install(?:er|\s+script)|scripts?|output|response|curl|wget|"
            r"remote|urls?|payload)\b"
            + clause_gap(40)
            + r"\b(?:in)?to\s+(?:a\s+|the\s+|your\s+)?(?:(?:ba|z|k)?sh|shell|bash|terminal|"
            r"interpreter|python|powershell)\b"
        ),
        p(
            r"(?:" + verbs("download", "fetch", "grab", "pull") + r"|\bcurl|\bwget)"
            r"(?:(?!\b(?:read|review|inspect|check|verify|audit|checksum|examine|compare)\w*\b)"
            r"[^.;\n]){0,80}?\b(?:and|then|&&)\s+(?:then\s+)?(?:immediately\s+|directly\s+|just\s+"
            r"|straight\s+away\s+)?(?:run|execute|exec|source|eval|launch|start)\s+(?:it|them|that|"
            r"the\s+(?:script|file|installer|result|output|code|payload))\b"
        ),
        p(
            r"\b(?:run|execute|eval|source)\s+(?:whatever|any|the)\s+(?:scripts?|code|commands?|"
            r"payload)?\s*(?:(?:is|are)\s+)?(?:returned|served|hosted|found|located|available|"
            r"posted|listed)?\s*(?:by|at|from|on|in)\s+(?:the\s+)?(?:urls?|https?://|link|remote|"
            r"server|gist|paste\s?bin|web\s?page|website)"
        ),
    ),
)

CREDENTIAL_ACCESS = Rule(
    "credential-access",
    "reads, prints or collects secrets: .env, ~/.ssh, cloud credentials, tokens, keychains, "
    "the environment (printenv)",
    (
        p(
            r"~/\.ssh\b|\$home/\.ssh\b|/\.ssh/(?:id_|authorized|known)|\.aws/credentials|"
            r"\.git-credentials|/etc/shadow|/etc/sudoers|\.claude/\.credentials|\.password-store|"
            r"\.gnupg/|\bsecurity\s+find-(?:generic|internet)-password|\bgh\s+auth\s+token\b|"
            r"\bgcloud\s+auth\s+print-\w+-token|\baws\s+configure\s+(?:get|export)|"
            r"\bkeyring\s+get\b|/proc/(?:self|\d+)/environ|\bprintenv\b(?!\s+(?![a-z_]*(?:token|secret|key|pass|auth|cred))(?:[a-z][a-z0-9]*_[a-z0-9_]*|path|home|user|shell|lang|term|pwd|editor|tz)\b)|\bexport\s+-p\b|"
            r"(?:\b(?:run|execute|type|call)\s+`?|[|;]\s*|&&\s*|\$\s+)env\s*(?:$|[|>`;)\n])|"
            r"\benv\s*\|(?!\s*(?:cut\s+-d\s*=?\s*-f\s*1|sed\s+'?s/=.*//))|\b(?:browser|chrome|chromium|firefox|safari|edge)'?s?\s+(?:saved\s+)?"
            r"(?:cookies|passwords|logins|profiles?|session\s+data)"
        ),
        p(
            # Imperative and -ing forms only: "it reads .env in development" describes a
            # library, "read .env" tells the agent to do it.
            r"(?:\b(?:read|cat|open|print|show|display|dump|echo|output|upload|send|include|"
            r"paste|grep|access|reveal|leak)(?:ing)?\b"
            r"|\b(?:less|more|head|tail|bat|type|get-content)\s+(?=\S*\.))"
            r"[^\n;|&]{0,40}?(?:\.env(?![.\w-])|\.netrc|\.npmrc|\.pypirc|\.docker/config\.json|"
            r"\.kube/config|credentials\.json|service[-_]?account[\w-]*\.json|"
            r"\bid_(?:rsa|dsa|ecdsa|ed25519)\b|secrets?\.(?:ya?ml|json|toml|env)|\.aws/config)"
        ),
        p(
            r"\b(?:echo|print\w*|cat|console\.log|puts|log\w*|write-host|out-file)\b[^\n|;]{0,40}?"
            r"\$\{?[a-z_]*(?:token|secret|password|passwd|credential|api_?key|access_?key|"
            r"private_?key|auth)[a-z_]*\}?"
        ),
        p(
            r"\b(?:print|console\.log|puts|json\.dumps|json\.stringify|log\w*|echo|dump|str)\s*"
            r"\(?\s*(?:dict\(\s*)?(?:os\.environ|process\.env)\s*\)?(?![\w.\[])"
        ),
        p(
            r"(?:"
            + verbs(
                "print",
                "show",
                "display",
                "reveal",
                "echo",
                "output",
                "dump",
                "expose",
                "leak",
                "log",
                "paste",
                "collect",
                "gather",
                "harvest",
                "grab",
                "steal",
                "include",
            )
            + r"|\b(?:type|spell|write)\s+out)"
            + clause_gap(50)
            + r"(?<![\w-])"
            + _CREDENTIAL_NOUN,
            check=unguarded,
        ),
        p(
            verbs("read", "open", "cat", "access", "retrieve", "fetch", "get", imperative=True)
            + r"\s+"
            + clause_gap(40)
            + r"(?<![\w-])"
            + _CREDENTIAL_NOUN,
            check=_not_from_environment,
        ),
        *detectors.SECRETS,
    ),
)

DESTRUCTIVE_COMMAND = Rule(
    "destructive-command",
    "destroys work or history: force-push to shared branches, reset --hard, git clean -fdx, "
    "rm -rf on / or ~, disk and database wipes",
    (
        p(
            r"\bgit\s+push\b[^\n;|&`]{0,200}?(?:\s--force(?![-\w])|\s-f\b|\s-[a-z]*f[a-z]*\b|"
            r"\s\+[\w/.-]+)"
        ),
        p(
            r"\bgit\s+push\b[^\n;|&`]{0,200}--force-with-lease[^\n;|&`]{0,200}\b(?:main|master|trunk|"
            r"develop|release\S*|prod\S*|production)\b"
        ),
        p(
            r"\bgit\s+push\b[^\n;|&`]{0,200}(?:--delete\s+|\s:)(?:main|master|trunk|develop|release)\b"
        ),
        p(
            r"\bforce[- ]?push\w*\b"
            + clause_gap(40)
            + r"\b(?:main|master|trunk|develop|release|production|prod|default\s+branch|shared|"
            r"upstream|protected|remote|public)\b"
        ),
        p(
            r"\b(?:main|master|trunk|the\s+default\s+branch|shared\s+branch\w*)\b"
            + clause_gap(30)
            + r"force[- ]?push"
        ),
        p(
            r"\bpush\w*\b"
            + clause_gap(40)
            + r"\b(?:main|master|trunk|production|prod|release)\b"
            + clause_gap(30)
            + r"(?:--force(?![-\w])|\s-f\b|\bforce\b)"
        ),
        p(r"\bgit\s+reset\s+(?:\S+\s+)?--hard\b", check=unguarded),
        p(r"\bgit\s+clean\s+(?:-\w+\s+)*-\w*f", check=unguarded),
        p(r"\bgit\s+(?:checkout|restore)\s+(?:--\s+|--\w+\s+)*\.(?:\s|$|[`'\"])"),
        p(
            r"\bgit\s+(?:stash\s+(?:clear|drop)|branch\s+-d\s+(?:main|master)|filter-branch|"
            r"filter-repo|update-ref\s+-d|reflog\s+expire|gc\s+--prune=now)"
        ),
        p(
            r"\brm\s+(?:-\w+\s+|--[\w-]+\s+)*(?:-\w*r\w*f\w*|-\w*f\w*r\w*|-r\s+-f|-f\s+-r|"
            r"--recursive\s+--force|--force\s+--recursive)\s+(?:--no-preserve-root\s+)?"
            r"[\"']?(?:/|/\*|~|~/|~/\*|\$home/?|\$\{home\}/?|\.|\./|\./\*|\.\.|\.\./?\*?|\*|"
            r"\.git|/home\S*|/usr|/etc|/var|/bin|/boot|/root|c:\\?)[\"']?(?=\s|$|[;&|`)\"'])"
        ),
        p(r"--no-preserve-root"),
        p(r"\bfind\s+(?:/|~|\$home)\s[^\n]{0,200}-delete\b"),
        p(
            r"\bmkfs\b|\bdd\s+[^\n]{0,200}of=/dev/(?:sd|nvme|hd|disk|xvd)|>\s*/dev/sd[a-z]|"
            r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bshred\b|\bwipefs\b|"
            r"\bchmod\s+-r\s+0+\s+/|\bdrop\s+(?:database|schema)\b|"
            r"\bdelete\s+from\s+\w+\s*;|\btruncate\s+table\b"
        ),
        p(
            verbs(
                "delete",
                "remove",
                "wipe",
                "erase",
                "destroy",
                "nuke",
                "purge",
                "obliterate",
                "reformat",
                "rewrite",
            )
            + clause_gap(30)
            + r"(?:\.git\b|\b(?:the\s+)?(?:user'?s?\s+)?home\s+(?:dir\w*|folder)|"
            r"\b(?:the\s+)?(?:git|commit|published|shared|public)\s+history|\b(?:the\s+)?(?:entire|whole)\s+(?:repo\w*|"
            r"project|disk|drive|file\s?system|database)|(?:production|prod|live)\s+(?:data\w*|"
            r"db|tables?)|all\s+(?:branches|tags|backups|commits|remote\s+branches)|"
            r"backups|(?:remote|other\s+people'?s?)\s+branches)"
        ),
        *detectors.DESTRUCTIVE,
    ),
)

DISABLE_CHECKS = Rule(
    "disable-checks",
    "disables or dodges tests, CI, hooks, linters, type checks or TLS/safety checks "
    "(--no-verify, [skip ci], blanket noqa, -k 'not ...' to hide failures)",
    (
        p(
            r"--no-verify\b|\bgit\s+commit\b[^\n;|&]{0,200}\s-n\b|core\.hookspath|\bhusky=0\b|"
            r"\bhusky_skip_hooks\b|\bskip=[\w,-]+\s+git\b|\[(?:skip ci|ci skip|no ci|skip actions|"
            r"actions skip)\]|\bskip[- ]ci\b|\*\*\*no_ci\*\*\*|skip-checks:\s*true|"
            r"\bpre-commit\s+uninstall\b|\brm\s+(?:-\w+\s+)*\.git/hooks|chmod\s+-x\s+\.git/hooks|"
            r"--exit-zero\b"
        ),
        p(
            r"#\s*(?:ruff|flake8)\s*:\s*noqa\b|/\*\s*eslint-disable\s*\*/|//\s*@ts-nocheck|"
            r"\b(?:every|all|each|any)\b[^\n.]{0,40}#\s*(?:noqa|nosec|type:\s*ignore|pylint:\s*"
            r"disable|pragma:\s*no\s*cover)|#\s*(?:noqa|nosec|type:\s*ignore|pylint:\s*disable"
            r"\S*)\b" + clause_gap(40) + r"\b(?:every|all|each|everywhere|anywhere|whenever|"
            r"blanket)\b|"
            r"\bblanket\s+(?:#\s*)?(?:noqa|type:\s*ignore|nosec)"
        ),
        p(
            r"\b(?:pytest|tox|npm\s+test|npm\s+run\s+\w+|make\s+\w+|ruff|mypy|eslint|cargo\s+test|"
            r"go\s+test)\b[^\n;]{0,200}\|\|\s*(?:true|exit\s+0|:)(?=\s|$|[`'\"])"
        ),
        p(
            r"\bpytest\b[^\n]{0,200}?(?:\s-k\s*[\"']?not\b|--deselect\b|-p\s+no:)|"
            r"@pytest\.mark\.(?:skip|xfail)\b|\bpytest\.skip\(",
            check=_in_failure_context,
        ),
        p(
            r"\bverify\s*=\s*false\b|node_tls_reject_unauthorized\s*=\s*['\"]?0|"
            r"pythonhttpsverify\s*=\s*0|\bcurl\b[^\n|]{0,200}\s(?:-k|--insecure)\b|sslverify\s+false|"
            r"http\.sslverify|stricthostkeychecking\s*=?\s*no|--trusted-host\b|"
            r"--disable-(?:web-security|ssl|tls)|ssl_verify\w*\s*=\s*(?:false|0|none)"
        ),
        p(_DISABLE_VERB + r"\s+" + _CHECK_OBJECT, check=unguarded),
        p(
            r"(?:"
            + verbs(
                "delete",
                "remove",
                "xfail",
                "skip",
                "disable",
                "weaken",
                "loosen",
                "relax",
                "rewrite",
                "change",
                "edit",
                "modify",
                "adjust",
                "update",
                "hardcode",
                "hard-code",
                "lower",
                "flip",
            )
            + r"|\bcomment(?:s|ed|ing)?\s+out)"
            + sentence_gap(50)
            + r"\b(?:assert\w*|expect\w*|tests?|snapshots?|thresholds?|coverage)\b"
            + sentence_gap(50)
            + r"\b(?:until|so\s+(?:that\s+)?|to\s+make)\s+(?:it|they|ci|the\s+(?:tests?|suite|"
            r"ci|build|checks?|pipeline))\s+(?:passes|pass|goes\s+green|go\s+green|is\s+green|"
            r"are\s+green|succeeds?|stops?\s+failing)"
        ),
        p(
            r"\b(?:tests?|specs?|checks?|hooks?)\b[^.;\n]{0,40}\b(?:broken|failing|flaky|fail|red)"
            r"\b[^.\n]{0,20}?[;:,-]\s*(?:just\s+|so\s+)?(?:delete|remove|skip|disable|xfail|"
            r"comment\s+out|ignore)\s+(?:them|it|those|these)\b"
        ),
        p(r"\bfail_under\s*=\s*0\b|--cov-fail-under[= ]0\b"),
        p(
            r"\bmark\w*\s+(?:the\s+|any\s+|all\s+)?(?:failing|broken|flaky|red)\s+(?:tests?|"
            r"specs?)\s+(?:as\s+)?(?:skip\w*|xfail\w*|expected\s+failures?)"
        ),
        *detectors.TEST_TAMPERING,
    ),
)

WEAKEN_PERMISSIONS = Rule(
    "weaken-permissions",
    "widens what the agent or files may do: sudo/root, chmod 777, "
    "--dangerously-skip-permissions, bypassPermissions, skipping permission prompts",
    (
        p(
            r"\bchmod\s+(?:-\w+\s+)*(?:0?777|0?666|a\+rwx|ugo\+rwx|o\+w|a\+w|go\+w|o\+rwx|\+rwx|"
            r"u\+s|\+s|4755)(?![\w+])"
        ),
        p(
            r"\bsudo\b(?!-)|\bsu\s+(?:-|root)(?=\s|$)|\bdoas\b|\bvisudo\b|\bnopasswd\b",
            check=unguarded,
        ),
        p(
            r"--dangerously[\w-]*|dangerously[_-]?skip|bypass_?permissions|"
            r"(?:permission_?mode|defaultmode)[\"']?\s*[:=]?\s*[\"']?(?:bypass|acceptedits|dontask|"
            r"yolo)|--allow-?all[\w-]*|--yolo\b|\byolo\s+mode|bash\(\*\)|--privileged\b|"
            r"(?:seccomp|apparmor)[=:]unconfined|--cap-add[= ](?:all|sys_admin)|setenforce\s+0|"
            r"\b(?:ufw|firewalld?)\s+(?:disable|stop)|--no-sandbox\b|"
            r"set-executionpolicy\s+(?:bypass|unrestricted)|icacls[^\n]{0,200}everyone:\(?f"
        ),
        p(
            verbs("run", "execute", "start", "launch", "use", "invoke", "do")
            + clause_gap(40)
            + r"\b(?:as|with)\s+(?:root|sudo|admin(?:istrator)?|superuser|elevated\s+"
            r"(?:privileges|permissions|rights))\b"
        ),
        p(
            r"(?:"
            + verbs(
                "grant",
                "give",
                "set",
                "make",
                "assign",
                "widen",
                "loosen",
                "relax",
                "elevate",
                "escalate",
            )
            + r"|\bopen(?:s|ed|ing)?\s+up)"
            + clause_gap(40)
            + r"\b(?:full|all|unrestricted|broad|root|admin\w*|elevated|world[- ]?(?:writable|"
            r"readable)|everyone|777|wide[- ]open|maximum)\s+(?:permissions?|access|privileges?|"
            r"rights|mode)"
        ),
        p(r"\bworld[- ]writ(?:e)?able\b|\bprivilege\s+escalation\b"),
        p(
            r"(?:"
            + verbs(
                "skip", "bypass", "disable", "ignore", "auto-approve", "autoapprove", "suppress"
            )
            + r"|\bturn(?:s|ed|ing)?\s+off|\b(?:(?:don'?t|do\s+not|never)\s+ask|\bstop\s+asking|"
            r"\bwithout\s+asking)\s+(?:the\s+user\s+|anyone\s+|them\s+)?for|\bwithout\s+(?:requesting|"
            r"waiting\s+for))\s+(?:the\s+|any\s+|all\s+|user\s+|their\s+)?(?:permission|approval|"
            r"authori[sz]ation|consent)s?\b"
        ),
        p(
            r"\b(?:accept|approve|allow)\s+(?:all|every|any)\s+(?:edits|commands|tool\s+calls|"
            r"tools|permissions?|requests?)\b"
        ),
        p(
            verbs("add")
            + clause_gap(40)
            + r"\bto\s+(?:the\s+)?(?:allow\s?list|allowlist|whitelist|permissions\.allow|"
            r"allowed\s?tools)"
        ),
        *detectors.PRIVILEGE,
    ),
)

SELF_MODIFICATION = Rule(
    "self-modification",
    "edits acecode's own playbook, queue, settings or Claude Code's hooks and settings, "
    "or games the helpful counters",
    (
        p(
            r"(?:>>?|\btee\b)\s*[^\n;|&]{0,40}?(?:playbook\.json|\.claude/acecode|acecode\.toml|"
            r"pending\.json|\.claude/settings(?:\.local)?\.json)",
        ),
        p(
            _EDIT_VERB
            + clause_gap(40)
            + r"(?:\b(?:the|your|this|acecode'?s?)\s+(?:acecode\s+)?playbook\b(?![\w.-]*\.ya?ml)|"
            r"\blearned\s+(?:rules|entries)|\bkey\s?points|\bhook\s+config\w*|"
            r"\bclaude\s+(?:code\s+)?(?:settings|hooks|config\w*)|(?<![\w/.-])settings\.json\b|"
            r"\bclaude\.md\b|\.claude/|\bacecode(?:'s)?\s+(?:settings|config\w*|hooks?|rules|"
            r"queue|review|pending))",
            check=instructed,
        ),
        p(
            r"\bacecode\s+(?:uninstall|config\s+set|--no-review)|"
            r"\b(?:approve|accept)\s+(?:all\s+)?(?:the\s+)?(?:pending|queued|quarantined)\b"
        ),
        p(
            r"\b(?:always|in\s+every|in\s+each)\b"
            + clause_gap(40)
            + r"\bcite\b|\bcite\b"
            + clause_gap(40)
            + r"\b(?:every|each|all)\s+(?:responses?|answers?|messages?|"
            r"repl(?:y|ies)|turns?|times?)\b|"
            + verbs("mark", "rate", "tag", "count", "score")
            + clause_gap(30)
            + r"\b(?:as\s+)?helpful\b|\bhelpful\s*[=:]\s*\d{2,}|"
            r"\bharmful\s*[=:]\s*0\b"
        ),
        *detectors.SELF_MODIFICATION,
    ),
)

DANGER_RULES: tuple[Rule, ...] = (
    INSTRUCTION_OVERRIDE,
    EXFILTRATION,
    PIPE_TO_SHELL,
    CREDENTIAL_ACCESS,
    DESTRUCTIVE_COMMAND,
    DISABLE_CHECKS,
    WEAKEN_PERMISSIONS,
    SELF_MODIFICATION,
    detectors.CONSENT_SCOPE,
)
