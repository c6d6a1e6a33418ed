"""One-line defects planted in a private copy of the reference.

Each :class:`Plant` names one line of the reference's source (``reference/*.py`` or the
kit adapter ``engines/reference.py``) and the line a careless implementer could have written
instead. :func:`planted_system` builds a copy of the whole reference package with that one
edit — a separate module tree (``ragward_planted_<slug>.reference``, ``.adapters`` and
``.adapters_records``, the adapter's record conversions), so
the real reference and every other plant stay untouched in the same process — and
returns its :class:`~ragward.engines.reference.ReferenceSystem` class. The catalogue in
:mod:`tests.conformance.broken` lists them beside the hand-written doubles.

The edit is checked when the copy is built: ``old`` must occur exactly once in its file,
so a refactoring of the reference that moves the line fails loudly here instead of
silently planting nothing.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import cast

import ragward.engines.reference
import ragward.engines.reference_records
import ragward.reference
from ragward.conformance.contract import RetrievalSystem

__all__ = ["FACTORIES", "PLANTS", "Plant", "planted_system"]

_REFERENCE = Path(ragward.reference.__file__).parent
#: The adapter's modules in a copy (``ragward.engines.reference*`` is renamed ``adapters*``).
_ADAPTERS = {
    "adapters": (Path(ragward.engines.reference.__file__), "engines/reference.py"),
    "adapters_records": (
        Path(ragward.engines.reference_records.__file__),
        "engines/reference_records.py",
    ),
}


@dataclass(frozen=True)
class Plant:
    """``old`` replaced by ``new`` in ``path`` (``reference/<module>.py`` or
    ``engines/reference.py``); ``doc`` says what the defect is, ``caught_by`` the invariant
    levels or ids aimed at it (at least one must fail)."""

    name: str
    path: str
    old: str
    new: str
    doc: str
    caught_by: tuple[str, ...]

    @property
    def slug(self) -> str:
        return "ragward_planted_" + "".join(c if c.isalnum() else "_" for c in self.name)


def _source_of(plant: Plant, module: str) -> tuple[str, Path]:
    """The source of ``module`` (``reference.x``, ``adapters`` or ``adapters_records``) in
    the plant's copy."""
    if module in _ADAPTERS:
        path, relative = _ADAPTERS[module]
    else:
        tail = module.split(".")[1:]
        path = _REFERENCE / (f"{tail[0]}.py" if tail else "__init__.py")
        relative = "reference/" + path.name
    source = path.read_text(encoding="utf-8")
    if relative == plant.path:
        found = source.count(plant.old)
        if found != 1:
            raise AssertionError(f"{plant.name}: {plant.old!r} occurs {found} times in {relative}")
        source = source.replace(plant.old, plant.new)
    source = source.replace("ragward.reference", f"{plant.slug}.reference")
    # The compiled kernel has no source to copy: the copy imports the real one.
    source = source.replace(f"{plant.slug}.reference._kernels", "ragward.reference._kernels")
    source = source.replace("ragward.engines.reference", f"{plant.slug}.adapters")
    return source, path


class _Loader(importlib.abc.Loader):
    def __init__(self, plant: Plant, module: str) -> None:
        self.plant, self.module = plant, module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        if self.module == "":
            return  # the package holding the copy: nothing of its own
        source, path = _source_of(self.plant, self.module)
        exec(compile(source, str(path), "exec"), module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, plant: Plant) -> None:
        self.plant = plant

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        slug = self.plant.slug
        if fullname != slug and not fullname.startswith(slug + "."):
            return None
        module = fullname[len(slug) + 1 :]
        package = module in ("", "reference")
        loader = _Loader(self.plant, module)
        spec = importlib.util.spec_from_loader(fullname, loader, is_package=package)
        if spec is not None and package:
            spec.submodule_search_locations = []
        return spec


def planted_system(plant: Plant) -> Callable[[], RetrievalSystem]:
    """The ``ReferenceSystem`` class of ``plant``'s copy of the reference."""
    name = f"{plant.slug}.adapters"
    if name not in sys.modules:
        if not any(isinstance(f, _Finder) and f.plant == plant for f in sys.meta_path):
            sys.meta_path.insert(0, _Finder(plant))
        importlib.import_module(name)
    system = sys.modules[name].ReferenceSystem
    return cast(Callable[[], RetrievalSystem], system)


#: The planted defects: each one line a real implementer could ship.
PLANTS: tuple[Plant, ...] = (
    Plant(
        "freshness-zero-is-none",
        "reference/namespace.py",
        "        if max_stale_ticks is None:\n",
        "        if not max_stale_ticks:\n",
        "A freshness contract of 0 ticks read as no contract (a falsy check).",
        ("isolation", "PRE-006"),
    ),
    Plant(
        "freshness-edge-inclusive",
        "reference/namespace.py",
        "stale: Mask = ticks < max(oldest_fresh, -TICK_MAX)",
        "stale: Mask = ticks <= max(oldest_fresh, -TICK_MAX)",
        "A chunk exactly ``max_stale_ticks`` old counted as stale (the edge off by one).",
        ("PRE-006", "PRE-004"),
    ),
    Plant(
        "rerank-floor-inclusive",
        "reference/stage.py",
        "return ranked(s for s in made if s.score > min_score)",
        "return ranked(s for s in made if s.score >= min_score)",
        "The rerank floor compared inclusively: a candidate scoring exactly the floor is kept.",
        ("FUS-006",),
    ),
    Plant(
        "fused-pool-uncut",
        "reference/retriever.py",
        "                    cut(fused, policy.candidate_limit, policy.limit_unit),\n",
        "                    fused,\n",
        "The fused list is not cut at ``candidate_limit``: rerank reorders up to twice as many.",
        ("FUS-005", "DEPTH-001"),
    ),
    Plant(
        "rrf-weights-swapped",
        "reference/fusion_methods.py",
        "weights = [2.0 * (1.0 - dense_weight), 2.0 * dense_weight]",
        "weights = [2.0 * dense_weight, 2.0 * (1.0 - dense_weight)]",
        "Weighted RRF gives the lexical side the dense weight (and the dense side the rest).",
        ("FUS-004",),
    ),
    Plant(
        "minmax-from-zero",
        "reference/fusion_methods.py",
        "    low, high = min(values), max(values)\n",
        "    low, high = 0.0, max(values)\n",
        "Min-max normalisation that divides by the maximum (the minimum taken as 0).",
        ("FUS-004",),
    ),
    Plant(
        "zscore-absent-is-mean",
        "reference/fusion_methods.py",
        "weight * shares.get(name, lowest)",
        "weight * shares.get(name, 0.0)",
        "A chunk one side lacks takes 0 there: for z-scores, that side's mean, above every "
        "candidate below it.",
        ("FUS-004",),
    ),
    Plant(
        "document-cut-off-by-one",
        "reference/ranking.py",
        "    if len(distinct) <= limit:\n        return len(doc_ids)\n"
        "    return doc_ids.index(distinct[limit])\n",
        "    if len(distinct) <= limit + 1:\n        return len(doc_ids)\n"
        "    return doc_ids.index(distinct[limit + 1])\n",
        "A document-depth cut that keeps ``limit + 1`` documents.",
        ("DEPTH-001", "FUS-008"),
    ),
    Plant(
        "min-overlap-exclusive",
        "reference/grounding.py",
        "    return overlap >= min_overlap",
        "    return overlap > min_overlap",
        "A claim whose overlap is exactly ``min_overlap`` judged unsupported.",
        ("GRD-006", "GRD-003"),
    ),
    Plant(
        "budget-exclusive",
        "reference/assembly.py",
        "        if tokens <= budget_tokens:\n",
        "        if tokens < budget_tokens:\n",
        "A context that fits the budget to the token is cut (one chunk fewer, or refused).",
        ("assembly",),
    ),
    Plant(
        "delete-forgets-version",
        "reference/namespace.py",
        "        state.rows = range(0)\n        state.deleted = True\n",
        "        del self.docs[doc_id]\n",
        "Delete drops the document's record, tombstone included: an older version written "
        "again after a delete is accepted.",
        ("LIFE-003", "LIFE-005", "ISO-003"),
    ),
    Plant(
        "delete-keeps-statistics",
        "reference/candidates.py",
        "namespace.analyzer.terms(query), masks.rankable, live, view.memo",
        "namespace.analyzer.terms(query), masks.rankable | ~live, live, view.memo",
        "Deleted and superseded rows stay in BM25's statistics (lazy deletion): hits look "
        "right, scores of the survivors drift.",
        ("STAT-004", "lifecycle"),
    ),
    Plant(
        "same-text-skips-reindex",
        "reference/namespace.py",
        "        state = self.docs.get(document.doc_id)\n        first = len(self.chunks)\n",
        "        state = self.docs.get(document.doc_id)\n"
        "        if state and state.rows and [self.chunks[r].text for r in state.rows] == "
        "[c.text for c in chunks]: state.version = document.version; return\n"
        "        first = len(self.chunks)\n",
        "A new version with unchanged text only bumps the version (a re-index shortcut): a "
        "reclassified document keeps its old classification, barrier and tick.",
        ("ISO-005", "STAT-002", "LIFE-001"),
    ),
    Plant(
        "ties-by-position",
        "reference/ranking.py",
        "(chunks[row].chunk_id, row))",
        "(chunks[row].doc_id, chunks[row].start_char, row))",
        "First-stage ties broken by document, then position in it (``d::2`` before ``d::10``), "
        "not by ``chunk_id``.",
        ("DET-001", "DET-006"),
    ),
    Plant(
        "ties-by-row",
        "reference/ranking.py",
        "(chunks[row].chunk_id, row))",
        "(row, row))",
        "First-stage ties left in row order (ingestion order).",
        ("DET-001", "DET-002", "DET-006"),
    ),
    Plant(
        "terms-in-set-order",
        "reference/lexical.py",
        "keys = sorted(frequency.items())",
        "keys = list(dict.fromkeys(set(query_tokens), 1).items())",
        "BM25 summed over the query's terms in set order (which follows the hash seed), each "
        "term counted once.",
        ("DET-005",),
    ),
    Plant(
        "stopwords-as-evidence",
        "reference/text.py",
        "    return frozenset(tokenize(text)) - STOPWORDS\n",
        "    return frozenset(tokenize(text))\n",
        "Grounding counts stopwords as evidence.",
        ("GRD-002",),
    ),
    Plant(
        "first-passing-citation",
        "reference/grounding.py",
        "                if overlap > 0 and (\n"
        "                    best is None or (-overlap, chunk.chunk_id) < (-best[0], best[1])\n"
        "                ):\n",
        "                if overlap >= min_overlap and best is None:\n",
        "A claim cites the first retrieved chunk that passes the threshold, not the best one.",
        ("GRD-005", "GRD-004"),
    ),
    Plant(
        "counts-without-dense",
        "reference/retriever.py",
        "            dense_matched = live & dense_rows & (scores > 0.0)\n",
        "            dense_matched = np.zeros_like(live)\n",
        "The audit counts only what BM25 matched: dense-only matches are never counted.",
        ("PRE-004", "LIFE-003", "LIFE-005"),
    ),
    Plant(
        "visible-not-fresh-in-dense",
        "reference/retriever.py",
        "rows = np.flatnonzero(eligible & dense_rows & (scores > 0.0))",
        "rows = np.flatnonzero(visible & dense_rows & (scores > 0.0))",
        "The dense stage filters entitlement but forgets the freshness contract.",
        ("isolation", "PRE-001", "PRE-005", "STAT-001"),
    ),
    Plant(
        "barrier-codes-shared",
        "reference/namespace.py",
        "        mask &= (barrier == 0) | np.isin(barrier, codes)\n",
        "        mask &= (barrier == 0) | np.isin(barrier, codes) | (len(codes) > 0)\n",
        "Any barrier the asker is inside of opens every barrier.",
        ("ISO-001", "prefilter"),
    ),
    Plant(
        "avgdl-over-live",
        "reference/lexical.py",
        'memo["avgdl"] = float(self.lengths()[eligible].sum()) / max(n_eligible, 1)',
        'memo["avgdl"] = float(self.lengths()[live].sum()) / max(1, int(np.count_nonzero(live)))',
        "BM25's average length over every live row of the namespace, visible or not.",
        ("STAT-001",),
    ),
    Plant(
        "compaction-first-vectors",
        "reference/namespace.py",
        "            self.vectors.matrix()[live],\n",
        "            self.vectors.matrix()[: len(live)],\n",
        "Compaction copies the first rows' vectors rather than the live rows': every chunk "
        "after the first dead one gets another chunk's vector.",
        ("LIFE-006",),
    ),
    Plant(
        "document-fusion-from-zero",
        "reference/fusion.py",
        "[weight / (k + rank) for rank in range(1, len(docs) + 1)]",
        "[weight / (k + rank) for rank in range(len(docs))]",
        "Document-depth fusion ranks documents from 0: the first scores ``1/k`` instead of "
        "``1/(k + 1)``.",
        ("DEPTH-001",),
    ),
    Plant(
        "rrf-sum-in-order",
        "reference/fusion.py",
        "ScoredChunk(chunks[key].chunk, math.fsum(terms))",
        "ScoredChunk(chunks[key].chunk, sum(terms))",
        "RRF adds a chunk's shares left to right, in the order the rankings come: with three "
        "rankings or more the rounding, so the score, follows that order.",
        ("FUS-002",),
    ),
    Plant(
        "empty-claim-covered",
        "reference/grounding.py",
        "        if terms:\n            for chunk, chunk_terms in evidence:\n"
        "                overlap = len(terms & chunk_terms) / len(terms)\n",
        "        if True:\n            for chunk, chunk_terms in evidence:\n"
        "                overlap = len(terms & chunk_terms) / len(terms) if terms else 1.0\n",
        "A claim of function words only counts as fully covered (all of its zero content "
        "words are found), so any retrieved chunk supports it.",
        ("GRD-002",),
    ),
    Plant(
        "grounding-ties-by-order",
        "reference/grounding.py",
        "best is None or (-overlap, chunk.chunk_id) < (-best[0], best[1])",
        "best is None or overlap > best[0]",
        "Of chunks backing a claim equally well, the first in the order given is cited, not "
        "the smallest ``chunk_id``.",
        ("GRD-004", "GRD-005"),
    ),
    Plant(
        "cut-tie-by-ingestion",
        "reference/ranking.py",
        "            _by_chunk_id(best, start, end, chunks)\n        start = end\n",
        "            _by_chunk_id(best, start, min(end, limit), chunks)\n        start = end\n",
        "A tie at BM25's candidate cut settled by ingestion order: the best rows are taken by "
        "``(-score, row)``, then only the rows kept are put in ``chunk_id`` order.",
        ("DET-006", "DET-007"),
    ),
    Plant(
        "dense-candidates-one-short",
        "reference/candidates.py",
        "        best = top_rows(rows, scores, namespace.chunks, policy.candidate_limit)\n",
        "        best = top_rows(rows, scores, namespace.chunks, "
        "max(1, policy.candidate_limit - 1))\n",
        "The dense first stage keeps one candidate fewer than ``candidate_limit`` (at least one).",
        ("DET-007",),
    ),
    Plant(
        "rerank-sees-result-limit",
        "reference/retriever.py",
        "remembered.rerank(first.query, candidates, policy.rerank_min_score)",
        "remembered.rerank(first.query, candidates[: policy.result_limit], "
        "policy.rerank_min_score)",
        "The reranker sees only the first ``result_limit`` candidates, not the whole pool "
        "cut at ``candidate_limit``.",
        ("FUS-008",),
    ),
    Plant(
        "fusion-reads-result-limit",
        "reference/retriever.py",
        "            rankings = (first.lexical, first.dense)\n",
        "            rankings = (first.lexical[: policy.result_limit], "
        "first.dense[: policy.result_limit])\n",
        "Hybrid fusion reads each first-stage ranking only up to ``result_limit``, not up to "
        "``candidate_limit``.",
        ("FUS-004", "FUS-008"),
    ),
    Plant(
        "assembly-reads-eight",
        "reference/assembly.py",
        "        for s in retrieved\n    ]\n",
        "        for s in retrieved[:8]\n    ]\n",
        "Assembly reads the first 8 retrieved chunks only: the rest are dropped however "
        "large the budget.",
        ("ASM-008",),
    ),
)


def _factory(plant: Plant) -> Callable[[], RetrievalSystem]:
    """A module-level factory for ``plant``, importable by name (so the kit can start it
    in another process, as it starts any named factory)."""

    def factory() -> RetrievalSystem:
        return planted_system(plant)()

    name = "planted_" + plant.slug.removeprefix("ragward_planted_")
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = (
        f"{plant.doc}\n\nPlanted in {plant.path}. Caught by: {', '.join(plant.caught_by)}."
    )
    globals()[name] = factory
    return factory


#: name -> factory of each plant.
FACTORIES: dict[str, Callable[[], RetrievalSystem]] = {p.name: _factory(p) for p in PLANTS}
