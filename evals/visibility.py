"""Who may see which document, as the labels are judged: the kit's entitlement rule
(:mod:`ragward.conformance.visibility`), its refusals put in words, and the current
version of every document (only the highest version counts).

>>> from ragward.conformance.records import Asker, Doc
>>> doc = Doc("acme", "d1", "text", classification="confidential", barrier="deals")
>>> hidden_because(doc, Asker("u", "acme", "restricted", ("deals",))) is None
True
>>> hidden_because(doc, Asker("u", "acme", "internal", ("deals",)))
"classification 'confidential' is above the asker's clearance 'internal'"
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ragward.conformance.records import Asker, Doc
from ragward.conformance.visibility import refusal
from ragward.evals.records import Dataset

__all__ = ["current_docs", "hidden_because"]


def hidden_because(doc: Doc, asker: Asker) -> str | None:
    """Why ``asker`` may not see ``doc``, in words; None when it may."""
    reason = refusal(doc, asker)
    if reason == "tenant":
        return f"tenant {doc.tenant!r} is not the asker's tenant {asker.tenant!r}"
    if reason == "classification":
        return (
            f"classification {doc.classification!r} is above the asker's clearance "
            f"{asker.max_classification!r}"
        )
    if reason == "barrier":
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
