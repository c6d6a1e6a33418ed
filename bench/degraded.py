"""Degraded implementations: the reference with one fault, for the gate's power benchmark.

Each is a real implementation the harness reaches through the same verbs as the
reference (ingest, retrieve, the staged and grounding verbs): the fault is in what it
indexes or how it answers, never in edited figures. A fault is a small frozen record:

* :class:`RankNoise` jitters the order of an answer's first ten hits (Gaussian noise of
  ``strength`` ranks on each position, seeded); with ``strength = inf`` the ten are
  shuffled uniformly;
* :class:`ReversedTop` returns the first ten hits in reverse order (a sort-order bug:
  about half the nDCG@10 of the reference on the bundled set and on SciFact);
* :class:`LostLexical` answers hybrid questions from the dense side alone (the lexical
  ranking lost on the way to fusion);
* :class:`StaleIndex` misses part of the document stream: a ``missing`` share of the
  documents never reaches the index, and a ``frozen`` share keeps its first version
  (later updates lost; the harness counts an outdated version returned as a leak).

Noise and selections are drawn from a seed and the content they apply to (an answer's hit
ids, a document's id) through BLAKE2b, so an answer is the same in every process, whatever
``PYTHONHASHSEED``, and ``retrieve`` agrees with the staged verbs.

    ragward eval --impl ragward.bench.degraded:lost_lexical_factory
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragward.conformance.contract import Capabilities, HitKey, Listing
from ragward.conformance.records import Asker, Doc, Hit, Policy, Result, Support
from ragward.engines.reference import ReferenceSystem, reference_factory
from ragward.errors import InvalidArgument
from ragward.reference import FirstStage

__all__ = [
    "NOISY_DEPTH",
    "Degraded",
    "Fault",
    "Lent",
    "LostLexical",
    "RankNoise",
    "ReversedTop",
    "SharedIndexes",
    "StaleIndex",
    "degraded_factory",
    "halved_factory",
    "lost_lexical_factory",
]

#: How many leading hits rank noise reorders.
NOISY_DEPTH = 10


def _unit(*parts: object) -> int:
    """A 64-bit number drawn from ``parts``: the same in every process."""
    text = "\x1f".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


@dataclass(frozen=True)
class Fault:
    """What a degraded system does differently from the reference: nothing, by default."""

    def policy(self, policy: Policy) -> Policy:
        """The policy the reference is asked under."""
        return policy

    def order(self, keys: Sequence[HitKey]) -> list[int] | None:
        """The new order of the first hits of an answer (positions), or None to keep it."""
        return None

    def keeps(self, doc: Doc, first: bool) -> bool:
        """Whether ``doc`` reaches the index (``first``: no version of it arrived yet)."""
        return True


@dataclass(frozen=True)
class RankNoise(Fault):
    """Each of the first :data:`NOISY_DEPTH` hits moved by Gaussian noise of ``strength``
    ranks (``inf``: a uniform shuffle), drawn from ``seed`` and the hits' ids."""

    strength: float
    seed: int = 0

    def order(self, keys: Sequence[HitKey]) -> list[int] | None:
        head = [key[0] for key in keys[:NOISY_DEPTH]]
        draw = random.Random(_unit("noise", self.seed, *head))
        if math.isinf(self.strength):
            places = list(range(len(head)))
            draw.shuffle(places)
            return places
        jittered = [place + self.strength * draw.gauss(0.0, 1.0) for place in range(len(head))]
        return sorted(range(len(head)), key=lambda place: (jittered[place], place))


@dataclass(frozen=True)
class ReversedTop(Fault):
    """The first :data:`NOISY_DEPTH` hits in reverse order."""

    def order(self, keys: Sequence[HitKey]) -> list[int] | None:
        return list(range(min(len(keys), NOISY_DEPTH)))[::-1]


@dataclass(frozen=True)
class LostLexical(Fault):
    """Hybrid questions answered from the dense ranking alone."""

    def policy(self, policy: Policy) -> Policy:
        return dataclasses.replace(policy, mode="dense") if policy.mode == "hybrid" else policy


@dataclass(frozen=True)
class StaleIndex(Fault):
    """A ``missing`` share of the documents never indexed; a ``frozen`` share of the
    others kept at their first version (drawn per document from ``seed``)."""

    missing: float = 0.0
    frozen: float = 0.0
    seed: int = 0

    def keeps(self, doc: Doc, first: bool) -> bool:
        share = _unit("stale", self.seed, doc.tenant, doc.doc_id) / 2.0**64
        if share < self.missing:
            return False
        return first or share >= self.missing + self.frozen


class Degraded:
    """A reference system answering through ``fault``; the harness sees its verbs only."""

    def __init__(self, inner: ReferenceSystem, fault: Fault, lent: Lent | None = None) -> None:
        self.inner = inner
        self.fault = fault
        self.lent = lent  # what a shared index holds already
        self.held = set() if lent is None else lent.held
        self._arrived: set[tuple[str, str]] = set()
        declared = inner.capabilities
        # only the verbs forwarded here are declared
        self.capabilities: Capabilities = dataclasses.replace(
            declared, chunking=False, assembly=False, fusion=False
        )

    def _admitted(self, doc: Doc) -> bool:
        key = (doc.tenant, doc.doc_id)
        kept = self.fault.keeps(doc, key not in self._arrived)
        self._arrived.add(key)
        return kept

    def ingest(self, doc: Doc) -> bool:
        return self.ingest_many([doc])[0]

    def ingest_many(self, docs: Iterable[Doc]) -> tuple[bool, ...]:
        # A lost write is acknowledged, as a stale replica acknowledges it; so is a
        # version the index holds already. The documents are read once (any iterable).
        docs = list(docs)
        wanted = [
            self._admitted(doc) and (doc.tenant, doc.doc_id, doc.version) not in self.held
            for doc in docs
        ]
        sent = [doc for doc, ok in zip(docs, wanted, strict=True) if ok]
        done = iter(self.inner.ingest_many(sent))
        accepted = tuple(next(done) if ok else True for ok in wanted)
        self.held.update(
            (doc.tenant, doc.doc_id, doc.version)
            for doc, ok, yes in zip(docs, wanted, accepted, strict=True)
            if ok and yes
        )
        return accepted

    def delete(self, tenant: str, doc_id: str) -> None:
        self.inner.delete(tenant, doc_id)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        return self._reordered(
            self.inner.retrieve(query, asker, now_tick, self.fault.policy(policy))
        )

    def first_stage(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> FirstStage:
        return self.first_stages([query], asker, now_tick, policy)[0]

    def first_stages(
        self, queries: Iterable[str], asker: Asker, now_tick: int, policy: Policy
    ) -> list[FirstStage]:
        queries = list(queries)  # read once: any iterable
        if self.lent is None:
            return self.inner.first_stages(queries, asker, now_tick, policy)
        # a shared index's stages are taken once: no fault changes them
        known = self.lent.stages
        missing = [q for q in dict.fromkeys(queries) if (q, asker, now_tick, policy) not in known]
        if missing:
            taken = self.inner.first_stages(missing, asker, now_tick, policy)
            for query, stage in zip(missing, taken, strict=True):
                known[query, asker, now_tick, policy] = stage
        return [known[query, asker, now_tick, policy] for query in queries]

    def finish(self, stage: object, policy: Policy) -> Result:
        return self._reordered(self.inner.finish(stage, self.fault.policy(policy)))

    def finish_listings(
        self, stage: object, policies: Iterable[Policy], top: int
    ) -> tuple[Listing, ...]:
        # the hits noise may move into the top are asked for whole
        asked = [self.fault.policy(policy) for policy in policies]
        listings = self._listings(stage, asked, max(top, NOISY_DEPTH))
        out = []
        for listing in listings:
            places = self.fault.order(listing.keys)
            keys, hits = listing.keys, listing.top
            if places is not None:
                keys = tuple(keys[p] for p in places) + keys[len(places) :]
                hits = tuple(hits[p] for p in places) + hits[len(places) :]
            out.append(Listing(keys, hits[:top]))
        return tuple(out)

    def _listings(self, stage: object, policies: list[Policy], top: int) -> list[Listing]:
        """The reference's listings; a shared index's are made once per stage and policy
        (a stage it lent lives as long as the index, so its id stays its own)."""
        if self.lent is None:
            return list(self.inner.finish_listings(stage, policies, top))
        known = self.lent.listings
        keys = [(id(stage), policy, top) for policy in policies]
        missing = [key for key in dict.fromkeys(keys) if key not in known]
        if missing:
            made = self.inner.finish_listings(stage, [key[1] for key in missing], top)
            known.update(zip(missing, made, strict=True))
        return [known[key] for key in keys]

    def _reordered(self, result: Result) -> Result:
        hits = result.hits
        places = self.fault.order([(h.chunk_id, h.doc_id, h.version) for h in hits])
        if places is None:
            return result
        moved = tuple(hits[p] for p in places) + tuple(hits[len(places) :])
        return dataclasses.replace(result, hits=moved)

    def ground(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], min_overlap: float
    ) -> tuple[Support, ...]:
        return self.inner.ground(claims, retrieved, min_overlap)

    def ground_sweep(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], thresholds: Iterable[float]
    ) -> list[tuple[Support, ...]]:
        return self.inner.ground_sweep(claims, retrieved, thresholds)


def degraded_factory(fault: Fault, name: str | None = None) -> Callable[..., Degraded]:
    """A factory of fresh reference systems degraded by ``fault``, taking the grid's index
    settings and reranker as the reference's factory does."""
    return _factory(lambda settings: (reference_factory(**settings), None), fault, name)


@dataclass(frozen=True)
class Lent:
    """What an index shared by :class:`SharedIndexes` holds: the document versions
    indexed, the first stages taken (by question and wide policy) and the reference's
    listings finished from them (by stage, policy and whole hits)."""

    held: set[tuple[str, str, int]] = field(default_factory=set)
    stages: dict[tuple[str, Asker, int, Policy], FirstStage] = field(default_factory=dict)
    listings: dict[tuple[int, Policy, int], Listing] = field(default_factory=dict)


class SharedIndexes:
    """Reference indexes built once and lent to the systems of faults that change
    neither the index nor the first stages (noise in the answers): a later run of a grid
    finds every document version indexed already, and the harness's ingest of it is
    acknowledged, not redone; a first stage asked again is the one taken before, and so
    is the reference's listing of it under a policy, which the fault then reorders. Work
    a new seed does not change is done once."""

    def __init__(self) -> None:
        self._built: dict[tuple[Any, ...], tuple[ReferenceSystem, Lent]] = {}

    def factory(self, fault: Fault, name: str | None = None) -> Callable[..., Degraded]:
        """:func:`degraded_factory` over the indexes built so far."""
        if type(fault).keeps is not Fault.keeps:
            raise InvalidArgument(f"{fault!r} changes what is indexed: no index to share")

        def lent(settings: dict[str, Any]) -> tuple[ReferenceSystem, Lent]:
            key = tuple(sorted(settings.items()))
            if key not in self._built:
                self._built[key] = (reference_factory(**settings), Lent())
            return self._built[key]

        return _factory(lent, fault, name)


def _factory(
    inner: Callable[[dict[str, Any]], tuple[ReferenceSystem, Lent | None]],
    fault: Fault,
    name: str | None,
) -> Callable[..., Degraded]:
    def factory(
        *,
        max_tokens: int | None = None,
        overlap_tokens: int | None = None,
        embedder: str | None = None,
        reranker: str | None = None,
    ) -> Degraded:
        settings = {
            "max_tokens": max_tokens,
            "overlap_tokens": overlap_tokens,
            "embedder": embedder,
            "reranker": reranker,
        }
        system, lent = inner(settings)
        return Degraded(system, fault, lent)

    factory.__name__ = name or f"degraded[{fault!r}]"
    return factory


def halved_factory(**settings: Any) -> Degraded:
    """The reference with its first ten hits reversed: about half its nDCG@10."""
    return degraded_factory(ReversedTop())(**settings)


def lost_lexical_factory(**settings: Any) -> Degraded:
    """The reference answering hybrid questions from the dense side alone."""
    return degraded_factory(LostLexical())(**settings)
