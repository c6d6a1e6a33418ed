"""Ties on every cut: the kit finds exact ties in an answer and puts each limit on one.

A cut through a tie is where an implementation's tie-break shows, and only there: the
hits kept are the same whichever tie-break orders the rest. Corpora full of chance ties
seldom put one exactly on a cut, so the kit places the cuts itself. It reads the
adapter's own rankings under limits wider than the corpus, finds where two neighbours
tie — identical chunks of documents copied under other ids, or (where the adapter
declares ``scores``) equal scores — and asks again with ``candidate_limit``,
``result_limit`` or a document depth set to keep exactly one of them; in hybrid mode
also where the kit's own reciprocal rank fusion of the lexical and dense rankings ties
across its cut.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace

from hypothesis import strategies as st

from ragward.conformance.answer_diff import asked, differ
from ragward.conformance.contract import Capabilities, Factory, RetrievalSystem
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.invariants.fusion import expected_rrf
from ragward.conformance.records import Asker, Doc, Hit, Policy, Result
from ragward.conformance.strategies import (
    DOC_IDS,
    SECTIONS,
    Scene,
    bodies,
    policies,
    queries,
    restamp,
    scenes,
    stamp,
)
from ragward.conformance.view import bare, build, fit_policy, prepare

__all__ = ["fused_cuts", "tie_scenes"]

_TENANT = "acme"
#: Wider than any generated corpus has chunks: the whole ranking.
_WIDE = 200


@st.composite
def tie_scenes(draw: st.DrawFn) -> Scene:
    """Documents of one tenant, all visible to the asker, each copied verbatim under one
    to three other ``doc_id``\\ s that sort apart from it (``d1~0``, ``d10``, ``d1-0``,
    ``t0``), now and then one document of identical sections; in a drawn ingestion
    order, with a query about their words."""
    ids = draw(st.lists(st.sampled_from(DOC_IDS), unique=True, min_size=1, max_size=3))
    docs: list[Doc] = []
    for doc_id in ids:
        title = draw(st.sampled_from(("", "Hold notice")))
        source = Doc(_TENANT, doc_id, stamp(draw(bodies()), _TENANT, doc_id, 1), title)
        docs.append(source)
        for n in range(draw(st.integers(min_value=1, max_value=3))):
            names = (f"{doc_id}~{n}", f"{doc_id}{n}", f"{doc_id}-{n}", f"t{n}")
            copy = draw(st.sampled_from(names))
            if all(d.doc_id != copy for d in docs):
                docs.append(replace(source, doc_id=copy))
    if draw(st.booleans()):
        # "r::10" < "r::2": chunk_id order is not the order of the sections.
        section = f"## {SECTIONS[1]}\n{docs[0].text.strip()}\n"
        body = section * draw(st.sampled_from((2, 11, 12)))
        docs.append(restamp(Doc(_TENANT, "r", body)))
    order = draw(st.permutations(docs))
    policy = replace(draw(policies()), max_stale_ticks=None)
    query = draw(queries([d.text for d in docs]))
    return Scene(tuple(order), Asker("u1", _TENANT), query, policy, 0)


def _groups(docs: Sequence[Doc]) -> dict[str, int]:
    """Each ``doc_id``'s copy group: documents of the same title and text share one."""
    first: dict[tuple[str, str], int] = {}
    return {d.doc_id: first.setdefault((d.title, d.text), len(first)) for d in docs}


class _Ties:
    """Which neighbours of a ranking tie: identical chunks of copies, or equal scores."""

    def __init__(self, docs: Sequence[Doc], caps: Capabilities) -> None:
        self.group = _groups(docs)
        self.scores = caps.scores

    def twins(self, a: Hit, b: Hit) -> bool:
        """Identical chunks of two copies of one document."""
        return (
            a.doc_id != b.doc_id
            and self.group.get(a.doc_id, -1) == self.group.get(b.doc_id, -2)
            and (a.start, a.end, a.text) == (b.start, b.end, b.text)
        )

    def tie(self, a: Hit, b: Hit) -> bool:
        return self.twins(a, b) or (self.scores and a.score == b.score)

    def cuts(self, hits: Sequence[Hit]) -> list[int]:
        """Limits (in chunks) that cut between two tied neighbours: the first and last."""
        return _ends([i for i in range(1, len(hits)) if self.tie(hits[i - 1], hits[i])])

    def document_cuts(self, hits: Sequence[Hit]) -> list[int]:
        """Limits (in documents) that cut between two documents whose first chunks tie."""
        firsts: dict[str, Hit] = {}
        for hit in hits:
            firsts.setdefault(hit.doc_id, hit)
        heads = list(firsts.values())
        return _ends([i for i in range(1, len(heads)) if self.tie(heads[i - 1], heads[i])])


def _ends(places: list[int]) -> list[int]:
    return list(dict.fromkeys(places[:1] + places[-1:]))


def fused_cuts(rankings: Sequence[Sequence[Hit]], k: float, unit: str = "chunks") -> list[int]:
    """Candidate limits ``c`` at which the RRF of the rankings, each cut at ``c``, ties
    across its own cut at ``c`` (exact sums, as FUS-001 holds ``fuse`` to): of chunks,
    or with ``unit="documents"`` of documents ranked by first occurrence."""
    # each ranking's names once (documents by first occurrence); a cut at c keeps c of each
    names = [
        list(dict.fromkeys(hit.doc_id for hit in ranking))
        if unit == "documents"
        else [hit.chunk_id for hit in ranking]
        for ranking in rankings
    ]
    places = []
    for limit in range(1, max(map(len, names), default=0) + 1):
        sums = expected_rrf(tuple(tuple(ranked[:limit]) for ranked in names), k)
        fused = sorted(sums.values(), reverse=True)
        if len(fused) > limit and fused[limit - 1] == fused[limit]:
            places.append(limit)
    return _ends(places)


def _pools(
    caps: Capabilities, wide: Policy, rankings: dict[str, tuple[Hit, ...]], ties: _Ties
) -> Iterator[Policy]:
    """Policies whose candidate limit lies on a tie of a first-stage ranking (or, in
    hybrid mode, of the fused list), and ``wide`` (limits wider than the corpus), for
    each declared mode, rerank setting and limit unit; ``rankings`` are the bare wide
    answers of the single-index modes."""
    toggles = (False, True) if caps.rerank_toggle else (wide.rerank,)
    units = ("chunks", "documents") if caps.document_limits else ("chunks",)
    for mode in caps.modes:
        sides = [r for m, r in rankings.items() if m != "hybrid" and mode in (m, "hybrid")]
        for unit in units:
            cut = ties.cuts if unit == "chunks" else ties.document_cuts
            limits = [c for side in sides for c in cut(side)]
            if mode == "hybrid" and len(sides) == 2:
                limits += fused_cuts(sides, wide.rrf_k, unit)
            for rerank in toggles:
                base = fit_policy(replace(wide, mode=mode, rerank=rerank, limit_unit=unit), caps)
                for limit in dict.fromkeys([_WIDE, *limits]):
                    yield replace(base, candidate_limit=limit)


@invariant("DET-006", cases=tie_scenes, requires=("policy_knobs",))
def ties_on_every_cut(factory: Factory, case: Scene) -> None:
    """A tie on a cut is settled by chunk_id, whatever the ingestion order

    The corpus holds documents copied verbatim under other ``doc_id``\\ s (ids that sort
    apart from their source's), ingested in a drawn order into one system and in the
    opposite order into another. In every declared mode, rerank off and on (where it can
    be switched), and in each limit unit declared, the kit reads the first system's own
    rankings under limits wider than the corpus, finds where two neighbours tie
    (identical chunks of two copies; equal scores, where declared; the first and the
    last such place of each ranking) and asks again
    with ``candidate_limit`` cutting a first-stage ranking there, with ``result_limit``
    cutting the answer there (limits in documents: between two documents whose first
    chunks tie), and — in hybrid mode — with ``candidate_limit`` where the
    reciprocal rank fusion of the lexical and dense rankings (of their documents, at
    document depth) ties across its own cut.
    Both systems must give exactly the same answer (hits, scores, counts), and no
    answer may hold a chunk while an identical chunk of a copy with a smaller
    ``chunk_id`` is left out (in hybrid mode at document depth, where fusion ranks whole
    documents, only the first rule): a tie at a cut is settled by ``chunk_id``, never by
    which copy was written first."""
    system, caps, fitted, policy = prepare(factory, case.docs, case.policy)
    other = build(factory, reversed(fitted))
    ties = _Ties(fitted, caps)
    wide = replace(policy, candidate_limit=_WIDE, result_limit=_WIDE, limit_unit="chunks")
    question = (case.query, case.asker, case.now_tick)
    rankings = {m: system.retrieve(*question, bare(wide, caps, m)).hits for m in caps.modes}
    # Every chunk the question matches, by id: where a left-out twin is looked for.
    everything = list({h.chunk_id: h for r in rankings.values() for h in r}.values())
    for pool in _pools(caps, wide, rankings, ties):
        got = _same(system, other, caps, case, pool, everything, ties)
        cut = ties.cuts if pool.limit_unit == "chunks" else ties.document_cuts
        for end in cut(got.hits):
            _same(system, other, caps, case, replace(pool, result_limit=end), everything, ties)


def _same(
    system: RetrievalSystem,
    other: RetrievalSystem,
    caps: Capabilities,
    case: Scene,
    ask: Policy,
    everything: Sequence[Hit],
    ties: _Ties,
) -> Result:
    """The first system's answer to ``ask``, checked against the second's and for twins
    kept by ``chunk_id``."""
    question = (case.query, case.asker, case.now_tick)
    said = asked(*question, ask, caps)
    got = system.retrieve(*question, ask)
    where = f"{ask.mode}, candidate_limit {ask.candidate_limit}, result_limit {ask.result_limit}"
    differ(
        f"{where}: answer after ingesting in the opposite order",
        said,
        got,
        other.retrieve(*question, ask),
        caps,
    )
    if ask.mode != "hybrid" or ask.limit_unit == "chunks":
        _smallest_kept(got, everything, ties, where, said)
    return got


def _smallest_kept(
    result: Result, everything: Sequence[Hit], ties: _Ties, where: str, question: str
) -> None:
    """No hit whose identical twin of a smaller ``chunk_id`` is missing from ``result``."""
    present = {hit.chunk_id for hit in result.hits}
    for rank, hit in enumerate(result.hits, start=1):
        for twin in everything:
            missing = twin.chunk_id < hit.chunk_id and twin.chunk_id not in present
            if missing and ties.twins(twin, hit):
                raise Violation(
                    f"{where}: {hit.chunk_id!r} (rank {rank}) came back without "
                    f"{twin.chunk_id!r}, an identical chunk of a copy with a smaller "
                    f"chunk_id: the tie was not settled by chunk_id\n{question}"
                )


@invariant("DET-007", cases=lambda: scenes(twins=True), requires=("policy_knobs",))
def candidate_limit_cuts_prefix(factory: Factory, case: Scene) -> None:
    """In a single-index mode a candidate limit cuts a prefix

    In lexical and in dense mode (those declared), rerank off, the answer under
    ``candidate_limit = n`` and a result limit wider than the corpus is exactly the
    first n hits of the answer under limits wider than the corpus — same chunks, same
    order, same scores; fewer only if fewer match. ``n`` is the drawn candidate limit,
    1, and one less than the matches, so the cut keeps all but the last: a first stage
    that keeps one candidate too few or too many, or another set at the cut, fails
    here."""
    system, caps, _, policy = prepare(factory, case.docs, case.policy)
    question = (case.query, case.asker, case.now_tick)
    for mode in (m for m in ("lexical", "dense") if m in caps.modes):
        wide = bare(replace(policy, limit_unit="chunks"), caps, mode)
        wide = replace(wide, candidate_limit=_WIDE, result_limit=_WIDE)
        everything = system.retrieve(*question, wide)
        if mode in everything.degraded:
            continue
        for n in dict.fromkeys([policy.candidate_limit, 1, len(everything.hits) - 1]):
            if n < 1:
                continue
            narrow = replace(wide, candidate_limit=n)
            differ(
                f"{mode} hits under candidate_limit={n} vs the first {n} under {_WIDE}",
                asked(*question, narrow, caps),
                replace(everything, hits=everything.hits[:n]),
                system.retrieve(*question, narrow),
                caps,
                counts=False,
            )
