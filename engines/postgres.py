"""PostgreSQL behind the kit's contract: row-level security as the entitlement boundary.

Every system is one schema holding two tables: ``chunks`` (one row per chunk: labels,
a ``tsvector`` of the reference's tokens, a vector) and ``versions`` (the highest
version ever accepted per ``(tenant, doc_id)``, kept through deletes, so a stale write
is refused by the database itself). An *owner* role creates them and writes; the
adapter **reads as a non-owner role**: each retrieval is one transaction that does
``SET LOCAL ROLE`` to the reader and ``set_config(..., true)`` of the asker's tenant,
clearance, barriers and freshness edge, and the row-level-security policies on
``chunks`` do the rest — the queries carry no tenant or label filter of their own. The
policies are:

* ``asker`` (permissive): own tenant, ``level <= max_level``, barrier none or one of the
  asker's — the entitlement boundary;
* ``fresh`` (restrictive): ``tick >= min_tick`` when a freshness edge is set — the
  policy's freshness contract, a policy too so that the reader never sees a stale row.

An unset setting reads as NULL, so a reader that forgot to set them sees nothing.

Ranking is the engine's: lexical is ``ts_rank_cd`` over a ``tsvector`` built from the
reference's tokens with their positions (a ``tsvector`` literal, so PostgreSQL's parser
and dictionaries never re-tokenise: ``pmt-7`` stays one term), queried with an OR
``tsquery`` of the query's tokens. ``ts_rank_cd`` is cover density: it reads no corpus
statistic (no ``N``, no document frequency), so it is not BM25, and an invisible row
cannot move a visible score. Dense is exact cosine in SQL over ``float8[]`` (system
PostgreSQL, no pgvector) or pgvector's ``<=>`` (an exact scan, or an HNSW index with the
row-level-security filter in the same query: pgvector applies such a filter *after* the
index scan returned ``hnsw.ef_search`` rows, so an answer can come back short —
pgvector/pgvector#259, #751). Hybrid is reciprocal rank fusion in SQL, ``sum(1 / (k +
rank))`` with ranks from 1 and ``k`` the policy's ``rrf_k``, over the two first stages
each cut at ``candidate_limit``; ties break by ``chunk_id`` (collation ``"C"``,
code-point order as in Python).

Identifiers (tenant, ``doc_id``, chunk id, barrier) are stored as given, except that
PostgreSQL's ``text`` cannot hold NUL: NUL is written ``\\x01\\x01`` and ``\\x01``
``\\x01\\x02`` (:func:`_stored`), an encoding that is injective and keeps code-point
order, so ids stay apart and ties still break as in Python.

The audit counts are SQL ``COUNT``s: *considered* is counted by the owner role (the
reader cannot see the rows it must count), restricted by ``WHERE tenant = ...``;
*eligible* and *visible* are counted by the reader under the same policies, with and
without the freshness edge — so the entitlement predicate lives in the policies alone
and the exclusions are differences of counts, never a second copy of the rule.

Configurations: ``rls`` (the system PostgreSQL, ``float8[]`` vectors), ``pgvector_exact``
and ``pgvector_hnsw`` (the PostgreSQL 16 + pgvector that the ``pgserver`` package
bundles; only its binaries are used, driven by :class:`TemporaryServer` as the system
one), and ``dsn`` (a deployment named by ``RAGWARD_PG_DSN``). Without a DSN a factory
starts one temporary server per process, lazily, stopped and removed at exit.

A deployment (``dsn``) needs: the login role may ``CREATE`` schemas in the database
(each system is a new schema, dropped when the adapter is collected); it is a member of
a reader role (``RAGWARD_PG_READER``, default ``ragward_reader``) that is neither
superuser nor ``BYPASSRLS`` nor the owner of the tables; and the ``vector`` extension
is installed in a schema on the search path. :mod:`~ragward.engines.pg_deployment`
refuses any other (exit 2, one line) before the first schema is made, and every system,
whatever its server, asks ``row_security_active`` as the reader before it is used.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import re
import signal
import sys
import threading
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ragward.conformance import Asker, Capabilities, Doc, Policy, Result
from ragward.engines import Configuration, pg_deployment
from ragward.engines.common import IndexRow, Settings, View, ranked, settings_of
from ragward.engines.pg_server import TemporaryServer, pgserver_bin
from ragward.errors import InvalidArgument, MissingExtra
from ragward.reference.text import tokenize

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "CONFIGURATIONS",
    "Database",
    "PostgresSystem",
    "TemporaryServer",
    "dsn",
    "pgvector_exact",
    "pgvector_hnsw",
    "rls",
]

_EXTRA = {"rls": "postgres", "pgvector": "pgvector"}
_OWNER, _READER = "ragward_owner", "ragward_reader"

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "postgres",
        "rls",
        "system PostgreSQL: row-level security, ts_rank_cd, exact float8[] cosine",
        "postgres",
        ("psycopg",),
        needs="initdb on PATH (the postgres server beside it)",
    ),
    Configuration(
        "postgres",
        "pgvector_exact",
        "PostgreSQL 16 + pgvector (pgserver): row-level security, exact <=> scan",
        "pgvector",
        ("psycopg", "pgserver"),
    ),
    Configuration(
        "postgres",
        "pgvector_hnsw",
        "PostgreSQL 16 + pgvector (pgserver): HNSW index, RLS filter in the same query",
        "pgvector",
        ("psycopg", "pgserver"),
    ),
    Configuration(
        "postgres",
        "dsn",
        "a PostgreSQL + pgvector deployment (exact <=> scan)",
        "postgres",
        ("psycopg",),
        needs="RAGWARD_PG_DSN",
        in_matrix=False,
    ),
)


def _psycopg(extra: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise MissingExtra(
            f"this configuration needs psycopg: pip install 'ragward[{extra}]'"
        ) from None
    return psycopg


class Database:
    """One connection to a database, shared by the systems made on it (under a lock).

    ``owner`` is the role that creates and writes (None: the login role itself),
    ``reader`` the non-owner role every retrieval runs as.
    """

    def __init__(self, connection: psycopg.Connection[Any], owner: str | None, reader: str):
        self.connection = connection
        self.owner = owner
        self.reader = reader
        self.lock = threading.RLock()
        self.doomed: list[str] = []  # schemas of collected systems, dropped on next create
        self.names = itertools.count()

    @classmethod
    def bootstrap(cls, server: TemporaryServer, *, pgvector: bool) -> Database:
        """Connect to a fresh :class:`TemporaryServer` as its superuser and create the
        owner and reader roles (and the ``vector`` extension); the connection then acts
        as the owner. It is closed at exit, before the server stops."""
        psycopg = _psycopg("pgvector" if pgvector else "postgres")
        connection = psycopg.connect(server.dsn, autocommit=True)
        atexit.register(connection.close)  # atexit is LIFO: before the server's stop
        for role in (_OWNER, _READER):
            connection.execute(f"CREATE ROLE {role} NOLOGIN NOSUPERUSER NOBYPASSRLS".encode())
        connection.execute(f"GRANT CREATE ON DATABASE postgres TO {_OWNER}".encode())
        if pgvector:
            connection.execute(b"CREATE EXTENSION vector")
        connection.execute(f"SET ROLE {_OWNER}".encode())
        return cls(connection, _OWNER, _READER)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[psycopg.Cursor[Any]]:
        with self.lock, self.connection.transaction(), self.connection.cursor() as cursor:
            yield cursor


_servers: dict[str, TemporaryServer] = {}
#: By flavour ("rls", "pgvector"), and a deployment by ``(url, reader)``: a tuple, since
#: a DSN may hold any separator.
_databases: dict[str | tuple[str, str], Database] = {}
_lock = threading.Lock()


def _exit_on_sigterm() -> None:
    """Make a default SIGTERM (``timeout``, a CI runner cancelling) exit through atexit,
    so the server is stopped; a handler the program installed itself is left alone."""
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    ):
        signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))


_exit_on_sigterm()  # at import, on the main thread: factories may run on the kit's worker


def _temporary_database(flavour: str) -> Database:
    """The process's database for ``flavour`` ("rls" or "pgvector"), started on first use."""
    with _lock:
        if flavour not in _databases:
            _psycopg(_EXTRA[flavour])
            bindir = pgserver_bin() if flavour == "pgvector" else None
            _exit_on_sigterm()
            server = TemporaryServer(bindir).start()
            _servers[flavour] = server
            _databases[flavour] = Database.bootstrap(server, pgvector=flavour == "pgvector")
        return _databases[flavour]


@contextlib.contextmanager
def serving() -> Iterator[None]:
    """Start both temporary servers (system PostgreSQL and pgserver's PostgreSQL 16 with
    pgvector) for the duration: every factory of this module uses them instead of
    starting its own, and both are stopped and removed on exit, also on failure. The
    tests' fixture; also how a script runs several configurations on one pair."""
    with TemporaryServer() as system, TemporaryServer(pgserver_bin()) as bundled:
        made = {
            "rls": Database.bootstrap(system, pgvector=False),
            "pgvector": Database.bootstrap(bundled, pgvector=True),
        }
        with _lock:
            before = {flavour: _databases.get(flavour) for flavour in made}
            _databases.update(made)
        try:
            yield
        finally:
            with _lock:
                for flavour, database in before.items():
                    if database is None:
                        _databases.pop(flavour, None)
                    else:
                        _databases[flavour] = database
            for database in made.values():
                database.connection.close()


def _deployment(url: str | None, reader: str | None) -> Database:
    url = url or os.environ.get("RAGWARD_PG_DSN")
    if not url:
        raise InvalidArgument("the dsn configuration needs RAGWARD_PG_DSN (a libpq DSN or URL)")
    reader = reader or os.environ.get("RAGWARD_PG_READER", _READER)
    key = (url, reader)
    with _lock:
        if key not in _databases:
            connection = pg_deployment.connect(_psycopg("postgres"), url)
            try:
                pg_deployment.check(connection, reader)
            except BaseException:
                connection.close()
                raise
            atexit.register(connection.close)
            _databases[key] = Database(connection, None, reader)
        return _databases[key]


def _stored(value: str) -> str:
    """An identifier as PostgreSQL ``text``, which refuses NUL: NUL becomes ``\\x01\\x01``
    and ``\\x01`` becomes ``\\x01\\x02``, every other character itself. The code is
    prefix-free and its words keep the order of the characters they stand for, so two ids
    never meet and ``ORDER BY chunk_id`` (collation ``"C"``) stays code-point order."""
    if "\x00" not in value and "\x01" not in value:
        return value
    return value.replace("\x01", "\x01\x02").replace("\x00", "\x01\x01")


def _stored_or_none(value: str | None) -> str | None:
    return None if value is None else _stored(value)


_ESCAPED = re.compile("\x01([\x01\x02])")


def _read(value: str) -> str:
    """An identifier as :func:`_stored` wrote it, back as it was given."""
    if "\x01" not in value:
        return value
    return _ESCAPED.sub(lambda m: "\x00" if m.group(1) == "\x01" else "\x01", value)


def _quote(term: str) -> str:
    """A lexeme as a tsvector/tsquery literal: quoted, quote and backslash doubled."""
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def _tsvector(terms: tuple[str, ...]) -> str:
    positions: dict[str, list[int]] = {}
    for position, term in enumerate(terms, start=1):
        positions.setdefault(term, []).append(min(position, 16383))
    return " ".join(f"{_quote(t)}:{','.join(map(str, p[:256]))}" for t, p in positions.items())


def _vector_text(vector: tuple[float, ...]) -> str:
    return "[" + ",".join(repr(x) for x in vector) + "]"


class PostgresSystem:
    """One empty system: a fresh schema on a shared database (see the module docstring).

    ``vectors`` is ``"array"`` (``float8[]``, cosine in SQL) or ``"pgvector"``; ``index``
    ``"exact"`` or ``"hnsw"`` (pgvector only: ``ef_search`` None keeps pgvector's
    default, 40). Scores: lexical ``ts_rank_cd`` (a float4), dense the cosine, hybrid
    the RRF sum.
    """

    capabilities = Capabilities(
        modes=("hybrid", "lexical", "dense"),
        policy_knobs=True,
        counts=True,
        scores=True,
        delete=True,
        versions=True,
        barriers=True,
        freshness=True,
    )

    def __init__(
        self,
        database: Database,
        settings: Settings,
        *,
        vectors: str = "array",
        index: str = "exact",
        ef_search: int | None = None,
    ) -> None:
        if vectors not in ("array", "pgvector") or index not in ("exact", "hnsw"):
            raise InvalidArgument(f"unknown vectors={vectors!r} or index={index!r}")
        if index == "hnsw" and vectors != "pgvector":
            raise InvalidArgument("an HNSW index needs pgvector (vectors='pgvector')")
        self.database = database
        self.settings = settings
        self.vectors = vectors
        self.index = index
        self.ef_search = ef_search
        self.schema = f"ragward_{os.getpid()}_{next(database.names)}"
        self._create()
        weakref.finalize(self, database.doomed.append, self.schema)

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    # -- schema -------------------------------------------------------------------------

    def _create(self) -> None:
        s, reader = self.schema, pg_deployment.quoted(self.database.reader)
        column = "float8[]" if self.vectors == "array" else f"vector({self.settings.dimensions})"
        statements = [f"DROP SCHEMA IF EXISTS {d} CASCADE" for d in self._drain()]
        statements += [
            f"CREATE SCHEMA {s}",
            f"""CREATE TABLE {s}.chunks (
                tenant text NOT NULL, chunk_id text COLLATE "C" NOT NULL, doc_id text NOT NULL,
                version integer NOT NULL, start_char integer NOT NULL, end_char integer NOT NULL,
                section text NOT NULL, body text NOT NULL, level integer NOT NULL,
                barrier text, tick bigint NOT NULL, terms tsvector NOT NULL, vec {column},
                PRIMARY KEY (chunk_id, tenant))""",
            f"""CREATE TABLE {s}.versions (
                tenant text NOT NULL, doc_id text NOT NULL, version integer NOT NULL,
                PRIMARY KEY (tenant, doc_id))""",
            f"ALTER TABLE {s}.chunks ENABLE ROW LEVEL SECURITY",
            f"""CREATE POLICY asker ON {s}.chunks FOR SELECT TO {reader} USING (
                tenant = nullif(current_setting('ragward.tenant', true), '')
                AND level <= nullif(current_setting('ragward.max_level', true), '')::integer
                AND (barrier IS NULL OR barrier = ANY (
                     nullif(current_setting('ragward.barriers', true), '')::text[])))""",
            f"""CREATE POLICY fresh ON {s}.chunks AS RESTRICTIVE FOR SELECT TO {reader} USING (
                tick >= coalesce(nullif(current_setting('ragward.min_tick', true), '')::bigint,
                                 tick))""",
            f"GRANT USAGE ON SCHEMA {s} TO {reader}",
            f"GRANT SELECT ON {s}.chunks TO {reader}",
        ]
        if self.vectors == "array":
            statements.append(
                f"""CREATE FUNCTION {s}.cosine(a float8[], b float8[]) RETURNS float8
                LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
                SELECT sum(x * y) / sqrt(sum(x * x) * sum(y * y)) FROM unnest(a, b) AS t(x, y)
                $$"""
            )
            statements.append(f"GRANT EXECUTE ON FUNCTION {s}.cosine TO {reader}")
        if self.index == "hnsw":
            statements.append(f"CREATE INDEX ON {s}.chunks USING hnsw (vec vector_cosine_ops)")
        with self.database.transaction() as cursor:
            for statement in statements:
                cursor.execute(statement.encode())
            # Refused here, the schema is rolled back with the transaction.
            pg_deployment.refuse_unless_secured(cursor, self.database.reader, f"{s}.chunks")

    def _drain(self) -> list[str]:
        doomed = self.database.doomed
        return [doomed.pop() for _ in range(len(doomed))]

    def close(self) -> None:
        """Drop this system's schema now (else it is dropped after the adapter is gone)."""
        with self.database.transaction() as cursor:
            cursor.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE".encode())

    # -- writes -------------------------------------------------------------------------

    def ingest(self, doc: Doc) -> bool:
        rows = self.settings.rows(doc)  # chunk and embed first: a failure changes nothing
        s = self.schema
        with self.database.transaction() as cursor:
            cursor.execute(
                f"""INSERT INTO {s}.versions AS v VALUES (%s, %s, %s)
                ON CONFLICT (tenant, doc_id) DO UPDATE SET version = excluded.version
                WHERE v.version < excluded.version RETURNING 1""".encode(),
                (_stored(doc.tenant), _stored(doc.doc_id), doc.version),
            )
            if cursor.fetchone() is None:
                return False
            cursor.execute(
                f"DELETE FROM {s}.chunks WHERE tenant = %s AND doc_id = %s".encode(),
                (_stored(doc.tenant), _stored(doc.doc_id)),
            )
            if rows:
                cast = "float8[]" if self.vectors == "array" else "vector"
                values = "%s, " * 11 + f"%s::tsvector, %s::{cast}"
                cursor.executemany(
                    f"INSERT INTO {s}.chunks VALUES ({values})".encode(),
                    [self._values(row) for row in rows],
                )
        return True

    def _values(self, row: IndexRow) -> tuple[object, ...]:
        vector: object = None
        if row.vector is not None:
            vector = list(row.vector) if self.vectors == "array" else _vector_text(row.vector)
        return (
            _stored(row.tenant), _stored(row.chunk_id), _stored(row.doc_id), row.version,
            row.start, row.end, row.section, row.text, row.level, _stored_or_none(row.barrier),
            row.tick, _tsvector(row.terms), vector,
        )  # fmt: skip

    def delete(self, tenant: str, doc_id: str) -> None:
        with self.database.transaction() as cursor:
            cursor.execute(
                f"DELETE FROM {self.schema}.chunks WHERE tenant = %s AND doc_id = %s".encode(),
                (_stored(tenant), _stored(doc_id)),
            )

    # -- reads --------------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        view = View.of(asker, now_tick, policy)
        terms = sorted(set(tokenize(query)))
        lexical = policy.mode != "dense" and bool(terms)
        vector = None if policy.mode == "lexical" else self.settings.query_vector(query)
        tsquery = " | ".join(_quote(t) for t in terms)
        qvec: object = None
        if vector is not None:
            qvec = list(vector) if self.vectors == "array" else _vector_text(vector)
        match_lexical = "terms @@ %(q)s::tsquery" if lexical else "false"
        match_dense = f"{self._cosine()} > 0" if vector is not None else "false"
        tenant = _stored(view.tenant)
        arguments: dict[str, object] = {"q": tsquery, "v": qvec, "tenant": tenant}
        s = self.schema
        counted = f"FROM {s}.chunks WHERE (({match_lexical}) OR ({match_dense}))"
        with self.database.transaction() as cursor:
            cursor.execute(  # as the owner: every matching row of the tenant, seen or not
                f"SELECT count(*) {counted} AND tenant = %(tenant)s".encode(), arguments
            )
            considered = _one(cursor)
            cursor.execute(f"SET LOCAL ROLE {pg_deployment.quoted(self.database.reader)}".encode())
            cursor.execute(
                b"""SELECT set_config('ragward.tenant', %s, true),
                    set_config('ragward.max_level', %s, true),
                    set_config('ragward.barriers', %s::text[]::text, true),
                    set_config('ragward.min_tick', '', true)""",
                (tenant, str(view.max_level), [_stored(b) for b in view.barriers]),
            )
            cursor.execute(f"SELECT count(*) {counted}".encode(), arguments)
            visible = _one(cursor)
            if view.min_tick is not None:
                cursor.execute(
                    b"SELECT set_config('ragward.min_tick', %s, true)", (str(view.min_tick),)
                )
                cursor.execute(f"SELECT count(*) {counted}".encode(), arguments)
                eligible = _one(cursor)
            else:
                eligible = visible
            rows = self._rank(cursor, policy, arguments, lexical, vector is not None)
        hits = tuple(row.hit(score) for row, score in ranked(rows, policy.result_limit))
        return Result(hits, considered, considered - visible, visible - eligible)

    def _cosine(self) -> str:
        if self.vectors == "array":
            return f"{self.schema}.cosine(vec, %(v)s::float8[])"
        return "(1 - (vec <=> %(v)s::vector))"

    def _rank(
        self,
        cursor: psycopg.Cursor[Any],
        policy: Policy,
        arguments: dict[str, object],
        lexical: bool,
        dense: bool,
    ) -> list[tuple[IndexRow, float]]:
        """The engine's ranking, as the reader: one SQL statement per mode."""
        s = self.schema
        arguments = {**arguments, "n": policy.candidate_limit, "k": float(policy.rrf_k)}
        stages = []
        if lexical:
            stages.append(
                f"""SELECT chunk_id, ts_rank_cd(terms, %(q)s::tsquery)::float8 AS score
                FROM {s}.chunks WHERE terms @@ %(q)s::tsquery
                ORDER BY score DESC, chunk_id LIMIT %(n)s"""
            )
        if dense:
            if self.index == "hnsw":
                # On tables this small the planner prefers a scan and a sort (an exact
                # answer); switching those off gives the plan of a large table: the HNSW
                # index's order, the policies' filter applied to what it returns.
                cursor.execute(b"SET LOCAL enable_seqscan = off")
                cursor.execute(b"SET LOCAL enable_sort = off")
                if self.ef_search is not None:
                    cursor.execute(f"SET LOCAL hnsw.ef_search = {int(self.ef_search)}".encode())
                order = "vec <=> %(v)s::vector"
            else:
                order = "score DESC, chunk_id"
            stages.append(
                f"""SELECT chunk_id, {self._cosine()} AS score FROM {s}.chunks
                WHERE vec IS NOT NULL AND {self._cosine()} > 0 ORDER BY {order} LIMIT %(n)s"""
            )
        if not stages:
            return []
        if policy.mode == "hybrid":
            ranks = " UNION ALL ".join(
                f"SELECT chunk_id, row_number() OVER (ORDER BY score DESC, chunk_id) AS rank "
                f"FROM ({stage}) AS stage{i}"
                for i, stage in enumerate(stages)
            )
            ranking = f"""SELECT chunk_id, sum(1.0::float8 / (%(k)s + rank)) AS score
                FROM ({ranks}) AS ranks GROUP BY chunk_id
                ORDER BY score DESC, chunk_id LIMIT %(n)s"""
        else:
            ranking = stages[0]
        cursor.execute(
            f"""SELECT c.chunk_id, c.tenant, c.doc_id, c.version, c.start_char, c.end_char,
                c.section, c.body, c.level, c.barrier, c.tick, r.score
            FROM ({ranking}) AS r JOIN {s}.chunks AS c USING (chunk_id)""".encode(),
            arguments,
        )
        found = []
        for chunk_id, tenant, doc_id, version, start, end, section, body, *labels in cursor:
            level, barrier, tick, score = labels
            # The row as the hit needs it: search text, terms and vector are not read back.
            row = IndexRow(
                _read(chunk_id), _read(tenant), _read(doc_id), version, start, end, section, body,
                "", level, None if barrier is None else _read(barrier), tick, (), None,
            )  # fmt: skip
            found.append((row, float(score)))
        return found


def _one(cursor: psycopg.Cursor[Any]) -> int:
    row = cursor.fetchone()
    assert row is not None
    return int(row[0])


# -- factories ----------------------------------------------------------------------------


def rls(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
) -> PostgresSystem:
    """System PostgreSQL: RLS, ``ts_rank_cd``, exact cosine over ``float8[]``."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return PostgresSystem(_temporary_database("rls"), settings, vectors="array")


def pgvector_exact(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
) -> PostgresSystem:
    """PostgreSQL 16 + pgvector (pgserver's binaries): RLS, an exact ``<=>`` scan."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return PostgresSystem(_temporary_database("pgvector"), settings, vectors="pgvector")


def pgvector_hnsw(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    ef_search: int | None = None,
) -> PostgresSystem:
    """PostgreSQL 16 + pgvector: an HNSW index (default ``m``, ``ef_construction`` and,
    unless given, ``ef_search``), the RLS filter applied in the same query."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return PostgresSystem(
        _temporary_database("pgvector"),
        settings,
        vectors="pgvector",
        index="hnsw",
        ef_search=ef_search,
    )


def dsn(
    *,
    max_tokens: int | None = None,
    overlap_tokens: int | None = None,
    embedder: str | None = None,
    url: str | None = None,
    reader: str | None = None,
) -> PostgresSystem:
    """A deployment: ``url`` (default ``RAGWARD_PG_DSN``), reading as ``reader`` (default
    ``RAGWARD_PG_READER`` or ``ragward_reader``); pgvector exact scan."""
    settings = settings_of(max_tokens, overlap_tokens, embedder)
    return PostgresSystem(_deployment(url, reader), settings, vectors="pgvector")
