"""The languages the user writes in, learned from real sessions by real learning cycles.

The cycle detects the language of each request the user typed (not tool
results), keeps the counts in ``.claude/acecode/languages.json`` and trusts
English plus every language with enough requests. When the review could not be
made every rule waits for one, and the label says why: a rule in a language the
user does not write in waits under ``not-reviewed:language``, one in a language
they do write in under plain ``not-reviewed``. ``languages`` in the config still
decides when it is set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acecode.pipeline import run_cycle_sync
from acecode.store import load_playbook
from support.pipeline import all_safe, is_curator

FRENCH_REQUESTS = (
    "Peux-tu corriger le test qui échoue dans le module de facturation ?",
    "Ensuite, ajoute une vérification pour les montants négatifs, s'il te plaît.",
)
FRENCH_RULE = "Lance toujours la suite de tests complète avant de pousser une branche."
ITALIAN_RULE = "Esegui sempre tutti i test prima di pubblicare una nuova versione del pacchetto."
REFLECTION = json.dumps({"analysis": "La session a corrigé un test.", "bullet_tags": []})


def no_review(system: str, prompt: str) -> str:
    """A reviewer whose reply is no JSON: no review is made."""
    return "I would rather not say."


def session(path: Path, requests: tuple[str, ...]) -> Path:
    """A Claude Code transcript with these typed requests, each answered, and a tool result
    in English that must not count as the user's language."""
    records: list[dict[str, Any]] = []
    for number, request in enumerate(requests):
        records += [
            {"type": "user", "uuid": f"u{number}", "sessionId": "s1",
             "message": {"role": "user", "content": request}},
            {"type": "assistant", "uuid": f"a{number}", "sessionId": "s1",
             "message": {"id": f"m{number}", "role": "assistant", "content": [
                 {"type": "tool_use", "id": f"t{number}", "name": "Bash",
                  "input": {"command": "pytest"}}]}},
            {"type": "user", "uuid": f"r{number}", "sessionId": "s1",
             "message": {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": f"t{number}", "is_error": True,
                  "content": "The test run failed because the database was not reachable."}]}},
        ]  # fmt: skip
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def failing_review_curator(*texts: str):
    operations = [{"type": "ADD", "text": text, "section": "OTHERS"} for text in texts]
    body = json.dumps({"reasoning": "scripted", "operations": operations})
    return lambda system, prompt: body if is_curator(system, prompt) else REFLECTION


def others() -> list[str]:
    return [entry["text"] for entry in load_playbook()["sections"]["OTHERS"]]


def test_a_user_who_writes_in_french_sees_french_rules_learned(routed_llm, project, tmp_path):
    """With the review failing, a French rule waits only for the review (the user writes
    French); an Italian one also for its language. Once a review passes it, it lands."""
    llm = routed_llm(failing_review_curator(FRENCH_RULE, ITALIAN_RULE), safety=no_review)

    report = run_cycle_sync(session(tmp_path / "s.jsonl", FRENCH_REQUESTS))

    assert report.request_languages == {"fr": 2}
    assert report.languages == ["en", "fr"]
    assert others() == []
    assert [(item["text"], item["rule"]) for item in report.held_for_review] == [
        (FRENCH_RULE, "not-reviewed"),
        (ITALIAN_RULE, "not-reviewed:language"),
    ]
    recorded = json.loads((project / ".claude" / "acecode" / "languages.json").read_text())
    assert recorded == {"version": 1, "requests": {"fr": 2}}
    llm.router = failing_review_curator()
    llm.safety = lambda system, prompt: all_safe(prompt)
    run_cycle_sync(session(tmp_path / "t.jsonl", FRENCH_REQUESTS))
    assert others() == [FRENCH_RULE, ITALIAN_RULE]


def test_recorded_languages_are_trusted_by_later_cycles(routed_llm, project, tmp_path):
    state = project / ".claude" / "acecode"
    state.mkdir(parents=True)
    (state / "languages.json").write_text('{"version": 1, "requests": {"it": 5}}')
    routed_llm(failing_review_curator(ITALIAN_RULE), safety=no_review)

    report = run_cycle_sync(session(tmp_path / "s.jsonl", ("Fix the failing billing test.",)))

    assert report.languages == ["en", "it"]
    assert [item["rule"] for item in report.held_for_review] == ["not-reviewed"]
    assert json.loads((state / "languages.json").read_text())["requests"] == {"it": 5, "en": 1}


def test_the_languages_setting_overrides_what_was_learned(
    routed_llm, project, tmp_path, monkeypatch
):
    monkeypatch.setenv("ACECODE_LANGUAGES", "en")
    routed_llm(failing_review_curator(FRENCH_RULE), safety=no_review)

    report = run_cycle_sync(session(tmp_path / "s.jsonl", FRENCH_REQUESTS))

    assert report.languages == ["en"]
    assert [item["rule"] for item in report.held_for_review] == ["not-reviewed:language"]


def test_a_dry_run_uses_the_sessions_languages_but_records_nothing(routed_llm, project, tmp_path):
    routed_llm(failing_review_curator(FRENCH_RULE), safety=no_review)

    report = run_cycle_sync(session(tmp_path / "s.jsonl", FRENCH_REQUESTS), dry_run=True)

    assert report.languages == ["en", "fr"]
    assert [item["rule"] for item in report.held_for_review] == ["not-reviewed"]
    assert not (project / ".claude" / "acecode" / "languages.json").exists()
