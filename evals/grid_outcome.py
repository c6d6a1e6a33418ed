"""The records of a grid run: the questions asked, what each setting answered, the outcome."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragward.conformance.contract import Capabilities
from ragward.conformance.records import Asker, Hit
from ragward.evals.grid import RetrievalSetting

__all__ = ["Answer", "GridOutcome", "Question"]


@dataclass(frozen=True)
class Question:
    """One retrieval the grid makes: a judged query or the query of a claim."""

    text: str
    asker: Asker
    now_tick: int
    max_stale_ticks: int | None


@dataclass(frozen=True)
class Answer:
    """What one setting returned for one question, as the harness reads it."""

    ranking: tuple[str, ...]  # document ids, by first occurrence
    leaked: tuple[str, ...]  # chunk ids outside the asker's eligible view
    hits: tuple[Hit, ...]  # the top hits (to the grid's grounding depth), kept for grounding


@dataclass
class GridOutcome:
    """Every answer and grounding verdict of a grid run."""

    settings: tuple[RetrievalSetting, ...]
    answers: dict[str, dict[str, Answer]] = field(default_factory=dict)  # setting -> qid
    verdicts: dict[str, dict[float, dict[str, bool]]] = field(default_factory=dict)
    gold: dict[float, dict[str, bool]] = field(default_factory=dict)
    grounding: bool = True
    staged: bool = False
    index_settings_passed: bool = True
    depth_unit: str = "chunks"
    #: What the systems built declare (the first one's), and the models each answered
    #: with, by its index label (see :func:`ragward.evals.fingerprints.models_of`).
    capabilities: Capabilities | None = None
    models: dict[str, str] = field(default_factory=dict)
    #: Chunks each index's embedder cut at its input limit, by index label, where the
    #: system says (an adapter's optional ``embedder_truncation()``).
    truncated: dict[str, dict[str, int]] = field(default_factory=dict)
    work: dict[str, int] = field(default_factory=dict)
    #: Wall seconds by phase: ``ingest``, ``first_stages`` and ``finishes`` (or
    #: ``retrieves`` without reuse), ``checks`` (staged answers checked against retrieve),
    #: ``read`` (answers read) and ``ground``: where a grid's time goes.
    seconds: dict[str, float] = field(default_factory=dict)
