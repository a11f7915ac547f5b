"""Which languages the user writes in: requests counted, recorded, trusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acecode.project.config import Settings
from acecode.quarantine.user_languages import (
    load_request_languages,
    record_request_languages,
    request_languages,
    trusted_languages,
)


def prompt(text: str) -> dict[str, str]:
    return {"role": "user", "kind": "prompt", "content": text}


def test_only_the_users_typed_requests_count() -> None:
    messages = [
        prompt("Corrige le test qui échoue dans le module de paiement, s'il te plaît."),
        {"role": "user", "kind": "tool_result",
         "content": "Der Test ist fehlgeschlagen, weil die Datenbank fehlt."},
        {"role": "assistant", "kind": "text",
         "content": "Je corrige le test maintenant, puis je relance la suite."},
        {"role": "user", "kind": "command", "content": "/clear"},
        prompt("ok"),
        prompt("x y z"),
        prompt("Schreib bitte noch einen Test für negative Beträge in der Rechnung."),
    ]  # fmt: skip
    assert request_languages(messages) == {"fr": 1, "de": 1}


def test_counts_add_up_across_sessions_and_an_unreadable_file_is_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record_request_languages(tmp_path, {"fr": 2}, timeout=10)
    record_request_languages(tmp_path, {"fr": 1, "de": 1}, timeout=10)
    assert load_request_languages(tmp_path) == {"fr": 3, "de": 1}
    (tmp_path / "languages.json").write_text("{oops", encoding="utf-8")
    assert load_request_languages(tmp_path) == {}
    assert "languages.json" in capsys.readouterr().err


def test_english_and_every_language_with_enough_requests_are_trusted(tmp_path: Path) -> None:
    (tmp_path / "languages.json").write_text(
        json.dumps({"version": 1, "requests": {"fr": 7, "de": 1}}), encoding="utf-8"
    )
    assert trusted_languages(Settings(), tmp_path) == ("en", "fr")
    assert trusted_languages(Settings(), tmp_path, {"de": 1}) == ("en", "fr", "de")
    assert trusted_languages(Settings(languages="en"), tmp_path, {"de": 5}) == ("en",)
    assert trusted_languages(Settings(), tmp_path / "nowhere") == ("en",)


def test_a_request_with_broken_unicode_never_breaks_learning() -> None:
    """Lone surrogates (half an emoji from a terminal) reach CLD2 as replacement bytes."""
    messages = [prompt("Corrige le test \ud83d qui échoue dans le module de paiement, merci.")]
    assert request_languages(messages) == {"fr": 1}
