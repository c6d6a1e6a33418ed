"""Shared by the tests of the kit's ways in: a throwaway invariant and a leaky adapter.

The throwaway invariant (``ZZ-LEAK``) is registered only for the duration of a test, via
``monkeypatch``, so these tests do not depend on which invariants the kit ships and never
leave anything in the registry.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, replace

import pytest
from hypothesis import strategies as st

from ragward.conformance import REGISTRY, Asker, Doc, Invariant, Policy, Result, Violation
from ragward.conformance.contract import Factory
from ragward.engines.reference import ReferenceSystem

LEAK_ID = "ZZ-LEAK"
NA_ID = "ZZ-NEEDS-ASSEMBLY"
MODULE = "ragward_conform_fixtures"


@dataclass(frozen=True)
class LeakCase:
    docs: tuple[Doc, ...]
    asker: Asker
    query: str


_WORDS = ("payment", "held", "review", "memo", "kestrel")


def _docs() -> st.SearchStrategy[tuple[Doc, ...]]:
    one = st.builds(
        lambda tenant, doc_id, words: Doc(tenant, doc_id, " ".join(words)),
        st.sampled_from(("acme", "globex")),
        st.sampled_from(("d1", "d2", "d3")),
        st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4),
    )
    return st.lists(one, max_size=5, unique_by=lambda d: (d.tenant, d.doc_id)).map(tuple)


def leak_cases() -> st.SearchStrategy[LeakCase]:
    return st.builds(LeakCase, _docs(), st.just(Asker("alice", "acme")), st.sampled_from(_WORDS))


def no_leak(factory: Factory, case: LeakCase) -> None:
    """Every hit is a document of the asker's tenant (a throwaway for the tests)."""
    system = factory()
    for doc in case.docs:
        system.ingest(doc)
    mode = system.capabilities.modes[0]
    result = system.retrieve(case.query, case.asker, 0, Policy(mode=mode))
    own = {d.doc_id: d.text for d in case.docs if d.tenant == case.asker.tenant}
    for hit in result.hits:
        if own.get(hit.doc_id) != hit.text:
            raise Violation(f"hit {hit.chunk_id} ({hit.text!r}) is not a document of acme")


def needs_assembly(factory: Factory, case: LeakCase) -> None:
    """Never runs on an adapter without assembly (a throwaway for the tests)."""


class LeakyReference(ReferenceSystem):
    """The reference with one defect: answers come from every tenant's namespace."""

    def __init__(self) -> None:
        super().__init__()
        self.tenants: set[str] = set()

    def ingest(self, doc: Doc) -> bool:
        self.tenants.add(doc.tenant)
        return super().ingest(doc)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        result = super().retrieve(query, asker, now_tick, policy)
        hits = list(result.hits)
        for tenant in sorted(self.tenants - {asker.tenant}):
            other = replace(asker, tenant=tenant)
            hits += super().retrieve(query, other, now_tick, policy).hits
        hits.sort(key=lambda hit: (-hit.score, hit.chunk_id))
        return replace(result, hits=tuple(hits[: policy.result_limit]))


def leaky_factory() -> LeakyReference:
    return LeakyReference()


def not_a_system() -> object:
    return object()


@pytest.fixture
def throwaway(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register ``ZZ-LEAK`` and ``ZZ-NEEDS-ASSEMBLY``; expose the adapters as a module."""
    import ragward.conformance.invariants  # noqa: F401  (the real ones first)

    leak = Invariant(
        LEAK_ID,
        "isolation",
        "no hit from another tenant",
        no_leak.__doc__ or "",
        (),
        LeakCase,
        leak_cases,
        no_leak,
    )
    needs = Invariant(
        NA_ID,
        "assembly",
        "needs assembly",
        needs_assembly.__doc__ or "",
        ("assembly",),
        LeakCase,
        leak_cases,
        needs_assembly,
    )
    monkeypatch.setitem(REGISTRY, LEAK_ID, leak)
    monkeypatch.setitem(REGISTRY, NA_ID, needs)
    module = types.ModuleType(MODULE)
    module.leaky_factory = leaky_factory  # type: ignore[attr-defined]
    module.not_a_system = not_a_system  # type: ignore[attr-defined]
    module.constant = 3  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, MODULE, module)
