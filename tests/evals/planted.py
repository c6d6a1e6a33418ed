"""Implementations the gate must stop: a worse configuration, and a leaky one."""

from __future__ import annotations

from dataclasses import replace

from ragward.conformance.records import CLASSIFICATIONS, Asker, Doc, Policy, Result
from ragward.engines.reference import ReferenceSystem, reference_factory
from ragward.reference import FirstStage


def coarse_factory(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> ReferenceSystem:
    """Whatever the grid asks, tiny chunks and an 8-dimension embedder: a plain regression."""
    return reference_factory(max_tokens=12, overlap_tokens=0, embedder="hash-8")


class Overreaching(ReferenceSystem):
    """Answers every asker as if cleared for everything in their tenant: it leaks."""

    barriers: set[str]

    def ingest(self, doc: Doc) -> bool:
        if doc.barrier is not None:
            self.barriers.add(doc.barrier)
        return super().ingest(doc)

    def _everything(self, asker: Asker) -> Asker:
        return Asker(asker.user_id, asker.tenant, CLASSIFICATIONS[-1], tuple(sorted(self.barriers)))

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        return super().retrieve(query, self._everything(asker), now_tick, policy)

    def first_stage(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> FirstStage:
        return super().first_stage(query, self._everything(asker), now_tick, policy)


def leaky_factory(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> ReferenceSystem:
    honest = reference_factory(
        max_tokens=max_tokens, overlap_tokens=overlap_tokens, embedder=embedder
    )
    system = Overreaching(honest.retriever)
    system.barriers = set()
    return system


class Timeless(ReferenceSystem):
    """Ignores the asker's freshness contract: stale documents come back."""

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        return super().retrieve(query, asker, now_tick, replace(policy, max_stale_ticks=None))

    def first_stage(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> FirstStage:
        return super().first_stage(query, asker, now_tick, replace(policy, max_stale_ticks=None))


def timeless_factory(
    *, max_tokens: int | None = None, overlap_tokens: int | None = None, embedder: str | None = None
) -> ReferenceSystem:
    honest = reference_factory(
        max_tokens=max_tokens, overlap_tokens=overlap_tokens, embedder=embedder
    )
    return Timeless(honest.retriever)
