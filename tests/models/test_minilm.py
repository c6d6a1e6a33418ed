"""The MiniLM embedder: a real model behind the protocol, and one line when it is absent."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from ragward.cli import main
from ragward.errors import MissingExtra
from ragward.models import MiniLMEmbedder, embedder_named
from ragward.models.minilm import _backend
from ragward.reference import Embedder
from tests.evals.dataset_files import write_dataset


def test_minilm_is_a_sentence_embedder() -> None:
    model = MiniLMEmbedder()
    assert isinstance(model, Embedder)
    texts = ["The cat sat on the mat.", "A feline rested on a rug.", "Interest rates rose."]
    vectors = model.embed([*texts, texts[0]])
    assert vectors.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[3])  # a repeated text, one vector
    similar, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert similar > unrelated + 0.2
    # a text's vector does not depend on the batch it came in
    alone = model.embed([texts[1]])
    np.testing.assert_allclose(alone[0], vectors[1], atol=1e-6)
    assert model.model_id.startswith("all-MiniLM-L6-v2/onnx-int8/")


def test_the_registry_caches_minilm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGWARD_CACHE", str(tmp_path))
    embedder = embedder_named("minilm")
    first = embedder.embed(["credit risk memo"])
    again = embedder_named("minilm").embed(["credit risk memo"])
    assert np.array_equal(first, again)
    assert (tmp_path / "embeddings.sqlite3").is_file()
    monkeypatch.setenv("RAGWARD_CACHE", "off")
    assert isinstance(embedder_named("minilm"), MiniLMEmbedder)


def test_a_missing_extra_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _backend.cache_clear()
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if not installed
    try:
        with pytest.raises(MissingExtra, match=r"pip install 'ragward\[models\]'"):
            MiniLMEmbedder()
        grid = tmp_path / "grid.toml"
        grid.write_text('[index]\nembedder = ["minilm"]\n', encoding="utf-8")
        data = write_dataset(tmp_path / "data")
        out = tmp_path / "reports"
        argv = ["eval", "--quiet", "--dataset", str(data), "--grid", str(grid), "--out", str(out)]
        code = main(argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2
        assert len(err) == 1
        assert err[0].startswith(
            "ragward eval: error: ragward.engines.reference:reference_factory refused"
        )
        assert err[0].endswith("embedder 'minilm' needs onnxruntime: pip install 'ragward[models]'")
        assert not (tmp_path / "reports").exists()
    finally:
        _backend.cache_clear()
