"""The kit's own model of the eligible view, and the checks every retrieval goes through.

Nothing here trusts the implementation: a hit is resolved against the documents the kit
ingested (by the asker's tenant and the hit's ``doc_id``), its version and text are
compared with what is live, and the fingerprints its text carries (see
:func:`ragward.conformance.strategies.fingerprint`) must all belong to that document.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from ragward.conformance.contract import Capabilities, Factory, RetrievalSystem
from ragward.conformance.floods import Flooded
from ragward.conformance.invariant import Violation
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.conformance.strategies import fingerprints_in
from ragward.conformance.visibility import entitled, fresh, in_view

__all__ = [
    "answer",
    "bare",
    "bare_too",
    "build",
    "check_counts",
    "check_hits",
    "fit_doc",
    "fit_policy",
    "fitted_case",
    "flood_systems",
    "label",
    "live_of",
    "prepare",
    "ranked",
    "with_and_without",
]

Live = Mapping[tuple[str, str], Doc]
_DEFAULT = Policy()


def fit_policy(policy: Policy, caps: Capabilities) -> Policy:
    """``policy`` restricted to what the adapter declares; the rest at its default."""
    mode = policy.mode if policy.mode in caps.modes else caps.modes[0]
    out = replace(policy, mode=mode)
    if not caps.rerank_toggle:
        out = replace(out, rerank=_DEFAULT.rerank)
    if not caps.policy_knobs:
        out = replace(
            out,
            rrf_k=_DEFAULT.rrf_k,
            rerank_min_score=_DEFAULT.rerank_min_score,
            candidate_limit=_DEFAULT.candidate_limit,
            result_limit=_DEFAULT.result_limit,
        )
    if not caps.freshness:
        out = replace(out, max_stale_ticks=None)
    if not caps.document_limits:
        out = replace(out, limit_unit=_DEFAULT.limit_unit)
    if out.fusion not in caps.fusion_methods:
        out = replace(out, fusion=_DEFAULT.fusion)
    if not caps.fusion_weights:
        out = replace(out, dense_weight=_DEFAULT.dense_weight)
    return out


def bare(policy: Policy, caps: Capabilities, mode: str) -> Policy:
    """``policy`` in ``mode`` with rerank off, fitted: where first-stage scores show."""
    return fit_policy(replace(policy, mode=mode, rerank=False), caps)


def bare_too(
    policy: Policy, caps: Capabilities, modes: tuple[str, ...] | None = None
) -> list[Policy]:
    """``policy``, then each of ``modes`` (default: every declared mode) bare, once each.

    A reranker's score, or fusion, can hide first-stage statistics, so a rule about
    scores reads them bare too. An adapter without the rerank toggle has none to switch
    off: each of its modes is already bare. A mode the adapter does not declare is left
    out.
    """
    out = [policy]
    for mode in caps.modes if modes is None else modes:
        if mode in caps.modes and (each := bare(policy, caps, mode)) not in out:
            out.append(each)
    return out


def fit_doc(doc: Doc, caps: Capabilities) -> Doc:
    """``doc`` without a barrier when the adapter declares no barriers."""
    return doc if caps.barriers else replace(doc, barrier=None)


def fitted_case(case: object, caps: Capabilities) -> object:
    """``case`` with every policy and document in it fitted to ``caps``: what the
    adapter is actually sent, as a counterexample should show it."""
    if isinstance(case, Policy):
        return fit_policy(case, caps)
    if isinstance(case, Doc):
        return fit_doc(case, caps)
    if isinstance(case, tuple):
        return tuple(fitted_case(item, caps) for item in case)
    if isinstance(case, list):
        return [fitted_case(item, caps) for item in case]
    if dataclasses.is_dataclass(case) and not isinstance(case, type):
        changes = {
            f.name: fitted_case(getattr(case, f.name), caps)
            for f in dataclasses.fields(case)
            if f.init
        }
        return dataclasses.replace(case, **changes)
    return case


def label(doc: Doc) -> str:
    """``tenant/doc_id vN``, for messages."""
    return f"{doc.tenant}/{doc.doc_id} v{doc.version}"


def build(factory: Factory, docs: Iterable[Doc]) -> RetrievalSystem:
    """A fresh system with ``docs`` ingested in order (each a new key: all must be taken)."""
    system = factory()
    for doc in docs:
        if system.ingest(doc) is not True:
            raise Violation(f"ingest of new document {label(doc)} was refused")
    return system


def _traceable(text: str, start: int, end: int, source: str) -> bool:
    if 0 <= start <= end <= len(source) and source[start:end] == text:
        return True
    # Citation exactness is provenance's business; here the words must come from the doc.
    return " ".join(text.split()) in " ".join(source.split())


def _owners(fingerprints: Iterable[str], written: Sequence[Doc], text: str = "") -> str:
    """Who the text of a hit belongs to: the documents holding its fingerprints, else
    (a minimised case keeps none) the documents whose whole text it is."""
    owners = sorted({label(d) for d in written for f in fingerprints if f in d.text})
    if not owners and text.strip():
        owners = sorted({label(d) for d in written if d.text.strip() == text.strip()})
    return f" (its text belongs to {', '.join(owners)})" if owners else ""


def check_hits(
    result: Result,
    asker: Asker,
    now_tick: int,
    policy: Policy,
    live: Live,
    written: Sequence[Doc] = (),
) -> None:
    """Every hit resolves to a live document version of the asker's tenant, in their view.

    ``live`` maps ``(tenant, doc_id)`` to the live version; ``written`` is every version
    ever ingested (to name the owner of a leaked text in the message).
    """
    barriers = list(asker.barriers)
    who = f"{asker.user_id}@{asker.tenant} ({asker.max_classification}, barriers {barriers})"
    seen: set[str] = set()
    for hit in result.hits:
        marks = fingerprints_in(hit.text)
        doc = live.get((asker.tenant, hit.doc_id))
        if doc is None:
            raise Violation(
                f"{who} got hit {hit.chunk_id!r} of {hit.doc_id!r}, which tenant "
                f"{asker.tenant!r} does not hold (deleted or never written)"
                + _owners(marks, written)
            )
        if hit.version != doc.version:
            raise Violation(
                f"{who} got {hit.doc_id!r} v{hit.version}, but the live version is "
                f"v{doc.version}" + _owners(marks, written)
            )
        foreign = marks - fingerprints_in(doc.text)
        if foreign or not _traceable(hit.text, hit.start, hit.end, doc.text):
            raise Violation(
                f"{who} got hit {hit.chunk_id!r} citing {label(doc)}, but its text "
                f"{hit.text[:60]!r} is not from that document"
                + _owners(foreign, [d for d in written if d is not doc], hit.text)
            )
        if not entitled(doc, asker):
            raise Violation(
                f"{who} got {label(doc)}, classified {doc.classification!r} behind barrier "
                f"{doc.barrier!r}: outside their entitlement"
            )
        if not fresh(doc, now_tick, policy):
            raise Violation(
                f"{who} got {label(doc)} updated at tick {doc.updated_tick}, stale at tick "
                f"{now_tick} under max_stale_ticks={policy.max_stale_ticks}"
            )
        # Last: a repeated id whose text is another tenant's is said as that leak, not as
        # a repeat (LlamaIndex returned globex's d1::1 beside acme's d1::1).
        if hit.chunk_id in seen:
            raise Violation(f"chunk {hit.chunk_id!r} returned twice to {who}")
        seen.add(hit.chunk_id)


def check_counts(result: Result, asker: Asker, now_tick: int, policy: Policy, live: Live) -> None:
    """The audit counts are present, non-negative, add up, count at least every hit
    returned, and are zero where the model says nothing of their kind exists in the
    asker's tenant."""
    counts = (result.considered, result.excluded_by_entitlement, result.excluded_by_freshness)
    considered, hidden, stale = counts
    if considered is None or hidden is None or stale is None:
        raise Violation(f"capability counts is declared but a result has counts {counts}")
    if min(considered, hidden, stale) < 0:
        raise Violation(f"negative audit count in {counts} (considered, entitlement, freshness)")
    if hidden + stale > considered:
        raise Violation(
            f"excluded_by_entitlement={hidden} + excluded_by_freshness={stale} exceed "
            f"considered={considered}"
        )
    eligible = considered - hidden - stale
    if eligible < len(result.hits):
        raise Violation(
            f"{len(result.hits)} hits came back, but the counts {counts} leave {eligible} "
            "matching chunks in the asker's view: every hit is a match and is counted"
        )
    mine = [d for d in live.values() if d.tenant == asker.tenant]
    if not mine and considered:
        raise Violation(
            f"considered={considered} for tenant {asker.tenant!r}, which holds no document"
        )
    if hidden and all(entitled(d, asker) for d in mine):
        raise Violation(
            f"excluded_by_entitlement={hidden}, but every live document of {asker.tenant!r} "
            f"is visible to {asker.user_id}"
        )
    if stale and all(fresh(d, now_tick, policy) for d in mine if entitled(d, asker)):
        raise Violation(
            f"excluded_by_freshness={stale}, but no visible live document of "
            f"{asker.tenant!r} is stale at tick {now_tick}"
        )


def ranked(result: Result) -> tuple[tuple[str, str, int, int, int, str], ...]:
    """The identity of each hit, in rank order (scores aside)."""
    return tuple((h.chunk_id, h.doc_id, h.version, h.start, h.end, h.text) for h in result.hits)


def answer(result: Result, caps: Capabilities, *, scores: bool = True) -> tuple[object, ...]:
    """What must not change: ranked hits, their scores and the counts, as declared."""
    parts: list[object] = [ranked(result)]
    if scores and caps.scores:
        parts.append(tuple(h.score for h in result.hits))
    if caps.counts:
        parts.append(
            (result.considered, result.excluded_by_entitlement, result.excluded_by_freshness)
        )
    return tuple(parts)


#: Relative differences up to this are reported as rounding (a float32 score has ~6e-8).
ROUNDING = 1e-6


def rounding_note(before: object, after: object) -> str:
    """`` (only floats differ, by at most 1.2e-07 relative: rounding)`` when ``before``
    and ``after`` have the same shape, the same non-float leaves, and floats that differ
    by at most :data:`ROUNDING` relative; empty otherwise."""
    worst = _float_gap(before, after)
    if worst is None or worst == 0.0:
        return ""
    return f" (only floats differ, by at most {worst:.1e} relative: rounding)"


def _float_gap(before: object, after: object) -> float | None:
    if isinstance(before, float) and isinstance(after, float):
        scale = max(abs(before), abs(after))
        gap = abs(before - after) / scale if scale else 0.0
        return gap if gap <= ROUNDING else None
    if isinstance(before, tuple | list) and isinstance(after, tuple | list):
        if len(before) != len(after):
            return None
        worst = 0.0
        for one, other in zip(before, after, strict=True):
            inner = _float_gap(one, other)
            if inner is None:
                return None
            worst = max(worst, inner)
        return worst
    return 0.0 if before == after else None


def prepare(
    factory: Factory, docs: Iterable[Doc], policy: Policy
) -> tuple[RetrievalSystem, Capabilities, tuple[Doc, ...], Policy]:
    """A fresh system holding ``docs`` fitted to its capabilities, and the fitted policy."""
    system = factory()
    caps = system.capabilities
    fitted = tuple(fit_doc(doc, caps) for doc in docs)
    for doc in fitted:
        if system.ingest(doc) is not True:
            raise Violation(f"ingest of new document {label(doc)} was refused")
    return system, caps, fitted, fit_policy(policy, caps)


def live_of(docs: Iterable[Doc]) -> dict[tuple[str, str], Doc]:
    """``docs`` (distinct keys) by key."""
    return {(doc.tenant, doc.doc_id): doc for doc in docs}


def flood_systems(
    factory: Factory, case: Flooded, policy: Policy | None = None
) -> tuple[Capabilities, Policy, RetrievalSystem, RetrievalSystem, list[Doc]]:
    """Systems holding the scene without and with its flood (only the flood documents
    that stay outside the asker's view once fitted to the capabilities), the fitted
    policy, and the flood documents ingested."""
    scene = case.scene
    base, caps, _, fitted = prepare(factory, scene.docs, policy or scene.policy)
    mixed: list[Doc] = []
    hidden: list[Doc] = []
    for doc, flooding in case.merged():
        doc = fit_doc(doc, caps)
        if flooding:
            if in_view(doc, scene.asker, scene.now_tick, fitted):
                continue
            hidden.append(doc)
        mixed.append(doc)
    return caps, fitted, base, build(factory, mixed), hidden


def with_and_without(
    factory: Factory, case: Flooded, policy: Policy | None = None
) -> tuple[Capabilities, Policy, Result, Result, list[Doc]]:
    """The scene's answer without and with its flood (see :func:`flood_systems`)."""
    caps, fitted, base, full, hidden = flood_systems(factory, case, policy)
    scene = case.scene
    before = base.retrieve(scene.query, scene.asker, scene.now_tick, fitted)
    after = full.retrieve(scene.query, scene.asker, scene.now_tick, fitted)
    return caps, fitted, before, after, hidden
