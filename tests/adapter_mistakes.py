"""Adapters that break the contract in one way each, for ``ragward eval`` and ``conform``.

Each factory takes the index keywords (so a one-index grid is not fitted) and wraps the
reference, breaking one call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ragward.conformance.contract import Listing
from ragward.conformance.records import Asker, Doc, Hit, Policy
from ragward.engines.reference import ReferenceSystem, reference_factory


class _Wrapped:
    """The reference behind the four verbs of the contract (no staged verbs)."""

    def __init__(self, **keywords: Any) -> None:
        self.inner = reference_factory(**keywords)
        self.capabilities: Any = self.inner.capabilities

    def ingest(self, doc: Doc) -> Any:
        return self.inner.ingest(doc)

    def delete(self, tenant: str, doc_id: str) -> None:
        self.inner.delete(tenant, doc_id)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Any:
        return self.inner.retrieve(query, asker, now_tick, policy)


def raising(**keywords: Any) -> Any:
    raise RuntimeError("no licence for this engine")


def not_a_system(**keywords: Any) -> Any:
    return 42


def wrong_capabilities(**keywords: Any) -> Any:
    system = _Wrapped(**keywords)
    system.capabilities = {"modes": ["hybrid"]}
    return system


class _RetrieveList(_Wrapped):
    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Any:
        return list(self.inner.retrieve(query, asker, now_tick, policy).hits)


def retrieve_list(**keywords: Any) -> Any:
    return _RetrieveList(**keywords)


class _IngestString(_Wrapped):
    def ingest(self, doc: Doc) -> Any:
        return "yes" if self.inner.ingest(doc) else "no"


def ingest_string(**keywords: Any) -> Any:
    return _IngestString(**keywords)


class _IngestRaises(_Wrapped):
    def ingest(self, doc: Doc) -> Any:
        raise ConnectionError("engine went away")


def ingest_raises(**keywords: Any) -> Any:
    return _IngestRaises(**keywords)


class _ListingTuples(ReferenceSystem):
    """Staged, but its listings are bare tuples."""

    def finish_listings(self, stage: object, policies: Iterable[Policy], top: int) -> Any:
        return tuple((one.keys, one.top) for one in super().finish_listings(stage, policies, top))


def listing_tuples(**keywords: Any) -> Any:
    return _ListingTuples(reference_factory(**keywords).retriever)


class _ListingShort(ReferenceSystem):
    """Staged, well-formed listings, each one hit short of what retrieve returns."""

    def finish_listings(self, stage: object, policies: Iterable[Policy], top: int) -> Any:
        return tuple(
            Listing(one.keys[:-1], one.top[: len(one.keys) - 1])
            for one in super().finish_listings(stage, policies, top)
        )


def listing_short(**keywords: Any) -> Any:
    return _ListingShort(reference_factory(**keywords).retriever)


class _IngestManyTwice(ReferenceSystem):
    """Bulk ingest that walks its documents twice, a check and then the work: given a
    generator, it stores nothing and answers ``()``."""

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        if any(doc.version < 1 for doc in docs):
            raise ValueError("a version below 1")
        return tuple(self.ingest(doc) for doc in docs)


def ingest_many_twice(**keywords: Any) -> Any:
    return _IngestManyTwice(reference_factory(**keywords).retriever)


class _StagesShort(ReferenceSystem):
    """Staged and batched, but a batch of first stages comes back one short."""

    def first_stages(
        self, queries: Iterable[str], asker: Asker, now_tick: int, policy: Policy
    ) -> Any:
        return super().first_stages(queries, asker, now_tick, policy)[:-1]


def stages_short(**keywords: Any) -> Any:
    return _StagesShort(reference_factory(**keywords).retriever)


class _SweepInverted(ReferenceSystem):
    """Sweeps thresholds, every verdict turned over."""

    def ground_sweep(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], thresholds: Iterable[float]
    ) -> Any:
        return [
            tuple(replace(s, supported=not s.supported) for s in answer)
            for answer in super().ground_sweep(claims, retrieved, thresholds)
        ]


def sweep_inverted(**keywords: Any) -> Any:
    return _SweepInverted(reference_factory(**keywords).retriever)


class _SweepShort(ReferenceSystem):
    """Sweeps thresholds, one answer short."""

    def ground_sweep(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], thresholds: Iterable[float]
    ) -> Any:
        return super().ground_sweep(claims, retrieved, thresholds)[:-1]


def sweep_short(**keywords: Any) -> Any:
    return _SweepShort(reference_factory(**keywords).retriever)
