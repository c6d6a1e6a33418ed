"""The evaluation grid: which settings a run sweeps, and how they expand.

A grid names index settings (chunking x embedder x analyzer x token counter: one index
each), retrieval settings (mode x fusion x ``rrf_k`` x ``dense_weight`` x rerank x
``candidate_limit``: answered from the index's first stage)
and grounding thresholds (``min_overlap``: applied to the verdicts of each retrieval).
``rrf_k`` only matters to hybrid fusion, so lexical and dense settings are not repeated
for every ``rrf_k``. Each retrieval setting has a stable :attr:`RetrievalSetting.id`, the
key reports and the gate match settings by. A grid is read from a TOML file by
:mod:`ragward.evals.grid_file`, its values checked by :mod:`ragward.evals.grid_checks`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NO_RERANK",
    "OWN_INDEX",
    "OWN_RERANKER",
    "Grid",
    "IndexSetting",
    "RetrievalSetting",
]

#: The label of an index the implementation built its own way (no index settings passed).
OWN_INDEX = "own"


@dataclass(frozen=True)
class IndexSetting:
    """What one index is built with; ``lexical_max_tokens`` (with its overlap) gives the
    lexical index chunks of its own size.

    ``max_tokens``, ``overlap_tokens`` and ``embedder`` are None for an index the
    implementation chunked and embedded its own way, because it takes no index settings
    (:meth:`own`): such an index is labelled ``own``, never by a grid's chunking and
    embedder that were not passed to it.
    """

    max_tokens: int | None
    overlap_tokens: int | None
    embedder: str | None
    lexical_max_tokens: int | None = None
    lexical_overlap_tokens: int = 0
    #: The lexical index's analyzer by name (``plain``, ``english``, ...), or None: the
    #: implementation's own, not passed.
    analyzer: str | None = None
    #: What chunk sizes (and the context budget) are counted in, by name (``chars4``,
    #: ``cl100k``, ``o200k``, ``minilm``), or None: the implementation's own.
    counter: str | None = None

    @property
    def is_own(self) -> bool:
        """Whether the implementation chose the chunking and embedder itself."""
        return self.max_tokens is None

    @property
    def label(self) -> str:
        lexical = (
            ""
            if self.lexical_max_tokens is None
            else f"+lex{self.lexical_max_tokens}o{self.lexical_overlap_tokens}"
        )
        if self.analyzer is not None:
            lexical += f"+{self.analyzer}"
        if self.counter is not None:
            lexical += f"+{self.counter}-tokens"
        if self.is_own:
            return f"{OWN_INDEX}{lexical}"
        return f"c{self.max_tokens}o{self.overlap_tokens}{lexical}/{self.embedder}"

    def own(self) -> IndexSetting:
        """This setting as what runs when the chunking and embedder are not passed: the
        implementation's own (the lexical chunk size and the analyzer, passed separately,
        are kept)."""
        return IndexSetting(
            None,
            None,
            None,
            self.lexical_max_tokens,
            self.lexical_overlap_tokens,
            self.analyzer,
            self.counter,
        )


#: The reranker name that turns reranking off, and the one that keeps the system's own.
NO_RERANK = "none"
OWN_RERANKER = "default"


@dataclass(frozen=True)
class RetrievalSetting:
    """One retrieval configuration over one index; ``rrf_k`` is None outside hybrid RRF.

    ``reranker`` is ``"none"`` (rerank off), ``"default"`` (the system's own reranker) or
    the name of a reranker the system is built with (``lexical-overlap``, ``minilm``).
    """

    index: IndexSetting
    mode: str
    rrf_k: float | None
    reranker: str
    candidate_limit: int
    #: Hybrid mode's fusion method and dense weight (:attr:`Policy.fusion`); ``rrf_k`` is
    #: None for a method other than ``rrf``, which reads no ``k``.
    fusion: str = "rrf"
    dense_weight: float = 0.5

    @property
    def rerank(self) -> bool:
        """Whether this setting reranks at all."""
        return self.reranker != NO_RERANK

    @property
    def id(self) -> str:
        """A stable name, the key reports and the gate match settings by."""
        fusion = ""
        if self.mode == "hybrid":
            weight = "" if self.dense_weight == 0.5 else f"w{_number(self.dense_weight)}"
            if self.fusion == "rrf":
                fusion = f"k{_number(self.rrf_k)}{weight}/"
            else:
                fusion = f"{self.fusion}{'-' + weight if weight else ''}/"
        elif self.rrf_k is not None:
            fusion = f"k{_number(self.rrf_k)}/"
        if not self.rerank:
            rerank = "norerank"
        elif self.reranker == OWN_RERANKER:
            rerank = "rerank"
        else:
            rerank = f"rerank-{self.reranker}"
        return f"{self.index.label}/{self.mode}/{fusion}{rerank}/cl{self.candidate_limit}"


@dataclass(frozen=True)
class Grid:
    """A parsed grid: every index and retrieval setting it sweeps, in file order."""

    name: str
    split: str
    depth: int
    measures: tuple[str, ...]
    grounding_depth: int
    indexes: tuple[IndexSetting, ...]
    modes: tuple[str, ...]
    rrf_ks: tuple[float, ...]
    reranks: tuple[str, ...]
    candidate_limits: tuple[int, ...]
    min_overlaps: tuple[float, ...]
    fusions: tuple[str, ...] = ("rrf",)
    dense_weights: tuple[float, ...] = (0.5,)

    def settings(self, index: IndexSetting) -> tuple[RetrievalSetting, ...]:
        """The retrieval settings answered from ``index``: hybrid ones for each fusion
        method and dense weight (and, for ``rrf``, each ``rrf_k``)."""
        out: list[RetrievalSetting] = []
        for mode, rerank, limit in itertools.product(
            self.modes, self.reranks, self.candidate_limits
        ):
            if mode != "hybrid":
                out.append(RetrievalSetting(index, mode, None, rerank, limit))
                continue
            for fusion in self.fusions:
                ks: Sequence[float | None] = self.rrf_ks if fusion == "rrf" else (None,)
                out.extend(
                    RetrievalSetting(index, mode, k, rerank, limit, fusion, weight)
                    for k in ks
                    for weight in self.dense_weights
                )
        return tuple(out)

    def hybrid_settings_per_index(self) -> int:
        """How many hybrid settings each rerank and candidate limit has."""
        per_fusion = sum(len(self.rrf_ks) if f == "rrf" else 1 for f in self.fusions)
        return per_fusion * len(self.dense_weights)

    def named_rerankers(self) -> tuple[str, ...]:
        """The rerankers a system must be built with (neither ``none`` nor ``default``)."""
        return tuple(r for r in self.reranks if r not in (NO_RERANK, OWN_RERANKER))

    def all_settings(self) -> tuple[RetrievalSetting, ...]:
        return tuple(s for index in self.indexes for s in self.settings(index))

    def to_data(self) -> dict[str, Any]:
        """The grid as TOML-shaped data (what ``results.json`` records); an index the
        implementation built its own way has null chunking and embedder."""
        return {
            "name": self.name,
            "split": self.split,
            "depth": self.depth,
            "measures": list(self.measures),
            "grounding_depth": self.grounding_depth,
            "index": {
                "chunking": _unique(_chunking_data(i) for i in self.indexes),
                "embedder": _unique(i.embedder for i in self.indexes),
                **_analyzers(self.indexes),
            },
            "retrieval": {
                "mode": list(self.modes),
                "rrf_k": list(self.rrf_ks),
                "rerank": list(self.reranks),
                "candidate_limit": list(self.candidate_limits),
                **_fusion_data(self.fusions, self.dense_weights),
            },
            "grounding": {"min_overlap": list(self.min_overlaps)},
        }


def _chunking_data(index: IndexSetting) -> dict[str, int | None]:
    data = {"max_tokens": index.max_tokens, "overlap_tokens": index.overlap_tokens}
    if index.lexical_max_tokens is not None:
        data["lexical_max_tokens"] = index.lexical_max_tokens
        data["lexical_overlap_tokens"] = index.lexical_overlap_tokens
    return data


def _analyzers(indexes: Sequence[IndexSetting]) -> dict[str, list[str]]:
    """``{"analyzer": [...], "counter": [...]}`` where the grid names them, else nothing
    (as before)."""
    out = {}
    for key in ("analyzer", "counter"):
        named = _unique(getattr(i, key) for i in indexes if getattr(i, key) is not None)
        if named:
            out[key] = named
    return out


def _fusion_data(fusions: tuple[str, ...], weights: tuple[float, ...]) -> dict[str, Any]:
    """The fusion keys of ``retrieval`` where they are not the defaults (as before)."""
    out: dict[str, Any] = {}
    if fusions != ("rrf",):
        out["fusion"] = list(fusions)
    if weights != (0.5,):
        out["dense_weight"] = list(weights)
    return out


def _number(value: float | None) -> str:
    return "" if value is None else (f"{value:g}")


def _unique(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
