"""An implementation's answers, checked for shape and read: documents, leaks, top hits.

Every answer is checked against the dataset's own view of what the asker may see, so
leakage is measured, not trusted: a (document, version) pair may answer a question when
the document is current at that version, visible to the asker and fresh enough.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter, itemgetter

from ragward.clipped import clip
from ragward.conformance.contract import Listing
from ragward.conformance.records import Doc, Hit, Result
from ragward.conformance.visibility import entitled
from ragward.errors import AdapterError
from ragward.evals.grid_outcome import Answer, Question
from ragward.evals.systems import a_type

__all__ = ["ViewChecks", "check_listing", "check_result", "read_answer"]


def check_result(result: object, call: str) -> None:
    """Refuse an answer that is not a Result of Hits: reading it would crash later with
    an error naming no implementation and no call."""
    if not isinstance(result, Result):
        raise AdapterError(f"{call} returned {a_type(result)}, not ragward.conformance.Result")
    if not isinstance(result.hits, tuple | list):
        raise AdapterError(f"{call} returned hits as a {type(result.hits).__name__}")
    wrong = [hit for hit in result.hits if not isinstance(hit, Hit)]
    if wrong:
        raise AdapterError(f"{call} returned a hit that is {a_type(wrong[0])}, not a Hit")


def check_listing(listing: object, call: str, depth: int) -> None:
    """Refuse a listing of the wrong shape, or whose top hits are not its first keys: each
    key is looked at in C (types and lengths), the few top hits one by one."""
    if not isinstance(listing, Listing):
        raise AdapterError(
            f"{call} returned {a_type(listing)}, not ragward.conformance.contract.Listing"
        )
    keys, top = listing.keys, listing.top
    if not isinstance(keys, tuple) or not isinstance(top, tuple):
        raise AdapterError(f"{call} returned a Listing whose keys or top is not a tuple")
    if keys and (set(map(type, keys)) != {tuple} or set(map(len, keys)) != {3}):
        raise AdapterError(f"{call} returned a key that is not a (chunk_id, doc_id, version)")
    if len(top) != min(depth, len(keys)):
        raise AdapterError(
            f"{call} returned {len(top)} top hits for {len(keys)} keys; expected "
            f"{min(depth, len(keys))}"
        )
    for hit, key in zip(top, keys, strict=False):
        if not isinstance(hit, Hit):
            raise AdapterError(f"{call} returned a top hit that is {a_type(hit)}, not a Hit")
        if (hit.chunk_id, hit.doc_id, hit.version) != key:
            raise AdapterError(
                f"{call} returned top hit {clip(repr(hit.chunk_id), 80)} "
                f"for key {clip(repr(key), 80)}"
            )


class ViewChecks:
    """For one view (asker, time and freshness contract), the (document, version) pairs
    answers in it returned so far, and those of them that may not answer in it: whether a
    pair may answer depends on nothing else, so every question asked in the view shares
    one."""

    __slots__ = ("refused", "seen")

    def __init__(self) -> None:
        self.seen: set[tuple[str, int]] = set()
        self.refused: set[tuple[str, int]] = set()


def read_answer(
    result: Result | Listing,
    question: Question,
    current: Mapping[tuple[str, str], Doc],
    checked: ViewChecks | None = None,
    keep: int | None = None,
) -> Answer:
    """The answer ``result`` gives ``question``: its documents by first occurrence, the
    chunks it should not have returned, and its first ``keep`` hits (all, if None).
    ``checked`` remembers, for the question's view, which (document, version) pairs may
    not answer in it; each pair is looked up once, the rest are set operations."""
    if isinstance(result, Listing):
        keys = result.keys
        hits = result.top
        doc_ids = map(_DOC_ID_OF_KEY, keys)
        returned = set(map(_DOC_VERSION_OF_KEY, keys))
    else:
        hits = result.hits
        doc_ids = map(_DOC_ID, hits)
        returned = set(zip(map(_DOC_ID, hits), map(_VERSION, hits), strict=True))
    checked = ViewChecks() if checked is None else checked
    new = returned - checked.seen
    if new:
        tenant = question.asker.tenant
        for pair in new:
            if not _allowed(current.get((tenant, pair[0])), pair[1], question):
                checked.refused.add(pair)
        checked.seen |= new
    leaked: tuple[str, ...] = ()
    refused = returned & checked.refused
    if refused:
        if isinstance(result, Listing):
            leaked = tuple(key[0] for key in result.keys if (key[1], key[2]) in refused)
        else:
            leaked = tuple(h.chunk_id for h in result.hits if (h.doc_id, h.version) in refused)
    return Answer(tuple(dict.fromkeys(doc_ids)), leaked, tuple(hits[:keep]))


_DOC_ID = attrgetter("doc_id")
_VERSION = attrgetter("version")
_DOC_ID_OF_KEY = itemgetter(1)
_DOC_VERSION_OF_KEY = itemgetter(1, 2)


def _allowed(doc: Doc | None, version: int, question: Question) -> bool:
    """Whether a hit of ``version`` of ``doc`` may answer ``question``: the document is
    current at that version, visible to the asker and fresh enough."""
    if doc is None or doc.version != version or not entitled(doc, question.asker):
        return False
    return (
        question.max_stale_ticks is None
        or question.now_tick - doc.updated_tick <= question.max_stale_ticks
    )
