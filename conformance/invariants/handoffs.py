"""Hand-offs: each stage reads the whole output of the stage before it.

Fusion reads each first-stage ranking up to ``candidate_limit`` (not up to
``result_limit``), rerank reads every candidate of the pool (not the first
``result_limit`` of them), and assembly reads every hit of the answer it is handed. A
stage that reads less returns an answer that looks right — the same kind of hits, in
order, within the limits — and differs only where a hit beyond the part read would have
placed. Each rule is said of the answers the adapter returns: the kit asks again with
the limit placed where reading less shows.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from ragward.conformance.answer_diff import asked, differ, fail_with_diff, fused_changes
from ragward.conformance.contract import Factory
from ragward.conformance.fusion_oracle import TOLERANCE, expected_fusion, near_order
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.invariants.cuts import fused_cuts
from ragward.conformance.invariants.depth import document_cut
from ragward.conformance.records import AssembleRequest, Context, Hit, Policy, Result
from ragward.conformance.strategies import Scene, scenes
from ragward.conformance.text_strategies import CorpusCase, corpus_cases, load, policy_for
from ragward.conformance.view import fit_policy, prepare

__all__: list[str] = []

#: Wider than any generated corpus has chunks: the whole ranking.
_WIDE = 200
_UNBOUNDED = 10**9
#: Words no generated document holds (the kit's texts draw from its own vocabulary).
_NOWHERE = "zzkitnowhere zzkitnothing zzkitnone zzkitabsent"


def _ids(hits: tuple[Hit, ...]) -> list[str]:
    return [hit.chunk_id for hit in hits]


@invariant(
    "FUS-004",
    cases=lambda: corpus_cases(knobs=True, subset_limits=True),
    requires=("hybrid", "lexical", "dense", "rerank_toggle", "policy_knobs", "scores"),
)
def hybrid_is_rrf(factory: Factory, case: CorpusCase) -> None:
    """hybrid retrieval is the declared fusion of the lexical and dense rankings

    With rerank off and ``result_limit == candidate_limit``, the hybrid answer is the
    fusion (:attr:`Policy.fusion`, among those the adapter declares; ``rrf`` otherwise)
    of the lexical-mode and dense-mode answers to the same request: the same chunks, in
    the same order, with the scores the kit computes from those answers
    (:mod:`ragward.conformance.fusion_oracle`) — for ``rrf``, ``sum(w / (rrf_k + rank))``
    within 1e-12 (``w`` = 1 at the default weight), the first-stage scores never
    entering, so fusing by (normalised) scores fails here; for ``minmax`` and ``zscore``,
    the weighted sum of each side's normalised scores within 1e-9, an item a side lacks
    taking that side's lowest — and under each smaller ``result_limit`` n, its first n
    hits: fusion reads each ranking up to ``candidate_limit``, whatever ``result_limit``
    says. Ties go by ``chunk_id`` (items within the tolerance of each other, but not
    equal, may come in either order). The candidate limit is the drawn one, and for
    plain RRF also the first and the last at which the RRF of the two rankings ties
    across its own cut, where the fused list's tie-break decides what is kept. Every
    other method the adapter declares is held to the same answers, at the case's dense
    weight and at 0.5, and once more for a question no document's words hold (the
    lexical side then finds nothing, and a side that found nothing adds nothing)."""
    system = factory()
    load(system, case.docs)
    caps = system.capabilities
    base = policy_for(case, ("hybrid",), False, caps)
    base = replace(base, result_limit=case.candidate_limit)
    wide = replace(base, candidate_limit=_WIDE, result_limit=_WIDE)
    sides = [
        system.retrieve(case.query, case.asker, 0, replace(wide, mode=m)).hits
        for m in ("lexical", "dense")
    ]
    weights = dict.fromkeys((base.dense_weight, 0.5) if caps.fusion_weights else (0.5,))
    for method in dict.fromkeys((base.fusion, *caps.fusion_methods)):
        for weight in weights:
            fused = replace(base, fusion=method, dense_weight=weight)
            plain = method == "rrf" and weight == 0.5
            cuts = fused_cuts(sides, case.rrf_k) if plain else []
            for limit in dict.fromkeys([case.candidate_limit, *cuts]):
                _fused_at(system, case, replace(fused, candidate_limit=limit, result_limit=limit))
            # and a question no document's words hold: the lexical side finds nothing,
            # while the dense side still ranks the view (an empty side adds nothing)
            _fused_at(system, replace(case, query=_NOWHERE), fused)


def _fused_at(system: Any, case: CorpusCase, base: Policy) -> None:
    """FUS-004 at one candidate limit: the hybrid answer under ``base`` (rerank off,
    ``result_limit == candidate_limit``) and under each smaller result limit."""
    answers: dict[str, Result] = {
        mode: system.retrieve(case.query, case.asker, 0, replace(base, mode=mode))
        for mode in ("lexical", "dense", "hybrid")
    }
    if any({"lexical", "dense"} & set(answer.degraded) for answer in answers.values()):
        return  # a stage was shed; the comparison would not be like for like
    sides = [[(h.chunk_id, h.score) for h in answers[mode].hits] for mode in ("lexical", "dense")]
    expected = expected_fusion(
        *sides, method=base.fusion, k=base.rrf_k, dense_weight=base.dense_weight
    )
    order = sorted(expected, key=lambda chunk_id: (-expected[chunk_id], chunk_id))
    order = order[: base.candidate_limit]
    rankings = tuple([chunk_id for chunk_id, _ in side] for side in sides)
    question = asked(case.query, case.asker, 0, base, system.capabilities)
    _fusion_held(answers["hybrid"].hits, order, expected, rankings, question, "", base.fusion)
    for n in range(1, len(order)):
        policy = replace(base, result_limit=n)
        hits = system.retrieve(case.query, case.asker, 0, policy).hits
        question = asked(case.query, case.asker, 0, policy, system.capabilities)
        part = f" (its first {n})"
        _fusion_held(hits, order[:n], expected, rankings, question, part, base.fusion)


def _fusion_held(
    hybrid: tuple[Hit, ...],
    order: list[str],
    expected: dict[str, float],
    rankings: tuple[list[str], ...],
    question: str,
    part: str,
    method: str,
) -> None:
    tolerance = TOLERANCE[method]
    if not near_order(_ids(hybrid), order, expected, tolerance) or any(
        abs(hit.score - expected[hit.chunk_id]) > tolerance for hit in hybrid
    ):
        fail_with_diff(
            f"hybrid answer vs the {method} fusion of the lexical and dense answers{part}",
            f"{question}; lexical {rankings[0]}, dense {rankings[1]}",
            fused_changes(
                [(c, expected[c]) for c in order], [(h.chunk_id, h.score) for h in hybrid]
            ),
        )


@invariant("FUS-008", cases=lambda: scenes(twins=True), requires=("policy_knobs",))
def rerank_reads_every_candidate(factory: Factory, case: Scene) -> None:
    """rerank reads every candidate, whatever the result limit

    With rerank on (where it can be switched; otherwise as the adapter answers), the
    answer under each ``result_limit`` n below ``candidate_limit`` is exactly the first
    n hits of the answer under ``result_limit = candidate_limit`` — the whole pool,
    reranked — with the same scores, in every declared mode and in each limit unit
    declared (in documents: the chunks placed before the first chunk of the ``n +
    1``-th document). A reranker shown only the first n candidates of the first stage,
    or a first stage cut at ``result_limit``, answers otherwise as soon as a candidate
    ranked below n is reranked above one ranked within it."""
    system, caps, _, policy = prepare(factory, case.docs, case.policy)
    limit = max(3, policy.candidate_limit)
    units = ("chunks", "documents") if caps.document_limits else ("chunks",)
    question = (case.query, case.asker, case.now_tick)
    for mode in caps.modes:
        for unit in units:
            pool = replace(policy, mode=mode, rerank=True, limit_unit=unit)
            pool = fit_policy(replace(pool, candidate_limit=limit, result_limit=limit), caps)
            whole = system.retrieve(*question, pool)
            cut = document_cut if unit == "documents" else lambda hits, n: hits[:n]
            reach = len(whole.hits) if unit == "chunks" else len({h.doc_id for h in whole.hits})
            for n in range(1, min(limit, reach)):
                narrow = replace(pool, result_limit=n)
                differ(
                    f"{mode}{', rerank on' if caps.rerank_toggle else ''}: hits under "
                    f"result_limit={n} vs the first {n} of the whole pool reranked "
                    f"(result_limit={limit})",
                    asked(*question, narrow, caps),
                    replace(whole, hits=cut(whole.hits, n)),
                    system.retrieve(*question, narrow),
                    caps,
                    counts=False,
                )


def _request(question: str, hits: tuple[Hit, ...], budget: int) -> AssembleRequest:
    return AssembleRequest(budget, "Answer from the retrieved text only.", question, retrieved=hits)


@invariant("ASM-008", cases=lambda: scenes(twins=True), requires=("assembly",))
def assembles_the_whole_answer(factory: Factory, case: Scene) -> None:
    """assembly reads the whole answer, and a budget met to the token is met

    The adapter's own answer to a question (with limits as wide as it takes) is handed
    to ``assemble`` whole. At an unbounded budget every hit is included, in rank order,
    none dropped; at a budget of exactly the size of the prompt built from its first n
    hits (``count_tokens`` of that prompt's text), for every n, at least those n hits
    are included, in order: no hit is left unread however long the answer, and a
    prompt that fits to the token is not cut."""
    system, caps, _, policy = prepare(factory, case.docs, case.policy)
    assembler = cast(Any, system)  # the optional verbs are declared by capability
    if caps.policy_knobs:
        policy = replace(policy, candidate_limit=60, result_limit=60)
    hits = system.retrieve(case.query, case.asker, case.now_tick, policy).hits
    question = " ".join([*case.query.split(), "held?"])
    ids = tuple(_ids(hits))
    whole: Context = assembler.assemble(_request(question, hits, _UNBOUNDED))
    if whole.included != ids or whole.dropped:
        raise Violation(
            f"at an unbounded budget, {len(ids)} hits handed over, included "
            f"{list(whole.included)}, dropped {list(whole.dropped)}"
        )
    for n in range(len(hits) + 1):
        prefix: Context = assembler.assemble(_request(question, hits[:n], _UNBOUNDED))
        budget = int(assembler.count_tokens(prefix.text))
        try:
            context: Context = assembler.assemble(_request(question, hits, budget))
        except Exception as error:  # a refusal of a budget the fixed segments fit
            raise Violation(
                f"assemble refused budget {budget}, the size of the prompt holding the first "
                f"{n} hits: {type(error).__name__}: {error}"
            ) from None
        if context.included[:n] != ids[:n] or context.included != ids[: len(context.included)]:
            raise Violation(
                f"at a budget of {budget} tokens, exactly the size of the prompt holding the "
                f"first {n} of {len(ids)} hits, included {list(context.included)}"
            )
