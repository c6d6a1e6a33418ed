"""The compiled BM25 kernel and the numpy path give the same answers, to the bit.

The reference runs :func:`ragward.reference._kernels.bm25_top` when the C extension was
built and the same steps in numpy otherwise. These tests hold the two to each other: on
drawn postings (ties drawn on purpose, masks of every kind, limits from 0), and on whole
retrievals of the adversarial scenarios the other property tests use, where every hit,
score and audit count must be the same.
"""

from __future__ import annotations

import shutil
import sysconfig
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.reference import AuthorizedRetriever, HashEmbedder, RetrievalResult
from ragward.reference import lexical as lexical_module
from ragward.reference.lexical import Gathered, LexicalTop, Masks

from .strategies import Scenario, scenarios

_NO_ROWS = np.zeros(0, dtype=np.int32)


@pytest.fixture
def numpy_path() -> Iterator[None]:
    """Run the reference without its compiled kernel for the test's duration."""
    before = lexical_module.KERNEL["enabled"]
    lexical_module.KERNEL["enabled"] = False
    try:
        yield
    finally:
        lexical_module.KERNEL["enabled"] = before


def _kernel_built() -> bool:
    return lexical_module._bm25_top is not None


def test_the_kernel_is_built_where_a_compiler_is() -> None:
    # The extension is optional so that an install without a compiler still works; where
    # the compiler Python was built with is on PATH (as in CI), it must have been built.
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler {compiler!r} here: the numpy path alone runs")
    assert _kernel_built(), "the C kernel was not built: pip install . needs a C compiler"


@st.composite
def _postings(draw: st.DrawFn) -> tuple[Gathered, Masks, int]:
    n_rows = draw(st.integers(1, 200))
    rows: list[np.ndarray] = []
    shares: list[np.ndarray] = []
    # Few distinct share values, so that sums tie often (and some only by rounding).
    values = st.sampled_from([0.1, 0.2, 0.3, 0.5, 1.0, 1.5, 2.0 / 3.0, 1e-3, 7.25])
    for _ in range(draw(st.integers(0, 6))):
        held = draw(st.lists(st.integers(0, n_rows - 1), unique=True, max_size=n_rows))
        rows.append(np.array(held, dtype=np.int32))
        shares.append(np.array([draw(values) for _ in held], dtype=np.float64))
    masks = [np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows)))]
    masks += [
        np.array(draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))) for _ in range(3)
    ]
    rankable, live, visible, eligible = masks
    limit = draw(st.integers(0, 25))
    found = Gathered.of(rows, shares, _NO_ROWS, n_rows)
    return found, Masks.of(rankable & live, live, visible & live, eligible & visible), limit


def _top(found: Gathered, masks: Masks, limit: int, kernel: bool) -> LexicalTop:
    before = lexical_module.KERNEL["enabled"]
    lexical_module.KERNEL["enabled"] = kernel
    try:
        buffers = (np.zeros(found.n_rows), np.zeros(found.n_rows + 1, dtype=np.int32))
        top = found.top(limit, buffers, masks)
        assert not buffers[0].any(), "the scratch must be left zero"
        return LexicalTop(top.scored.copy(), top.rows, top.scores, top.counts)
    finally:
        lexical_module.KERNEL["enabled"] = before


@pytest.mark.skipif(not _kernel_built(), reason="checked by test_the_kernel_is_built...")
@given(_postings())
def test_kernel_and_numpy_select_and_count_alike(case: tuple[Gathered, Masks, int]) -> None:
    found, masks, limit = case
    compiled = _top(found, masks, limit, kernel=True)
    plain = _top(found, masks, limit, kernel=False)
    assert compiled.rows == plain.rows
    assert compiled.scores == plain.scores  # floats compared exactly
    assert compiled.counts == plain.counts
    assert sorted(compiled.scored.tolist()) == sorted(plain.scored.tolist())
    # And what numpy finds is what the definition says: the limit best by (-score, row),
    # every row tied with the last place included.
    every = found.scores()
    ranked = sorted(
        (row for row in range(found.n_rows) if every[row] != 0.0 and masks.rankable[row]),
        key=lambda row: (-every[row], row),
    )
    last = every[ranked[limit - 1]] if 0 < limit <= len(ranked) else None
    want = ranked if last is None and limit else [r for r in ranked if last and every[r] >= last]
    assert plain.rows == want


@pytest.mark.skipif(not _kernel_built(), reason="checked by test_the_kernel_is_built...")
@given(_postings(), st.integers(0, 15))
def test_a_uniform_class_counts_and_ranks_as_each_rows_class(
    case: tuple[Gathered, Masks, int], kind: int
) -> None:
    # Every row of one class: the kernel's shortcut (no class read) against reading each.
    found, _, limit = case
    classes = np.full(found.n_rows, kind, dtype=np.uint8)
    rankable, live, visible, eligible = (classes & bit != 0 for bit in (1, 2, 4, 8))
    masks = Masks.of(rankable, live, visible, eligible)
    assert masks.uniform == kind
    shortcut = _top(found, masks, limit, kernel=True)
    each = _top(found, replace(masks, uniform=-1), limit, kernel=True)
    plain = _top(found, masks, limit, kernel=False)
    for other in (each, plain):
        assert (shortcut.rows, shortcut.scores, shortcut.counts) == (
            other.rows,
            other.scores,
            other.counts,
        )


def test_masks_say_a_class_is_uniform_only_when_every_row_has_it() -> None:
    yes, no = np.array([True, True]), np.array([True, False])
    assert Masks.of(yes, yes, yes, yes).uniform == 15
    assert Masks.of(no, yes, yes, yes).uniform == -1
    assert Masks.of(no[:0], no[:0], no[:0], no[:0]).uniform == -1


@pytest.mark.skipif(not _kernel_built(), reason="checked by test_the_kernel_is_built...")
def test_kernel_refuses_bad_buffers_and_leaves_the_scratch_zero() -> None:
    kernel = lexical_module._bm25_top
    assert kernel is not None
    scratch = np.zeros(4)
    touched = np.zeros(5, dtype=np.int32)
    classes = np.full(4, 1 | 2 | 4 | 8, dtype=np.uint8)
    good = np.array([0, 1], dtype=np.int32)
    bad = np.array([2, 4], dtype=np.int32)  # row 4 is past the 4 rows
    shares = np.array([1.0, 1.0])
    # an array of another type is refused, never read as the one expected: int64 rows of
    # as many bytes as the int32 expected would otherwise be misread
    with pytest.raises(TypeError, match="shares must hold 'd' items"):
        kernel([(good, shares.astype(np.float32))], scratch, classes, 3, touched)
    with pytest.raises(TypeError, match="rows must hold 'i' items"):
        kernel([(good[:1].astype(np.int64), shares)], scratch, classes, 3, touched)
    with pytest.raises(TypeError, match="rows must hold 'i' items"):
        kernel([(good.astype(np.int64), shares)], scratch, classes, 3, touched)
    with pytest.raises(TypeError, match="scratch must hold 'd' items"):
        kernel([(good, shares)], scratch.astype(np.float32), classes, 3, touched)
    with pytest.raises(TypeError, match="classes must hold 'B' items"):
        kernel([(good, shares)], scratch, classes.astype(np.int8), 3, touched)
    assert not scratch.any()
    with pytest.raises(ValueError, match="outside the scratch"):
        kernel([(good, shares), (bad, shares)], scratch, classes, 3, touched)
    assert not scratch.any()
    with pytest.raises(ValueError, match="differ in length"):
        kernel([(good, shares), (good, shares[:1])], scratch, classes, 3, touched)
    assert not scratch.any()
    with pytest.raises(TypeError, match="each term is a tuple"):
        kernel([(good, shares), [good, shares]], scratch, classes, 3, touched)
    assert not scratch.any()
    with pytest.raises(ValueError, match="longer than scratch"):
        kernel([(good, shares)], scratch, classes, 3, touched[:4])
    with pytest.raises(ValueError, match="other lengths"):
        kernel([(good, shares)], scratch, classes[:3], 3, touched)
    with pytest.raises(ValueError, match="limit >= 0"):
        kernel([(good, shares)], scratch, classes, -1, touched)
    with pytest.raises(ValueError, match="uniform is a class"):
        kernel([(good, shares)], scratch, classes, 3, touched, 16)
    classes[1] = 2 | 4  # live and visible, not fresh: not rankable, counted stale
    assert kernel([(good, shares)], scratch, classes, 3, touched) == (2, [0], [1.0], (2, 0, 1))
    assert not scratch.any()


def _answers(scenario: Scenario, kernel: bool) -> list[RetrievalResult]:
    before = lexical_module.KERNEL["enabled"]
    lexical_module.KERNEL["enabled"] = kernel
    try:
        retriever = AuthorizedRetriever(chunking=scenario.chunking, embedder=HashEmbedder())
        for document in scenario.corpus:
            retriever.ingest(document)
        wide = replace(scenario.policy, enable_rerank=False, candidate_limit=64, result_limit=64)
        return [
            retriever.retrieve(
                scenario.query, scenario.principal, now_tick=scenario.now_tick, policy=policy
            )
            for policy in (scenario.policy, wide, replace(wide, limit_unit="chunks"))
        ]
    finally:
        lexical_module.KERNEL["enabled"] = before


@pytest.mark.skipif(not _kernel_built(), reason="checked by test_the_kernel_is_built...")
@given(scenarios())
def test_kernel_and_numpy_answer_alike(scenario: Scenario) -> None:
    compiled = _answers(scenario, kernel=True)
    plain = _answers(scenario, kernel=False)
    for a, b in zip(compiled, plain, strict=True):
        assert [(h.chunk.chunk_id, h.score) for h in a.chunks] == [
            (h.chunk.chunk_id, h.score) for h in b.chunks
        ]
        assert (a.considered, a.excluded_by_entitlement, a.excluded_by_freshness) == (
            b.considered,
            b.excluded_by_entitlement,
            b.excluded_by_freshness,
        )
        assert a.degraded == b.degraded


def test_the_numpy_path_answers(numpy_path: None) -> None:
    # The path an install without a compiler takes, end to end.
    from ragward.reference import ReferenceAsker, ReferenceDoc, ReferencePolicy

    retriever = AuthorizedRetriever()
    retriever.ingest(ReferenceDoc("d1", "t", "a", "wire transfer held for screening", "public"))
    retriever.ingest(ReferenceDoc("d2", "t", "b", "wire fee schedule", "restricted"))
    answer = retriever.retrieve(
        "wire screening", ReferenceAsker("u", "t", "public"), policy=ReferencePolicy(mode="lexical")
    )
    assert [h.chunk.doc_id for h in answer.chunks] == ["d1"]
    assert (answer.considered, answer.excluded_by_entitlement) == (2, 1)
