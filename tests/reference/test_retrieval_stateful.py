"""The reference under random programs of writes and questions, against a dict model of
the live documents (SPEC sections 2.1 and 2.3).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ragward.errors import VersionConflict
from ragward.reference import (
    AuthorizedRetriever,
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
)

from .retrieval_model import Chunks, Key, brute_force, build, chunk_in_view
from .strategies import (
    DOC_IDS,
    TENANTS,
    barrier_values,
    classifications,
    documents,
    now_ticks,
    policies,
    principals,
    queries,
    texts,
    ticks,
)

# -- 5. stateful ----------------------------------------------------------------------

_MACHINE_TENANTS = TENANTS[:2]
_MACHINE_KEYS = st.tuples(st.sampled_from(_MACHINE_TENANTS), st.sampled_from(DOC_IDS[:3]))
_MACHINE_CHUNKING = Chunking(max_tokens=8, overlap_tokens=2)


@settings(stateful_step_count=25)
class RetrieverLifecycle(RuleBasedStateMachine):
    """Random ingest / re-version / reclassify / refused write / delete / retrieve by many
    principals, against a dict model of the live documents (SPEC 2.1 and 2.3).

    After every retrieve: no returned chunk lies outside the asker's eligible view or
    belongs to a superseded or deleted version, the counts equal the model's brute-force
    counts, and the whole answer equals that of a retriever freshly built from the live
    documents. After every step: each key's version is the newest ever written."""

    def __init__(self) -> None:
        super().__init__()
        self.retriever = AuthorizedRetriever(chunking=_MACHINE_CHUNKING)
        self.live: dict[Key, ReferenceDoc] = {}
        self.chunks: Chunks = {}
        self.versions: dict[Key, int] = {}

    def _accept(self, document: ReferenceDoc) -> None:
        self.chunks[document.key] = self.retriever.ingest(document)
        self.live[document.key] = document
        self.versions[document.key] = document.version

    @initialize(data=st.data(), keys=st.lists(_MACHINE_KEYS, unique=True, min_size=2, max_size=5))
    def seed(self, data: st.DataObject, keys: list[Key]) -> None:
        """Start from a few documents, so that early retrieves have something to find."""
        for tenant, doc_id in keys:
            self._accept(data.draw(documents(tenant, doc_id)))

    @rule(
        key=_MACHINE_KEYS,
        text=texts(max_words=8),
        classification=classifications(),
        barrier=barrier_values(),
        tick=ticks(),
        bump=st.integers(min_value=1, max_value=2),
    )
    def ingest(
        self, key: Key, text: str, classification: str, barrier: str | None, tick: int, bump: int
    ) -> None:
        """A new document, or a new version (new text and metadata) of an existing one."""
        tenant, doc_id = key
        version = self.versions.get(key, 0) + bump
        self._accept(ReferenceDoc(doc_id, tenant, "", text, classification, barrier, version, tick))

    @precondition(lambda self: bool(self.live))
    @rule(data=st.data(), classification=classifications(), barrier=barrier_values())
    def reclassify(self, data: st.DataObject, classification: str, barrier: str | None) -> None:
        """Same text, newer version, new classification and barrier."""
        old = self.live[data.draw(st.sampled_from(sorted(self.live)))]
        version = self.versions[old.key] + 1
        self._accept(replace(old, version=version, classification=classification, barrier=barrier))

    @precondition(lambda self: bool(self.versions))
    @rule(data=st.data(), text=texts(max_words=8), classification=classifications())
    def refused_write(self, data: st.DataObject, text: str, classification: str) -> None:
        """Same or older version (of a live or a deleted document): refused."""
        tenant, doc_id = data.draw(st.sampled_from(sorted(self.versions)))
        version = data.draw(st.integers(min_value=1, max_value=self.versions[tenant, doc_id]))
        with pytest.raises(VersionConflict):
            self.retriever.ingest(
                ReferenceDoc(doc_id, tenant, "", text, classification, None, version)
            )

    @rule(key=_MACHINE_KEYS)
    def delete(self, key: Key) -> None:
        removed = self.retriever.delete(*key)
        if key not in self.live:
            assert not removed
        elif self.chunks[key]:
            assert removed
        self.live.pop(key, None)
        self.chunks.pop(key, None)

    @rule(
        principal=principals(_MACHINE_TENANTS),
        data=st.data(),
        policy=policies(),
        now=now_ticks(),
    )
    def retrieve(
        self, principal: ReferenceAsker, data: st.DataObject, policy: ReferencePolicy, now: int
    ) -> None:
        own = [d for key, d in sorted(self.live.items()) if key[0] == principal.tenant]
        query = data.draw(queries(own))
        result = self.retriever.retrieve(query, principal, now_tick=now, policy=policy)
        wide = replace(policy, enable_rerank=False, candidate_limit=64, result_limit=64)
        everything = self.retriever.retrieve(query, principal, now_tick=now, policy=wide)
        live = {
            c.chunk_id: c
            for key, cs in self.chunks.items()
            if key[0] == principal.tenant
            for c in cs
        }
        for scored in (*result.chunks, *everything.chunks):
            assert live.get(scored.chunk.chunk_id) == scored.chunk, "superseded or deleted"
            assert chunk_in_view(scored.chunk, principal, now, policy), "outside E(P, t)"
        expected = brute_force(live.values(), principal, query, now, policy)
        assert (
            result.considered,
            result.excluded_by_entitlement,
            result.excluded_by_freshness,
            result.eligible_matches,
        ) == (
            expected.considered,
            expected.excluded_by_entitlement,
            expected.excluded_by_freshness,
            len(expected.lexical | expected.dense),
        )
        fresh_retriever, _ = build(
            sorted(self.live.values(), key=lambda d: d.key), _MACHINE_CHUNKING
        )
        assert result == fresh_retriever.retrieve(query, principal, now_tick=now, policy=policy)

    @invariant()
    def versions_are_the_newest_written(self) -> None:
        for (tenant, doc_id), version in self.versions.items():
            assert self.retriever.version_of(tenant, doc_id) == version


TestRetrieverLifecycle = RetrieverLifecycle.TestCase
