"""Pre-filter invariants: invisible chunks change neither results nor the visible counts."""

from __future__ import annotations

from dataclasses import replace

from ragward.conformance.answer_diff import COUNTS, added, aligned, asked, differ, fail_with_diff
from ragward.conformance.contract import Capabilities, Factory
from ragward.conformance.floods import Flooded, count_floods, flooded, large_floods
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import CLASSIFICATIONS, Asker, Policy, Result
from ragward.conformance.strategies import Scene, fingerprints_in, scenes
from ragward.conformance.view import (
    bare,
    build,
    check_counts,
    fit_policy,
    label,
    live_of,
    prepare,
    with_and_without,
)
from ragward.conformance.visibility import entitled, in_view

__all__ = [
    "accounting_consistent",
    "counted_once",
    "eligible_count_unmoved",
    "eligible_view_exact",
    "nothing_missing",
    "results_unmoved",
    "results_unmoved_at_scale",
]


def _counts(result: Result) -> tuple[int, int, int]:
    considered = result.considered or 0
    hidden = result.excluded_by_entitlement or 0
    stale = result.excluded_by_freshness or 0
    return considered, hidden, stale


@invariant("PRE-001", cases=flooded)
def results_unmoved(factory: Factory, case: Flooded) -> None:
    """Invisible chunks change neither ids, order nor number of hits

    Adding documents outside the asker's eligible view — other tenants' (under the same
    ``doc_id``\\ s), classifications above their clearance, barriers they are outside of,
    stale ones, most of them repeating the query so they would outrank everything visible
    — changes neither which chunks come back, nor their order, nor how many. This is what
    filtering *after* a top-k cut breaks: the flood takes the candidate slots and the
    asker gets fewer results, or none."""
    caps, policy, before, after, hidden = with_and_without(factory, case)
    differ(
        f"hits after adding {added(hidden)} outside the view",
        _asked(case, policy, caps),
        before,
        after,
        caps,
        scores=False,
        counts=False,
    )


def _asked(case: Flooded, policy: Policy, caps: Capabilities) -> str:
    scene = case.scene
    return asked(scene.query, scene.asker, scene.now_tick, policy, caps)


@invariant("PRE-005", cases=large_floods)
def results_unmoved_at_scale(factory: Factory, case: Flooded) -> None:
    """A large invisible flood changes neither the number nor the ids of hits

    PRE-001 at the size where approximate indexes break: 64 or 160 documents outside
    the asker's view, each repeating the query, next to a scene of a few visible ones. An
    engine that filters *during* an approximate nearest-neighbour scan (HNSW with a
    filter, an IVF probe window) or after it explores a fixed number of candidates, most
    of them invisible, and returns fewer hits than the asker's view holds — the answer is
    short, silently. The number of hits is compared first, then ids and order."""
    caps, policy, before, after, hidden = with_and_without(factory, case)
    what = f"after adding {len(hidden)} invisible documents"
    if len(after.hits) != len(before.hits):
        what = f"{len(after.hits)} hits instead of {len(before.hits)} {what}"
    else:
        what = f"hits {what}"
    differ(what, _asked(case, policy, caps), before, after, caps, scores=False, counts=False)


@invariant("PRE-006", cases=scenes)
def eligible_view_exact(factory: Factory, case: Scene) -> None:
    """The eligible view is exact: nothing in it is dropped, nothing outside it counts

    The answer equals the answer of a second system that holds *only* the documents in
    the asker's eligible view E(P, t) and is asked by a colleague of the same tenant who
    may see everything, with no freshness contract: ids, order and number of hits. The
    scenes put documents on both sides of every edge — a tick exactly ``max_stale_ticks``
    old (fresh) and one tick older (stale), a contract of 0 ticks, classifications at and
    above the clearance — so a filter that drops an eligible document (an edge compared
    the wrong way, a check that reads 0 as "no contract") shows as a missing hit, which
    no leak check can see."""
    system, caps, fitted, policy = prepare(factory, case.docs, case.policy)
    asker, now = case.asker, case.now_tick
    view = [d for d in live_of(fitted).values() if in_view(d, asker, now, policy)]
    barriers = tuple(sorted({d.barrier for d in view if d.barrier is not None}))
    chief = Asker("kit-chief", asker.tenant, CLASSIFICATIONS[-1], barriers)
    alone = build(factory, view)
    want = alone.retrieve(case.query, chief, now, replace(policy, max_stale_ticks=None))
    got = system.retrieve(case.query, asker, now, policy)
    differ(
        f"hits vs a system holding only the {len(view)} documents in the asker's view",
        asked(case.query, asker, now, policy, caps),
        want,
        got,
        caps,
        scores=False,
        counts=False,
    )


@invariant("PRE-007", cases=scenes)
def nothing_missing(factory: Factory, case: Scene) -> None:
    """What one document of the view alone holds is found, and every slot is filled

    Asked for the fingerprint of one document in the asker's eligible view — a word
    no other document holds — lexical retrieval (rerank off) returns a chunk of that
    document first; asked for the whole text of a document in the view, or for its
    fingerprint alone (for a document without a title, whose words feature hashing could
    cancel against it), dense retrieval (limits of 60) returns it. And in lexical mode,
    where the adapter declares counts and limits, the answer holds ``min(result_limit,
    candidate_limit, matching chunks in the view)`` hits: a cut that drops the last tier
    of tied chunks, or a side that finds nothing, shows here even where both answers of
    PRE-006 agree."""
    system, caps, fitted, policy = prepare(factory, case.docs, case.policy)
    asker, now = case.asker, case.now_tick
    view = [d for d in live_of(fitted).values() if in_view(d, asker, now, policy)]
    if "lexical" in caps.modes:
        lexical = bare(policy, caps, "lexical")
        for doc in view:
            (mark,) = sorted(fingerprints_in(doc.text))[:1] or ("",)
            if not mark:
                continue
            got = system.retrieve(mark, asker, now, lexical)
            if "lexical" in got.degraded:
                continue
            if not got.hits or got.hits[0].doc_id != doc.doc_id:
                raise Violation(
                    f"lexical retrieval of {mark!r}, which only {label(doc)} holds, returned "
                    f"{[h.chunk_id for h in got.hits]}"
                )
        if caps.counts and caps.policy_knobs and lexical.limit_unit == "chunks":
            # The case's query, and one made of words of every document in the view (many
            # matches), each under its limits and under a limit just below the matches.
            broad = " ".join(sorted({w for d in view for w in d.text.split()[:4]}))
            for query in dict.fromkeys(q for q in (case.query, broad) if q.strip()):
                first = system.retrieve(query, asker, now, lexical)
                tight = replace(lexical, candidate_limit=max(1, _matches(first) - 1))
                for limits in (lexical, replace(tight, result_limit=tight.candidate_limit)):
                    result = system.retrieve(query, asker, now, limits)
                    matches = _matches(result)
                    want = min(limits.result_limit, limits.candidate_limit, matches)
                    if "lexical" not in result.degraded and len(result.hits) != want:
                        raise Violation(
                            f"{len(result.hits)} hits to {query!r} under result_limit="
                            f"{limits.result_limit}, candidate_limit={limits.candidate_limit}, "
                            f"with {matches} matching chunks in the view: expected {want}"
                        )
    if "dense" in caps.modes and caps.policy_knobs:
        dense = fit_policy(
            replace(policy, mode="dense", rerank=False, candidate_limit=60, result_limit=60),
            caps,
        )
        for doc in [d for d in view if fingerprints_in(d.text)][:2]:
            # Its whole text (title included, as an index may embed it), and its
            # fingerprint alone, a one-word query, where no title's words can outweigh it
            # (feature hashing may cancel a title word against the fingerprint).
            (mark,) = sorted(fingerprints_in(doc.text))[:1]
            whole = f"{doc.title}\n{doc.text}" if doc.title else doc.text
            asks = [(whole, "the whole text")] + ([] if doc.title else [(mark, "the fingerprint")])
            for query, what in asks:
                got = system.retrieve(query, asker, now, dense)
                if "dense" in got.degraded:
                    continue
                if doc.doc_id not in {h.doc_id for h in got.hits}:
                    raise Violation(
                        f"dense retrieval of {what} of {label(doc)} did not return it: "
                        f"{[h.chunk_id for h in got.hits]}"
                    )


def _matches(result: Result) -> int:
    """Matching chunks in the asker's view, by the audit counts."""
    considered, hidden, stale = _counts(result)
    return considered - hidden - stale


@invariant("PRE-002", cases=flooded, requires=("counts",))
def eligible_count_unmoved(factory: Factory, case: Flooded) -> None:
    """Invisible chunks leave the eligible count unchanged

    The eligible part of the audit counts, ``considered - excluded_by_entitlement -
    excluded_by_freshness`` (the matching chunks inside the view), is the same with and
    without a flood of invisible documents: every invisible chunk that is counted is also
    counted as excluded."""
    caps, policy, before, after, hidden = with_and_without(factory, case)
    old, new = _counts(before), _counts(after)
    eligible = (old[0] - old[1] - old[2], new[0] - new[1] - new[2])
    if eligible[0] != eligible[1]:
        rows = [("eligible (considered - excluded)", f"{eligible[0]} -> {eligible[1]}")]
        rows += [(n, f"{a} -> {b}") for n, a, b in zip(COUNTS, old, new, strict=True) if a != b]
        fail_with_diff(
            f"eligible matches after adding {added(hidden)} outside the view",
            _asked(case, policy, caps),
            aligned(rows),
        )


@invariant("PRE-003", cases=count_floods, requires=("counts",))
def counted_once(factory: Factory, case: Flooded) -> None:
    """Each invisible matching chunk is counted once, under its reason

    Adding short one-chunk documents that certainly match the query (each contains a
    query word) raises ``excluded_by_entitlement`` by exactly the number of them in the
    asker's tenant the asker may not see, ``excluded_by_freshness`` by exactly the number
    they may see but that are stale, and ``considered`` by their sum; other tenants' add
    nothing. A chunk matching in both indexes is counted once. In a dense-only system,
    where a shared word does not guarantee a match, the rises may be smaller but still
    add up."""
    caps = factory().capabilities
    policy = case.scene.policy
    lexical = [m for m in ("hybrid", "lexical") if m in caps.modes]
    if policy.mode not in lexical and lexical:
        policy = replace(policy, mode=lexical[0])
    caps, fitted, before, after, hidden = with_and_without(factory, case, policy)
    asker = case.scene.asker
    mine = [d for d in hidden if d.tenant == asker.tenant]
    k_hidden = sum(1 for d in mine if not entitled(d, asker))
    k_stale = len(mine) - k_hidden
    old, new = _counts(before), _counts(after)
    got = tuple(b - a for a, b in zip(old, new, strict=True))
    exact = fitted.mode in ("hybrid", "lexical")
    # A dense-only system may miss a match: its exclusions rise by at most so many.
    want = (k_hidden + k_stale if exact else got[1] + got[2], k_hidden, k_stale)
    rows = []
    for i, name in enumerate(COUNTS):
        bound = "" if exact or i == 0 else "at most "
        if got[i] > want[i] if bound else got[i] != want[i]:
            rows.append((name, f"{old[i]} -> {new[i]} ({got[i]:+d}), expected {bound}{want[i]:+d}"))
    if rows:
        fail_with_diff(
            f"counts after adding {k_hidden} hidden and {k_stale} stale one-chunk matching "
            f"documents ({len(hidden) - len(mine)} of other tenants)",
            _asked(case, fitted, caps),
            aligned(rows),
        )


@invariant("PRE-004", cases=scenes, requires=("counts",))
def accounting_consistent(factory: Factory, case: Scene) -> None:
    """Audit counts are consistent

    The counts are present and non-negative; the exclusions never exceed
    ``considered``; ``excluded_by_entitlement`` is zero when every live document of the
    asker's tenant is visible to them, ``excluded_by_freshness`` zero when none of the
    visible ones is stale; and a tenant holding no document considers nothing and gets
    nothing, however much other tenants hold."""
    system, _, fitted, policy = prepare(factory, case.docs, case.policy)
    live = live_of(fitted)
    result = system.retrieve(case.query, case.asker, case.now_tick, policy)
    check_counts(result, case.asker, case.now_tick, policy, live)
    stranger = replace(case.asker, tenant="kit-empty-tenant")
    empty = system.retrieve(case.query, stranger, case.now_tick, policy)
    check_counts(empty, stranger, case.now_tick, policy, live)
    if empty.hits:
        raise Violation(f"a tenant holding no document got {len(empty.hits)} hits")
