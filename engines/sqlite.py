"""SQLite behind the kit's contract: FTS5's ``bm25()``, sqlite-vec's ``vec0`` and RRF in SQL.

The embedded default of many local RAG apps. Each system is one SQLite database (in
memory, or the file ``path=`` names) holding:

* ``chunks`` — one row per chunk of every tenant: identity, span, text and labels; its
  ``rowid`` is the chunk's key in the two indexes;
* the FTS5 index — the reference's tokens of the chunk as its one indexed column, the
  labels as ``UNINDEXED`` columns; ranked by FTS5's own ``bm25()`` (its ``rank``
  column), which is *negative*, smaller is better: a hit's score is ``-rank``;
* ``vec`` — a sqlite-vec ``vec0`` table: ``tenant text partition key``, the vector
  (``float[D] distance_metric=cosine``) and the other labels as metadata columns;
* ``versions`` — the highest version ever accepted per ``(tenant, doc_id)``, kept through
  deletes, written by one ``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` (the database's
  compare-and-set: its change count says whether the write was taken).

The asker's view is one SQL ``WHERE`` (:func:`view_where`) on both legs. FTS5 leaves its
``UNINDEXED`` columns to SQLite, which filters the matches before ``ORDER BY rank LIMIT
k``; ``vec0`` applies the constraints on its partition key and metadata columns during
the KNN search (``k = ?``), as sqlite-vec documents (``site/features/vec0.md``). A
``vec0`` metadata column cannot hold NULL nor be tested with ``IS NULL`` or ``OR`` (it
refuses both), so "no barrier, or one the asker is inside" is ``barrier IN ('', ...)``
over the label every table stores: ``""`` for no barrier, else its name (a barrier is
never empty: :func:`barrier_label`). Dense matches are those at cosine distance below 1
(cosine > 0, as the reference's dense index); a hit's score is ``1 - distance``.

Hybrid is the reciprocal rank fusion in SQL that sqlite-vec's author gives for FTS5 and
``vec0`` (Alex Garcia, "Hybrid full-text search and vector search with SQLite",
alexgarcia.xyz/blog/2024/sqlite-vec-hybrid-search, 2024-10-02; the same query in the
sqlite-vec repository, ``examples/nbc-headlines/3_search.ipynb``): each leg numbered by
``row_number()`` (ranks from 1) and cut at ``k`` (the candidate limit), the legs joined by
``FULL OUTER JOIN`` and scored ``coalesce(1.0 / (rrf_k + rank), 0.0)`` summed, weights
1.0 — ragward's RRF with ``k = rrf_k`` exactly. A query with no term or no direction
keeps the recipe with that leg empty.

Two configurations a user would really choose:

* :func:`shared` — one FTS5 table for every tenant, the tenant an ``UNINDEXED`` column
  like the other labels. FTS5's ``bm25()`` reads ``N``, the average length and each
  term's document frequency over the whole table, whatever the ``WHERE`` admits.
* :func:`per_tenant` — one FTS5 table per tenant (named ``fts_<n>`` through the
  ``tenants`` table, so that no tenant string reaches SQL as an identifier), the rest of
  the view as the same ``WHERE``; ``vec`` stays one table, partitioned by tenant.

FTS5 reads the reference's tokens joined by spaces and the query as an ``OR`` of quoted
tokens (a term counted as often as the query holds it, as the reference counts it),
through the ``ascii`` tokenizer with ``tokenchars '-'``: ASCII letters and digits and
``-`` are token characters, every non-ASCII character too, so it splits the reference's
tokens on the spaces between them and nowhere else (checked on every code point);
``unicode61`` with ``remove_diacritics 0`` would split 21 of them (letters of scripts its
tables predate) and fold 12 (long s U+017F to ``s``, final sigma to sigma).

The module is ``pysqlite3`` (the ``pysqlite3-binary`` wheel: Linux x86-64 only) when it
is installed, else the standard library's ``sqlite3`` where it can load extensions.
Tested with ``pysqlite3-binary`` 0.5.4.post2 (SQLite 3.51.1) and ``sqlite-vec`` 0.1.9.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ranked, settings_of
from ragward.errors import InvalidArgument, MissingExtra
from ragward.reference.text import tokenize

__all__ = [
    "CONFIGURATIONS",
    "TOKENIZER",
    "SqliteSystem",
    "barrier_label",
    "fts_query",
    "per_tenant",
    "shared",
    "view_where",
]

_NEEDS = "an SQLite that loads extensions (pysqlite3-binary: Linux x86-64)"

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "sqlite",
        "shared",
        "SQLite FTS5 bm25() + sqlite-vec vec0 (tenant partition key), one FTS5 table for "
        "all tenants, the view as SQL WHERE on both legs, RRF in SQL",
        "sqlite",
        ("sqlite_vec",),
        needs=_NEEDS,
    ),
    Configuration(
        "sqlite",
        "per_tenant",
        "SQLite FTS5 bm25() with one FTS5 table per tenant + sqlite-vec vec0 (tenant "
        "partition key), the view as SQL WHERE, RRF in SQL",
        "sqlite",
        ("sqlite_vec",),
        needs=_NEEDS,
    ),
)

_CAPABILITIES = Capabilities(modes=("hybrid", "lexical", "dense"), policy_knobs=True)

#: FTS5's tokenizer: splits the reference's tokens on the spaces between them only.
TOKENIZER = "ascii tokenchars '-'"

# The stored fields a hit and a count need, as ``chunks`` names them.
_FIELDS = (
    "chunk_id",
    "tenant",
    "doc_id",
    "version",
    "start",
    "end",
    "section",
    "text",
    "level",
    "barrier",
    "tick",
)


def _modules() -> tuple[Any, Any]:
    """The DB-API module (one that loads extensions) and ``sqlite_vec``."""
    try:
        import sqlite_vec
    except ImportError as error:
        raise MissingExtra(
            f"engine 'sqlite' needs {error.name}: pip install 'ragward[sqlite]'"
        ) from None
    try:
        from pysqlite3 import dbapi2 as sqlite
    except ImportError:
        import sqlite3 as sqlite
    if not hasattr(sqlite.Connection, "enable_load_extension"):
        raise MissingExtra(
            "engine 'sqlite' needs an SQLite that loads extensions: pip install "
            "'ragward[sqlite]' (pysqlite3-binary, Linux x86-64 only), or a Python whose "
            "sqlite3 module has enable_load_extension"
        )
    return sqlite, sqlite_vec


def barrier_label(barrier: str | None) -> str:
    """A barrier as every table stores it: ``""`` for none (``vec0`` metadata text cannot
    be NULL, nor tested with ``IS NULL``), else its name, which is never empty (the
    reference's documents refuse an empty barrier)."""
    return "" if barrier is None else barrier


def view_where(view: View, *, tenant: bool = True) -> tuple[str, dict[str, Any]]:
    """The asker's eligible view as an SQL ``WHERE`` over the label columns, with its named
    parameters (``tenant=False``: a table holding one tenant's rows only)."""
    labels = ["", *(barrier_label(b) for b in view.barriers)]
    params: dict[str, Any] = {f"b{i}": label for i, label in enumerate(labels)}
    parts = ["tenant = :tenant"] if tenant else []
    parts += ["level <= :level", f"barrier IN ({', '.join(f':{name}' for name in params)})"]
    params |= {"tenant": view.tenant, "level": view.max_level}
    if view.min_tick is not None:
        parts.append("tick >= :min_tick")
        params["min_tick"] = view.min_tick
    return " AND ".join(parts), params


def fts_query(tokens: Iterable[str]) -> str:
    """FTS5 query syntax for the reference's tokens: each a quoted string, joined by OR."""
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


def _vector(values: Iterable[float]) -> bytes:
    from sqlite_vec import serialize_float32

    return bytes(serialize_float32(list(values)))


def _row(record: Any) -> IndexRow:
    fields = dict(zip(_FIELDS, record, strict=False))
    return IndexRow.stored(fields | {"barrier": fields["barrier"] or None})


class SqliteSystem:
    """One system: its own SQLite database; ``per_tenant`` says whether each tenant's
    chunks have an FTS5 table of their own."""

    capabilities = _CAPABILITIES

    def __init__(self, settings: Settings, *, per_tenant: bool, path: str | None = None) -> None:
        sqlite, sqlite_vec = _modules()
        self.settings = settings
        self.per_tenant = per_tenant
        # One writer and one reader at a time (the kit's guard thread, or the caller's):
        # the lock makes a connection crossing threads safe.
        self._lock = threading.RLock()
        db = sqlite.connect(path or ":memory:", isolation_level=None, check_same_thread=False)
        self._db = db
        self._engine_error: type[Exception] = sqlite.OperationalError
        weakref.finalize(self, db.close)
        db.enable_load_extension(True)
        sqlite_vec.load(db)
        db.enable_load_extension(False)
        self.sqlite_version: str = sqlite.sqlite_version
        self.vec_version: str = db.execute("SELECT vec_version()").fetchone()[0]
        self._create(path)

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    def _create(self, path: str | None) -> None:
        layout = "per_tenant" if self.per_tenant else "shared"
        with self._transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            wanted = {"layout": layout, "dimensions": str(self.settings.dimensions)}
            for name, value in wanted.items():
                db.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (name, value))
            found = dict(db.execute("SELECT name, value FROM meta").fetchall())
            if any(found[name] != value for name, value in wanted.items()):
                raise InvalidArgument(
                    f"sqlite database {path!r} was made as {found['layout']}, "
                    f"{found['dimensions']}-d; this system is {layout}, "
                    f"{self.settings.dimensions}-d"
                )
            db.execute(
                "CREATE TABLE IF NOT EXISTS chunks (rowid INTEGER PRIMARY KEY, chunk_id TEXT, "
                "tenant TEXT, doc_id TEXT, version INTEGER, start INTEGER, end INTEGER, "
                "section TEXT, text TEXT, level INTEGER, barrier TEXT, tick INTEGER)"
            )
            db.execute("CREATE INDEX IF NOT EXISTS chunks_doc ON chunks (tenant, doc_id)")
            db.execute(
                "CREATE TABLE IF NOT EXISTS versions (tenant TEXT NOT NULL, doc_id TEXT NOT "
                "NULL, version INTEGER NOT NULL, PRIMARY KEY (tenant, doc_id))"
            )
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS vec USING vec0(chunk INTEGER PRIMARY KEY, "
                "tenant TEXT PARTITION KEY, "
                f"embedding FLOAT[{self.settings.dimensions}] distance_metric=cosine, "
                "level INTEGER, barrier TEXT, tick INTEGER)"
            )
            if self.per_tenant:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS tenants (n INTEGER PRIMARY KEY, "
                    "tenant TEXT UNIQUE NOT NULL)"
                )
            else:
                self._create_fts(db, "fts", tenant=True)

    @staticmethod
    def _create_fts(db: Any, name: str, *, tenant: bool) -> None:
        labels = "tenant UNINDEXED, " if tenant else ""
        db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5(terms, {labels}"
            f'level UNINDEXED, barrier UNINDEXED, tick UNINDEXED, tokenize="{TOKENIZER}")'
        )

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _fts(self, db: Any, tenant: str, *, create: bool = False) -> str | None:
        """The FTS5 table holding ``tenant``'s chunks (None: the tenant has none yet)."""
        if not self.per_tenant:
            return "fts"
        found = db.execute("SELECT n FROM tenants WHERE tenant = ?", (tenant,)).fetchone()
        if found is None and create:
            n = db.execute("INSERT INTO tenants (tenant) VALUES (?)", (tenant,)).lastrowid
            self._create_fts(db, f"fts_{n}", tenant=False)
            return f"fts_{n}"
        return None if found is None else f"fts_{found[0]}"

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
                    "INSERT INTO versions (tenant, doc_id, version) VALUES (?, ?, ?) "
                    "ON CONFLICT (tenant, doc_id) DO UPDATE SET version = excluded.version "
                    "WHERE excluded.version > versions.version",
                    (doc.tenant, doc.doc_id, doc.version),
                ).rowcount
                if taken:
                    self._remove(db, doc.tenant, doc.doc_id)
                    key = (doc.tenant, doc.doc_id, doc.version)
                    self._insert(db, doc.tenant, by_version.get(key, []))
                accepted.append(bool(taken))
        return tuple(accepted)

    def _insert(self, db: Any, tenant: str, rows: list[IndexRow]) -> None:
        fts = self._fts(db, tenant, create=True)
        columns = "rowid, terms, level, barrier, tick"
        if not self.per_tenant:
            columns = "rowid, terms, tenant, level, barrier, tick"
        marks = ", ".join("?" * len(columns.split(", ")))
        for row in rows:
            barrier = barrier_label(row.barrier)
            rowid = db.execute(
                "INSERT INTO chunks (chunk_id, tenant, doc_id, version, start, end, section, "
                "text, level, barrier, tick) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    row.chunk_id,
                    row.tenant,
                    row.doc_id,
                    row.version,
                    row.start,
                    row.end,
                    row.section,
                    row.text,
                    row.level,
                    barrier,
                    row.tick,
                ),
            ).lastrowid
            terms = " ".join(row.terms)
            labels = (row.level, barrier, row.tick)
            values = (rowid, terms, *labels) if self.per_tenant else (rowid, terms, tenant, *labels)
            db.execute(f"INSERT INTO {fts} ({columns}) VALUES ({marks})", values)
            if row.vector is not None:  # a chunk with no direction has no place in vec
                db.execute(
                    "INSERT INTO vec (chunk, tenant, embedding, level, barrier, tick) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (rowid, tenant, _vector(row.vector), *labels),
                )

    def _remove(self, db: Any, tenant: str, doc_id: str) -> None:
        fts = self._fts(db, tenant)
        if fts is None:
            return
        where = "(SELECT rowid FROM chunks WHERE tenant = ? AND doc_id = ?)"
        db.execute(f"DELETE FROM {fts} WHERE rowid IN {where}", (tenant, doc_id))
        db.execute(f"DELETE FROM vec WHERE chunk IN {where}", (tenant, doc_id))
        db.execute("DELETE FROM chunks WHERE tenant = ? AND doc_id = ?", (tenant, doc_id))

    def delete(self, tenant: str, doc_id: str) -> None:
        with self._transaction() as db:
            self._remove(db, tenant, doc_id)

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        view = View.of(asker, now_tick, policy)
        tokens = tokenize(query)
        vector = self.settings.query_vector(query) if policy.mode != "lexical" else None
        with self._lock:
            fts = self._fts(self._db, view.tenant)
            match = fts_query(tokens) if policy.mode != "dense" and tokens and fts else None
            dense = policy.mode != "lexical" and vector is not None
            where, params = view_where(view, tenant=not self.per_tenant)
            params |= {"k": policy.candidate_limit, "rrf_k": float(policy.rrf_k)}
            params |= {"match": match, "vector": None if vector is None else _vector(vector)}
            legs = {
                "fts": (
                    f"SELECT rowid AS id, row_number() OVER (ORDER BY rank) AS n, -rank AS score "
                    f"FROM {fts} WHERE {fts} MATCH :match AND {where} ORDER BY rank LIMIT :k"
                    if match
                    else "SELECT NULL AS id, NULL AS n, NULL AS score WHERE 0"
                ),
                # vec0's tenant is its partition key: the view keeps it in every layout.
                "vec": (
                    "SELECT chunk AS id, row_number() OVER (ORDER BY distance) AS n, "
                    "1.0 - distance AS score FROM vec WHERE embedding MATCH :vector "
                    # cosine > 0: the tail of the KNN order, whether vec0 or SQLite cuts it
                    f"AND k = :k AND {view_where(view)[0]} AND distance < 1.0"
                    if dense
                    else "SELECT NULL AS id, NULL AS n, NULL AS score WHERE 0"
                ),
            }
            if policy.mode == "hybrid":
                body = (
                    f"WITH fts_matches AS ({legs['fts']}), vec_matches AS ({legs['vec']}), "
                    "fused AS (SELECT coalesce(f.id, v.id) AS id, "
                    "coalesce(1.0 / (:rrf_k + f.n), 0.0) + coalesce(1.0 / (:rrf_k + v.n), 0.0) "
                    "AS score FROM fts_matches f FULL OUTER JOIN vec_matches v ON v.id = f.id) "
                    "SELECT {fields}, fused.score FROM fused JOIN chunks ON chunks.rowid = fused.id"
                )
            else:
                leg = legs["fts" if policy.mode == "lexical" else "vec"]
                body = (
                    f"WITH found AS ({leg}) SELECT {{fields}}, found.score FROM found "
                    "JOIN chunks ON chunks.rowid = found.id"
                )
            sql = body.format(fields=", ".join(f"chunks.{f}" for f in _FIELDS))
            try:
                found = self._db.execute(sql, params).fetchall()
            except self._engine_error as error:
                # vec0 refuses k above 4096 (SQLITE_VEC_VEC0_K_MAX): the asker's limit.
                if "k value" not in str(error):
                    raise
                raise InvalidArgument(f"Policy.candidate_limit: sqlite-vec says {error}") from None
            counts = self._counts(fts, match, dense, view, params)
        pairs = [(_row(record), float(record[-1])) for record in found]
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        return Result(hits, *counts)

    def _counts(
        self, fts: str | None, match: str | None, dense: bool, view: View, params: dict[str, Any]
    ) -> tuple[int, int, int]:
        """Chunks of the asker's tenant matching in a searched index (a term for FTS5,
        cosine > 0 for ``vec``), and how many of them the view leaves out (not entitled;
        entitled but stale): SQL counts over ``chunks``, the view's predicate negated."""
        legs = []
        if match:
            tenant = "" if self.per_tenant else " AND tenant = :tenant"
            legs.append(f"SELECT rowid FROM {fts} WHERE {fts} MATCH :match{tenant}")
        if dense:
            legs.append(
                "SELECT chunk FROM vec WHERE tenant = :tenant "
                "AND vec_distance_cosine(embedding, :vector) < 1.0"
            )
        if not legs:
            return 0, 0, 0
        visible = view_where(View(view.tenant, view.max_level, view.barriers, None))[0]
        fresh = "1" if view.min_tick is None else "tick >= :min_tick"
        considered, hidden, stale = self._db.execute(
            f"SELECT count(*), coalesce(sum(NOT ({visible})), 0), "
            f"coalesce(sum(({visible}) AND NOT ({fresh})), 0) FROM chunks "
            f"WHERE rowid IN ({' UNION '.join(legs)})",
            params,
        ).fetchone()
        return int(considered), int(hidden), int(stale)


def shared(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    path: str | None = None,
) -> SqliteSystem:
    """A fresh SQLite system, one FTS5 table for every tenant; in memory, or in the
    database file ``path`` (made on first use, continued after)."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return SqliteSystem(settings, per_tenant=False, path=path)


def per_tenant(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    path: str | None = None,
) -> SqliteSystem:
    """A fresh SQLite system, one FTS5 table per tenant; in memory, or in the database
    file ``path`` (made on first use, continued after)."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return SqliteSystem(settings, per_tenant=True, path=path)
