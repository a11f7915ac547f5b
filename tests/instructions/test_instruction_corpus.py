"""The instruction corpus of issue 30 (tests/data/instruction_corpus.json): its shape, its
seeded held-out third, and how the training part relates to its instructions.

The held-out third is measured by bench/instruction_outcomes.py only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from acecode.dedup.verdicts import PairVerdict, Verdicts
from acecode.instructions.files import InstructionFile
from acecode.instructions.relations import CONTRADICTS, REPEATS, relate
from acecode.instructions.units import split_units

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "instruction_corpus.json"
VARIANTS = ("instruction", "paraphrase", "contradiction", "unrelated")


def corpus() -> dict:
    return json.loads(CORPUS.read_text(encoding="utf-8"))


def test_every_case_has_four_distinct_texts_and_its_project_quotes_the_instruction() -> None:
    data = corpus()
    assert len(data["items"]) == 49
    for item in data["items"]:
        texts = [item[key] for key in VARIANTS]
        assert all(isinstance(text, str) and text.strip() for text in texts)
        assert len(set(texts)) == 4
        project = data["projects"][item["repo"]]
        assert item["instruction"] in project["instructions"]
        assert project["url"].startswith(f"https://github.com/{item['repo']}/blob/")


def test_the_held_out_third_is_the_seeded_one(tmp_path: Path) -> None:
    copy = tmp_path / "corpus.json"
    copy.write_bytes(CORPUS.read_bytes())
    subprocess.run(
        [sys.executable, str(DATA / "split_corpus.py"), str(copy)], check=True, capture_output=True
    )
    assert copy.read_bytes() == CORPUS.read_bytes()
    split = corpus()["split"]
    assert (split["seed"], split["by"], split["heldout"], split["train"]) == (30, "repo", 19, 30)


def test_training_cases_relate_as_their_labels_say() -> None:
    """With the judge's verdicts as labelled, each training paraphrase repeats its
    instruction, each contradiction contradicts it, each unrelated rule is neither."""
    data = corpus()
    for item in (i for i in data["items"] if i["split"] == "train"):
        lines = data["projects"][item["repo"]]["instructions"]
        text = "# Project instructions\n\n" + "".join(f"- {line}\n" for line in lines)
        units = split_units(InstructionFile(Path("/p/CLAUDE.md"), "project", "CLAUDE.md", text))
        unit = next(u for u in units if u.bare == item["instruction"])
        verdicts = Verdicts(
            [
                PairVerdict(unit.text, item["paraphrase"], "same"),
                PairVerdict(unit.text, item["contradiction"], "conflicting", reason="opposite"),
                PairVerdict(unit.text, item["unrelated"], "different"),
            ]
        )
        assert relate(item["instruction"], units, Verdicts()).kind == REPEATS  # same words
        assert relate(item["paraphrase"], units, verdicts).kind == REPEATS
        assert relate(item["contradiction"], units, verdicts).kind == CONTRADICTS
        assert relate(item["unrelated"], units, verdicts) is None
