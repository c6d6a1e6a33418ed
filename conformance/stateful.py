"""Programs of writes and reads, run against a model that checks after every step.

:class:`Executor` runs one :class:`~ragward.conformance.programs.Op` at a time against a
system and a simple model of what must be live: which writes must be taken or refused,
which document version every hit must come from, what the audit counts may say, and that
the answer equals that of a fresh system holding only the live documents. Case-based
invariants run whole programs through it; :class:`LifecycleMachine` (a hypothesis
``RuleBasedStateMachine``) drives it one rule at a time::

    TestLifecycle = machine_for(my_factory).TestCase
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from ragward.conformance.answer_diff import asked, differ
from ragward.conformance.contract import Factory, RetrievalSystem
from ragward.conformance.invariant import Violation
from ragward.conformance.programs import Key, Op, Program
from ragward.conformance.records import CLASSIFICATIONS, Asker, Doc, Hit, Policy, Result
from ragward.conformance.strategies import (
    BARRIERS,
    DOC_IDS,
    MAX_TICK,
    TENANTS,
    askers,
    documents,
    fingerprints_in,
    policies,
    queries,
    restamp,
)
from ragward.conformance.view import (
    bare,
    build,
    check_counts,
    check_hits,
    fit_doc,
    fit_policy,
    label,
)
from ragward.conformance.visibility import in_view

__all__ = ["ALONE", "CHECKS", "Executor", "LifecycleMachine", "machine_for", "run_program"]

#: What an executor can check: write verdicts, hits against the model, audit counts, and
#: the answer (ids, scores, counts) against a fresh system holding the live documents
#: (with ``alone``: only the asker's tenant's). ``found``, asked for by name: a live
#: document the question names by fingerprint is in the answer when a fresh system
#: holding it alone answers with it (see :meth:`Executor.found`).
CHECKS: frozenset[str] = frozenset(
    {"writes", "hits", "counts", "fresh-ids", "fresh-scores", "fresh-counts"}
)
ALONE: frozenset[str] = CHECKS | {"alone"}


class Executor:
    """One system under test and the model it is checked against."""

    def __init__(self, factory: Factory, policy: Policy, checks: frozenset[str] = CHECKS):
        self.factory = factory
        self.system: RetrievalSystem = factory()
        self.caps = self.system.capabilities
        self.policy = fit_policy(policy, self.caps)
        self.checks = checks
        #: The live version of each key, in the order of their last write.
        self.live: dict[tuple[str, str], Doc] = {}
        self.newest: dict[tuple[str, str], int] = {}
        self.written: list[Doc] = []
        #: Fresh systems holding one document each, built when ``found`` needs one.
        self.solo: dict[Doc, RetrievalSystem] = {}

    def run(self, op: Op) -> None:
        """Execute one step and check it."""
        if op.kind == "ingest" and op.doc is not None:
            self.ingest(op.doc)
        elif op.kind == "delete" and op.key is not None:
            self.delete(op.key)
        elif op.kind == "retrieve" and op.asker is not None:
            self.retrieve(op.asker, op.query, op.now_tick)
        else:
            raise ValueError(f"malformed step {op!r}")

    def ingest(self, doc: Doc) -> None:
        doc = fit_doc(doc, self.caps)
        key = (doc.tenant, doc.doc_id)
        if key in self.newest and not self.caps.versions:
            return  # re-versions cannot be asked about
        accepted = self.system.ingest(doc)
        if not isinstance(accepted, bool):
            raise Violation(f"ingest of {label(doc)} returned {accepted!r}, not a bool")
        self.written.append(doc)
        newest, current = self.newest.get(key, 0), self.live.get(key)
        if "writes" in self.checks:
            if doc.version > newest and not accepted:
                raise Violation(
                    f"ingest of {label(doc)} was refused, though the newest version ever "
                    f"written is v{newest}"
                    if newest
                    else f"ingest of new {label(doc)} refused"
                )
            if current is not None and doc.version <= current.version and accepted:
                raise Violation(
                    f"ingest of {label(doc)} was accepted over live v{current.version}: "
                    "an out-of-order write must be refused"
                )
            if current is None and doc.version <= newest and accepted:
                raise Violation(
                    f"ingest of {label(doc)} was accepted after v{newest} was written and "
                    "deleted: a delete keeps the version, so a late, older write cannot "
                    "bring the document back"
                )
        if accepted:
            self.live.pop(key, None)
            self.live[key] = doc
            self.newest[key] = max(newest, doc.version)

    def delete(self, key: Key) -> None:
        if not self.caps.delete:
            return
        self.system.delete(key.tenant, key.doc_id)
        self.live.pop((key.tenant, key.doc_id), None)

    def retrieve(self, asker: Asker, query: str, now_tick: int) -> None:
        result = self.system.retrieve(query, asker, now_tick, self.policy)
        if "hits" in self.checks:
            check_hits(result, asker, now_tick, self.policy, self.live, self.written)
        if "counts" in self.checks and self.caps.counts:
            check_counts(result, asker, now_tick, self.policy, self.live)
        if "found" in self.checks:
            self.found(result, asker, query, now_tick)
        if not self.checks & {"fresh-ids", "fresh-scores", "fresh-counts"}:
            return
        docs = list(self.live.values())
        holding = "the live documents"
        if "alone" in self.checks:
            docs = [d for d in docs if d.tenant == asker.tenant]
            holding = f"{asker.tenant!r}'s live documents alone"
        fresh = build(self.factory, docs)
        other = fresh.retrieve(query, asker, now_tick, self.policy)
        what = f"vs a fresh system holding {holding}"
        question = asked(query, asker, now_tick, self.policy, self.caps)
        if "fresh-ids" in self.checks:
            differ(f"hits {what}", question, other, result, self.caps, scores=False, counts=False)
        if "fresh-scores" in self.checks and self.caps.scores:
            differ(f"scores {what}", question, _scored(other), _scored(result), self.caps)
            if "lexical" in self.caps.modes:
                # Bare BM25 scores: fusion and rerank hide statistics that drift.
                lexical = bare(self.policy, self.caps, "lexical")
                differ(
                    f"lexical scores {what}",
                    asked(query, asker, now_tick, lexical, self.caps),
                    _scored(fresh.retrieve(query, asker, now_tick, lexical)),
                    _scored(self.system.retrieve(query, asker, now_tick, lexical)),
                    self.caps,
                )
        if "fresh-counts" in self.checks and self.caps.counts:
            differ(
                f"counts {what}",
                question,
                replace(other, hits=()),
                replace(result, hits=()),
                self.caps,
            )

    def found(self, result: Result, asker: Asker, query: str, now_tick: int) -> None:
        """Every live document in the asker's view that ``query`` names by fingerprint is
        in the answer, if a fresh system holding that document alone answers with it and
        the answer has room (fewer hits than the policy's limits): a document another
        identity's write took the place of, or a cache answered for another, is missing.
        Judged against the system itself, so no recall is asked of it that it lacks."""
        room = min(self.policy.candidate_limit, self.policy.result_limit)
        if len(result.hits) >= room:
            return
        named = fingerprints_in(query)
        got = {(hit.doc_id, hit.version) for hit in result.hits}
        for doc in self.live.values():
            if (
                doc.tenant != asker.tenant
                or (doc.doc_id, doc.version) in got
                or not fingerprints_in(doc.text) & named
                or not in_view(doc, asker, now_tick, self.policy)
            ):
                continue
            if doc not in self.solo:
                self.solo[doc] = build(self.factory, [doc])
            alone = self.solo[doc].retrieve(query, asker, now_tick, self.policy)
            if any(hit.doc_id == doc.doc_id for hit in alone.hits):
                raise Violation(
                    f"{asker.user_id!r}@{asker.tenant!r} asked {query!r}, which names "
                    f"{doc.tenant!r}/{doc.doc_id!r} v{doc.version} (in their view), and got "
                    f"{sorted(got)!r}: a fresh system holding that document alone answers "
                    "with it"
                )


def run_program(factory: Factory, program: Program, checks: frozenset[str] = CHECKS) -> None:
    """Run ``program`` step by step against a fresh system; raise on the first breach."""
    executor = Executor(factory, program.policy, checks)
    for op in program.ops:
        executor.run(op)


class LifecycleMachine(RuleBasedStateMachine):
    """Random ingests, re-versions, reclassifications, stale writes, deletes and
    retrievals by several principals, each step checked by an :class:`Executor`.

    Set :attr:`factory` (see :func:`machine_for`) before running it.
    """

    factory: ClassVar[Callable[[], Any] | None] = None

    def __init__(self) -> None:
        super().__init__()
        self.executor: Executor | None = None
        self.texts: list[str] = []

    @property
    def model(self) -> Executor:
        if self.executor is None:
            raise RuntimeError("LifecycleMachine.start has not run")
        return self.executor

    def _do(self, op: Op) -> None:
        if op.doc is not None:
            self.texts.append(op.doc.text)
        self.model.run(op)

    def _key(self, data: st.DataObject) -> tuple[str, str]:
        return data.draw(st.sampled_from(sorted(self.model.live)))

    @initialize(policy=policies())
    def start(self, policy: Policy) -> None:
        factory = type(self).factory
        if factory is None:
            raise RuntimeError("LifecycleMachine.factory is not set; use machine_for(factory)")
        self.executor = Executor(factory, policy)

    @rule(data=st.data(), tenant=st.sampled_from(TENANTS[:2]), doc_id=st.sampled_from(DOC_IDS))
    def ingest(self, data: st.DataObject, tenant: str, doc_id: str) -> None:
        version = self.model.newest.get((tenant, doc_id), 0) + 1
        self._do(Op("ingest", doc=data.draw(documents(tenant, doc_id, version=version))))

    @precondition(lambda self: bool(self.model.live))
    @rule(data=st.data())
    def reversion(self, data: st.DataObject) -> None:
        tenant, doc_id = self._key(data)
        version = self.model.newest[(tenant, doc_id)] + data.draw(st.integers(1, 2))
        self._do(Op("ingest", doc=data.draw(documents(tenant, doc_id, version=version))))

    @precondition(lambda self: bool(self.model.live))
    @rule(
        data=st.data(),
        classification=st.sampled_from(CLASSIFICATIONS),
        barrier=st.one_of(st.none(), st.sampled_from(BARRIERS)),
        tick=st.integers(0, MAX_TICK),
    )
    def reclassify(
        self, data: st.DataObject, classification: str, barrier: str | None, tick: int
    ) -> None:
        key = self._key(data)
        old = self.model.live[key]
        new = Doc(
            old.tenant,
            old.doc_id,
            old.text,
            old.title,
            classification,
            barrier,
            self.model.newest[key] + 1,
            tick,
        )
        self._do(Op("ingest", doc=restamp(new)))

    @precondition(lambda self: bool(self.model.live))
    @rule(data=st.data())
    def stale_write(self, data: st.DataObject) -> None:
        tenant, doc_id = self._key(data)
        version = data.draw(st.integers(1, self.model.newest[(tenant, doc_id)]))
        self._do(Op("ingest", doc=data.draw(documents(tenant, doc_id, version=version))))

    @precondition(lambda self: bool(self.model.live))
    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        tenant, doc_id = self._key(data)
        self._do(Op("delete", key=Key(tenant, doc_id)))

    @rule(data=st.data(), asker=askers(TENANTS[:2]), now_tick=st.integers(0, MAX_TICK))
    def retrieve(self, data: st.DataObject, asker: Asker, now_tick: int) -> None:
        query = data.draw(queries(self.texts))
        self._do(Op("retrieve", asker=asker, query=query, now_tick=now_tick))


def machine_for(factory: Factory) -> type[LifecycleMachine]:
    """A :class:`LifecycleMachine` subclass bound to ``factory``."""
    name = getattr(factory, "__name__", "impl")
    return type(f"LifecycleMachine_{name}", (LifecycleMachine,), {"factory": staticmethod(factory)})


def _scored(result: Result) -> Result:
    """``result`` reduced to chunk ids and scores, counts aside: what a score check compares."""
    hits = tuple(Hit(h.chunk_id, "", 0, 0, 0, "", h.score) for h in result.hits)
    return Result(hits)
