"""No fault costs a valid embedding cache (issue 30, defect 5).

On main a cache another process held locked for longer than a minute was taken for a
damaged file and moved aside ("database is locked" is a DatabaseError), and so was a
cache of a newer layout: up to an hour of MiniLM encoding thrown away. A full disk or a
read-only cache came out as exit 3; another application's SQLite file named like the
cache was changed (journal mode, a table, user_version) before ragward failed on it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragward.models.cache import CachedEmbedder, EmbeddingCache
from ragward.models.cache_file import VERSION, CacheFault
from ragward.reference import HashEmbedder
from tests.commands import one_error_line, run, write_inputs

TEXTS = [f"text {n}" for n in range(30)]


class Named(HashEmbedder):
    model_id = "named/1"


def _filled(folder: Path) -> EmbeddingCache:
    """A cache in ``folder`` holding the vectors of :data:`TEXTS`."""
    cache = EmbeddingCache(folder)
    CachedEmbedder(Named(16), cache).embed(TEXTS)
    cache.close()
    return cache


def _all_served(folder: Path) -> bool:
    """Whether a fresh cache on ``folder`` serves every text without encoding one."""
    cached = CachedEmbedder(Named(16), EmbeddingCache(folder))
    got = cached.embed(TEXTS)
    np.testing.assert_array_equal(got, HashEmbedder(16).embed(TEXTS))
    return cached.stats.misses == 0 and cached.stats.corrupt == 0


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


_HOLDER = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "all":  # readers are kept out too
    connection.execute("PRAGMA locking_mode=EXCLUSIVE")
connection.execute("BEGIN EXCLUSIVE")
connection.execute("UPDATE vectors SET dims = dims WHERE id = 1")
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def held(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the cache's lock: ``all`` (readers too) or ``writers``."""
    _filled(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path / "embeddings.sqlite3"), request.param],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    yield holder
    holder.kill()
    holder.wait()


@pytest.mark.parametrize("held", ["all", "writers"], indirect=True)
def test_a_cache_held_locked_is_refused_in_one_line_never_set_aside(
    tmp_path: Path, held: subprocess.Popen[str]
) -> None:
    before = {n for n in _files(tmp_path) if not n.endswith(("-wal", "-shm"))}
    cached = CachedEmbedder(Named(16), EmbeddingCache(tmp_path, busy_seconds=0.3))
    with pytest.raises(CacheFault) as caught:
        cached.embed([*TEXTS, "one more text to store"])  # reading, or storing the new one
    message = str(caught.value)
    assert message.startswith(f"embedding cache {tmp_path / 'embeddings.sqlite3'} is locked")
    assert f"by pid {held.pid} (" in message  # the holder, named
    assert "for more than 0.3 s" in message
    assert "\n" not in message
    held.kill()
    held.wait()
    assert {n for n in _files(tmp_path) if not n.endswith(("-wal", "-shm"))} == before
    assert _all_served(tmp_path)  # every entry still there, nothing moved aside


def test_a_newer_layout_is_refused_with_what_to_do_and_left_as_it_is(tmp_path: Path) -> None:
    _filled(tmp_path)
    with sqlite3.connect(tmp_path / "embeddings.sqlite3") as connection:
        connection.execute(f"PRAGMA user_version={VERSION + 1}")
    connection.close()
    before = _files(tmp_path)
    with pytest.raises(CacheFault) as caught:
        CachedEmbedder(Named(16), EmbeddingCache(tmp_path)).embed(["x"])
    assert str(caught.value) == (
        f"embedding cache {tmp_path / 'embeddings.sqlite3'} has layout {VERSION + 1}, newer "
        f"than this ragward reads ({VERSION}): upgrade ragward to use it, or name another "
        "directory with --cache"
    )
    assert _files(tmp_path) == before


@pytest.mark.parametrize("version", [0, 7])
def test_another_applications_database_is_never_modified(tmp_path: Path, version: int) -> None:
    with sqlite3.connect(tmp_path / "embeddings.sqlite3") as connection:
        connection.execute("CREATE TABLE users (id INTEGER, name TEXT)")
        connection.execute("INSERT INTO users VALUES (1, 'ann')")
        connection.execute(f"PRAGMA user_version={version}")
    connection.close()
    before = _files(tmp_path)
    with pytest.raises(CacheFault) as caught:
        CachedEmbedder(Named(16), EmbeddingCache(tmp_path)).embed(["x"])
    assert "is not a ragward embedding cache" in str(caught.value)
    assert f"user_version {version}, tables users" in str(caught.value)
    assert _files(tmp_path) == before  # the same bytes, no journal files, nothing aside


def test_an_empty_file_becomes_a_cache(tmp_path: Path) -> None:
    (tmp_path / "embeddings.sqlite3").write_bytes(b"")
    _filled(tmp_path)
    assert _all_served(tmp_path)


def test_a_cache_made_before_ragward_set_its_layout_is_still_read(tmp_path: Path) -> None:
    _filled(tmp_path)
    with sqlite3.connect(tmp_path / "embeddings.sqlite3") as connection:
        connection.execute("PRAGMA user_version=0")
    connection.close()
    assert _all_served(tmp_path)


def test_a_full_disk_is_one_line_and_keeps_what_was_stored(tmp_path: Path) -> None:
    cache = _filled(tmp_path)
    connection = cache._connect()
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    connection.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own "disk is full"
    many = [f"a new text {n}" for n in range(500)]
    with pytest.raises(CacheFault) as caught:
        CachedEmbedder(Named(16), cache).embed(many)
    assert str(caught.value).startswith(
        f"embedding cache {tmp_path / 'embeddings.sqlite3'}: the disk is full (SQLite: "
    )
    cache.close()
    assert _all_served(tmp_path)


def test_a_read_only_cache_is_one_line(tmp_path: Path) -> None:
    cache = _filled(tmp_path)
    cache._connect().execute("PRAGMA query_only=1")  # SQLite's own "readonly database"
    with pytest.raises(CacheFault, match=r"embedding cache .*: cannot write it \(SQLite: "):
        CachedEmbedder(Named(16), cache).embed(["a text not stored yet"])


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not stop root")
def test_a_cache_file_without_write_permission_is_one_line(tmp_path: Path) -> None:
    _filled(tmp_path)
    for path in tmp_path.iterdir():
        path.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(CacheFault, match="embedding cache"):
            CachedEmbedder(Named(16), EmbeddingCache(tmp_path)).embed(["not stored yet"])
    finally:
        tmp_path.chmod(0o755)


def test_a_cache_fault_in_eval_is_exit_2_naming_the_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command's line names the cache, not the implementation that was using it."""
    pytest.importorskip("onnxruntime")
    inputs = write_inputs(tmp_path / "in")
    inputs.grid.write_text(
        '[index]\nembedder = ["minilm"]\nchunking = [{ max_tokens = 64, overlap_tokens = 8 }]\n'
        '[retrieval]\nmode = ["dense"]\n',
        encoding="utf-8",
    )
    cache = tmp_path / "cache"
    cache.mkdir()
    with sqlite3.connect(cache / "embeddings.sqlite3") as connection:
        connection.execute("CREATE TABLE users (id INTEGER)")
    connection.close()
    before = _files(cache)
    argv = ["eval", "--quiet", "--dataset", str(inputs.data), "--grid", str(inputs.grid)]
    code, _, err = run([*argv, "--cache", str(cache), "--out", str(tmp_path / "o")], capsys)
    assert code == 2, err
    line = one_error_line(err, "eval")
    assert line.startswith(f"ragward eval: error: {cache / 'embeddings.sqlite3'} is not a ragward")
    assert _files(cache) == before


@pytest.mark.parametrize("before", [None, "off"])
def test_cache_holds_for_its_command_only(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    before: str | None,
) -> None:
    """``--cache`` is the process's cache while its command runs; afterwards, whether the
    command ended in an error or wrote its report, $RAGWARD_CACHE is as it was, so a later
    command in the same process (or a caller of ``main``) does not read another's cache."""
    if before is None:
        monkeypatch.delenv("RAGWARD_CACHE", raising=False)
    else:
        monkeypatch.setenv("RAGWARD_CACHE", before)
    inputs = write_inputs(tmp_path / "in")
    argv = ["eval", "--quiet", "--dataset", str(inputs.data), "--grid", str(inputs.grid)]
    cache = tmp_path / "cache"
    code, _, err = run([*argv, "--cache", str(cache), "--out", str(tmp_path / "o")], capsys)
    assert code == 0, err
    assert os.environ.get("RAGWARD_CACHE") == before
    code, _, err = run([*argv, "--cache", str(cache), "--split", "nope"], capsys)
    assert code == 2, err
    assert os.environ.get("RAGWARD_CACHE") == before
