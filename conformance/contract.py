"""The contract an implementation meets to be checked by the kit.

Three verbs are required — :meth:`RetrievalSystem.ingest`, :meth:`RetrievalSystem.delete`
and :meth:`RetrievalSystem.retrieve` — and a few are optional. What an adapter can be
asked is declared as data in :class:`Capabilities`; the kit never probes for a verb by
calling it and catching the error. An invariant that needs a capability the adapter does
not declare is reported *not applicable*, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Protocol, runtime_checkable

from ragward.conformance.records import (
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

__all__ = ["Capabilities", "Factory", "RetrievalSystem"]


@dataclass(frozen=True)
class Capabilities:
    """What an implementation can be asked; each flag unlocks invariants.

    ``modes`` lists the retrieval modes :class:`~ragward.conformance.records.Policy` may
    name; ``policy_knobs`` says the adapter honours ``candidate_limit``, ``result_limit``,
    ``rrf_k`` and ``rerank_min_score``; ``scores`` that :attr:`Hit.score` is a real,
    deterministic score (not a placeholder); ``document_limits`` that the limits can count
    documents (:attr:`Policy.limit_unit`).
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

    def __post_init__(self) -> None:
        unknown = [mode for mode in self.modes if mode not in MODES]
        if unknown or not self.modes:
            raise ValueError(f"Capabilities.modes must name some of {MODES}, got {self.modes!r}")

    def has(self, name: str) -> bool:
        """Whether the capability ``name`` is declared (a mode name counts as one)."""
        if name in MODES:
            return name in self.modes
        return bool(getattr(self, name))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every capability flag, in declaration order."""
        return tuple(f.name for f in fields(cls) if f.name != "modes")


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
