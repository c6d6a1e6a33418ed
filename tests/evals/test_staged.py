"""The reference's staged verbs answer exactly as ``retrieve`` does (what the grid relies on)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.conformance.contract import StagedSystem, is_batched, is_listing, is_staged
from ragward.conformance.records import Asker, Doc, Policy, Support
from ragward.engines.reference import ReferenceSystem, reference_factory
from ragward.engines.reference_records import scored_of
from ragward.errors import InvalidArgument
from ragward.reference import Claim

WORDS = ("ledger", "hold", "release", "sanctions", "payment", "limit", "kestrel", "review", "card")

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
docs = st.lists(
    st.tuples(texts, st.sampled_from(("public", "internal", "restricted")), st.integers(0, 9)),
    min_size=1,
    max_size=14,
)
policies = st.builds(
    Policy,
    mode=st.sampled_from(("hybrid", "lexical", "dense")),
    rrf_k=st.sampled_from((1.0, 10.0, 60.0)),
    rerank=st.booleans(),
    candidate_limit=st.integers(1, 8),
    result_limit=st.integers(1, 8),
    max_stale_ticks=st.none(),
)


def _ingested(corpus: list[tuple[str, str, int]]) -> ReferenceSystem:
    """A small-chunked reference holding ``corpus`` (text, classification, tick) in tenant t."""
    system = reference_factory(max_tokens=8, overlap_tokens=2)
    for number, (text, classification, tick) in enumerate(corpus):
        system.ingest(Doc("t", f"d{number}", text, "", classification, None, 1, tick))
    return system


@given(
    docs,
    texts,
    st.lists(policies, min_size=1, max_size=6),
    st.sampled_from((None, 3)),
    st.sampled_from(("chunks", "documents")),
)
def test_finish_of_a_wide_first_stage_equals_retrieve(
    corpus: list[tuple[str, str, int]],
    query: str,
    narrow: list[Policy],
    stale: int | None,
    unit: str,
) -> None:
    system = _ingested(corpus)
    asker = Asker("u", "t", "internal")
    wide = Policy(candidate_limit=8, result_limit=8, max_stale_ticks=stale, limit_unit=unit)
    stage = system.first_stage(query, asker, 9, wide)
    for policy in narrow:
        policy = Policy(**{**policy.__dict__, "max_stale_ticks": stale, "limit_unit": unit})
        direct = system.retrieve(query, asker, 9, policy)
        staged = system.finish(stage, policy)
        # whole hits, every field: what finishing remembers across settings changes nothing
        assert staged.hits == direct.hits
        assert staged.degraded == direct.degraded


def test_the_reference_is_staged_and_a_plain_adapter_is_not() -> None:
    assert is_staged(ReferenceSystem())
    assert isinstance(ReferenceSystem(), StagedSystem)

    class Plain:
        def first_stage(self) -> None: ...

        def finish_listings(self) -> None: ...

    assert not is_staged(Plain())
    assert not is_listing(Plain())  # listings without the staged verbs are not used
    assert is_batched(ReferenceSystem())
    assert is_listing(ReferenceSystem())


def test_index_settings_reach_the_reference() -> None:
    system = reference_factory(max_tokens=7, overlap_tokens=1, embedder="hash-32")
    assert system.retriever.chunking.max_tokens == 7
    assert system.retriever.embedder.dimensions == 32


@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_a_rescored_hit_is_the_hit_with_the_new_score(first: float, second: float) -> None:
    from ragward.conformance.records import Hit
    from ragward.engines.reference import _rescored

    hit = Hit("d::1", "d", 2, 0, 5, "hello", first, "d@v2#body[0:5]")
    copy = _rescored(hit, second)
    assert copy == replace(hit, score=second)
    assert hash(copy) == hash(replace(hit, score=second))
    assert copy.score is second
    assert hit.score is first  # the original is untouched


@given(
    docs,
    texts,
    st.lists(policies, min_size=1, max_size=8),
    st.sampled_from(("chunks", "documents")),
    st.integers(0, 4),
)
def test_finish_listings_are_finish_as_the_grid_reads_it(
    corpus: list[tuple[str, str, int]],
    query: str,
    narrow: list[Policy],
    unit: str,
    top: int,
) -> None:
    system = _ingested(corpus)
    asker = Asker("u", "t", "internal")
    wide = Policy(candidate_limit=8, result_limit=8, limit_unit=unit)
    settings = [Policy(**{**p.__dict__, "limit_unit": unit}) for p in narrow]
    listings = system.finish_listings(system.first_stage(query, asker, 9, wide), settings, top)
    plain = system.first_stage(query, asker, 9, wide)  # its own memo: nothing shared
    assert len(listings) == len(settings)
    for policy, listing in zip(settings, listings, strict=True):
        hits = system.finish(plain, policy).hits
        assert listing.keys == tuple((h.chunk_id, h.doc_id, h.version) for h in hits)
        assert listing.top == hits[:top]
        # grounded from the reference's own chunks, as from hits rebuilt into chunks
        said = (query or "ledger",)
        for threshold in (0.3, 1.0):
            assert system.ground(said, listing.top, threshold) == system.ground(
                said, tuple(replace(h) for h in hits[:top]), threshold
            )
        assert is_listing(system)


claims = st.lists(texts, min_size=1, max_size=3).map(tuple)
thresholds = st.lists(
    st.sampled_from((0.1, 0.3, 0.5, 0.6, 0.75, 0.9, 1.0, 1)), min_size=1, max_size=6
)


@given(docs, texts, claims, thresholds)
def test_grounding_found_once_reads_as_grounding_checked_per_threshold(
    corpus: list[tuple[str, str, int]], query: str, said: tuple[str, ...], cuts: list[float]
) -> None:
    system = _ingested(corpus)
    hits = system.retrieve(query, Asker("u", "t", "internal"), 9, Policy(result_limit=4)).hits
    checker = system.retriever.grounding
    for threshold in cuts:  # the same hits under every threshold, as a grid asks
        report = checker.check(
            [Claim(text) for text in said], [scored_of(h) for h in hits], threshold=threshold
        )
        expected = tuple(
            Support(c.claim.text, c.supported, c.chunk_id if c.supported else None)
            for c in report.checks
        )
        assert system.ground(said, hits, threshold) == expected
    swept = [system.ground(said, hits, threshold) for threshold in cuts]
    assert system.ground_sweep(said, hits, cuts) == swept


def test_grounding_still_refuses_a_threshold_outside_zero_to_one() -> None:
    system = reference_factory()
    system.ingest(Doc("t", "d1", "payment held", "", "public", None, 1, 0))
    hits = system.retrieve("payment", Asker("u", "t", "public"), 0, Policy()).hits
    assert system.ground(("payment held",), hits, 0.5)[0].supported
    for wrong in (0.0, 1.5, -0.2, True):
        with pytest.raises(InvalidArgument, match="min_overlap"):
            system.ground(("payment held",), hits, wrong)
