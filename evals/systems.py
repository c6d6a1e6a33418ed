"""Building the implementation under evaluation for one index setting.

The evals reach an implementation through the conformance kit's factory. A factory that
accepts the keywords ``max_tokens``, ``overlap_tokens`` and ``embedder`` is given each
index setting of the grid; one that does not can still be evaluated, with a grid of a
single index setting, whose chunking and embedder are then not passed: its index is the
implementation's own, and its settings are named ``own/...``, never by the grid's
chunking and embedder (:meth:`SystemBuilder.as_run`). A grid that
names rerankers (``retrieval.rerank = ["minilm"]``) needs a factory that also accepts
``reranker``: one system is built per index setting and named reranker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ragward.clipped import first_line
from ragward.conformance.contract import RetrievalSystem
from ragward.conformance.identity import INDEX_KEYWORDS, takes_index_settings, takes_keywords
from ragward.conformance.loading import FactoryError, a_type, check_built, one_line
from ragward.errors import AdapterError, InputError, RagwardError
from ragward.evals.grid import NO_RERANK, OWN_INDEX, OWN_RERANKER, Grid, IndexSetting

__all__ = [
    "INDEX_KEYWORDS",
    "SystemBuilder",
    "a_type",
    "fit_grid",
    "one_line",
    "takes_index_settings",
    "takes_keywords",
]


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
        split = ("lexical_max_tokens", "lexical_overlap_tokens")
        if any(i.lexical_max_tokens is not None for i in grid.indexes) and not takes_keywords(
            factory, split
        ):
            raise InputError(
                f"{name} takes no {split[0]} keyword, so it cannot give the lexical index "
                "chunks of their own size; drop lexical_max_tokens from index.chunking"
            )
        for key, keyword in (("analyzer", "analyzer"), ("counter", "token_counter")):
            named = next((getattr(i, key) for i in grid.indexes if getattr(i, key)), None)
            if named is not None and not takes_keywords(factory, (keyword,)):
                raise InputError(
                    f"{name} takes no {keyword} keyword, so it cannot be built with {key} "
                    f"{named!r}; drop index.{key} from the grid"
                )
        if grid.named_rerankers() and not takes_keywords(factory, ("reranker",)):
            raise InputError(
                f"{name} takes no reranker keyword, so it cannot be built with reranker "
                f"{grid.named_rerankers()[0]!r}; give retrieval.rerank true/false instead"
            )

    def as_run(self, grid: Grid) -> Grid:
        """``grid`` as this builder runs it: when the index settings are not passed, its
        index is the implementation's own (:meth:`IndexSetting.own`), and so named."""
        if self.passes_settings:
            return grid
        return replace(grid, indexes=tuple(dict.fromkeys(i.own() for i in grid.indexes)))

    def build(self, index: IndexSetting, reranker: str | None = None) -> RetrievalSystem:
        """A fresh system for ``index``, built with ``reranker`` when one is named."""
        keywords: dict[str, Any] = {}
        if self.passes_settings:
            keywords.update(
                max_tokens=index.max_tokens,
                overlap_tokens=index.overlap_tokens,
                embedder=index.embedder,
            )
        if index.lexical_max_tokens is not None:
            keywords.update(
                lexical_max_tokens=index.lexical_max_tokens,
                lexical_overlap_tokens=index.lexical_overlap_tokens,
            )
        if index.analyzer is not None:
            keywords["analyzer"] = index.analyzer
        if index.counter is not None:
            keywords["token_counter"] = index.counter
        if reranker is not None:
            keywords["reranker"] = reranker
        call = f"{self.name}({', '.join(f'{k}={v!r}' for k, v in keywords.items())})"
        try:
            system: RetrievalSystem = self.factory(**keywords)
        except RagwardError as error:
            what = index.label if reranker is None else f"{index.label} with reranker {reranker}"
            raise InputError(
                f"{self.name} refused index setting {what}: {first_line(error)}"
            ) from None
        except Exception as error:  # the factory itself is broken: say which call
            raise AdapterError(f"{call} raised {one_line(error)}") from None
        try:
            check_built(system, call)
        except FactoryError as error:
            raise AdapterError(str(error)) from None
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
        undeclared = [f for f in grid.fusions if f not in declared.fusion_methods]
        if "hybrid" in grid.modes and undeclared:
            raise InputError(
                f"{self.name} does not declare fusion {undeclared[0]!r} (it has "
                f"{', '.join(declared.fusion_methods)}); set the grid's retrieval.fusion "
                "accordingly"
            )
        if "hybrid" in grid.modes and grid.dense_weights != (0.5,) and not declared.fusion_weights:
            raise InputError(
                f"{self.name} does not declare fusion_weights; drop retrieval.dense_weight"
            )
        if not declared.policy_knobs and (len(grid.rrf_ks) > 1 or len(grid.candidate_limits) > 1):
            raise InputError(
                f"{self.name} does not declare policy_knobs; give retrieval.rrf_k and "
                "retrieval.candidate_limit one value each"
            )


def fit_grid(grid: Grid, factory: Callable[..., Any], name: str) -> tuple[Grid, list[str]]:
    """``grid`` without what ``factory``'s systems do not declare, and what was dropped.

    A grid sweeping a knob the implementation ignores would repeat one setting under
    several names; rather than refuse it one knob at a time, the harness keeps the part
    of the grid the implementation can answer and says what it dropped. One system is
    built to read its capabilities. Nothing of the grid left to run is an error.
    """
    dropped: list[str] = []
    if not takes_index_settings(factory):
        named = ", ".join(index.label for index in grid.indexes if not index.is_own)
        if named:
            dropped.append(
                f"index settings {named} (it takes no {', '.join(INDEX_KEYWORDS)}; its own "
                f"index is reported as {OWN_INDEX!r})"
            )
        grid = replace(grid, indexes=(grid.indexes[0].own(),))
    if grid.named_rerankers() and not takes_keywords(factory, ("reranker",)):
        kept = tuple(r for r in grid.reranks if r in (NO_RERANK, OWN_RERANKER)) or (NO_RERANK,)
        dropped.append(f"rerank {', '.join(grid.named_rerankers())} (it takes no reranker)")
        grid = replace(grid, reranks=kept)
    declared = SystemBuilder(factory, name, grid).build(grid.indexes[0]).capabilities
    modes = tuple(mode for mode in grid.modes if declared.has(mode))
    if not modes:
        raise InputError(
            f"{name} declares none of the grid's modes ({', '.join(grid.modes)}; it has "
            f"{', '.join(declared.modes)}); set the grid's retrieval.mode accordingly"
        )
    if modes != grid.modes:
        missing = [mode for mode in grid.modes if mode not in modes]
        dropped.append(f"mode {', '.join(missing)} (not declared)")
        grid = replace(grid, modes=modes)
    if len(grid.reranks) > 1 and not declared.rerank_toggle:
        dropped.append(f"rerank {', '.join(grid.reranks[1:])} (no rerank_toggle)")
        grid = replace(grid, reranks=grid.reranks[:1])
    fusions = tuple(f for f in grid.fusions if f in declared.fusion_methods) or ("rrf",)
    if fusions != grid.fusions:
        missing = [f for f in grid.fusions if f not in fusions]
        dropped.append(f"fusion {', '.join(missing)} (not declared)")
        grid = replace(grid, fusions=fusions)
    if grid.dense_weights != (0.5,) and not declared.fusion_weights:
        shown = ", ".join(f"{w:g}" for w in grid.dense_weights)
        dropped.append(f"dense_weight {shown} (no fusion_weights: plain RRF weights only)")
        grid = replace(grid, dense_weights=(0.5,))
    if not declared.policy_knobs:
        for knob in ("rrf_ks", "candidate_limits"):
            values = getattr(grid, knob)
            if len(values) > 1:
                shown = ", ".join(f"{value:g}" for value in values[1:])
                dropped.append(f"{knob[:-1]} {shown} (no policy_knobs)")
                grid = replace(grid, **{knob: values[:1]})
    return grid, dropped
