"""Programs: sequences of writes and questions, for the lifecycle model.

A program ingests a corpus, then interleaves new versions, reclassifications, deletes,
stale writes, new documents and revived keys with questions by several askers; a churn
rewrites one document past the point where an index compacts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from ragward.conformance.records import MODES, Asker, Doc, Policy
from ragward.conformance.strategies import (
    DOC_IDS,
    MARK,
    MAX_TICK,
    TENANTS,
    askers,
    corpora,
    documents,
    policies,
    queries,
    restamp,
)

__all__ = [
    "CHURN_REWRITES",
    "STEPS",
    "Churn",
    "Key",
    "Op",
    "Program",
    "churns",
    "programs",
]


@dataclass(frozen=True)
class Key:
    """A document's identity."""

    tenant: str
    doc_id: str


@dataclass(frozen=True)
class Op:
    """One step of a program: ``ingest`` a doc, ``delete`` a key, or ``retrieve``."""

    kind: str
    doc: Doc | None = None
    key: Key | None = None
    asker: Asker | None = None
    query: str = ""
    now_tick: int = 0


@dataclass(frozen=True)
class Program:
    """A sequence of operations, every retrieval answered under ``policy``."""

    ops: tuple[Op, ...]
    policy: Policy


#: What a program may do after its first writes.
STEPS: tuple[str, ...] = ("reversion", "reclassify", "delete", "stale", "new", "revive")


@st.composite
def programs(
    draw: st.DrawFn, steps: Sequence[str] = STEPS, tenants: Sequence[str] = TENANTS[:2]
) -> Program:
    """Ingest a corpus, then interleave ``steps`` with retrievals by several askers whose
    queries often name what was deleted or superseded (its words or its fingerprint)."""
    policy = draw(policies())
    crowd = draw(st.lists(askers(tenants), min_size=1, max_size=3))
    ops: list[Op] = []
    live: dict[Key, Doc] = {}
    top: dict[Key, int] = {}
    texts: list[str] = []

    def write(doc: Doc) -> None:
        key = Key(doc.tenant, doc.doc_id)
        ops.append(Op("ingest", doc=doc))
        texts.append(doc.text)
        if doc.version > top.get(key, 0):
            live[key], top[key] = doc, doc.version

    def ask() -> None:
        asker = draw(st.sampled_from(crowd))
        query = draw(queries(texts))
        ops.append(
            Op("retrieve", asker=asker, query=query, now_tick=draw(st.integers(0, MAX_TICK)))
        )

    for doc in draw(corpora(tenants, max_size=5)):
        write(restamp(replace(doc, version=1)))
    ask()
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        step = draw(st.sampled_from(tuple(steps)))
        keys = sorted(live, key=lambda k: (k.tenant, k.doc_id))
        gone = sorted((k for k in top if k not in live), key=lambda k: (k.tenant, k.doc_id))
        if step == "revive" and not gone and keys:
            gone = [draw(st.sampled_from(keys))]
            ops.append(Op("delete", key=gone[0]))
            del live[gone[0]]
        if step == "revive" and gone:
            # a deleted key written again: late (an old version: refused) or new
            key = draw(st.sampled_from(gone))
            late = draw(st.sampled_from((True, True, False)))
            version = draw(st.integers(1, top[key])) if late else top[key] + 1
            write(draw(documents(key.tenant, key.doc_id, version=version)))
        elif step == "new" or not keys:
            key = Key(draw(st.sampled_from(tuple(tenants))), draw(st.sampled_from(DOC_IDS)))
            if key not in top:
                write(draw(documents(key.tenant, key.doc_id, version=1)))
        else:
            key = draw(st.sampled_from(keys))
            old = live[key]
            if step == "delete":
                if draw(st.integers(min_value=0, max_value=3)) == 0:
                    # a key never written, in a tenant that holds documents: a no-op
                    ops.append(Op("delete", key=Key(key.tenant, "kit-never-written")))
                ops.append(Op("delete", key=key))
                del live[key]
            elif step == "stale":
                version = draw(st.integers(min_value=1, max_value=top[key]))
                write(draw(documents(key.tenant, key.doc_id, version=version)))
            else:
                version = top[key] + draw(st.integers(min_value=1, max_value=2))
                doc = draw(documents(key.tenant, key.doc_id, version=version))
                if step == "reclassify":
                    # the very same text (an unchanged body re-labelled) or re-stamped
                    same_text = draw(st.booleans())
                    doc = replace(doc, text=old.text)
                    doc = doc if same_text else restamp(doc)
                write(doc)
        for _ in range(draw(st.integers(min_value=1, max_value=2))):
            ask()
    return Program(tuple(ops), policy)


#: Versions :func:`churns` writes of one document: past the dead rows at which an index
#: compacts (the reference's threshold is 1024 dead rows outnumbering the live ones).
CHURN_REWRITES = 1100


@dataclass(frozen=True)
class Churn:
    """A small corpus, one document rewritten ``rewrites`` times, then a question.

    ``churned`` is the last version; version ``v`` before it has text ``churned.text``
    with ``churn{v % 7}`` appended (:meth:`version`).
    """

    docs: tuple[Doc, ...]
    churned: Doc
    rewrites: int
    asker: Asker
    query: str
    policy: Policy
    now_tick: int

    def version(self, number: int) -> Doc:
        """Version ``number`` (1..``rewrites``) of the churned document."""
        if number == self.rewrites:
            return self.churned
        text = f"{self.churned.text} churn{number % 7}"
        return restamp(replace(self.churned, version=number, text=text))


_CHURN_CORPUS: tuple[tuple[str, str, str | None, str], ...] = (
    ("d1", "public", None, "payment ledger held for dual control"),
    ("d2", "internal", "ma-deal", "merger wire screening q3"),
    ("shared", "confidential", None, "release of the held payment"),
    ("a::b", "restricted", "hr", "ledger x9 screening release"),
    ("Ωmega", "internal", None, "wire transfer café payment"),
)


@st.composite
def churns(draw: st.DrawFn) -> Churn:
    """A fixed corpus (classifications and barriers of every kind, a second tenant using
    the same ``doc_id``\\ s), one of its tenant's documents rewritten
    :data:`CHURN_REWRITES` times; a few askers, queries and modes. The space is small on
    purpose — each case writes a thousand versions — so a profile runs each of its
    handful of cases once."""
    docs = tuple(
        restamp(Doc(tenant, doc_id, MARK + " " + text, "", level, barrier, 1, 5))
        for tenant in ("acme", "globex")
        for doc_id, level, barrier, text in _CHURN_CORPUS
    )
    text = MARK + " payment ledger churn"
    churned = restamp(Doc("acme", "churned", text, "", "internal", None, CHURN_REWRITES, 9))
    asker = draw(
        st.sampled_from(
            (
                Asker("u1", "acme", "restricted", ("hr", "ma-deal")),
                Asker("u2", "acme", "internal"),
            )
        )
    )
    query = draw(st.sampled_from(("payment ledger", "churn3 wire screening")))
    mode = draw(st.sampled_from(MODES))
    return Churn(docs, churned, CHURN_REWRITES, asker, query, Policy(mode=mode), 10)
