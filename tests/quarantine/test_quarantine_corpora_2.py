"""Shape of the issue-18 quarantine corpora and of their held-back third.

The corpora (``tests/data/quarantine_dangerous_2.json``, ``quarantine_benign_2.json``
and ``quarantine_language_tips.json``) measure the screen on texts it was not
written against, so these tests check only what makes such a measurement
honest: a valid schema, no text shared with the older corpora the screen was
tuned on, the sizes and languages the issue asks for, and a held-back third
that is exactly the one ``tests/data/split_corpus.py`` draws from the seed, so
nobody can have chosen it after looking at results.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from support.hang_guard import HANG_GUARD

DATA = Path(__file__).resolve().parents[1] / "data"
SPLIT_SCRIPT = DATA / "split_corpus.py"

DANGEROUS = "quarantine_dangerous_2.json"
BENIGN = "quarantine_benign_2.json"
LANGUAGE_TIPS = "quarantine_language_tips.json"
NEW_CORPORA = (DANGEROUS, BENIGN, LANGUAGE_TIPS)

CLASS_CODES = {
    "pipe-to-shell": "ps",
    "exfiltration": "ex",
    "secrets": "se",
    "force-push": "fp",
    "disable-checks": "dc",
    "self-modification": "sm",
    "instruction-override": "io",
    "destructive": "de",
    "consent": "co",
    "privilege": "pv",
}
BENIGN_CLASS_CODES = {**CLASS_CODES, "none": "no"}
STYLES = {
    "literal",
    "indirect",
    "multi-step",
    "productivity-tip",
    "convention",
    "fact",
    "negated",
    "scoped",
}
ITEM_KEYS = {"id", "class", "style", "language", "text", "split"}
SPLIT_BY = {DANGEROUS: "class", BENIGN: "class", LANGUAGE_TIPS: "language"}


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def _split_module():
    spec = importlib.util.spec_from_file_location("split_corpus", SPLIT_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _normalised(text: str) -> str:
    """Case and spacing folded, so a re-spaced copy of an old text still counts as old."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def _old_texts() -> set[str]:
    older = ("quarantine_dangerous.json", "quarantine_benign.json")
    texts = {item["text"] for name in older for item in _load(name)["items"]}
    issue7 = _load("quarantine_corpus.json")
    texts |= {i["text"] for part in ("adversarial", "legitimate") for i in issue7[part]}
    return {_normalised(t) for t in texts}


def _expected_id(name: str, item: dict) -> re.Pattern[str]:
    if name == LANGUAGE_TIPS:
        return re.compile(rf"lt-{item['language']}-\d{{2}}")
    prefix = "d2" if name == DANGEROUS else "b2"
    return re.compile(rf"{prefix}-{BENIGN_CLASS_CODES[item['class']]}-\d{{3}}")


@pytest.mark.parametrize("name", NEW_CORPORA)
def test_every_item_follows_the_schema(name: str) -> None:
    corpus = _load(name)
    assert set(corpus) == {"description", "split", "items"}
    assert corpus["description"].strip()
    classes = set(CLASS_CODES) if name == DANGEROUS else set(BENIGN_CLASS_CODES)
    for item in corpus["items"]:
        assert set(item) == ITEM_KEYS, item
        assert item["class"] in classes, item
        assert item["style"] in STYLES, item
        assert re.fullmatch(r"[a-z]{2}", item["language"]), item
        assert item["text"] == item["text"].strip() and len(item["text"]) >= 10, item
        assert item["split"] in {"train", "heldout"}, item
        assert _expected_id(name, item).fullmatch(item["id"]), item


def test_ids_and_texts_are_unique_across_the_new_corpora() -> None:
    items = [item for name in NEW_CORPORA for item in _load(name)["items"]]
    ids = Counter(item["id"] for item in items)
    texts = Counter(_normalised(item["text"]) for item in items)
    assert [i for i, n in ids.items() if n > 1] == []
    assert [t for t, n in texts.items() if n > 1] == []


def test_no_text_is_taken_from_the_older_corpora() -> None:
    old = _old_texts()
    assert len(old) > 500  # the three older files were read
    reused = [
        item["id"]
        for name in NEW_CORPORA
        for item in _load(name)["items"]
        if _normalised(item["text"]) in old
    ]
    assert reused == []


def test_dangerous_corpus_covers_every_class_and_several_languages() -> None:
    items = _load(DANGEROUS)["items"]
    assert len(items) >= 130
    per_class = Counter(item["class"] for item in items)
    assert set(per_class) == set(CLASS_CODES)
    assert min(per_class.values()) >= 10, per_class
    foreign = Counter(item["language"] for item in items if item["language"] != "en")
    assert sum(foreign.values()) >= 20, foreign
    assert len(foreign) >= 4, foreign


def test_benign_corpus_has_the_languages_and_forms_the_issue_asks_for() -> None:
    items = _load(BENIGN)["items"]
    assert len(items) >= 130
    languages = Counter(item["language"] for item in items)
    assert len(languages) >= 5, languages
    assert all(n >= 12 for lang, n in languages.items() if lang != "en"), languages
    styles = Counter(item["style"] for item in items)
    assert styles["negated"] >= 10 and styles["scoped"] >= 10, styles
    classes = Counter(item["class"] for item in items)
    assert set(classes) == set(BENIGN_CLASS_CODES), classes


def test_language_tips_are_eight_per_language_in_five_languages_besides_english() -> None:
    languages = Counter(item["language"] for item in _load(LANGUAGE_TIPS)["items"])
    assert "en" not in languages
    assert len(languages) == 5
    assert set(languages.values()) == {8}


@pytest.mark.parametrize("name", NEW_CORPORA)
def test_held_back_third_is_the_seeded_third_of_each_group(name: str) -> None:
    corpus = _load(name)
    items = corpus["items"]
    split = corpus["split"]
    by = SPLIT_BY[name]
    assert split["seed"] == 18 and split["by"] == by
    assert split["method"] == _split_module().METHOD.format(by=by)
    held = {item["id"] for item in items if item["split"] == "heldout"}
    assert held == _split_module().held_out_ids(items, split["seed"], by)
    sizes = Counter(item[by] for item in items)
    held_sizes = Counter(item[by] for item in items if item["split"] == "heldout")
    assert all(held_sizes[group] == round(n / 3) for group, n in sizes.items()), held_sizes
    assert (split["heldout"], split["train"]) == (len(held), len(items) - len(held))


@pytest.mark.parametrize("name", NEW_CORPORA)
def test_rerunning_the_split_script_leaves_the_file_unchanged(name: str, tmp_path: Path) -> None:
    copy = tmp_path / name
    shutil.copyfile(DATA / name, copy)
    for item_split in ("train", "heldout"):
        corpus = json.loads(copy.read_text(encoding="utf-8"))
        for item in corpus["items"]:
            item["split"] = item_split  # forget the committed assignment
        copy.write_text(json.dumps(corpus), encoding="utf-8")
        subprocess.run(
            [sys.executable, str(SPLIT_SCRIPT), str(copy)],
            check=True,
            capture_output=True,
            timeout=HANG_GUARD,
        )
        assert copy.read_bytes() == (DATA / name).read_bytes()


def test_split_script_names_the_file_and_the_problem_on_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "no_seed.json"
    text = json.dumps({"description": "x", "split": {"by": "class"}, "items": []})
    bad.write_text(text, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(SPLIT_SCRIPT), str(bad)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert str(bad) in result.stderr and "seed" in result.stderr
    assert bad.read_text(encoding="utf-8") == text
