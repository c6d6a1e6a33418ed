"""Per-request settings of the reference retriever, checked when made."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ragward.errors import InvalidArgument
from ragward.reference.documents import TICK_MAX
from ragward.reference.fusion_methods import check_fusion
from ragward.reference.ranking import LIMIT_UNITS

__all__ = ["MODES", "ReferencePolicy"]

#: Retrieval modes: both indexes fused, or one of them alone.
MODES: tuple[str, ...] = ("hybrid", "lexical", "dense")


def _positive_int(owner: str, name: str, value: object) -> None:
    # Bounded above too: a limit is handed to numpy and C as a 64-bit size.
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= TICK_MAX:
        raise InvalidArgument(
            f"{owner}.{name} must be an integer from 1 to 2**63 - 1, got {_shown(value)}"
        )


def _shown(value: object) -> str:
    """``repr(value)``, shortened: a bad value may be a number of thousands of digits."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a huge integer"
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class ReferencePolicy:
    """Per-request settings: freshness contract, mode, fusion, rerank and limits.

    ``max_stale_ticks=None`` means no freshness contract. ``candidate_limit`` bounds each
    first-stage ranking and the fused list; ``result_limit`` bounds what is returned.
    ``limit_unit`` says what both limits count: ``"chunks"``, or ``"documents"``, where a
    ranking keeps every chunk placed before the first chunk of the ``limit + 1``-th
    distinct document (see :func:`~ragward.reference.ranking.cut`), so an answer read as a
    document ranking holds ``result_limit`` documents whenever that many match; hybrid
    fusion then fuses documents (:func:`~ragward.reference.fusion.document_rank_fusion`).
    ``fusion`` names how hybrid mode fuses its two rankings (``rrf``, ``minmax``,
    ``zscore``) and ``dense_weight`` the dense side's share, the lexical side having the
    rest (:mod:`~ragward.reference.fusion_methods`); ``rrf`` at 0.5 is plain RRF.
    """

    max_stale_ticks: int | None = None
    enable_rerank: bool = False
    rerank_min_score: float = 0.0
    candidate_limit: int = 12
    result_limit: int = 5
    rrf_k: float = 60
    mode: str = "hybrid"
    limit_unit: str = "chunks"
    fusion: str = "rrf"
    dense_weight: float = 0.5

    def __post_init__(self) -> None:
        if self.max_stale_ticks is not None and (
            isinstance(self.max_stale_ticks, bool)
            or not isinstance(self.max_stale_ticks, int)
            or not 0 <= self.max_stale_ticks <= TICK_MAX
        ):
            raise InvalidArgument(
                f"ReferencePolicy.max_stale_ticks must be None or an integer from 0 to "
                f"2**63 - 1, got {_shown(self.max_stale_ticks)}"
            )
        if not isinstance(self.enable_rerank, bool):
            raise InvalidArgument(
                f"ReferencePolicy.enable_rerank must be a bool, got {self.enable_rerank!r}"
            )
        if (
            isinstance(self.rerank_min_score, bool)
            or not isinstance(self.rerank_min_score, int | float)
            or not math.isfinite(self.rerank_min_score)
        ):
            raise InvalidArgument(
                f"ReferencePolicy.rerank_min_score must be a finite number, "
                f"got {self.rerank_min_score!r}"
            )
        _positive_int("ReferencePolicy", "candidate_limit", self.candidate_limit)
        _positive_int("ReferencePolicy", "result_limit", self.result_limit)
        if (
            isinstance(self.rrf_k, bool)
            or not isinstance(self.rrf_k, int | float)
            or not (math.isfinite(self.rrf_k) and self.rrf_k > 0)
        ):
            raise InvalidArgument(f"ReferencePolicy.rrf_k must be a number > 0, got {self.rrf_k!r}")
        check_fusion("ReferencePolicy", self.fusion, self.dense_weight)
        if self.mode not in MODES:
            raise InvalidArgument(
                f"ReferencePolicy.mode must be one of {', '.join(MODES)}, got {self.mode!r}"
            )
        if self.limit_unit not in LIMIT_UNITS:
            raise InvalidArgument(
                f"ReferencePolicy.limit_unit must be one of {', '.join(LIMIT_UNITS)}, "
                f"got {self.limit_unit!r}"
            )
