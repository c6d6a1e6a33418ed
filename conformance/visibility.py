"""Who may see a document: the rule of the eligible view, written once.

A document is *entitled* to an asker when it lives in the asker's tenant, its
classification is at most the asker's clearance (in the order of
:data:`~ragward.conformance.records.CLASSIFICATIONS`), and its barrier, if any, is one the
asker is inside. It is *fresh* at ``now_tick`` when the policy has no freshness contract
or the document's age is at most ``max_stale_ticks`` (an age equal to the bound is fresh).
It lies in the eligible view ``E(asker, now_tick)`` when it is both. The kit's checks, its
strategies and the evals' labels (leakage, gold contexts, qrels) all call these functions.

>>> from ragward.conformance.records import Asker, Doc, Policy
>>> doc = Doc("acme", "d1", "text", classification="confidential", barrier="deals")
>>> entitled(doc, Asker("u", "acme", "restricted", ("deals",)))
True
>>> refusal(doc, Asker("u", "acme", "internal", ("deals",)))
'classification'
>>> fresh(doc, 10, Policy(max_stale_ticks=10)), fresh(doc, 11, Policy(max_stale_ticks=10))
(True, False)
"""

from __future__ import annotations

from ragward.conformance.records import CLASSIFICATIONS, Asker, Doc, Policy

__all__ = ["entitled", "fresh", "in_view", "rank", "refusal"]

_RANK = {name: number for number, name in enumerate(CLASSIFICATIONS)}


def rank(classification: str) -> int:
    """The sensitivity of ``classification``: 0 for ``public``, growing from there."""
    return _RANK[classification]


def refusal(doc: Doc, asker: Asker) -> str | None:
    """The first condition of entitlement ``doc`` fails for ``asker``: ``"tenant"``,
    ``"classification"`` or ``"barrier"``; None when the asker is entitled to it."""
    if doc.tenant != asker.tenant:
        return "tenant"
    if _RANK[doc.classification] > _RANK[asker.max_classification]:
        return "classification"
    if doc.barrier is not None and doc.barrier not in asker.barriers:
        return "barrier"
    return None


def entitled(doc: Doc, asker: Asker) -> bool:
    """Same tenant, classification within clearance, no barrier or one the asker is in."""
    return refusal(doc, asker) is None


def fresh(doc: Doc, now_tick: int, policy: Policy) -> bool:
    """Fresh under the policy's freshness contract (an age equal to the bound is fresh)."""
    limit = policy.max_stale_ticks
    return limit is None or now_tick - doc.updated_tick <= limit


def in_view(doc: Doc, asker: Asker, now_tick: int, policy: Policy) -> bool:
    """Whether ``doc`` lies in the eligible view ``E(asker, now_tick)``."""
    return entitled(doc, asker) and fresh(doc, now_tick, policy)
