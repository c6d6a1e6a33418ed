"""A content-addressed, on-disk cache of embeddings, shared safely between runs.

An entry is keyed by the embedder's model id and a BLAKE2b hash of the text, so an
unchanged chunk is never encoded twice — across grid settings, tune runs and CI jobs —
and a changed model (its id carries a hash of the weights) never reads another model's
vectors. Entries live in one SQLite database in write-ahead-log mode, which lets several
processes read and write it at once. Each entry stores its dimension count and a digest
of its bytes; a truncated or corrupt entry fails that check, is counted, recomputed and
overwritten, never served. How the file is opened, and why no fault costs a valid cache
(a lock held long, a newer layout, another application's database, a full disk), is
:mod:`ragward.models.cache_file`'s.

>>> import tempfile
>>> from ragward.reference import HashEmbedder
>>> with tempfile.TemporaryDirectory() as folder:
...     cached = CachedEmbedder(HashEmbedder(8), EmbeddingCache(folder))
...     _ = cached.embed(["a b", "c"])
...     _ = cached.embed(["c", "a b"])
...     (cached.stats.hits, cached.stats.misses)
(2, 2)
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ragward.errors import RagwardError
from ragward.models.cache_file import (
    BUSY_SECONDS,
    FILE,
    CacheFault,
    Damaged,
    faults,
    file_id,
    open_cache,
    start_again,
)
from ragward.reference.embedding import Embedder

__all__ = [
    "CACHE_ENV",
    "CacheStats",
    "CachedEmbedder",
    "EmbeddingCache",
    "default_cache_dir",
    "text_key",
]

#: The environment variable naming the cache directory (``--cache DIR`` wins over it).
CACHE_ENV = "RAGWARD_CACHE"

T = TypeVar("T")
Vector = npt.NDArray[np.float32]

_LOOKUP_BATCH = 500  # keys per SELECT: well under SQLite's bound-parameter limit


def default_cache_dir() -> Path:
    """``$RAGWARD_CACHE``, else ``ragward/embeddings`` under the user's cache directory
    (``$XDG_CACHE_HOME``, or the platform's, as :mod:`platformdirs` tells it)."""
    named = os.environ.get(CACHE_ENV)
    if named:
        return Path(named)
    try:
        import platformdirs
    except ImportError:  # the base install: the XDG rule platformdirs applies on Linux
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return base / "ragward" / "embeddings"
    return Path(platformdirs.user_cache_dir("ragward")) / "embeddings"


def text_key(text: str) -> bytes:
    """The content address of ``text``: a 128-bit BLAKE2b digest of its UTF-8 bytes."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=8).digest()


@dataclass
class CacheStats:
    """What a :class:`CachedEmbedder` did: texts served from disk, texts encoded, entries
    found corrupt (and recomputed), and the seconds spent encoding and in all."""

    hits: int = 0
    misses: int = 0
    corrupt: int = 0
    encode_seconds: float = 0.0
    total_seconds: float = 0.0


class EmbeddingCache:
    """The cache directory: one SQLite file of float32 vectors by (model id, text key)."""

    def __init__(
        self, directory: str | os.PathLike[str] | None = None, *, busy_seconds: float = BUSY_SECONDS
    ) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.path = self.directory / FILE
        self.busy_seconds = busy_seconds
        # One connection per thread: SQLite refuses a connection used from another thread,
        # and a system under test may be called from a time-limiting worker thread.
        self._local = threading.local()

    @property
    def _connection(self) -> sqlite3.Connection | None:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        return connection

    @_connection.setter
    def _connection(self, connection: sqlite3.Connection | None) -> None:
        self._local.connection = connection

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise RagwardError(
                    f"embedding cache {self.directory}: cannot create it ({error.strerror}); "
                    f"name a writable directory with --cache or ${CACHE_ENV}"
                ) from None
            self._connection = open_cache(self.path, self.busy_seconds)
            self._local.opened = file_id(self.path)
        return self._connection

    def _use(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on this thread's connection, SQLite's errors as one line naming the cache
        (:func:`cache_file.faults`). A cache found damaged meanwhile is set aside as at open
        and ``work`` done again on a new one, which lacks what it looks for: the run goes
        on, computing those vectors again."""
        connection = self._connect()
        try:
            with faults(self.path, self.busy_seconds):
                return work(connection)
        except Damaged as error:
            self._connection = None
            start_again(self.path, connection, self._local.opened, error)
        connection = self._connect()
        try:
            with faults(self.path, self.busy_seconds):
                return work(connection)
        except Damaged:  # damaged again at once: another process is writing garbage there
            raise CacheFault(
                f"embedding cache {self.path} was damaged again as soon as it was started "
                "anew; name another directory with --cache"
            ) from None

    def get(
        self, model: str, keys: Sequence[bytes], dimensions: int
    ) -> tuple[dict[bytes, npt.NDArray[np.float32]], int]:
        """The stored vectors among ``keys``, and how many stored entries were corrupt
        (wrong size or digest): those are left out, so the caller recomputes them."""

        def read(connection: sqlite3.Connection) -> tuple[dict[bytes, Vector], int]:
            found: dict[bytes, Vector] = {}
            corrupt = 0
            for rows in self._lookups(connection, model, keys):
                for key, dims, digest, data in rows:
                    if (
                        not isinstance(data, bytes)
                        or dims != dimensions
                        or len(data) != 4 * dimensions
                        or digest != _digest(data)
                    ):
                        corrupt += 1
                        continue
                    found[bytes(key)] = np.frombuffer(data, dtype="<f4")
            return found, corrupt

        return self._use(read)

    @staticmethod
    def _lookups(
        connection: sqlite3.Connection, model: str, keys: Sequence[bytes]
    ) -> Iterator[list[tuple[bytes, int, bytes, bytes]]]:
        for start in range(0, len(keys), _LOOKUP_BATCH):
            batch = list(keys[start : start + _LOOKUP_BATCH])
            marks = ",".join("?" * len(batch))
            yield connection.execute(
                f"SELECT key, dims, digest, data FROM vectors WHERE model = ? AND key IN ({marks})",
                [model, *batch],
            ).fetchall()

    def put(self, model: str, entries: Sequence[tuple[bytes, npt.NDArray[np.float32]]]) -> None:
        """Store (or overwrite) entries in one transaction."""
        rows = []
        for key, vector in entries:
            data = np.ascontiguousarray(vector, dtype="<f4").tobytes()
            rows.append((model, key, int(vector.shape[0]), _digest(data), data))

        def write(connection: sqlite3.Connection) -> None:
            connection.execute("BEGIN IMMEDIATE")  # waits busy_seconds for another writer
            try:
                connection.executemany(
                    "INSERT OR REPLACE INTO vectors (model, key, dims, digest, data) "
                    "VALUES (?, ?, ?, ?, ?)",
                    rows,
                )
            except BaseException:
                if connection.in_transaction:  # SQLite may have rolled back already (disk full)
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

        self._use(write)

    def count(self, model: str | None = None) -> int:
        """Entries stored, for one model or for all."""

        def counted(connection: sqlite3.Connection) -> int:
            if model is None:
                row = connection.execute("SELECT COUNT(*) FROM vectors").fetchone()
            else:
                row = connection.execute(
                    "SELECT COUNT(*) FROM vectors WHERE model = ?", (model,)
                ).fetchone()
            return int(row[0])

        return self._use(counted)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __repr__(self) -> str:
        return f"EmbeddingCache({str(self.directory)!r})"


class CachedEmbedder:
    """An :class:`~ragward.reference.Embedder` that asks its model only for texts the cache
    does not hold, and stores what it computes.

    The model id is ``embedder.model_id`` when the embedder has one (a hash of its weights
    belongs in it), else its name. Vectors come back as float32 values in float64 rows, so
    a cached and a freshly computed vector of the same text are the same numbers.
    """

    def __init__(self, embedder: Embedder, cache: EmbeddingCache) -> None:
        self.inner = embedder
        self.cache = cache
        self.model_id = str(getattr(embedder, "model_id", embedder.name))
        self.stats = CacheStats()
        # the model's input limit and counter, where it says them (see MiniLMEmbedder)
        self.input_limit: int | None = getattr(embedder, "input_limit", None)
        self.input_tokens: Callable[[str], int] | None = getattr(embedder, "input_tokens", None)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float64]:
        started = time.perf_counter()
        keys = [text_key(t) for t in texts]
        found, corrupt = self.cache.get(self.model_id, list(dict.fromkeys(keys)), self.dimensions)
        self.stats.corrupt += corrupt
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in found:
                missing.setdefault(key, text)
        self.stats.hits += len(texts) - sum(1 for k in keys if k in missing)
        self.stats.misses += len(missing)
        if missing:
            begun = time.perf_counter()
            computed = np.asarray(self.inner.embed(list(missing.values())), dtype=np.float32)
            self.stats.encode_seconds += time.perf_counter() - begun
            if computed.shape != (len(missing), self.dimensions):
                raise RagwardError(
                    f"embedder {self.name!r} returned shape {computed.shape} for "
                    f"{len(missing)} texts; expected ({len(missing)}, {self.dimensions})"
                )
            fresh = list(zip(missing, computed, strict=True))
            self.cache.put(self.model_id, fresh)
            found.update(fresh)
        out = np.empty((len(texts), self.dimensions), dtype=np.float64)
        for row, key in enumerate(keys):
            out[row] = found[key]
        self.stats.total_seconds += time.perf_counter() - started
        return out

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, {self.cache!r})"
