"""Broken implementations whose defect lives in the first stage, re-implemented with hooks.

Part of the catalogue of :mod:`tests.conformance.broken`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.engines.reference import ReferenceSystem, result_of
from ragward.engines.reference_records import reference_asker, reference_policy
from ragward.reference import FirstStage, ReferenceAsker, ReferencePolicy, ScoredChunk, tokenize
from ragward.reference.candidates import top_candidates
from ragward.reference.dense import check_vectors
from ragward.reference.namespace import Namespace

__all__ = ["CustomFirstStage", "DoubleCounted", "NamespaceStatistics", "SoftDelete"]

Mask = npt.NDArray[np.bool_]


class CustomFirstStage(ReferenceSystem):
    """The reference's first stage re-implemented with hooks, for defects that live in it.

    With no hook overridden it behaves exactly as the reference (``test_kill_matrix.py``
    checks that); each subclass overrides one hook.
    """

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        settings = reference_policy(policy)
        first = self._first_stage(query, reference_asker(asker), now_tick, settings)
        return result_of(self.retriever.finish(first, settings))

    def _hidden(self, namespace: Namespace) -> Mask:
        """Live rows to keep out of the results besides entitlement and freshness."""
        return np.zeros(namespace.live().size, dtype=np.bool_)

    def _statistics(self, live: Mask, visible: Mask, eligible: Mask, hidden: Mask) -> Mask:
        """Rows BM25's ``N``, ``avgdl`` and document frequencies are taken over."""
        return eligible & ~hidden

    def _counts(
        self, lexical: Mask, dense: Mask, visible: Mask, eligible: Mask
    ) -> tuple[int, int, int]:
        matched = lexical | dense
        return (
            int(np.count_nonzero(matched)),
            int(np.count_nonzero(matched & ~visible)),
            int(np.count_nonzero(matched & visible & ~eligible)),
        )

    def _first_stage(
        self, query: str, principal: ReferenceAsker, now_tick: int, policy: ReferencePolicy
    ) -> FirstStage:
        retriever = self.retriever
        namespace = retriever._namespaces.get(principal.tenant)
        if namespace is None or namespace.live_rows == 0:
            return FirstStage(query, (), ())
        live = namespace.live()
        hidden = self._hidden(namespace)
        fresh = ~namespace.stale(now_tick, policy.max_stale_ticks)
        visible = namespace.visible(principal)
        eligible_raw = visible & fresh
        visible = visible & ~hidden
        eligible = visible & fresh
        none: Mask = np.zeros(live.size, dtype=np.bool_)
        lexical_hit, dense_hit = none, none
        lexical: tuple[ScoredChunk, ...] = ()
        dense: tuple[ScoredChunk, ...] = ()
        if policy.mode != "dense":
            statistics = self._statistics(live, visible, eligible_raw, hidden)
            scores, lexical_hit = namespace.lexical.score(tokenize(query), statistics, live)
            rows = np.flatnonzero(eligible & (scores > 0.0))
            lexical = top_candidates(namespace, scores, rows, policy)[0]
        if policy.mode != "lexical":
            embedder = retriever.embedder
            vector = check_vectors(embedder.embed([query]), 1, embedder.dimensions, embedder.name)
            cosines = namespace.vectors.cosine(vector[0])
            dense_hit = live & (cosines > 0.0)
            rows = np.flatnonzero(eligible & (cosines > 0.0))
            dense = top_candidates(namespace, cosines, rows, policy)[0]
        considered, entitlement, freshness = self._counts(lexical_hit, dense_hit, visible, eligible)
        return FirstStage(query, lexical, dense, (), considered, entitlement, freshness)


class NamespaceStatistics(CustomFirstStage):
    """Namespace-wide BM25 statistics.

    Entitlement and freshness are applied before the top-k (a correct pre-filter), but
    the BM25 index computes ``N``, ``avgdl`` and document frequencies over every live row
    of the tenant's namespace, as most engines do out of the box. The hits are the
    visible ones, yet their scores (and, through IDF, sometimes their order) move when
    restricted documents are added or removed: a low-clearance user can learn that hidden
    documents about a term exist.

    Caught by: statistics (STAT-001). Where IDF reorders the visible hits PRE-001 fires
    too (the thorough profile finds such a case; ci does not).
    """

    def _statistics(self, live: Mask, visible: Mask, eligible: Mask, hidden: Mask) -> Mask:
        return live


class DoubleCounted(CustomFirstStage):
    """Exclusions double-counted.

    ``excluded_by_entitlement`` is summed per index: a restricted chunk that matches both
    the lexical and the dense index is counted twice in hybrid mode (the seed's bug), so
    ``considered != eligible + excluded_by_entitlement + excluded_by_freshness`` and the
    audit log overstates what was withheld.

    Caught by: prefilter (PRE-002, PRE-003); the lifecycle model checks counts too
    (LIFE-003..005).
    """

    def _counts(
        self, lexical: Mask, dense: Mask, visible: Mask, eligible: Mask
    ) -> tuple[int, int, int]:
        considered, _, freshness = super()._counts(lexical, dense, visible, eligible)
        entitlement = int(np.count_nonzero(lexical & ~visible))
        entitlement += int(np.count_nonzero(dense & ~visible))
        return considered, entitlement, freshness


class SoftDelete(CustomFirstStage):
    """Delete that only hides results.

    ``delete`` sets a "deleted" flag that retrieval filters on, like an entitlement, but
    the rows stay in the index: BM25 statistics still include the deleted chunks, and the
    audit counts still count them (as considered and excluded). After a delete the answer
    is not the one a system that never saw the document would give.

    Caught by: lifecycle (LIFE-003..005, through the counts). STAT-004 is aimed at the
    statistics half but reads scores only under the drawn policy, where rerank or RRF
    usually hide BM25: the thorough profile catches it, ci does not.
    """

    def __init__(self) -> None:
        super().__init__()
        self.deleted: set[tuple[str, str]] = set()

    def ingest(self, doc: Doc) -> bool:
        accepted = super().ingest(doc)
        if accepted:
            self.deleted.discard((doc.tenant, doc.doc_id))
        return accepted

    def delete(self, tenant: str, doc_id: str) -> None:
        namespace = self.retriever._namespaces.get(tenant)
        if namespace is not None and doc_id in namespace.docs:
            self.deleted.add((tenant, doc_id))

    def _hidden(self, namespace: Namespace) -> Mask:
        hidden = super()._hidden(namespace)
        for tenant, doc_id in self.deleted:
            if tenant == namespace.tenant:
                hidden[namespace.docs[doc_id].rows] = True
        return hidden

    def _statistics(self, live: Mask, visible: Mask, eligible: Mask, hidden: Mask) -> Mask:
        return eligible  # computed before the deleted flag is applied
