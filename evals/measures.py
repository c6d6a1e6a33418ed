"""Ranking measures with ``trec_eval`` semantics, over a ranked list of document ids.

The harness ranks chunks and maps them to documents by first occurrence, so an answer is
an *order*, not scores: every measure takes that order and the query's graded judgements
(document id -> grade). The semantics are those of NIST's ``trec_eval`` 9
(https://github.com/usnistgov/trec_eval), checked value by value against ``pytrec_eval``
in ``tests/evals/test_trec_differential.py``:

* a document is relevant when its grade is at least 1 (``trec_eval -l 1``); unjudged
  documents and grades of 0 or below are non-relevant and gain nothing;
* ``P_k`` divides by ``k`` even when fewer documents were retrieved; ``recall_k``, ``map``
  and nDCG are 0 for a query without relevant documents;
* nDCG (Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
  ACM TOIS 20(4), 2002, as ``trec_eval`` computes it): the gain is the grade itself (not
  ``2**grade - 1``), the discount ``log2(rank + 1)``, the ideal ranking the judged grades
  sorted; ``ndcg_cut_k`` cuts both at ``k``, ``ndcg`` does not cut;
* a ranking may not repeat a document (``trec_eval`` refuses such a run).

``recip_rank_cut_k`` is ragward's own (``trec_eval`` has no reciprocal rank at a cutoff):
``recip_rank`` over the first ``k`` documents, named so it cannot clash with a
``trec_eval`` measure. A bare family name (``P``) means ``trec_eval``'s default cutoffs.

>>> values = evaluate_ranking(parse_measures(["P_2", "recip_rank"]), {"d1": 1}, ["d0", "d1"])
>>> values["P_2"], values["recip_rank"]
(0.5, 0.5)
"""

from __future__ import annotations

import math
import re
import sys
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from types import MappingProxyType

from ragward.errors import InputError, InvalidArgument

__all__ = [
    "FAMILIES",
    "IR_MEASURES",
    "RELEVANCE_LEVEL",
    "Family",
    "Measure",
    "RunScores",
    "evaluate_ranking",
    "evaluate_run",
    "evaluate_scores",
    "measure_name",
    "parse_measure",
    "parse_measures",
]

#: The lowest grade that makes a document relevant (``trec_eval``'s default ``-l 1``).
RELEVANCE_LEVEL = 1

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's defaults for P, recall, ndcg_cut


@dataclass(frozen=True)
class Family:
    """A family of measures: its default cutoffs and how ``trec_eval`` sums it up."""

    name: str
    default_cutoffs: tuple[int, ...] | None  # None: the family takes no cutoff
    counts: bool  # an integer count: printed as one, summed (not averaged) over queries
    description: str


#: The supported families, in the order ``trec_eval`` prints them.
FAMILIES: Mapping[str, Family] = MappingProxyType(
    {
        f.name: f
        for f in (
            Family("num_ret", None, True, "documents retrieved"),
            Family("num_rel", None, True, "relevant documents judged"),
            Family("num_rel_ret", None, True, "relevant documents retrieved"),
            Family("map", None, False, "mean average precision"),
            Family("recip_rank", None, False, "reciprocal rank of the first relevant"),
            Family("recip_rank_cut", _CUTS, False, "recip_rank within the first k (ragward's)"),
            Family("P", _CUTS, False, "precision at k"),
            Family("recall", _CUTS, False, "recall at k"),
            Family("ndcg", None, False, "nDCG over the whole ranking"),
            Family("ndcg_cut", _CUTS, False, "nDCG at k"),
            Family("success", (1, 5, 10), False, "1 if a relevant document is in the first k"),
        )
    }
)


@dataclass(frozen=True)
class Measure:
    """One measure: a family and, for the families that take one, a cutoff."""

    family: str
    cutoff: int | None = None

    def __post_init__(self) -> None:
        family = FAMILIES.get(self.family)
        if family is None:
            raise InvalidArgument(f"unknown measure family {self.family!r}")
        if (family.default_cutoffs is None) != (self.cutoff is None):
            takes = "no cutoff" if family.default_cutoffs is None else "a cutoff"
            raise InvalidArgument(f"measure family {self.family!r} takes {takes}")
        if self.cutoff is not None and self.cutoff < 1:
            raise InvalidArgument(f"cutoff {self.cutoff} of {self.family!r} is not positive")

    @property
    def name(self) -> str:
        """The ``trec_eval`` name, e.g. ``P_10``."""
        return self.family if self.cutoff is None else f"{self.family}_{self.cutoff}"

    @property
    def counts(self) -> bool:
        """True for integer counts, which ``trec_eval`` sums over queries."""
        return FAMILIES[self.family].counts

    def order(self) -> tuple[int, int]:
        """Sort key giving ``trec_eval``'s print order."""
        return list(FAMILIES).index(self.family), self.cutoff or 0


#: A cutoff is a positive integer of at most nine digits: a deeper one is a typo.
_CUTOFF = re.compile(r"[1-9][0-9]{0,8}")

#: ir_measures' spelling of each family: ``nDCG@10`` is ``ndcg_cut_10``, ``nDCG`` is
#: ``ndcg``, ``RR`` is ``recip_rank``, ``RR@10`` is ragward's ``recip_rank_cut_10``.
IR_MEASURES: Mapping[str, tuple[str, str | None]] = MappingProxyType(
    {  # name -> (family without a cutoff, family with one)
        "nDCG": ("ndcg", "ndcg_cut"),
        "RR": ("recip_rank", "recip_rank_cut"),
        "P": ("", "P"),
        "R": ("", "recall"),
        "Success": ("", "success"),
        "AP": ("map", None),
        "NumRet": ("num_ret", None),
        "NumRel": ("num_rel", None),
        "NumRet(rel=1)": ("num_rel_ret", None),
    }
)
_IR_MEASURES_RE = re.compile(r"(nDCG|RR|P|R|Success|AP|NumRet\(rel=1\)|NumRet|NumRel)(?:@(\d+))?")


def _ir_measures(name: str) -> tuple[Measure, ...] | None:
    found = _IR_MEASURES_RE.fullmatch(name)
    if found is None:
        return None
    bare, cut = IR_MEASURES[found.group(1)]
    if found.group(2) is None:
        # a bare "P" is trec_eval's (its default cutoffs); a bare "R" or "Success" is not
        return (Measure(bare),) if bare else None
    if cut is None:
        raise InputError(f"measure {found.group(1)!r} takes no cutoff (got {name!r})")
    if not _CUTOFF.fullmatch(found.group(2)):
        raise InputError(f"measure {_cut(name)}: cutoff {_cut(found.group(2))} {_NOT_A_CUTOFF}")
    return (Measure(cut, int(found.group(2))),)


def parse_measure(name: str) -> tuple[Measure, ...]:
    """The measures a name stands for: ``P_10``, ``P.5,10`` (``trec_eval``'s form), ``P``,
    or ir_measures' spelling (``nDCG@10``, ``R@100``, ``RR``, ``RR@10``, ``P@5``, ``AP``).

    Raises :class:`~ragward.errors.InputError` naming the supported measures.

    >>> [m.name for m in parse_measure("nDCG@10") + parse_measure("RR")]
    ['ndcg_cut_10', 'recip_rank']
    """
    spelled = _ir_measures(name)
    if spelled is not None:
        return spelled
    family, sep, params = name.partition(".")
    if not sep and family not in FAMILIES:
        head, underscore, tail = name.rpartition("_")
        if head in FAMILIES and FAMILIES[head].default_cutoffs is not None:
            family, sep, params = head, underscore, tail
    if family not in FAMILIES:
        raise InputError(f"unknown measure {_cut(name)}{_hint(name)}; supported: {_SUPPORTED}")
    defaults = FAMILIES[family].default_cutoffs
    if defaults is None:
        if sep:
            raise InputError(f"measure {family!r} takes no cutoff (got {name!r})")
        return (Measure(family),)
    cutoffs = params.split(",") if sep else [str(c) for c in defaults]
    bad = [c for c in cutoffs if not _CUTOFF.fullmatch(c)]
    if bad:
        raise InputError(f"measure {_cut(name)}: cutoff {_cut(bad[0])} {_NOT_A_CUTOFF}")
    return tuple(Measure(family, c) for c in sorted(set(map(int, cutoffs))))


def measure_name(name: str) -> str:
    """The ``trec_eval`` name of the one measure ``name`` stands for, in either spelling.

    >>> measure_name("R@100")
    'recall_100'
    """
    measures = parse_measure(name)
    if len(measures) != 1:
        raise InputError(f"measure {name!r} stands for several; name one, e.g. {measures[0].name}")
    return measures[0].name


def parse_measures(names: Iterable[str]) -> tuple[Measure, ...]:
    """Parse every name, in order, dropping repeats."""
    return tuple(dict.fromkeys(m for name in names for m in parse_measure(name)))


_NOT_A_CUTOFF = "is not a positive integer (at most 999999999)"


def _cut(text: str) -> str:
    """``repr(text)``, its end cut when long (a name in a message)."""
    return repr(text) if len(text) <= 60 else f"{text[:50]!r}... ({len(text)} characters)"


def _hint(name: str) -> str:
    head, _, tail = name.rpartition("_")
    if head == "ndcg" and _CUTOFF.fullmatch(tail):
        return f" (did you mean 'ndcg_cut_{tail}'?)"
    if head == "recip_rank" and _CUTOFF.fullmatch(tail):
        return f" (did you mean 'recip_rank_cut_{tail}'?)"
    return ""


_SUPPORTED = (
    ", ".join(f.name if f.default_cutoffs is None else f"{f.name}_K" for f in FAMILIES.values())
    + " (K a positive cutoff; a bare P, recall, ... means trec_eval's default cutoffs)"
    + "; or ir_measures' nDCG, nDCG@K, R@K, P@K, RR, RR@K, Success@K, AP, NumRet, NumRel"
)


class _Judged:
    """One query's ranking read against its judgements in a single pass."""

    def __init__(self, qrels: Mapping[str, int], ranking: Sequence[str]) -> None:
        if len(set(ranking)) != len(ranking):
            twice = next(doc for doc, n in Counter(ranking).items() if n > 1)
            raise InvalidArgument(f"ranking repeats document {twice!r}; trec_eval refuses that")
        self.num_ret = len(ranking)
        self.relevant = sorted(g for g in qrels.values() if g >= RELEVANCE_LEVEL)
        # Rank and grade of each relevant document retrieved (with -l 1, exactly the
        # documents with a gain), found by looking each retrieved id up once.
        gains = [
            (rank, grade)
            for rank, grade in enumerate(map(qrels.get, ranking, repeat(0, self.num_ret)), 1)
            if grade >= RELEVANCE_LEVEL
        ]
        self.rel_ranks: list[int] = [rank for rank, _ in gains]
        self.dcg: list[float] = []  # discounted cumulative gain at each of those ranks
        total = 0.0
        for rank, grade in gains:
            total += grade / math.log2(rank + 1)
            self.dcg.append(total)
        self._ideal: list[float] | None = None

    @classmethod
    def from_scores(cls, qrels: Mapping[str, int], scores: Mapping[str, float]) -> _Judged:
        """The same reading of the ranking :func:`~ragward.evals.trec.rank_run` makes of
        ``scores``, without ranking every document: only the relevant retrieved ones are
        placed, each one after every document scored higher and every document scored the
        same with a greater id (``trec_eval``'s tie rule)."""
        judged = cls.__new__(cls)
        judged.num_ret = len(scores)
        judged.relevant = sorted(g for g in qrels.values() if g >= RELEVANCE_LEVEL)
        found = [
            (scores[doc], doc, grade)
            for doc, grade in qrels.items()
            if grade >= RELEVANCE_LEVEL and doc in scores
        ]
        placed: list[tuple[int, int]] = []
        if found:
            values = sorted(scores.values())
            tied: dict[float, list[str]] = {}
            for score, doc, grade in found:
                above = len(values) - bisect_right(values, score)
                if bisect_left(values, score) + 1 < len(values) - above:  # a tie
                    ids = tied.get(score)
                    if ids is None:
                        ids = tied[score] = [other for other, v in scores.items() if v == score]
                    above += sum(other > doc for other in ids)
                placed.append((above + 1, grade))
            placed.sort()
        judged.rel_ranks = [rank for rank, _ in placed]
        judged.dcg = []
        total = 0.0
        for rank, grade in placed:
            total += grade / math.log2(rank + 1)
            judged.dcg.append(total)
        judged._ideal = None
        return judged

    def found(self, k: int) -> int:
        return bisect_right(self.rel_ranks, k)

    def dcg_at(self, k: int) -> float:
        n = self.found(k)
        return self.dcg[n - 1] if n else 0.0

    def ideal_at(self, k: int) -> float:
        if self._ideal is None:
            self._ideal, total = [], 0.0
            for i, grade in enumerate(reversed(self.relevant)):
                total += grade / math.log2(i + 2)
                self._ideal.append(total)
        n = min(k, len(self._ideal))
        return self._ideal[n - 1] if n else 0.0


_WHOLE = sys.maxsize  # the cutoff of a family that takes none: the whole ranking


def _average_precision(j: _Judged, _: int) -> float:
    total = 0.0
    for found, rank in enumerate(j.rel_ranks, 1):
        total += found / rank  # accumulated in rank order, as trec_eval does
    return total / len(j.relevant) if j.relevant else 0.0


def _ndcg(j: _Judged, k: int) -> float:
    ideal = j.ideal_at(k)
    return j.dcg_at(k) / ideal if ideal > 0.0 else 0.0


def _recip_rank(j: _Judged, k: int) -> float:
    return 1.0 / j.rel_ranks[0] if j.rel_ranks and j.rel_ranks[0] <= k else 0.0


_VALUE: Mapping[str, Callable[[_Judged, int], float]] = {
    "num_ret": lambda j, _: float(j.num_ret),
    "num_rel": lambda j, _: float(len(j.relevant)),
    "num_rel_ret": lambda j, _: float(len(j.rel_ranks)),
    "map": _average_precision,
    "recip_rank": _recip_rank,
    "recip_rank_cut": _recip_rank,
    "P": lambda j, k: j.found(k) / k,
    "recall": lambda j, k: j.found(k) / len(j.relevant) if j.relevant else 0.0,
    "ndcg": _ndcg,
    "ndcg_cut": _ndcg,
    "success": lambda j, k: 1.0 if j.found(k) else 0.0,
}


def evaluate_ranking(
    measures: Iterable[Measure], qrels: Mapping[str, int], ranking: Sequence[str]
) -> dict[str, float]:
    """Every measure of one query, by name: ``ranking`` against ``qrels`` (doc id -> grade).

    An empty ranking gives what ``trec_eval -c`` scores a query missing from a run: 0
    everywhere but ``num_rel``.
    """
    return _evaluate(_plan(measures), qrels, ranking)


_Plan = tuple[tuple[str, Callable[["_Judged", int], float], int], ...]


def _plan(measures: Iterable[Measure]) -> _Plan:
    """Each measure's name, value function and cutoff, looked up once per run."""
    return tuple((m.name, _VALUE[m.family], m.cutoff or _WHOLE) for m in measures)


def _evaluate(plan: _Plan, qrels: Mapping[str, int], ranking: Sequence[str]) -> dict[str, float]:
    judged = _Judged(qrels, ranking)
    return {name: value(judged, cutoff) for name, value, cutoff in plan}


@dataclass(frozen=True)
class RunScores:
    """A run scored as ``trec_eval`` does: per query, and its ``all`` line."""

    measures: tuple[Measure, ...]
    per_query: Mapping[str, Mapping[str, float]]  # query id -> measure name -> value
    summary: Mapping[str, float]  # the mean over scored queries; the sum for counts
    num_q: int  # queries scored


def evaluate_scores(
    measures: Iterable[Measure],
    qrels: Mapping[str, Mapping[str, int]],
    scores: Mapping[str, Mapping[str, float]],
    *,
    complete: bool = False,
) -> RunScores:
    """:func:`evaluate_run` of ``rank_run(scores)``, the same values, reached without
    sorting every query's documents (the path of ``ragward metrics``)."""
    chosen = tuple(measures)
    plan = _plan(chosen)
    per_query: dict[str, dict[str, float]] = {}
    for qid in sorted(qrels):
        if qid in scores or complete:
            judged = _Judged.from_scores(qrels[qid], scores.get(qid, {}))
            per_query[qid] = {name: value(judged, cutoff) for name, value, cutoff in plan}
    return _summarised(chosen, per_query)


def evaluate_run(
    measures: Iterable[Measure],
    qrels: Mapping[str, Mapping[str, int]],
    rankings: Mapping[str, Sequence[str]],
    *,
    complete: bool = False,
) -> RunScores:
    """Score every judged query the run answers, in ``trec_eval``'s (sorted) query order.

    As in ``trec_eval``, queries of the run without judgements are ignored, and a judged
    query missing from the run is skipped — unless ``complete`` (``trec_eval -c``), when
    it is scored as an empty ranking and so counts in every mean.
    """
    chosen = tuple(measures)
    plan = _plan(chosen)
    per_query: dict[str, dict[str, float]] = {}
    for qid in sorted(qrels):
        if qid in rankings or complete:
            per_query[qid] = _evaluate(plan, qrels[qid], rankings.get(qid, ()))
    return _summarised(chosen, per_query)


def _summarised(chosen: tuple[Measure, ...], per_query: dict[str, dict[str, float]]) -> RunScores:
    summary: dict[str, float] = {}
    for measure in chosen:
        values = [v[measure.name] for v in per_query.values()]
        total = math.fsum(values)
        summary[measure.name] = total if measure.counts or not values else total / len(values)
    return RunScores(chosen, per_query, summary, len(per_query))
