"""Score the reference retriever on the set: a quick read of how hard the questions are.

Not the evaluation harness (``ragward eval`` is): a small, independent computation of
nDCG@10, recall@10 and MRR@10 per retrieval mode, using ``trec_eval``'s definitions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TextIO

from tools.tidewater.build import Question, Rendered
from tools.tidewater.claims import NumberedClaim

MODES = ("lexical", "dense", "hybrid")
DEPTH = 10
GROUNDING_DEPTH = 5
MIN_OVERLAP = 0.6


def _ndcg(ranking: Sequence[str], judged: Mapping[str, int], depth: int) -> float:
    gains = [judged.get(d, 0) for d in ranking[:depth]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains) if g > 0)
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:depth]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def _recall(ranking: Sequence[str], judged: Mapping[str, int], depth: int) -> float:
    relevant = {d for d, g in judged.items() if g > 0}
    return len(relevant & set(ranking[:depth])) / len(relevant) if relevant else 0.0


def _rr(ranking: Sequence[str], judged: Mapping[str, int], depth: int) -> float:
    for i, d in enumerate(ranking[:depth]):
        if judged.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def self_check(
    docs: Sequence[Rendered],
    questions: Sequence[Question],
    claims: Sequence[NumberedClaim],
    out: TextIO,
    split: str = "test",
) -> dict[str, dict[str, float]]:
    """Print and return mean nDCG@10, recall@10 and MRR@10 per mode (rerank on and off) on
    ``split``, then the share of claims the reference's grounding check calls supported."""
    from ragward.reference import (
        AuthorizedRetriever,
        Claim,
        ReferenceAsker,
        ReferenceDoc,
        ReferencePolicy,
        check_grounding,
    )

    retriever = AuthorizedRetriever()
    rows = sorted(
        ((v.tick, d.spec.tenant, d.spec.doc_id, v.number, d, v) for d in docs for v in d.versions),
        key=lambda row: row[:4],
    )
    for _, _, _, _, d, v in rows:
        s = d.spec
        retriever.ingest(
            ReferenceDoc(
                s.doc_id,
                s.tenant,
                s.title,
                v.text,
                classification=s.classification,
                barrier=s.barrier,
                version=v.number,
                updated_tick=v.tick,
            )
        )
    chosen = [q for q in questions if q.split == split]
    figures: dict[str, dict[str, float]] = {}
    by_kind: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for mode in MODES:
        for rerank in (True, False):
            setting = f"{mode}{'' if rerank else ' (no rerank)'}"
            totals = {"ndcg@10": 0.0, "recall@10": 0.0, "mrr@10": 0.0}
            for q in chosen:
                a = q.spec.asker
                policy = ReferencePolicy(
                    result_limit=DEPTH,
                    candidate_limit=50,
                    mode=mode,
                    enable_rerank=rerank,
                    max_stale_ticks=q.spec.max_stale_ticks,
                )
                result = retriever.retrieve(
                    q.spec.text,
                    ReferenceAsker(
                        a.user_id, a.tenant, a.max_classification, tuple(sorted(a.barriers))
                    ),
                    now_tick=q.spec.now_tick,
                    policy=policy,
                )
                ranking: list[str] = []
                for hit in result.chunks:
                    if hit.chunk.doc_id not in ranking:
                        ranking.append(hit.chunk.doc_id)
                recall = _recall(ranking, q.spec.judged, DEPTH)
                totals["ndcg@10"] += _ndcg(ranking, q.spec.judged, DEPTH)
                totals["recall@10"] += recall
                totals["mrr@10"] += _rr(ranking, q.spec.judged, DEPTH)
                if rerank:
                    by_kind[q.spec.kind][mode].append(recall)
            figures[setting] = {name: value / len(chosen) for name, value in totals.items()}
    print(f"reference retriever on the {split} split ({len(chosen)} queries):", file=out)
    for setting, values in figures.items():
        cells = "  ".join(f"{name} {value:.3f}" for name, value in values.items())
        print(f"  {setting:<20} {cells}", file=out)
    print("recall@10 by query kind (rerank on):", file=out)
    for kind in sorted(by_kind):
        cells = "  ".join(f"{mode} {sum(v) / len(v):.2f}" for mode, v in by_kind[kind].items())
        print(f"  {kind:<12} (n={len(by_kind[kind]['hybrid']):>2})  {cells}", file=out)
    called: dict[str, list[bool]] = defaultdict(list)
    for c in claims:
        if c.split != split:
            continue
        p = c.planned
        a = p.asker
        result = retriever.retrieve(
            p.query or p.text,
            ReferenceAsker(a.user_id, a.tenant, a.max_classification, tuple(sorted(a.barriers))),
            now_tick=1000,
            policy=ReferencePolicy(result_limit=GROUNDING_DEPTH, candidate_limit=50),
        )
        report = check_grounding([Claim(p.text)], result.chunks, min_overlap=MIN_OVERLAP)
        called[p.kind].append(bool(report.supported))
    print(
        f"claims called supported end to end (hybrid, top {GROUNDING_DEPTH}, "
        f"min_overlap {MIN_OVERLAP}):",
        file=out,
    )
    for kind in ("verbatim", "paraphrase", "fabrication", "invisible", "superseded", "no-evidence"):
        verdicts = called[kind]
        print(f"  {kind:<12} (n={len(verdicts):>2})  {sum(verdicts) / len(verdicts):.2f}", file=out)
    return figures
