"""DuckDB behind the kit's contract: the ``fts`` extension's ``match_bm25``, the ``vss``
extension's HNSW index and RRF in SQL.

DuckDB is the embedded analytical database many local RAG and notebook pipelines keep
their chunks in. Each system is one fresh in-memory database, attached to the process's
DuckDB instance (the extensions load into it once) and reached through a connection of
its own, holding:

* a chunk table — one row per chunk: identity, span, text, labels, the reference's tokens
  of the chunk joined by spaces (``terms``) and its vector (``FLOAT[D]``, NULL for a chunk
  with no direction); ``id``, from a sequence, is the chunk's key in both indexes;
* its full-text index — ``PRAGMA create_fts_index`` over ``terms`` (the schema
  ``fts_main_<table>``), scored by that schema's ``match_bm25(id, query)``: Okapi BM25
  with ``k = 1.2``, ``b = 0.75``, the IDF ``log((N - df + 0.5) / (df + 0.5) + 1)`` in
  DuckDB's ``log`` (base 10), over the query's distinct terms, ``N``, average length and
  document frequencies read from the whole table when the index was built; NULL for a
  chunk with no query term;
* its HNSW index — ``CREATE INDEX ... USING HNSW (embedding) WITH (metric = 'cosine')``,
  which DuckDB uses for ``ORDER BY array_cosine_distance(embedding, <constant>) LIMIT k``;
* ``versions`` — the highest version ever accepted per ``(tenant, doc_id)``, kept through
  deletes, written by one ``INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING``
  (the database's compare-and-set: a row back says the write was taken).

DuckDB's full-text index is a snapshot: "the FTS index will not update automatically when
input table changes" (the extension's documentation); the documented remedy is to build
it again, ``overwrite = 1``. The adapter does so for every table written since the last
read, before the next read (under the lock that serialises reads and writes), so a read
always sees the index of the rows it reads.

The asker's view is one SQL ``WHERE`` (:func:`view_where`) on both legs, written as a user
writes it: the lexical leg ``WHERE <view> AND score IS NOT NULL ORDER BY score DESC LIMIT
k``, the dense leg ``WHERE <view> ORDER BY distance LIMIT k`` (the shape DuckDB's optimizer
turns into an ``HNSW_INDEX_SCAN``), its matches those at cosine distance below 1 (cosine >
0, as the reference's dense index); a hit's score is ``1 - distance``. Hybrid is the
reciprocal rank fusion of the SQLite adapter: each leg numbered by ``row_number()`` (ranks
from 1) and cut at ``k`` (the candidate limit), the legs joined by ``FULL OUTER JOIN`` and
scored ``coalesce(1.0 / (rrf_k + rank), 0.0)`` summed — ragward's RRF with ``k = rrf_k``.

Three configurations a user would really choose:

* :func:`shared` — one chunk table for every tenant, the tenant a column of the view, an
  HNSW index on its vectors;
* :func:`per_tenant` — one chunk table per tenant (``chunks_<n>`` through the ``tenants``
  table, so that no tenant string reaches SQL as an identifier), each with its own
  full-text and HNSW index;
* :func:`shared_exact` — one chunk table, no HNSW index: the dense leg is DuckDB's exact
  scan, what a user has without the ``vss`` extension.

The extensions load from the ``duckdb-extension-fts`` and ``duckdb-extension-vss`` wheels
(DuckDB's signed binaries as Python packages), never from the network: DuckDB's
autoinstall and autoload are off. Tested with ``duckdb`` 1.5.5 and those wheels 1.5.5
(``fts`` 6814ec9, ``vss`` b833341).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ranked, settings_of
from ragward.reference.text import tokenize

__all__ = [
    "CONFIGURATIONS",
    "FTS_OPTIONS",
    "DuckdbSystem",
    "per_tenant",
    "shared",
    "shared_exact",
    "view_where",
]

_MODULES = ("duckdb", "duckdb_extension_fts", "duckdb_extension_vss")

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "duckdb",
        "shared",
        "DuckDB fts match_bm25 + vss HNSW (cosine), one table for all tenants, the view "
        "as SQL WHERE on both legs, RRF in SQL",
        "duckdb",
        _MODULES,
        ci_column=False,
    ),
    Configuration(
        "duckdb",
        "per_tenant",
        "DuckDB fts match_bm25 + vss HNSW (cosine), one table (and both indexes) per "
        "tenant, the view as SQL WHERE, RRF in SQL",
        "duckdb",
        _MODULES,
        ci_column=False,
    ),
    Configuration(
        "duckdb",
        "shared_exact",
        "DuckDB fts match_bm25 + exact cosine scan (no HNSW index), one table for all "
        "tenants, the view as SQL WHERE on both legs, RRF in SQL",
        "duckdb",
        _MODULES,
        ci_column=False,
    ),
)

_CAPABILITIES = Capabilities(modes=("hybrid", "lexical", "dense"), policy_knobs=True)

#: How the full-text index reads ``terms``: split on whitespace only, every token kept as
#: it is (no stemmer, no stop words, no lower-casing, no accent stripping), so its terms
#: are the reference's tokens (which never hold whitespace).
FTS_OPTIONS = "stemmer = 'none', stopwords = 'none', ignore = '\\s+', strip_accents = 0, lower = 0"

# The stored fields a hit and a count need, as the chunk tables name them.
_FIELDS = (
    "chunk_id",
    "tenant",
    "doc_id",
    "version",
    "start_char",
    "end_char",
    "section",
    "text",
    "level",
    "barrier",
    "tick",
)


def _modules() -> tuple[Any, Path, Path]:
    """``duckdb`` and the two extension binaries its wheels ship for this DuckDB."""
    from ragward.errors import MissingExtra

    try:
        import duckdb
        import duckdb_extension_fts
        import duckdb_extension_vss
    except ImportError as error:
        raise MissingExtra(
            f"engine 'duckdb' needs {error.name}: pip install 'ragward[duckdb]'"
        ) from None
    binaries = []
    for package, name in ((duckdb_extension_fts, "fts"), (duckdb_extension_vss, "vss")):
        folder = Path(str(package.__file__)).parent / "extensions" / f"v{duckdb.__version__}"
        binary = folder / f"{name}.duckdb_extension"
        if not binary.is_file():
            raise MissingExtra(
                f"engine 'duckdb': {package.__name__} has no {name} extension for DuckDB "
                f"{duckdb.__version__}: pip install 'ragward[duckdb]' (the versions pinned "
                "together)"
            )
        binaries.append(binary)
    return duckdb, binaries[0], binaries[1]


class _Instance:
    """The process's DuckDB instance, the two extensions loaded into it once; each system
    is a fresh in-memory database attached to it, reached through a connection of its
    own (``USE``), as an application holding one DuckDB would keep its data apart."""

    _lock = threading.Lock()
    _shared: _Instance | None = None

    def __init__(self) -> None:
        duckdb, fts, vss = _modules()
        config = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
        self.db = duckdb.connect(":memory:", config=config)
        self.db.load_extension(str(fts))
        self.db.load_extension(str(vss))
        self.version: str = duckdb.__version__
        self.extension_versions: dict[str, str] = dict(
            self.db.execute(
                "SELECT extension_name, extension_version FROM duckdb_extensions() "
                "WHERE extension_name IN ('fts', 'vss')"
            ).fetchall()
        )
        self._attached = 0

    @classmethod
    def get(cls) -> _Instance:
        with cls._lock:
            if cls._shared is None:
                cls._shared = cls()
            return cls._shared

    def attach(self) -> tuple[Any, str]:
        """A connection to a fresh in-memory database of its own, and its name."""
        with self._lock:
            self._attached += 1
            name = f"ragward_{self._attached}"
        connection = self.db.cursor()
        connection.execute(f"ATTACH ':memory:' AS {name}")
        connection.execute(f"USE {name}")
        return connection, name


def _detach(connection: Any, name: str) -> None:
    """Drop a system's database (its memory with it) when the system is collected."""
    try:
        connection.execute("USE memory")
        connection.execute(f"DETACH {name}")
        connection.close()
    except Exception:  # the process may be closing its instance already: nothing to drop
        return


def view_where(view: View, *, tenant: bool = True) -> tuple[str, dict[str, Any]]:
    """The asker's eligible view as an SQL ``WHERE`` over the label columns, with its named
    parameters (``tenant=False``: a table holding one tenant's rows only)."""
    params: dict[str, Any] = {f"b{i}": barrier for i, barrier in enumerate(view.barriers)}
    inside = f" OR barrier IN ({', '.join(f'${name}' for name in params)})" if params else ""
    parts = ["tenant = $tenant"] if tenant else []
    parts += ["level <= $level", f"(barrier IS NULL{inside})"]
    params["level"] = view.max_level
    if tenant:
        params["tenant"] = view.tenant
    if view.min_tick is not None:
        parts.append("tick >= $min_tick")
        params["min_tick"] = view.min_tick
    return " AND ".join(parts), params


def _legs(policy: Policy, tokens: list[str], vector: tuple[float, ...] | None) -> tuple[bool, bool]:
    """Whether the question searches the full-text index (a term, not dense mode) and the
    vectors (a direction, not lexical mode)."""
    return policy.mode != "dense" and bool(tokens), policy.mode != "lexical" and vector is not None


def _row(record: Any) -> IndexRow:
    fields = dict(zip(_FIELDS, record, strict=False))
    return IndexRow.stored(fields | {"start": fields["start_char"], "end": fields["end_char"]})


class DuckdbSystem:
    """One system: its own in-memory DuckDB database; ``per_tenant`` says whether each
    tenant's chunks have a table (and indexes) of their own, ``hnsw`` whether the vectors
    have an HNSW index."""

    capabilities = _CAPABILITIES

    def __init__(self, settings: Settings, *, per_tenant: bool, hnsw: bool) -> None:
        instance = _Instance.get()
        self.settings = settings
        self.per_tenant = per_tenant
        self.hnsw = hnsw
        # One writer and one reader at a time (the kit's guard thread, or the caller's):
        # a DuckDB connection is not safe to share between threads without it.
        self._lock = threading.RLock()
        self._db, self.database = instance.attach()
        # Not at exit: a call the kit left running (a DELETE spinning in vss) holds the
        # connection, and waiting for it there would keep the process from ending.
        weakref.finalize(self, _detach, self._db, self.database).atexit = False
        self.duckdb_version = instance.version
        self.extension_versions = instance.extension_versions
        self._dirty: set[str] = set()
        with self._transaction() as db:
            db.execute("CREATE SEQUENCE chunk_ids")
            db.execute(
                "CREATE TABLE versions (tenant TEXT NOT NULL, doc_id TEXT NOT NULL, "
                "version BIGINT NOT NULL, PRIMARY KEY (tenant, doc_id))"
            )
            if per_tenant:
                db.execute("CREATE TABLE tenants (n INTEGER PRIMARY KEY, tenant TEXT UNIQUE)")
            else:
                self._create_chunks(db, "chunks")

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    def _create_chunks(self, db: Any, name: str) -> None:
        db.execute(
            f"CREATE TABLE {name} (id BIGINT DEFAULT nextval('chunk_ids'), chunk_id TEXT, "
            "tenant TEXT, doc_id TEXT, version BIGINT, start_char BIGINT, end_char BIGINT, "
            "section TEXT, text TEXT, terms TEXT, level INTEGER, barrier TEXT, tick BIGINT, "
            f"embedding FLOAT[{self.settings.dimensions}])"
        )
        if self.hnsw:
            db.execute(
                f"CREATE INDEX {name}_hnsw ON {name} USING HNSW (embedding) "
                "WITH (metric = 'cosine')"
            )
        self._dirty.add(name)

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._lock:
            written = set(self._dirty)
            self._db.execute("BEGIN TRANSACTION")
            try:
                yield self._db
            except BaseException:
                self._dirty = written
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _refresh(self) -> None:
        """Build the full-text index of every table written since the last read again."""
        with self._lock:
            if not self._dirty:
                return
            with self._transaction() as db:
                for name in sorted(self._dirty):
                    db.execute(
                        f"PRAGMA create_fts_index('{name}', 'id', 'terms', {FTS_OPTIONS}, "
                        "overwrite = 1)"
                    )
            self._dirty.clear()

    def _table(self, db: Any, tenant: str, *, create: bool = False) -> str | None:
        """The table holding ``tenant``'s chunks (None: the tenant has none yet)."""
        if not self.per_tenant:
            return "chunks"
        found = db.execute("SELECT n FROM tenants WHERE tenant = ?", (tenant,)).fetchone()
        if found is None and create:
            n = db.execute("SELECT count(*) FROM tenants").fetchone()[0]
            db.execute("INSERT INTO tenants VALUES (?, ?)", (n, tenant))
            self._create_chunks(db, f"chunks_{n}")
            return f"chunks_{n}"
        return None if found is None else f"chunks_{found[0]}"

    # -- writes ----------------------------------------------------------------------

    def ingest(self, doc: Doc) -> bool:
        return self.ingest_many((doc,))[0]

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """``ingest`` of each document (any iterable, read once) in order, in one
        transaction (the evals' bulk verb)."""
        docs = list(docs)  # read once: a generator has no second pass
        by_version = self.settings.rows_by_version(docs)
        accepted = []
        with self._transaction() as db:
            for doc in docs:
                taken = db.execute(
                    "INSERT INTO versions VALUES ($tenant, $doc_id, $version) "
                    "ON CONFLICT (tenant, doc_id) DO UPDATE SET version = excluded.version "
                    "WHERE excluded.version > versions.version RETURNING version",
                    {"tenant": doc.tenant, "doc_id": doc.doc_id, "version": doc.version},
                ).fetchall()
                if taken:
                    self._remove(db, doc.tenant, doc.doc_id)
                    key = (doc.tenant, doc.doc_id, doc.version)
                    self._insert(db, doc.tenant, by_version.get(key, []))
                accepted.append(bool(taken))
        return tuple(accepted)

    def _insert(self, db: Any, tenant: str, rows: list[IndexRow]) -> None:
        if not rows:
            return
        table = self._table(db, tenant, create=True)
        assert table is not None
        db.executemany(
            f"INSERT INTO {table} (chunk_id, tenant, doc_id, version, start_char, end_char, "
            "section, text, terms, level, barrier, tick, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    row.chunk_id,
                    row.tenant,
                    row.doc_id,
                    row.version,
                    row.start,
                    row.end,
                    row.section,
                    row.text,
                    " ".join(row.terms),
                    row.level,
                    row.barrier,
                    row.tick,
                    None if row.vector is None else list(row.vector),
                )
                for row in rows
            ],
        )
        self._dirty.add(table)

    def _remove(self, db: Any, tenant: str, doc_id: str) -> None:
        table = self._table(db, tenant)
        if table is None:
            return
        gone = db.execute(
            f"DELETE FROM {table} WHERE tenant = ? AND doc_id = ? RETURNING id", (tenant, doc_id)
        ).fetchall()
        if gone:
            self._dirty.add(table)

    def delete(self, tenant: str, doc_id: str) -> None:
        with self._transaction() as db:
            self._remove(db, tenant, doc_id)

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        view = View.of(asker, now_tick, policy)
        tokens = tokenize(query)
        vector = self.settings.query_vector(query) if policy.mode != "lexical" else None
        with self._lock:
            self._refresh()
            table = self._table(self._db, view.tenant)
            if table is None:
                return Result((), 0, 0, 0)
            sql, params = self._search_sql(table, view, tokens, vector, policy)
            found = self._db.execute(sql, params).fetchall()
            counts = self._counts(table, view, *_legs(policy, tokens, vector), tokens, vector)
        pairs = [(_row(record), float(record[-1])) for record in found]
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        return Result(hits, *counts)

    def search_sql(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> str:
        """The SQL ``retrieve`` runs for this question (its parameters aside): to read its
        plan with ``EXPLAIN``; empty when the asker's tenant has no table yet."""
        view = View.of(asker, now_tick, policy)
        vector = self.settings.query_vector(query) if policy.mode != "lexical" else None
        with self._lock:
            self._refresh()
            table = self._table(self._db, view.tenant)
        if table is None:
            return ""
        return self._search_sql(table, view, tokenize(query), vector, policy)[0]

    def _search_sql(
        self,
        table: str,
        view: View,
        tokens: list[str],
        vector: tuple[float, ...] | None,
        policy: Policy,
    ) -> tuple[str, dict[str, Any]]:
        """The search's SQL and its parameters."""
        lexical, dense = _legs(policy, tokens, vector)
        where, params = view_where(view, tenant=not self.per_tenant)
        # k is an integer the optimizer must see as a constant to use the HNSW index.
        k = int(policy.candidate_limit)
        none = "SELECT NULL::BIGINT AS id, NULL::BIGINT AS n, NULL::DOUBLE AS score WHERE false"
        legs = {"fts": none, "vec": none}
        if lexical:
            params["match"] = " ".join(tokens)
            legs["fts"] = (
                "SELECT id, row_number() OVER (ORDER BY score DESC) AS n, score FROM ("
                f"SELECT id, fts_main_{table}.match_bm25(id, $match) AS score FROM {table} "
                f"WHERE {where} AND score IS NOT NULL ORDER BY score DESC LIMIT {k})"
            )
        if dense:
            assert vector is not None
            params["vector"] = list(vector)
            legs["vec"] = (
                "SELECT id, row_number() OVER (ORDER BY distance) AS n, 1.0 - distance AS score "
                "FROM (SELECT id, array_cosine_distance(embedding, "
                f"$vector::FLOAT[{self.settings.dimensions}]) AS distance FROM {table} "
                f"WHERE {where} ORDER BY distance LIMIT {k}) "
                # cosine > 0: the tail of the top-k order (a chunk with no vector has none)
                "WHERE distance < 1.0"
            )
        if policy.mode == "hybrid":
            params["rrf_k"] = float(policy.rrf_k)
            body = (
                f"WITH fts_matches AS ({legs['fts']}), vec_matches AS ({legs['vec']}), "
                "fused AS (SELECT coalesce(f.id, v.id) AS id, "
                "coalesce(1.0 / ($rrf_k + f.n), 0.0) + coalesce(1.0 / ($rrf_k + v.n), 0.0) "
                "AS score FROM fts_matches f FULL OUTER JOIN vec_matches v ON v.id = f.id) "
                f"SELECT {{fields}}, fused.score FROM fused JOIN {table} c ON c.id = fused.id"
            )
        else:
            leg = legs["fts" if policy.mode == "lexical" else "vec"]
            body = (
                f"WITH found AS ({leg}) SELECT {{fields}}, found.score FROM found "
                f"JOIN {table} c ON c.id = found.id"
            )
        sql = body.format(fields=", ".join(f"c.{f}" for f in _FIELDS))
        return sql, {name: value for name, value in params.items() if f"${name}" in sql}

    def _counts(
        self,
        table: str,
        view: View,
        lexical: bool,
        dense: bool,
        tokens: list[str],
        vector: tuple[float, ...] | None,
    ) -> tuple[int, int, int]:
        """Chunks of the asker's tenant matching in a searched index (a query term for the
        full-text index, cosine > 0 for the vectors), and how many of them the view leaves
        out (not entitled; entitled but stale): SQL counts, the view's predicate negated."""
        legs: list[str] = []
        params: dict[str, Any] = {"tenant": view.tenant}
        if lexical:
            legs.append(f"fts_main_{table}.match_bm25(id, $match) IS NOT NULL")
            params["match"] = " ".join(tokens)
        if dense:
            assert vector is not None
            dimensions = self.settings.dimensions
            legs.append(f"array_cosine_distance(embedding, $vector::FLOAT[{dimensions}]) < 1.0")
            params["vector"] = list(vector)
        if not legs:
            return 0, 0, 0
        entitled = View(view.tenant, view.max_level, view.barriers, None)
        visible, labels = view_where(entitled, tenant=False)
        fresh = "true" if view.min_tick is None else "tick >= $min_tick"
        if view.min_tick is not None:
            params["min_tick"] = view.min_tick
        considered, hidden, stale = self._db.execute(
            f"SELECT count(*), count(*) FILTER (WHERE NOT ({visible})), "
            f"count(*) FILTER (WHERE ({visible}) AND NOT ({fresh})) FROM {table} "
            f"WHERE tenant = $tenant AND ({' OR '.join(legs)})",
            params | labels,
        ).fetchone()
        return int(considered), int(hidden), int(stale)


def shared(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> DuckdbSystem:
    """A fresh DuckDB system: one chunk table for every tenant, an HNSW index on it."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return DuckdbSystem(settings, per_tenant=False, hnsw=True)


def per_tenant(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> DuckdbSystem:
    """A fresh DuckDB system: one chunk table, with its own indexes, per tenant."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return DuckdbSystem(settings, per_tenant=True, hnsw=True)


def shared_exact(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> DuckdbSystem:
    """A fresh DuckDB system: one chunk table for every tenant, no HNSW index (the exact
    cosine scan)."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return DuckdbSystem(settings, per_tenant=False, hnsw=False)
