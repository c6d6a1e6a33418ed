"""A cache damaged while a run is using it is set aside like one damaged at open, and the
run goes on computing its embeddings (issue 30).

A run opens the cache once and keeps its connection; SQLite reads a page from the file
when it is first asked for, so damage done after the open shows up in the middle of the
run, on the first page not read yet. On main that was a :class:`CacheFault` ("move it
away and ragward starts a new one"), ending an eval with exit 2 for a fault the run can
get past itself: the cache only saves work.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ragward.models.cache import CachedEmbedder, EmbeddingCache
from ragward.models.cache_file import FILE, CacheFault
from ragward.reference import HashEmbedder

TEXTS = [f"text number {n}" for n in range(1500)]  # 2.4 MB of vectors: many pages
DIMENSIONS = 384


class Named(HashEmbedder):
    model_id = "named/1"


def _garbage(path: Path) -> None:
    path.write_bytes(b"garbage!" * (path.stat().st_size // 8))


def _emptied(path: Path) -> None:
    os.truncate(path, 0)


def _halved(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _pages_overwritten(path: Path) -> None:
    with path.open("r+b") as handle:  # every page but the first (the header SQLite holds)
        handle.seek(16384)
        handle.write(bytes(range(256)) * ((path.stat().st_size - 16384) // 256))


DAMAGES: list[Callable[[Path], None]] = [_garbage, _emptied, _halved, _pages_overwritten]


def _filled(folder: Path) -> None:
    cache = EmbeddingCache(folder)
    CachedEmbedder(Named(DIMENSIONS), cache).embed(TEXTS)
    cache.close()


def _asides(folder: Path) -> list[Path]:
    """The files set aside (without the WAL files that went with them)."""
    return sorted(
        p for p in folder.glob(f"{FILE}.corrupt-*") if not p.name.endswith(("-wal", "-shm"))
    )


@pytest.mark.parametrize("damage", DAMAGES, ids=lambda damage: damage.__name__.strip("_"))
def test_a_cache_damaged_between_two_uses_is_set_aside_and_the_run_goes_on(
    tmp_path: Path, damage: Callable[[Path], None], capsys: pytest.CaptureFixture[str]
) -> None:
    _filled(tmp_path)
    cached = CachedEmbedder(Named(DIMENSIONS), EmbeddingCache(tmp_path))
    cached.embed(TEXTS[:3])  # the run's first use: the cache is open and was sound
    assert (cached.stats.hits, cached.stats.misses) == (3, 0)
    path = tmp_path / FILE
    damage(path)
    damaged = path.read_bytes()

    got = cached.embed(TEXTS)

    np.testing.assert_array_equal(got, HashEmbedder(DIMENSIONS).embed(TEXTS))
    assert cached.stats.misses == len(TEXTS)  # computed again, none served from garbage
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"ragward: embedding cache {path} was found damaged during the run")
    (aside,) = _asides(tmp_path)
    assert aside.name in err
    assert aside.read_bytes() == damaged  # kept whole beside the new cache
    # what the run computed went into the new cache: the next run encodes nothing
    again = CachedEmbedder(Named(DIMENSIONS), EmbeddingCache(tmp_path))
    again.embed(TEXTS)
    assert (again.stats.misses, again.stats.corrupt) == (0, 0)


def test_a_second_user_of_the_damaged_file_leaves_the_new_cache_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs (or threads) had the file open: the first to find the damage sets it
    aside and starts a new cache; the second finds its file gone from the name and only
    opens the new one, never setting a sound cache aside."""
    _filled(tmp_path)
    first = CachedEmbedder(Named(DIMENSIONS), EmbeddingCache(tmp_path))
    second = CachedEmbedder(Named(DIMENSIONS), EmbeddingCache(tmp_path))
    first.embed(TEXTS[:3])
    second.embed(TEXTS[:3])
    _garbage(tmp_path / FILE)
    first.embed(TEXTS)
    assert len(_asides(tmp_path)) == 1
    got = second.embed(TEXTS[::-1])
    np.testing.assert_array_equal(got, HashEmbedder(DIMENSIONS).embed(TEXTS[::-1]))
    assert len(_asides(tmp_path)) == 1
    assert capsys.readouterr().err.count("was found damaged during the run") == 1
    assert EmbeddingCache(tmp_path).count() == len(TEXTS)


def test_a_cache_damaged_again_at_once_is_one_line(tmp_path: Path) -> None:
    """Damage found again on the new cache at once (another process writing garbage
    there): refused in one line naming the cache, not set aside again and again."""
    cache = EmbeddingCache(tmp_path)

    def damaged(connection: sqlite3.Connection) -> None:
        raise sqlite3.DatabaseError("file is not a database")

    with pytest.raises(CacheFault, match="damaged again as soon as it was started") as error:
        cache._use(damaged)
    assert "\n" not in str(error.value)
    assert str(tmp_path / FILE) in str(error.value)
