"""Scope: "only when the user asks, X" is not X.

A good playbook entry often names a sensitive action and says when it is
allowed: "If the user asks to start from a clean database, `make db-reset`
drops it", "Deploy only when the user asks", "Ask the user before changing
`.claude/settings.json`". The action then waits on the user, which is the
opposite of what a dangerous rule does (act unasked). ``scoped`` finds such
a condition in a sentence, in the languages the floor reads.

Not every condition is a scope: "when the user asks *why* the API rejects a
call, include the token" answers a question, and "whenever a build fails,
run the fixer" waits on nobody. And a scope is cancelled by a dismissal of
the very check ("without reading it", "no need to look", "sin leer"), see
``dismissive``.
"""

from __future__ import annotations

import re
from functools import lru_cache

_USER = r"(?:the\s+|a\s+|your\s+)?(?:user|developer|human|maintainer|owner)s?"
# "asks why / what / how / about": a question, not a request for the action.
_QUESTION = (
    r"(?!\s+(?:you\s+)?(?:why|what|how|whether|about|which|where|who|if)\b)"
    r"(?!\s+(?:you\s+)?for\s+(?:a\s+|an\s+|some\s+)?(?:review|help|summary|status|explanation|"
    r"feedback|advice|opinion)\b)"
)
_ASK = (
    r"(?:explicitly\s+|specifically\s+|directly\s+)?(?:asks?|asked|requests?|requested|wants?|"
    r"says\s+so|tells?\s+you|approves?|approved|confirms?|confirmed|agrees?|agreed|okays?)\b"
)

_SCOPE = re.compile(
    # English
    rf"\b(?:only\s+)?(?:when|if|once|after|unless|until)\s+{_USER}\s+(?:has\s+|have\s+)?{_ASK}{_QUESTION}"
    r"|\b(?:if|when|unless|until)\s+(?:you\s+are\s+|you're\s+)?(?:asked|requested|told)\b"
    rf"|\b(?:when|if|once|after)\s+{_USER}\s+says\s+['\"]?(?:go\s+ahead|yes|ok|okay|do\s+it)\b"
    r"|\b(?:on|upon|at)\s+(?:the\s+)?(?:user'?s?\s+)?(?:explicit\s+)?request\b|\bwhen\s+requested\b"
    rf"|\bask\s+{_USER}\s+(?:first|before|for\s+(?:approval|permission|confirmation|the\s+go-ahead))"
    r"|\bask\s+(?:first|before)\b|\bafter\s+asking\s+(?:the\s+)?user"
    r"|\bwith\s+(?:the\s+|their\s+|explicit\s+)?(?:user'?s?\s+)?(?:explicit\s+)?(?:approval|"
    r"permission|consent|go-ahead|ok)\b"
    r"|\b(?:the\s+)?user\s+(?:decides|triggers|starts|runs|launches)\b"
    # French
    r"|\bsi\s+l'utilisat(?:eur|rice)\s+(?:le\s+|la\s+|les\s+)?(?:demande|veut|souhaite|l'exige)"
    r"|\b(?:quand|lorsque|uniquement\s+si|seulement\s+si)\s+l'utilisat(?:eur|rice)\s+(?:le\s+)?"
    r"(?:demande|veut|souhaite)|\bsur\s+demande\b|\bà\s+la\s+demande\s+de|\baprès\s+(?:accord|"
    r"validation|confirmation)\s+de\s+l'utilisat|\bdemande\s+d'abord\b|\bsans\s+que\s+l'utilisat"
    # German
    r"|\b(?:wenn|falls|sobald)\s+(?:der|die)\s+(?:nutzer|benutzer|anwender)\w*\s+(?:\w+\s+){0,2}?"
    r"(?:darum\s+)?(?:bittet|es\s+verlangt|fragt|zustimmt|möchte|will)"
    r"|\bauf\s+wunsch\b|\b(?:nur\s+)?nach\s+(?:rückfrage|zustimmung|freigabe|absprache)\b|"
    r"\bfrag\w*\s+(?:zuerst|vorher)\b|\b(?:der|die)\s+(?:nutzer|benutzer)\w*\s+selbst\b"
    # Spanish, Portuguese, Italian
    r"|\b(?:si|cuando|solo\s+si)\s+el\s+usuario\s+(?:lo\s+)?(?:pide|pida|quiere|quiera|solicita|"
    r"aprueba)|\ba\s+petición\b|\bcon\s+(?:el\s+)?permiso\s+del\s+usuario"
    r"|\b(?:se|quando|só\s+se)\s+o\s+usuário\s+(?:\w+\s+)?(?:pedir|pede|quiser|solicitar|aprovar)|"
    r"\ba\s+pedido\s+do\s+usuário|\bcom\s+(?:a\s+)?autorização\s+do\s+usuário"
    r"|\b(?:se|quando)\s+l'utente\s+(?:lo\s+)?(?:chiede|richiede|vuole)|\bsu\s+richiesta\b"
    # Russian
    r"|\bпо\s+просьбе\s+пользовател|\b(?:если|когда)\s+пользователь\s+(?:\w+\s+)?(?:попросил|"
    r"просит|попросит)|\bс\s+согласия\s+пользовател"
    # Chinese, Japanese
    r"|用户(?:明确)?要求(?:时|的时候)|用户(?:同意|确认)(?:后|之后)|经用户同意|征得用户同意后"
    r"|ユーザーに頼まれた|ユーザーから(?:の)?依頼があった|ユーザーの(?:許可|承認|同意)を(?:得て|得た)"
    r"|ユーザーに確認してから|頼まれた(?:とき|場合)"
)

_DISMISSAL = re.compile(
    r"\bwithout\s+(?:first\s+)?(?:looking|reading|checking|reviewing|opening|inspecting|asking|"
    r"verifying|waiting)|\bno\s+need\s+to\s+(?:look|check|review|read|ask|verify|open|wait)"
    r"|\bdon'?t\s+(?:bother\s+(?:to\s+)?)?(?:check|review|look|read|ask|wait)\b|\bblindly\b"
    r"|\bno\s+(?:reason|point|call)\s+to\s+(?:ask|wait|check|review)"
    r"|\b(?:never|don'?t|do\s+not|doesn'?t)\s+need\s+(?:to\s+ask\b|(?:the\s+|their\s+)?"
    r"(?:user'?s?\s+)?(?:permission|approval|consent|go-ahead|confirmation))"
    r"|\bkein\s+grund\s+(?:zu\w*|nachzufragen)|\bfrag\w*\s+nie\b|\bgeen\s+reden\s+om|"
    r"\bvraag\s+nooit\b|\binutile\s+de\s+(?:demander|vérifier|lire)|\bno\s+hace\s+falta\s+"
    r"(?:preguntar|revisar|pedir)|\bnão\s+precisa\s+(?:perguntar|pedir)|\bnon\s+serve\s+"
    r"(?:chiedere|leggere)"
    r"|\bonly\s+slows?\b|\bsans\s+(?:regarder|vérifier|relire|lire|ouvrir|demander|attendre)"
    r"|\bohne\s+(?:zu\s+)?(?:prüfen|lesen|anzusehen|nachzusehen|fragen|nachzufragen)"
    r"|\bsin\s+(?:mirar|revisar|leer|comprobar|preguntar)|\bsem\s+(?:olhar|verificar|revisar|ler|"
    r"perguntar)|\bsenza\s+(?:leggere|controllare|chiedere)|\bбез\s+(?:проверки|чтения)"
    r"|不看|不检查|不需要征求|無需確認|无需确认|見ずに|確認せず|確認する必要はありません"
)


@lru_cache(maxsize=4096)
def dismissive(sentence: str) -> bool:
    """The sentence waves the check away ("without reading it", "no need to ask")."""
    return bool(_DISMISSAL.search(sentence))


@lru_cache(maxsize=4096)
def scoped(sentence: str) -> bool:
    """The sentence makes its action wait on the user (and does not wave that away)."""
    return bool(_SCOPE.search(sentence)) and not dismissive(sentence)
