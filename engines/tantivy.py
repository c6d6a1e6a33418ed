"""tantivy (the Rust search engine, through its Python bindings) behind the kit's contract.

tantivy is a BM25 full-text engine with no vector search, so its systems are lexical
only and embed nothing (the harness's ``embedder`` keyword is accepted and unused). Each
system holds the current chunks in an in-memory tantivy ``Index`` (one for
every tenant, or one per tenant: the two configurations below), one document per chunk:

* ``terms`` — the reference's tokens of the chunk's search text, joined by spaces and
  read by a registered whitespace analyzer with no filter (nothing lower-cased, stemmed,
  dropped as a stop word or cut for length, unlike tantivy's ``default`` tokenizer), so
  the index holds exactly the reference's terms;
* ``tenant``, ``barrier`` and ``key`` (``[tenant, doc_id]``) — ``raw`` text fields, one
  untokenised term each (a tenant named ``a`` is a term like any other, not a stop
  word); a chunk without a barrier carries the term ``-``, one with barrier ``b`` the
  term ``=b``;
* ``level`` and ``tick`` — indexed integer fast fields, for range queries;
* ``row`` — the stored labels and span the hit cites (JSON bytes, never indexed).

The question is tantivy's ``BooleanQuery``: a ``MUST`` clause holding one ``SHOULD`` term
query per distinct query term (what ``Index.parse_query`` makes of the same text: it
drops repeated terms; built here with the ``Query`` API, so that no token is read as
query syntax), and a ``MUST`` clause holding the asker's view (:func:`view_query`) under
``Query.const_score_query(..., 0.0)``, so the view filters without adding its own
term's score. tantivy's BM25 (``k1 = 1.2``, ``b = 0.75``, lengths quantised to one
byte) takes ``N``, the average length and the document frequencies from the whole index
it searches, whatever the query's filter.

Writes follow tantivy's documented cycle: the chunk writes since the last read are
applied at the next read by one ``IndexWriter`` (one indexing thread, so documents are
laid out in the order they were written), deletes by the ``key`` term first, then the
new documents; the writer's ``with`` block commits and waits for its merges, and
``Index.reload()`` makes the new searcher see them, so a read sees every write before it.
A system has one writer (as in the kit and the evals), so ``ingest`` answers from the
versions it accepted, kept in memory beside the in-memory index, deletes included.
The audit counts are tantivy's own ``count`` of the query under the tenant-only, the
entitled and the eligible filter. Tested with ``tantivy`` 0.27.0 (the Python package;
the Rust engine 0.27).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines import Configuration
from ragward.engines.common import IndexRow, Settings, View, ingest_newer, ranked, settings_of
from ragward.errors import MissingExtra
from ragward.reference.text import tokenize

__all__ = ["CONFIGURATIONS", "TantivySystem", "per_tenant", "shared", "view_query"]

CONFIGURATIONS: tuple[Configuration, ...] = (
    Configuration(
        "tantivy",
        "shared",
        "tantivy BM25, one in-memory index for all tenants, the view as MUST clauses "
        "(tenant a raw term)",
        "tantivy",
        ("tantivy",),
    ),
    Configuration(
        "tantivy",
        "per_tenant",
        "tantivy BM25, one in-memory index per tenant, the rest of the view as MUST clauses",
        "tantivy",
        ("tantivy",),
    ),
)

_CAPABILITIES = Capabilities(modes=("lexical",), policy_knobs=True)

#: The analyzer the ``terms`` field is read with: whitespace, no filter.
_TOKENS = "ragward_tokens"
#: The ``barrier`` term of a chunk without a barrier; a barrier ``b`` is ``=b``.
_NO_BARRIER = "-"


class _NoVectors:
    """The embedder of a system that stores no vectors: every text a zero row, which
    :class:`~ragward.engines.common.Settings` keeps as no vector. The harness's
    ``embedder`` keyword is accepted and left unused, so an eval's ingest time is
    tantivy's, not a model's."""

    name = "none"
    dimensions = 1
    identity = "none: BM25 only, no vectors"

    def embed(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float64]]:
        return np.zeros((len(texts), 1))


def _settings(max_tokens: int | None, overlap_tokens: int | None) -> Settings:
    """The reference's chunking (or the harness's), and no embedder."""
    return replace(settings_of(max_tokens, overlap_tokens), embedder=_NoVectors())


def _module() -> Any:
    try:
        import tantivy
    except ImportError as error:
        raise MissingExtra(
            f"engine 'tantivy' needs {error.name}: pip install 'ragward[tantivy]'"
        ) from None
    return tantivy


def _barrier(barrier: str | None) -> str:
    return _NO_BARRIER if barrier is None else f"={barrier}"


def _key(tenant: str, doc_id: str) -> str:
    return json.dumps([tenant, doc_id])


def view_query(schema: Any, view: View, *, entitled: bool = True, fresh: bool = True) -> Any:
    """The asker's view as a tantivy query that scores 0: the tenant's raw term, and (when
    ``entitled``) level at most ``max_level`` and a barrier the asker is inside, and (when
    ``fresh`` and the policy has a freshness contract) tick at least ``min_tick``."""
    from tantivy import FieldType, Occur, Query

    clauses = [(Occur.Must, Query.term_query(schema, "tenant", view.tenant))]
    if entitled:
        barriers = [_NO_BARRIER, *(_barrier(b) for b in view.barriers)]
        clauses += [
            (
                Occur.Must,
                Query.range_query(schema, "level", FieldType.Integer, upper_bound=view.max_level),
            ),
            (Occur.Must, Query.term_set_query(schema, "barrier", barriers)),
        ]
        if fresh and view.min_tick is not None:
            clauses.append(
                (
                    Occur.Must,
                    Query.range_query(schema, "tick", FieldType.Integer, lower_bound=view.min_tick),
                )
            )
    return Query.const_score_query(Query.boolean_query(clauses), 0.0)


def _text_query(schema: Any, terms: Sequence[str]) -> Any:
    """One ``SHOULD`` term query per distinct term, in the order they come: what
    ``Index.parse_query`` builds from the same words over the ``terms`` field."""
    from tantivy import Occur, Query

    clauses = [(Occur.Should, Query.term_query(schema, "terms", t)) for t in dict.fromkeys(terms)]
    return Query.boolean_query(clauses)


class _Index:
    """One in-memory tantivy index and the chunk writes it has not been given yet."""

    def __init__(self, tantivy: Any) -> None:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("terms", tokenizer_name=_TOKENS, index_option="freq")
        for name in ("tenant", "barrier", "key"):
            builder.add_text_field(name, tokenizer_name="raw", index_option="basic")
        for name in ("level", "tick"):
            builder.add_integer_field(name, indexed=True, fast=True)
        builder.add_bytes_field("row", stored=True)
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema)
        whitespace = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
        self.index.register_tokenizer(_TOKENS, whitespace)
        self.index.config_reader("manual")  # reloaded after each commit, below
        self._tantivy = tantivy
        self._doomed: set[str] = set()
        self._pending: list[IndexRow] = []

    def add(self, rows: Iterable[IndexRow]) -> None:
        self._pending.extend(rows)

    def forget(self, tenant: str, doc_id: str) -> None:
        """Every chunk of ``(tenant, doc_id)``, written or pending, gone at the next read."""
        self._pending = [r for r in self._pending if (r.tenant, r.doc_id) != (tenant, doc_id)]
        self._doomed.add(_key(tenant, doc_id))

    def _document(self, row: IndexRow) -> Any:
        stored = {
            "chunk_id": row.chunk_id,
            "tenant": row.tenant,
            "doc_id": row.doc_id,
            "version": row.version,
            "start": row.start,
            "end": row.end,
            "section": row.section,
            "text": row.text,
            "level": row.level,
            "barrier": row.barrier,
            "tick": row.tick,
        }
        return self._tantivy.Document(
            terms=[" ".join(row.terms)],
            tenant=[row.tenant],
            barrier=[_barrier(row.barrier)],
            key=[_key(row.tenant, row.doc_id)],
            level=[row.level],
            tick=[row.tick],
            row=[json.dumps(stored).encode()],
        )

    def searcher(self) -> Any:
        """A searcher over every write so far: the pending ones committed first."""
        if self._doomed or self._pending:
            # One indexing thread: documents land in the order written, in one segment.
            with self.index.writer(num_threads=1) as writer:
                for key in sorted(self._doomed):
                    writer.delete_documents_by_term("key", key)
                for row in self._pending:
                    writer.add_document(self._document(row))
            self.index.reload()
            self._doomed, self._pending = set(), []
        return self.index.searcher()


class TantivySystem:
    """One empty system; ``per_tenant`` says whether each tenant has its own index."""

    capabilities = _CAPABILITIES

    def __init__(self, settings: Settings, *, per_tenant: bool) -> None:
        self._tantivy = _module()
        self.settings = settings
        self.per_tenant = per_tenant
        self._indexes: dict[str | None, _Index] = {}
        self._versions: dict[tuple[str, str], int] = {}

    @property
    def model_identity(self) -> str:
        """The models this system answers with, as eval reports record them."""
        return self.settings.model_identity

    def _index(self, tenant: str, *, create: bool) -> _Index | None:
        name = tenant if self.per_tenant else None
        if name not in self._indexes and create:
            self._indexes[name] = _Index(self._tantivy)
        return self._indexes.get(name)

    # -- writes ----------------------------------------------------------------------

    def ingest(self, doc: Doc) -> bool:
        return self.ingest_many((doc,))[0]

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """``ingest`` of each document (any iterable, read once) in order."""
        return ingest_newer(self.settings, self._versions, docs, self._write)

    def _write(self, doc: Doc, previous: int | None, rows: list[IndexRow]) -> None:
        index = self._index(doc.tenant, create=True)
        assert index is not None
        if previous is not None:
            index.forget(doc.tenant, doc.doc_id)
        index.add(rows)

    def delete(self, tenant: str, doc_id: str) -> None:
        index = self._index(tenant, create=False)
        if index is not None and (tenant, doc_id) in self._versions:
            index.forget(tenant, doc_id)

    # -- reads -----------------------------------------------------------------------

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        from tantivy import Occur, Query

        view = View.of(asker, now_tick, policy)
        terms = tokenize(query)
        index = self._index(view.tenant, create=False)
        if index is None or not terms:
            return Result((), 0, 0, 0)
        searcher = index.searcher()
        text = _text_query(index.schema, terms)

        def within(scope: Any) -> Any:
            return Query.boolean_query([(Occur.Must, text), (Occur.Must, scope)])

        found = searcher.search(
            within(view_query(index.schema, view)), limit=policy.candidate_limit, count=False
        ).hits
        pairs = [(_row(searcher, address), float(score)) for score, address in found]
        hits = tuple(row.hit(score) for row, score in ranked(pairs, policy.result_limit))
        considered, entitled, eligible = (
            searcher.search(within(view_query(index.schema, view, **scope)), limit=1).count
            for scope in (
                {"entitled": False},
                {"entitled": True, "fresh": False},
                {"entitled": True, "fresh": True},
            )
        )
        return Result(hits, considered, considered - entitled, entitled - eligible)


def _row(searcher: Any, address: Any) -> IndexRow:
    (stored,) = searcher.doc(address)["row"]
    return IndexRow.stored(json.loads(stored))


def shared(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> TantivySystem:
    """A fresh tantivy system: one index for every tenant, the view as ``MUST`` clauses
    (``embedder`` is accepted, as the harness passes it, and unused)."""
    return TantivySystem(_settings(max_tokens, overlap_tokens), per_tenant=False)


def per_tenant(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> TantivySystem:
    """A fresh tantivy system: an index per tenant (its chunks only), the rest of the view
    as ``MUST`` clauses (``embedder`` is accepted, as the harness passes it, and unused)."""
    return TantivySystem(_settings(max_tokens, overlap_tokens), per_tenant=True)
