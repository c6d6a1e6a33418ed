"""The contract an implementation meets to be checked by the kit.

Three verbs are required — :meth:`RetrievalSystem.ingest`, :meth:`RetrievalSystem.delete`
and :meth:`RetrievalSystem.retrieve` — and a few are optional: those the kit checks
(chunking, assembly, grounding, fusion) and those the eval harness uses to reuse work
(staged retrieval, bulk ingest, grounding sweeps). What an adapter can be
asked is declared as data in :class:`Capabilities`; the kit never probes for a verb by
calling it and catching the error. An invariant that needs a capability the adapter does
not declare is reported *not applicable*, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Protocol, runtime_checkable

from ragward.conformance.records import (
    FUSION_METHODS,
    MODES,
    Asker,
    AssembleRequest,
    Context,
    Doc,
    Hit,
    Policy,
    Result,
    Span,
    Support,
)

__all__ = [
    "BatchStagedSystem",
    "BulkSystem",
    "Capabilities",
    "Factory",
    "GroundingSweep",
    "HitKey",
    "Listing",
    "ListingSystem",
    "RetrievalSystem",
    "StagedSystem",
    "is_batched",
    "is_bulk",
    "is_listing",
    "is_staged",
    "is_sweeping",
]


@dataclass(frozen=True)
class Capabilities:
    """What an implementation can be asked; each flag unlocks invariants.

    ``modes`` lists the retrieval modes :class:`~ragward.conformance.records.Policy` may
    name; ``policy_knobs`` says the adapter honours ``candidate_limit``, ``result_limit``,
    ``rrf_k`` and ``rerank_min_score``; ``scores`` that :attr:`Hit.score` is a real,
    deterministic score (not a placeholder); ``document_limits`` that the limits can count
    documents (:attr:`Policy.limit_unit`); ``fusion_methods`` the hybrid fusions the adapter
    can be asked (:attr:`Policy.fusion`, some of
    :data:`~ragward.conformance.records.FUSION_METHODS`), ``fusion_weights`` that it
    honours :attr:`Policy.dense_weight`; ``analyzer`` names the analyzer its lexical index
    and questions go through, when it is one ragward names (``plain``, ``english``: see
    :mod:`ragward.analysis`), which unlocks the check that lexical matches are
    exactly that analyzer's.
    """

    delete: bool = True
    versions: bool = True
    barriers: bool = True
    freshness: bool = True
    counts: bool = True
    scores: bool = True
    modes: tuple[str, ...] = ("hybrid",)
    rerank_toggle: bool = False
    policy_knobs: bool = False
    chunking: bool = False
    assembly: bool = False
    grounding: bool = False
    fusion: bool = False
    document_limits: bool = False
    fusion_methods: tuple[str, ...] = ("rrf",)
    fusion_weights: bool = False
    analyzer: str | None = None

    def __post_init__(self) -> None:
        unknown = [mode for mode in self.modes if mode not in MODES]
        if unknown or not self.modes:
            raise ValueError(f"Capabilities.modes must name some of {MODES}, got {self.modes!r}")
        methods: object = self.fusion_methods
        if isinstance(methods, list):  # as JSON gives it
            methods = tuple(methods)
            object.__setattr__(self, "fusion_methods", methods)
        if (
            not isinstance(methods, tuple)
            or "rrf" not in methods
            or set(methods) - set(FUSION_METHODS)
        ):
            raise ValueError(
                f"Capabilities.fusion_methods must name rrf and others of {FUSION_METHODS}, "
                f"got {methods!r}"
            )

    def has(self, name: str) -> bool:
        """Whether the capability ``name`` is declared (a mode name counts as one)."""
        if name in MODES:
            return name in self.modes
        return bool(getattr(self, name))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every capability flag, in declaration order."""
        named = ("modes", "fusion_methods", "analyzer")
        return tuple(f.name for f in fields(cls) if f.name not in named)


@runtime_checkable
class RetrievalSystem(Protocol):
    """One empty, isolated instance of the implementation under test.

    ``ingest`` returns True when the document was accepted and False when it was refused
    because its version is not newer than one already seen for ``(tenant, doc_id)``; any
    other failure is an exception. ``retrieve`` answers ``query`` for ``asker`` at
    ``now_tick`` under ``policy``.

    Optional verbs, called only when the matching capability is declared: ``chunk``
    (``chunking``), ``assemble`` and ``count_tokens`` (``assembly``), ``ground``
    (``grounding``), ``fuse`` (``fusion``).

    Assembly is read by its layout: one header line per non-empty segment, exactly
    ``[instructions]``, ``[tool_schemas]``, ``[policy]``, ``[memory]``, ``[retrieved]``,
    ``[question]`` in that order, and one ``<<citation>>`` marker line before each included
    chunk. ``assemble`` raises (any exception) when, and only when, the fixed segments
    alone exceed the budget. ``count_tokens`` is the counter the budget is measured with,
    and the one the chunker sizes chunks with.
    """

    @property
    def capabilities(self) -> Capabilities:
        """What this implementation can be asked."""
        ...

    def ingest(self, doc: Doc) -> bool:
        """Upsert ``doc``; False if refused as not newer."""
        ...

    def delete(self, tenant: str, doc_id: str) -> None:
        """Remove the document from results, counts and statistics."""
        ...

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        """The ranked answer for ``asker``."""
        ...


class ChunkingSystem(Protocol):
    def chunk(self, doc: Doc, max_tokens: int, overlap_tokens: int) -> tuple[Span, ...]: ...


class AssemblySystem(Protocol):
    def assemble(self, request: AssembleRequest) -> Context: ...

    def count_tokens(self, text: str) -> int: ...


class GroundingSystem(Protocol):
    def ground(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], min_overlap: float
    ) -> tuple[Support, ...]: ...


class FusionSystem(Protocol):
    def fuse(
        self, rankings: tuple[tuple[str, ...], ...], k: float
    ) -> tuple[tuple[str, float], ...]: ...


#: Builds a fresh, empty :class:`RetrievalSystem`; the kit calls it once per example.
Factory = Callable[[], RetrievalSystem]


# -- Optional verbs the eval harness uses to reuse work --------------------------------------
#
# Staged retrieval lets a grid reuse first-stage work: an implementation that offers it is
# asked for its first-stage rankings once per query and index, and for the finished answer
# once per fusion, rerank and limit setting; one that does not is asked ``retrieve`` for
# every setting. A grid reads three fields of every hit (its chunk, document and version:
# the ranking and the leakage check) and whole hits only at the grounding depth; an adapter
# that offers ``finish_listings`` hands over just that. Bulk ingest (``ingest_many``) lets a
# model embed many chunks per call. Whether an adapter offers a verb is read from its
# class, never found out by calling and catching.

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


@runtime_checkable
class BulkSystem(Protocol):
    """Optional verb: ``ingest_many(docs)`` is ``tuple(ingest(d) for d in docs)``, with
    the same effect on the index, done in as few model calls as the system likes."""

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        """Upsert ``docs`` (any iterable: read it once) in order; one accepted flag per
        document."""
        ...


def is_bulk(system: object) -> bool:
    """Whether ``system`` offers ``ingest_many`` (looked up on its class)."""
    return callable(getattr(type(system), "ingest_many", None))
