"""Building the implementation under evaluation for one index setting.

The evals reach an implementation through the conformance kit's factory. A factory that
accepts the keywords ``max_tokens``, ``overlap_tokens`` and ``embedder`` is given each
index setting of the grid; one that does not can still be evaluated, with a grid of a
single index setting, which then describes the implementation's own index.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ragward.conformance.contract import RetrievalSystem
from ragward.errors import InputError, RagwardError
from ragward.evals.grid import Grid, IndexSetting

__all__ = ["INDEX_KEYWORDS", "SystemBuilder", "takes_index_settings"]

INDEX_KEYWORDS = ("max_tokens", "overlap_tokens", "embedder")


def takes_index_settings(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` accepts every index keyword (read from its signature)."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return True
    return all(
        name in parameters
        and parameters[name].kind
        in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        for name in INDEX_KEYWORDS
    )


class SystemBuilder:
    """Fresh, empty systems from ``factory``, one per index setting."""

    def __init__(self, factory: Callable[..., Any], name: str, grid: Grid) -> None:
        self.factory = factory
        self.name = name
        self.passes_settings = takes_index_settings(factory)
        if not self.passes_settings and len(grid.indexes) > 1:
            raise InputError(
                f"{name} takes no index settings ({', '.join(INDEX_KEYWORDS)}), so it can "
                f"only be run with a grid of one chunking and one embedder; this grid has "
                f"{len(grid.indexes)} index settings"
            )

    def build(self, index: IndexSetting) -> RetrievalSystem:
        try:
            if self.passes_settings:
                system = self.factory(
                    max_tokens=index.max_tokens,
                    overlap_tokens=index.overlap_tokens,
                    embedder=index.embedder,
                )
            else:
                system = self.factory()
        except RagwardError as error:
            raise InputError(f"{self.name} refused index setting {index.label}: {error}") from None
        if not isinstance(system, RetrievalSystem):
            raise InputError(f"{self.name} did not return a RetrievalSystem")
        return system

    def check(self, system: RetrievalSystem, grid: Grid) -> None:
        """Refuse a grid that asks for what the implementation does not declare: its
        answers would silently repeat one setting under several names."""
        declared = system.capabilities
        missing = [mode for mode in grid.modes if not declared.has(mode)]
        if missing:
            raise InputError(
                f"{self.name} does not declare mode {missing[0]!r} (it has "
                f"{', '.join(declared.modes)}); set the grid's retrieval.mode accordingly"
            )
        if len(grid.reranks) > 1 and not declared.rerank_toggle:
            raise InputError(
                f"{self.name} does not declare rerank_toggle; give retrieval.rerank one value"
            )
        if not declared.policy_knobs and (len(grid.rrf_ks) > 1 or len(grid.candidate_limits) > 1):
            raise InputError(
                f"{self.name} does not declare policy_knobs; give retrieval.rrf_k and "
                "retrieval.candidate_limit one value each"
            )
