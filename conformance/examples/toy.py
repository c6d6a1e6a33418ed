"""A toy retrieval layer and its adapter: the complete example of ``docs/adapters.md``.

:class:`ToyStore` stands for *your* system: an in-memory, brute-force, lexical-only
retriever with its own API (no kit types in it). :class:`ToyAdapter` is what you write
to have it checked: it translates the kit's records to the store's calls and back, and
declares what the store can be asked. Run the kit on it with::

    ragward conform --impl ragward.conformance.examples.toy:factory

Scoring is Okapi BM25 (Robertson & Zaragoza, 2009, "The Probabilistic Relevance
Framework: BM25 and Beyond"; Lucene IDF ``ln(1 + (N - df + 0.5) / (df + 0.5))``) with
``N``, ``avgdl`` and every ``df`` taken over the asker's eligible view, never over the
whole store: that is what keeps invisible documents from moving a visible score.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ragward.conformance import Asker, Capabilities, Doc, Hit, Policy, Result

__all__ = ["ToyAdapter", "ToyStore", "factory"]

_LEVELS = {"public": 0, "internal": 1, "confidential": 2, "restricted": 3}
_TERM = re.compile(r"[^\W_]+")
_K1, _B = 1.5, 0.75


def _terms(text: str) -> tuple[str, ...]:
    return tuple(_TERM.findall(text.casefold()))


@dataclass(frozen=True)
class Entry:
    """One stored document (the toy indexes each document as a single chunk)."""

    tenant: str
    key: str
    version: int
    text: str
    level: int
    barrier: str | None
    tick: int
    terms: tuple[str, ...]

    @property
    def chunk_id(self) -> str:
        return f"{self.key}::0"


class ToyStore:
    """The system under test: documents in a dict, searched by brute force."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], Entry] = {}
        self._versions: dict[tuple[str, str], int] = {}  # outlives a delete (a tombstone)

    def put(
        self,
        tenant: str,
        key: str,
        text: str,
        *,
        version: int,
        level: str,
        barrier: str | None,
        tick: int,
    ) -> bool:
        """Store a version of ``(tenant, key)``; False if it is not newer than the last."""
        if level not in _LEVELS:
            raise ValueError(f"level must be one of {sorted(_LEVELS)}, got {level!r}")
        if version <= self._versions.get((tenant, key), 0):
            return False  # a late, out-of-order write must not overwrite newer data
        entry = Entry(tenant, key, version, text, _LEVELS[level], barrier, tick, _terms(text))
        self._versions[(tenant, key)] = version
        self._entries[(tenant, key)] = entry  # one assignment: old and new never coexist
        return True

    def remove(self, tenant: str, key: str) -> None:
        """Forget ``(tenant, key)``; its version stays known, so stale writes stay refused."""
        self._entries.pop((tenant, key), None)

    def search(
        self,
        tenant: str,
        level: str,
        barriers: tuple[str, ...],
        query: str,
        *,
        now: int,
        max_age: int | None,
        limit: int,
    ) -> tuple[list[tuple[Entry, float]], tuple[int, int, int]]:
        """The best ``limit`` entries the asker may see, and (matched, hidden, stale) counts."""
        wanted = sorted(set(_terms(query)))
        own = [e for e in self._entries.values() if e.tenant == tenant]
        matched = [e for e in own if any(term in e.terms for term in wanted)]
        visible = [
            e
            for e in own
            if e.level <= _LEVELS[level] and (e.barrier is None or e.barrier in barriers)
        ]
        eligible = [e for e in visible if max_age is None or now - e.tick <= max_age]
        # Filter first, then compute every statistic over what is left.
        n = len(eligible)
        average = sum(len(e.terms) for e in eligible) / n if n else 0.0
        df = {term: sum(1 for e in eligible if term in e.terms) for term in wanted}
        scored = []
        for entry in eligible:
            if not any(term in entry.terms for term in wanted):
                continue
            score = 0.0
            for term in wanted:  # sorted, so the float sum never depends on insertion order
                tf = entry.terms.count(term)
                if tf:
                    idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                    norm = _K1 * (1 - _B + _B * len(entry.terms) / average)
                    score += idf * tf * (_K1 + 1) / (tf + norm)
            scored.append((entry, score))
        # ties by the chunk id the adapter reports ("d10::0" < "d1::0"), not by the key
        scored.sort(key=lambda pair: (-pair[1], pair[0].chunk_id))
        hidden = sum(1 for e in matched if e not in visible)
        stale = sum(1 for e in matched if e in visible and e not in eligible)
        return scored[:limit], (len(matched), hidden, stale)


class ToyAdapter:
    """:class:`ToyStore` behind the kit's :class:`~ragward.conformance.RetrievalSystem`."""

    # Lexical only, no rerank, no chunker, assembler or grounder exposed: the invariants
    # about those are reported not applicable, with the reason.
    capabilities = Capabilities(modes=("lexical",))

    def __init__(self) -> None:
        self.store = ToyStore()

    def ingest(self, doc: Doc) -> bool:
        return self.store.put(
            doc.tenant,
            doc.doc_id,
            doc.text,
            version=doc.version,
            level=doc.classification,
            barrier=doc.barrier,
            tick=doc.updated_tick,
        )

    def delete(self, tenant: str, doc_id: str) -> None:
        self.store.remove(tenant, doc_id)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        found, (considered, hidden, stale) = self.store.search(
            asker.tenant,
            asker.max_classification,
            asker.barriers,
            query,
            now=now_tick,
            max_age=policy.max_stale_ticks,
            limit=policy.result_limit,
        )
        hits = tuple(
            Hit(
                chunk_id=entry.chunk_id,
                doc_id=entry.key,
                version=entry.version,
                start=0,
                end=len(entry.text),
                text=entry.text,
                score=score,
                citation=f"{entry.key}@v{entry.version}#body[0:{len(entry.text)}]",
            )
            for entry, score in found
        )
        return Result(hits, considered, hidden, stale)


def factory() -> ToyAdapter:
    """A fresh, empty toy system: the kit calls this once per example."""
    return ToyAdapter()
