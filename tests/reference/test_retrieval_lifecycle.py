"""Property tests of the reference's lifecycle against SPEC section 2.1: upserts replace,
old versions are refused, deletes remove, compaction and failed ingests change nothing.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import VersionConflict
from ragward.reference import (
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    RetrievalResult,
)

from .retrieval_model import FaultyEmbedder, build, chunk_in_view, first_stages, probe
from .strategies import (
    TENANTS,
    Scenario,
    barrier_values,
    classifications,
    corpora,
    near_duplicates,
    principals,
    scenarios,
    texts,
    ticks,
)

# -- 3. lifecycle ---------------------------------------------------------------------


def _reader_of(document: ReferenceDoc) -> ReferenceAsker:
    """A principal of the document's tenant who can see exactly that classification."""
    barriers = () if document.barrier is None else (document.barrier,)
    return ReferenceAsker("reader", document.tenant, document.classification, barriers)


@given(scenario=scenarios(min_docs=1), data=st.data())
def test_upsert_replaces_every_chunk_of_the_previous_version(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1 upsert by (tenant, doc_id): a newer version replaces every chunk of the old
    one; no chunk of the old version is ever returned or counted afterwards, a reclassified
    document is never served under its old classification or barrier, other tenants sharing
    the doc_id are untouched, and the retriever answers exactly as one that only ever saw
    the new version."""
    corpus = list(scenario.corpus)
    index = data.draw(st.integers(min_value=0, max_value=len(corpus) - 1))
    old = corpus[index]
    new = replace(
        old,
        version=old.version + data.draw(st.integers(min_value=1, max_value=3)),
        text=data.draw(st.one_of(st.just(old.text), near_duplicates(old.text), texts())),
        classification=data.draw(classifications()),
        barrier=data.draw(barrier_values()),
        updated_tick=data.draw(ticks()),
    )
    retriever, _ = build(corpus, scenario.chunking)
    new_chunks = retriever.ingest(new)
    replaced = [*corpus[:index], new, *corpus[index + 1 :]]
    reference, _ = build(replaced, scenario.chunking)

    asked = [
        scenario.principal,
        _reader_of(old),
        *data.draw(st.lists(principals((old.tenant, *TENANTS)), max_size=2)),
    ]
    questions = [scenario.query, old.text, new.text]
    now, policy = scenario.now_tick, scenario.policy
    for principal in asked:
        got = probe(retriever, [principal], questions, now, policy)
        for scored in (s for result in got for s in result.chunks):
            chunk = scored.chunk
            assert chunk_in_view(chunk, principal, now, policy)
            if (chunk.tenant, chunk.doc_id) == new.key:
                assert chunk in new_chunks
                assert chunk.doc_version == new.version
        assert got == probe(reference, [principal], questions, now, policy)
    assert retriever.version_of(*new.key) == new.version


@given(scenario=scenarios(min_docs=1), data=st.data())
def test_same_or_older_version_is_refused_and_changes_nothing(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1: re-ingesting the same or an older version of (tenant, doc_id) raises
    VersionConflict (an out-of-order write never overwrites newer data) and changes nothing:
    every answer is identical before and after."""
    corpus = list(scenario.corpus)
    old = data.draw(st.sampled_from(corpus))
    stale = replace(
        old,
        version=data.draw(st.integers(min_value=1, max_value=old.version)),
        text=data.draw(st.one_of(texts(), st.just(old.text))),
        classification=data.draw(classifications()),
        barrier=data.draw(barrier_values()),
        updated_tick=data.draw(ticks()),
    )
    retriever, _ = build(corpus, scenario.chunking)
    asked = [scenario.principal, _reader_of(old), _reader_of(stale)]
    questions = [scenario.query, old.text, stale.text]
    now, policy = scenario.now_tick, scenario.policy
    before = probe(retriever, asked, questions, now, policy)
    with pytest.raises(VersionConflict):
        retriever.ingest(stale)
    assert probe(retriever, asked, questions, now, policy) == before
    assert retriever.version_of(*old.key) == old.version


def _with_twin(corpus: list[ReferenceDoc], target: ReferenceDoc, tenant: str) -> list[ReferenceDoc]:
    """``corpus`` plus a copy of ``target`` in ``tenant`` under the same doc_id, if free."""
    if any(d.key == (tenant, target.doc_id) for d in corpus):
        return corpus
    return [*corpus, replace(target, tenant=tenant)]


@given(scenario=scenarios(min_docs=1), data=st.data())
def test_delete_removes_document_from_results_counts_and_statistics(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1 delete(tenant, doc_id): afterwards none of the document's chunks is
    retrievable, counted, or present in any statistic (answers, counts and BM25/cosine
    scores equal those of a retriever that never saw it); another tenant using the same
    doc_id is unaffected; and the deleted version stays as a tombstone, so a re-ingest
    needs a newer version (the reference's documented rule)."""
    target = data.draw(st.sampled_from(scenario.corpus))
    other = data.draw(st.sampled_from([t for t in TENANTS if t != target.tenant]))
    corpus = _with_twin(list(scenario.corpus), target, other)
    retriever, chunks = build(corpus, scenario.chunking)
    remaining = [d for d in corpus if d.key != target.key]
    reference, _ = build(remaining, scenario.chunking)

    asked = [
        scenario.principal,
        _reader_of(target),
        ReferenceAsker("admin", target.tenant, "restricted", ("hr", "litigation", "ma-deal")),
    ]
    neighbours = [ReferenceAsker("n", other, "restricted", ("hr", "litigation", "ma-deal"))]
    questions = [scenario.query, target.text]
    now, policy = scenario.now_tick, scenario.policy
    neighbours_before = probe(retriever, neighbours, questions, now, policy)

    removed = retriever.delete(*target.key)
    if chunks[target.key]:
        assert removed
    assert not retriever.delete(*target.key)
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )
    assert first_stages(retriever, asked, questions, now, policy) == first_stages(
        reference, asked, questions, now, policy
    )
    assert probe(retriever, neighbours, questions, now, policy) == neighbours_before

    # Re-ingest: the tombstone refuses the deleted version and older ones.
    assert retriever.version_of(*target.key) == target.version
    with pytest.raises(VersionConflict):
        retriever.ingest(
            replace(target, version=data.draw(st.integers(min_value=1, max_value=target.version)))
        )
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )
    revived = replace(target, version=target.version + 1)
    retriever.ingest(revived)
    reference.ingest(revived)
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )


@given(scenario=scenarios(), data=st.data())
def test_compaction_after_churn_answers_as_a_fresh_retriever(
    scenario: Scenario, data: st.DataObject
) -> None:
    """SPEC 2.1 lifecycle through compaction: after a large document (over a thousand
    one-word chunks) is replaced by a small version or deleted, so that dead rows outnumber
    live ones and the namespace compacts, answers, counts and first-stage scores equal
    those of a retriever that only saw the surviving documents, and the old version is
    still refused."""
    chunking = Chunking(max_tokens=1, overlap_tokens=0)
    tenant = scenario.principal.tenant
    words = [d.text for d in scenario.corpus] or ["ledger wire"]
    big_text = "\n".join(f"{words[i % len(words)]} ledger wire w{i}" for i in range(350))
    big = ReferenceDoc("big", tenant, "", big_text, classification=data.draw(classifications()))
    retriever, chunks = build([*scenario.corpus, big], chunking)
    assert len(chunks[big.key]) > 1024
    delete = data.draw(st.booleans())
    if delete:
        retriever.delete(*big.key)
        survivors = list(scenario.corpus)
    else:
        small = replace(big, version=2, text=data.draw(texts()))
        retriever.ingest(small)
        survivors = [*scenario.corpus, small]
    # Tombstones survive compaction: the deleted or replaced version is still refused.
    assert retriever.version_of(*big.key) == (1 if delete else 2)
    with pytest.raises(VersionConflict):
        retriever.ingest(big)
    reference, _ = build(survivors, chunking)
    asked = [scenario.principal, _reader_of(big)]
    questions = [scenario.query, "w7 w1100", *words[:1]]
    now, policy = scenario.now_tick, scenario.policy
    assert probe(retriever, asked, questions, now, policy) == probe(
        reference, asked, questions, now, policy
    )
    assert first_stages(retriever, asked, questions, now, policy) == first_stages(
        reference, asked, questions, now, policy
    )


@given(
    corpus=corpora(min_size=1, max_size=3),
    data=st.data(),
    tick=st.one_of(
        st.integers(min_value=0, max_value=200),
        st.sampled_from((2**31, 2**63 - 2, 2**63 - 1, 2**63, 2**64, 10**30)),
    ),
    fault=st.sampled_from(("none", "none", "raise", "nan", "missing-row", "wrong-width")),
    max_stale_ticks=st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
    now_tick=st.sampled_from((0, 100, 2**63 - 1, -(2**63), 2**64)),
)
def test_ingest_is_atomic_for_any_document(
    corpus: list[ReferenceDoc],
    data: st.DataObject,
    tick: int,
    fault: str,
    max_stale_ticks: int | None,
    now_tick: int,
) -> None:
    """SPEC 2.1: an upsert replaces the old version atomically. A document either fails
    validation up front (a ValueError naming the field and the bad value), or its ingest
    succeeds (and the retriever then answers exactly as one that only saw the new version),
    or the ingest fails (here: an embedder that raises or answers malformed vectors) and
    changes nothing. Extreme ticks, at ingest and at query time, never break a retrieval."""
    index = data.draw(st.integers(min_value=0, max_value=len(corpus) - 1))
    old = corpus[index]
    text = data.draw(texts()) + (" poison" if fault != "none" else "")
    try:
        new = replace(old, version=old.version + 1, updated_tick=tick, text=text)
    except ValueError as error:
        refused = str(error)
        assert "updated_tick" in refused, refused
        assert str(tick) in refused, refused
        return
    chunking = Chunking()
    embedder = FaultyEmbedder(fault)
    retriever, _ = build(corpus, chunking, embedder)
    asked = [_reader_of(old), _reader_of(new)]
    questions = [old.text, new.text]
    policy = ReferencePolicy(max_stale_ticks=max_stale_ticks)
    before = probe(retriever, asked, questions, now_tick, policy)
    try:
        retriever.ingest(new)
    except Exception:
        # A retrieval that raises is a changed answer too: report it as one.
        try:
            after: list[RetrievalResult] | str = probe(
                retriever, asked, questions, now_tick, policy
            )
        except Exception as error:
            after = f"retrieve raised {error!r}"
        assert (retriever.version_of(*old.key), after) == (old.version, before)
    else:
        assert fault == "none", "a malformed embedding was accepted"
        reference, _ = build([*corpus[:index], new, *corpus[index + 1 :]], chunking, embedder)
        assert probe(retriever, asked, questions, now_tick, policy) == probe(
            reference, asked, questions, now_tick, policy
        )
