"""Staged retrieval: the optional verbs that let the grid reuse first-stage work.

An implementation that offers them is asked for its first-stage rankings once per query
and index, and for the finished answer once per fusion, rerank and limit setting; one that
does not is simply asked :meth:`~ragward.conformance.RetrievalSystem.retrieve` for every
setting. Whether an adapter offers them is read from the adapter's class, never found out
by calling and catching.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ragward.conformance.records import Asker, Policy, Result

__all__ = ["StagedSystem", "is_staged"]


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


def is_staged(system: object) -> bool:
    """Whether ``system`` offers both staged verbs (looked up on its class)."""
    kind = type(system)
    return callable(getattr(kind, "first_stage", None)) and callable(getattr(kind, "finish", None))
