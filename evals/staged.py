"""Staged retrieval: the optional verbs that let the grid reuse first-stage work.

An implementation that offers them is asked for its first-stage rankings once per query
and index, and for the finished answer once per fusion, rerank and limit setting; one that
does not is simply asked :meth:`~ragward.conformance.RetrievalSystem.retrieve` for every
setting. Whether an adapter offers them is read from the adapter's class, never found out
by calling and catching.

A grid reads three fields of every hit (its chunk, document and version: the ranking and
the leakage check) and whole hits only at the grounding depth. An adapter that also offers
:meth:`ListingSystem.finish_listings` hands over just that, and is spared making every hit
of every setting (on the SciFact grid, 1.7 million hits of which the grid reads 54
thousand whole).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ragward.conformance.records import Asker, Hit, Policy, Result, Support

__all__ = [
    "BatchStagedSystem",
    "GroundingSweep",
    "HitKey",
    "Listing",
    "ListingSystem",
    "StagedSystem",
    "is_batched",
    "is_listing",
    "is_staged",
    "is_sweeping",
]

#: A hit as the grid reads it: ``(chunk_id, doc_id, version)``.
HitKey = tuple[str, str, int]


@dataclass(frozen=True)
class Listing:
    """A finished answer as the grid reads it: the key of every hit, in rank order, and
    the first hits whole (the ones the grid grounds claims in)."""

    keys: tuple[HitKey, ...]
    top: tuple[Hit, ...]


@runtime_checkable
class StagedSystem(Protocol):
    """Optional verbs: ``finish(first_stage(q, a, t, wide), p)`` returns the hits of
    ``retrieve(q, a, t, p)`` for every ``p`` that differs from ``wide`` only in ``mode``,
    ``rrf_k``, ``rerank``, ``rerank_min_score``, ``result_limit`` and a ``candidate_limit``
    no larger than ``wide``'s (the harness checks this on a sample before it relies on it).
    """

    def first_stage(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> object:
        """Everything the answer needs that fusion, rerank and cut-offs do not change."""
        ...

    def finish(self, stage: object, policy: Policy) -> Result:
        """The answer under ``policy`` from a stage of :meth:`first_stage`."""
        ...


@runtime_checkable
class BatchStagedSystem(StagedSystem, Protocol):
    """A staged system that takes the first stages of many questions in one call (the
    grid asks for those of questions asked alike: same asker, time and policy)."""

    def first_stages(
        self, queries: Iterable[str], asker: Asker, now_tick: int, policy: Policy
    ) -> Sequence[object]:
        """``[first_stage(q, asker, now_tick, policy) for q in queries]``; ``queries`` may
        be any iterable: read it once."""
        ...


@runtime_checkable
class ListingSystem(StagedSystem, Protocol):
    """A staged system that can also hand over finished answers as the grid reads them,
    every setting of a stage in one call (so that it can share work among them)."""

    def finish_listings(
        self, stage: object, policies: Iterable[Policy], top: int
    ) -> Sequence[Listing]:
        """``finish(stage, p)`` for each of ``policies`` (any iterable: read it once), in
        order, read by the grid:
        ``keys`` holds each of its hits' ``(chunk_id, doc_id, version)``, ``top`` its
        first ``top`` hits whole (all of them, if it has fewer)."""
        ...


@runtime_checkable
class GroundingSweep(Protocol):
    """A grounding system that grounds claims under many thresholds in one call (the grid
    sweeps ``grounding.min_overlap`` over the same hits)."""

    def ground_sweep(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], thresholds: Iterable[float]
    ) -> Sequence[Sequence[Support]]:
        """``[ground(claims, retrieved, t) for t in thresholds]``; ``thresholds`` may be any
        iterable: read it once."""
        ...


def is_sweeping(system: object) -> bool:
    """Whether ``system`` offers ``ground_sweep`` (looked up on its class)."""
    return callable(getattr(type(system), "ground_sweep", None))


def is_staged(system: object) -> bool:
    """Whether ``system`` offers both staged verbs (looked up on its class)."""
    kind = type(system)
    return callable(getattr(kind, "first_stage", None)) and callable(getattr(kind, "finish", None))


def is_batched(system: object) -> bool:
    """Whether ``system`` offers the staged verbs and ``first_stages`` (looked up on its
    class)."""
    return is_staged(system) and callable(getattr(type(system), "first_stages", None))


def is_listing(system: object) -> bool:
    """Whether ``system`` offers the staged verbs and ``finish_listings`` (looked up on
    its class)."""
    return is_staged(system) and callable(getattr(type(system), "finish_listings", None))
