"""Who may see which document: the entitlement rule the labels are judged under.

A document is visible to an asker when it lives in the asker's tenant, its classification
is at most the asker's clearance (in the order of
:data:`~ragward.conformance.records.CLASSIFICATIONS`), and its barrier, if any, is one the
asker holds. Only the current (highest) version of a document counts.

>>> from ragward.conformance.records import Asker, Doc
>>> doc = Doc("acme", "d1", "text", classification="confidential", barrier="deals")
>>> visible(doc, Asker("u", "acme", "restricted", ("deals",)))
True
>>> hidden_because(doc, Asker("u", "acme", "internal", ("deals",)))
"classification 'confidential' is above the asker's clearance 'internal'"
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ragward.conformance.records import CLASSIFICATIONS, Asker, Doc
from ragward.evals.records import Dataset

__all__ = ["current_docs", "hidden_because", "rank", "visible"]

_RANK = {name: number for number, name in enumerate(CLASSIFICATIONS)}


def rank(classification: str) -> int:
    """The sensitivity of ``classification``: 0 for ``public``, growing from there."""
    return _RANK[classification]


def visible(doc: Doc, asker: Asker) -> bool:
    """Whether ``asker`` may see ``doc`` (same tenant, cleared for it, barrier held)."""
    return (
        doc.tenant == asker.tenant
        and _RANK[doc.classification] <= _RANK[asker.max_classification]
        and (doc.barrier is None or doc.barrier in asker.barriers)
    )


def hidden_because(doc: Doc, asker: Asker) -> str | None:
    """Why ``asker`` may not see ``doc``, in words; None when it may."""
    if doc.tenant != asker.tenant:
        return f"tenant {doc.tenant!r} is not the asker's tenant {asker.tenant!r}"
    if _RANK[doc.classification] > _RANK[asker.max_classification]:
        return (
            f"classification {doc.classification!r} is above the asker's clearance "
            f"{asker.max_classification!r}"
        )
    if doc.barrier is not None and doc.barrier not in asker.barriers:
        return f"barrier {doc.barrier!r} is not held by the asker"
    return None


def current_docs(source: Dataset | Iterable[Doc]) -> Mapping[tuple[str, str], Doc]:
    """The current version of every document, keyed by ``(tenant, doc_id)``."""
    docs = source.docs if isinstance(source, Dataset) else source
    current: dict[tuple[str, str], Doc] = {}
    for doc in docs:
        key = (doc.tenant, doc.doc_id)
        known = current.get(key)
        if known is None or doc.version > known.version:
            current[key] = doc
    return current
