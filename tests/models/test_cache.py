"""The embedding cache: hits, misses, corrupt entries and files, sharing between runs."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from ragward.errors import RagwardError
from ragward.models.cache import CACHE_ENV, CachedEmbedder, EmbeddingCache, default_cache_dir
from ragward.reference import HashEmbedder


class CountingEmbedder:
    """Hash vectors, counting every text it is asked to encode."""

    def __init__(self, model_id: str = "counting/1") -> None:
        self.inner = HashEmbedder(16)
        self.model_id = model_id
        self.encoded: list[str] = []

    @property
    def name(self) -> str:
        return "counting"

    @property
    def dimensions(self) -> int:
        return 16

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        self.encoded.extend(texts)
        return self.inner.embed(texts)


def _corrupt(cache: EmbeddingCache, sql: str) -> None:
    with sqlite3.connect(cache.path) as connection:
        connection.execute(sql)


def test_a_second_run_encodes_nothing(tmp_path: Path) -> None:
    texts = ["alpha beta", "gamma", "alpha beta", "delta epsilon"]
    first = CountingEmbedder()
    want = CachedEmbedder(first, EmbeddingCache(tmp_path)).embed(texts)
    assert first.encoded == ["alpha beta", "gamma", "delta epsilon"]  # repeats asked once
    second = CountingEmbedder()
    cached = CachedEmbedder(second, EmbeddingCache(tmp_path))
    got = cached.embed(list(reversed(texts)))
    assert second.encoded == []
    assert (cached.stats.hits, cached.stats.misses) == (4, 0)
    np.testing.assert_array_equal(got, want[::-1])
    np.testing.assert_array_equal(want, HashEmbedder(16).embed(texts))


def test_only_new_texts_are_encoded(tmp_path: Path) -> None:
    CachedEmbedder(CountingEmbedder(), EmbeddingCache(tmp_path)).embed(["one", "two"])
    later = CountingEmbedder()
    CachedEmbedder(later, EmbeddingCache(tmp_path)).embed(["two", "three", "one"])
    assert later.encoded == ["three"]


def test_models_never_share_entries(tmp_path: Path) -> None:
    CachedEmbedder(CountingEmbedder("model/a"), EmbeddingCache(tmp_path)).embed(["same text"])
    other = CountingEmbedder("model/b")
    CachedEmbedder(other, EmbeddingCache(tmp_path)).embed(["same text"])
    assert other.encoded == ["same text"]
    assert EmbeddingCache(tmp_path).count() == 2


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE vectors SET data = substr(data, 1, 20)",  # truncated
        "UPDATE vectors SET data = zeroblob(64)",  # right length, wrong bytes
        "UPDATE vectors SET dims = 8",  # a different shape recorded
        "UPDATE vectors SET digest = zeroblob(8)",
    ],
)
def test_a_corrupt_entry_is_recomputed_never_served(tmp_path: Path, damage: str) -> None:
    texts = ["a corrupt entry", "a sound one"]
    want = CachedEmbedder(CountingEmbedder(), EmbeddingCache(tmp_path)).embed(texts)
    cache = EmbeddingCache(tmp_path)
    _corrupt(cache, damage)
    model = CountingEmbedder()
    cached = CachedEmbedder(model, cache)
    got = cached.embed(texts)
    np.testing.assert_array_equal(got, want)
    assert cached.stats.corrupt == 2
    assert sorted(model.encoded) == sorted(texts)
    # the recomputed entries were written back: the next run is clean
    again = CachedEmbedder(CountingEmbedder(), EmbeddingCache(tmp_path))
    again.embed(texts)
    assert (again.stats.corrupt, again.stats.misses) == (0, 0)


def test_a_file_that_is_not_a_database_is_set_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "embeddings.sqlite3").write_bytes(b"this is not sqlite" * 100)
    model = CountingEmbedder()
    got = CachedEmbedder(model, EmbeddingCache(tmp_path)).embed(["x y"])
    np.testing.assert_array_equal(got, HashEmbedder(16).embed(["x y"]))
    assert model.encoded == ["x y"]
    assert "was not a readable cache database" in capsys.readouterr().err
    assert any(p.name.startswith("embeddings.sqlite3.corrupt-") for p in tmp_path.iterdir())


_WORKER = """
import sys
from ragward.models.cache import CachedEmbedder, EmbeddingCache
from ragward.reference import HashEmbedder

class Named(HashEmbedder):
    model_id = "counting/1"

cached = CachedEmbedder(Named(16), EmbeddingCache(sys.argv[1]))
start = int(sys.argv[2])
for batch in range(20):
    cached.embed([f"text {start + batch * 7 + i}" for i in range(7)] + ["shared text"])
"""


def test_two_processes_share_one_cache(tmp_path: Path) -> None:
    workers = [
        subprocess.Popen([sys.executable, "-c", _WORKER, str(tmp_path), str(n * 50)])
        for n in range(2)
    ]
    assert [worker.wait(120) for worker in workers] == [0, 0]
    texts = [f"text {n}" for n in range(190)] + ["shared text"]
    model = CountingEmbedder()
    cached = CachedEmbedder(model, EmbeddingCache(tmp_path))
    got = cached.embed(texts)
    assert model.encoded == []
    assert cached.stats.corrupt == 0
    np.testing.assert_array_equal(got, HashEmbedder(16).embed(texts))


def test_an_embedder_answering_the_wrong_shape_stores_nothing(tmp_path: Path) -> None:
    class Short(CountingEmbedder):
        def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
            return np.zeros((len(texts), 3))

    with pytest.raises(RagwardError, match="returned shape"):
        CachedEmbedder(Short(), EmbeddingCache(tmp_path)).embed(["a"])
    assert EmbeddingCache(tmp_path).count() == 0


def test_an_unwritable_cache_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RagwardError, match="cannot create it"):
        CachedEmbedder(CountingEmbedder(), EmbeddingCache(blocker / "cache")).embed(["a"])


def test_the_default_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "ragward" / "embeddings"


def test_one_cache_serves_several_threads(tmp_path: Path) -> None:
    # A system under test is called from the kit's time-limiting worker threads, one per
    # invariant; a SQLite connection opened in one thread cannot be used in another.
    cached = CachedEmbedder(HashEmbedder(), EmbeddingCache(tmp_path))
    want = cached.embed(["payment held", "ledger"])
    with ThreadPoolExecutor(max_workers=1) as one, ThreadPoolExecutor(max_workers=1) as two:
        for pool in (one, two, one):
            got = pool.submit(cached.embed, ["payment held", "ledger", "wire"]).result()
            assert np.array_equal(got[:2], want)
    assert cached.stats.misses == 3
