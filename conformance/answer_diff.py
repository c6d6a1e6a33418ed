"""Two answers side by side: what changed between them, in aligned lines and numbers.

A failed comparison of two answers used to print both as raw, truncated tuples, the one
number that moved buried inside. Here a :class:`Violation` says, on its first line (the
one a report's table shows), what was compared and the first change; then who asked what
(question, mode, only the policy knobs the adapter declares, principal, tick); then one
line per change: a hit added or removed (``none -> rank 2``), a rank moved, a score
changed (3 decimals, more only where 3 do not tell the two apart), a count changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragward.conformance.contract import Capabilities
from ragward.conformance.invariant import Violation
from ragward.conformance.records import Asker, Doc, Hit, Policy, Result
from ragward.conformance.view import rounding_note

__all__ = [
    "COUNTS",
    "added",
    "aligned",
    "asked",
    "changes",
    "differ",
    "fail_with_diff",
    "fused_changes",
    "number_pair",
]

#: The audit counts of a :class:`Result`, in the order a diff lists them.
COUNTS = ("considered", "excluded_by_entitlement", "excluded_by_freshness")


def asked(query: str, asker: Asker, now_tick: int, policy: Policy, caps: Capabilities) -> str:
    """``'q' asked by u1@acme (public, barriers ['b1']) at tick 5: lexical, rerank off``:
    the question, the principal and the policy knobs the adapter declares."""
    who = f"{asker.user_id}@{asker.tenant} ({asker.max_classification}"
    who += f", barriers {list(asker.barriers)})" if caps.barriers else ")"
    knobs = [policy.mode]
    if caps.rerank_toggle:
        knobs.append("rerank on" if policy.rerank else "rerank off")
    if caps.policy_knobs:
        knobs.append(f"result_limit {policy.result_limit}")
        knobs.append(f"candidate_limit {policy.candidate_limit}")
        knobs.append(f"rrf_k {policy.rrf_k:g}")
        if policy.rerank_min_score:
            knobs.append(f"rerank_min_score {policy.rerank_min_score:g}")
    if policy.mode == "hybrid" and policy.fusion != "rrf":
        knobs.append(f"fusion {policy.fusion}")
    if policy.mode == "hybrid" and policy.dense_weight != 0.5:
        knobs.append(f"dense_weight {policy.dense_weight:g}")
    if caps.document_limits:
        knobs.append(f"limits in {policy.limit_unit}")
    if caps.freshness and policy.max_stale_ticks is not None:
        knobs.append(f"max_stale_ticks {policy.max_stale_ticks}")
    return f"{query!r} asked by {who} at tick {now_tick}: {', '.join(knobs)}"


def added(docs: Sequence[Doc]) -> str:
    """``globex/d2`` (up to three documents named) or ``64 documents``."""
    if 0 < len(docs) <= 3:
        return ", ".join(f"{d.tenant}/{d.doc_id}" for d in docs)
    return f"{len(docs)} documents"


def number_pair(before: float, after: float) -> str:
    """``0.661 -> 1.044``: 3 decimals, more only where 3 show no difference."""
    for digits in (3, 6, 9):
        one, other = f"{before:.{digits}f}", f"{after:.{digits}f}"
        if one != other:
            return f"{one} -> {other}"
    return f"{before!r} -> {after!r}"


def _identity(hit: Hit) -> tuple[str, int, int, int, str]:
    return (hit.doc_id, hit.version, hit.start, hit.end, hit.text)


def _hit_change(rank: tuple[int, int], one: Hit, other: Hit, scores: bool) -> list[str]:
    said: list[str] = []
    if rank[0] != rank[1]:
        said.append(f"rank {rank[0]} -> {rank[1]}")
    if one.doc_id != other.doc_id or one.version != other.version:
        said.append(f"{one.doc_id} v{one.version} -> {other.doc_id} v{other.version}")
    elif (one.start, one.end) != (other.start, other.end):
        said.append(f"span {one.start}:{one.end} -> {other.start}:{other.end}")
    elif one.text != other.text:
        said.append("text changed")
    if scores and one.score != other.score:
        said.append(f"score {number_pair(one.score, other.score)}")
    return said


def changes(
    before: Result, after: Result, caps: Capabilities, *, scores: bool = True, counts: bool = True
) -> list[str]:
    """One aligned line per change from ``before`` to ``after`` (empty: the same answer).

    Scores are compared where ``scores`` and the adapter declares them, counts where
    ``counts`` and the adapter declares them; ranks count from 1.
    """
    scores = scores and caps.scores
    old = {h.chunk_id: (i + 1, h) for i, h in enumerate(before.hits)}
    new = {h.chunk_id: (i + 1, h) for i, h in enumerate(after.hits)}
    rows: list[tuple[str, str]] = []
    for chunk_id, (rank, hit) in old.items():
        if chunk_id not in new:
            score = f", score {hit.score:.3f}" if scores else ""
            rows.append((chunk_id, f"removed: rank {rank} -> none{score}"))
            continue
        said = _hit_change((rank, new[chunk_id][0]), hit, new[chunk_id][1], scores)
        if said:
            rows.append((chunk_id, ", ".join(said)))
    for chunk_id, (rank, hit) in new.items():
        if chunk_id not in old:
            score = f", score {hit.score:.3f}" if scores else ""
            rows.append((chunk_id, f"added: none -> rank {rank}{score}"))
    if counts and caps.counts:
        for name in COUNTS:
            one, other = getattr(before, name), getattr(after, name)
            if one != other:
                rows.append((name, f"{one} -> {other}"))
    return aligned(rows)


def aligned(rows: Sequence[tuple[str, str]]) -> list[str]:
    """``name  what changed`` lines, the names padded to one width."""
    width = max((len(name) for name, _ in rows), default=0)
    return [f"{name:<{width}}  {said}" for name, said in rows]


def fused_changes(
    before: Sequence[tuple[str, float]], after: Sequence[tuple[str, float]]
) -> list[str]:
    """:func:`changes` between two fused rankings, ``(chunk_id, score)`` pairs (a chunk
    listed twice is said so)."""
    scored = Capabilities(counts=False, scores=True)
    one, other = (Result(tuple(Hit(c, c, 1, 0, 0, "", s) for c, s in p)) for p in (before, after))
    lines = changes(one, other, scored)
    if len(after) != len({chunk_id for chunk_id, _ in after}) and not lines:
        lines = [f"entries  {len(before)} -> {len(after)}, a chunk listed twice"]
    return lines


def fail_with_diff(what: str, question: str, lines: Sequence[str], note: str = "") -> None:
    """Raise a :class:`Violation`: ``what: <first change> (+N more changes)<note>`` on the
    first line, then ``question``, then every change indented."""
    first = " ".join(lines[0].split()) if lines else "the answers differ"
    more = f" (+{len(lines) - 1} more)" if len(lines) > 1 else ""
    body = "\n".join(f"  {line}" for line in lines)
    raise Violation(f"{what}: {first}{more}{note}\n{question}\n{body}")


def differ(
    what: str,
    question: str,
    before: Result,
    after: Result,
    caps: Capabilities,
    *,
    scores: bool = True,
    counts: bool = True,
) -> None:
    """Raise a :class:`Violation` naming ``what`` and the changes from ``before`` to
    ``after`` when they differ (hits; scores and counts as declared and asked for)."""
    lines = changes(before, after, caps, scores=scores, counts=counts)
    if lines:
        fail_with_diff(what, question, lines, _rounding(before, after, caps, scores))


def _rounding(before: Result, after: Result, caps: Capabilities, scores: bool) -> str:
    if not (scores and caps.scores):
        return ""
    return rounding_note(_whole(before), _whole(after))


def _whole(result: Result) -> tuple[object, ...]:
    hits = tuple((h.chunk_id, *_identity(h), h.score) for h in result.hits)
    return (hits, tuple(getattr(result, name) for name in COUNTS))
