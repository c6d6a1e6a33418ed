"""The BLAS dense scan chooses; the exact scan decides.

:meth:`VectorIndex.scan` takes every cosine from one BLAS matrix-vector product, which
rounds a row's sum depending on where the row sits, then makes exact the scores whose sign
or place matters. These tests hold what a ranking and the audit counts read from it to
:meth:`VectorIndex.cosine` (the exact, position-independent scan), bit for bit, with
identical rows planted at many positions so that BLAS rounding, left alone, would show.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given
from hypothesis import strategies as st

from ragward.reference.chunking import Chunk
from ragward.reference.dense import VectorIndex
from ragward.reference.ranking import top_rows, top_rows_by_document


def _chunks(rows: int, documents: int) -> list[Chunk]:
    return [
        Chunk(f"c{row:05d}", f"d{row % documents}", "t", "x", "body", 0, 1, "public", None, 1, 0)
        for row in range(rows)
    ]


def _index(matrix: npt.NDArray[np.float32]) -> VectorIndex:
    index = VectorIndex(matrix.shape[1])
    half = matrix.shape[0] // 2  # two appends: the bounds are kept across them
    index.add(matrix[:half])
    index.add(matrix[half:])
    return index


@st.composite
def _matrices(draw: st.DrawFn) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    seed = draw(st.integers(0, 2**32 - 1))
    rows = draw(st.integers(1, 3000))
    dimensions = draw(st.sampled_from([1, 3, 37, 96, 384]))
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((rows, dimensions)).astype(np.float32)
    query = rng.standard_normal(dimensions).astype(np.float32)
    # Twins of the query's best match and of a near-orthogonal row, at many positions;
    # some rows zero, and some scaled far down.
    twins = rng.choice(rows, size=min(rows, draw(st.integers(0, 40))), replace=False)
    matrix[twins[: len(twins) // 2]] = query * np.float32(0.37) + matrix[0] * np.float32(0.01)
    matrix[twins[len(twins) // 2 :]] = matrix[-1]
    if draw(st.booleans()):
        matrix[rng.choice(rows, size=max(1, rows // 50))] = 0.0
    if draw(st.booleans()):
        matrix[rng.choice(rows, size=max(1, rows // 50))] *= np.float32(1e-3)
    return matrix, query


@given(_matrices(), st.integers(1, 60), st.sampled_from(["chunks", "documents"]))
def test_a_settled_scan_ranks_and_counts_as_the_exact_scan(
    case: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]], limit: int, unit: str
) -> None:
    matrix, query = case
    index = _index(matrix)
    exact = index.cosine(query.astype(np.float64))
    scan = index.scan(query.astype(np.float64))
    # Every score within the slack, and every sign exact (it decides "matched").
    assert np.all(np.abs(scan.scores - exact) <= scan.slack)
    assert np.array_equal(scan.scores > 0.0, exact > 0.0)
    rows = np.flatnonzero(scan.scores > 0.0)
    chunks = _chunks(len(matrix), documents=7)
    if unit == "documents":
        best = top_rows_by_document(rows, scan.scores, chunks, limit, scan.settle)
        want = top_rows_by_document(rows, exact, chunks, limit)
    else:
        scan.settle(rows, limit)
        best = top_rows(rows, scan.scores, chunks, limit)
        want = top_rows(rows, exact, chunks, limit)
    assert best == want
    assert scan.scores[best].tolist() == exact[best].tolist()


@given(_matrices(), st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(2, 6))
def test_scans_of_many_queries_from_one_product_rank_as_the_exact_scan(
    case: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
    seed: int,
    limit: int,
    asked: int,
) -> None:
    # The query, copies of it (one product gives each its own column) and others; a zero
    # query and a missing one in between.
    matrix, query = case
    rng = np.random.default_rng(seed)
    queries: list[npt.NDArray[np.float64] | None] = [query.astype(np.float64)] * 2
    queries += [rng.standard_normal((matrix.shape[1],)) for _ in range(asked)]
    queries += [np.zeros(matrix.shape[1]), None]
    index = _index(matrix)
    chunks = _chunks(len(matrix), documents=7)
    scans = index.scan_many(queries)
    assert [scan is None for scan in scans] == [q is None for q in queries]
    for vector, scan in zip(queries, scans, strict=True):
        if vector is None or scan is None:
            continue
        exact = index.cosine(vector)
        alone = index.scan(vector)
        assert scan.slack == alone.slack
        assert np.all(np.abs(scan.scores - exact) <= scan.slack)
        assert np.array_equal(scan.scores > 0.0, exact > 0.0)
        rows = np.flatnonzero(scan.scores > 0.0)
        best = top_rows_by_document(rows, scan.scores, chunks, limit, scan.settle)
        assert best == top_rows_by_document(rows, exact, chunks, limit)
        assert scan.scores[best].tolist() == exact[best].tolist()


def test_a_block_of_queries_is_bounded_by_the_bytes_it_takes() -> None:
    index = _index(np.ones((1000, 8), dtype=np.float32))
    assert index.queries_per_scan() * 12 * 1000 <= 64 << 20
    assert _index(np.ones((1, 8), dtype=np.float32)).queries_per_scan() >= 1


@given(st.integers(0, 2**32 - 1), st.integers(1, 2000), st.sampled_from([4, 96, 384]))
def test_small_integer_vectors_need_no_settling(seed: int, rows: int, dimensions: int) -> None:
    # The hashing embedder's vectors: counts, exact in any order of summing.
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, 4, size=(rows, dimensions)).astype(np.float32)
    query = rng.integers(0, 4, size=dimensions).astype(np.float64)
    _assert_scanned_exactly(matrix, query)


def _assert_scanned_exactly(
    matrix: npt.NDArray[np.float32], query: npt.NDArray[np.float64]
) -> None:
    """The scan of ``query`` over ``matrix`` needs no settling: no slack, the exact cosines."""
    index = _index(matrix)
    scan = index.scan(query)
    assert scan.slack == 0.0
    assert scan.scores.tolist() == index.cosine(query).tolist()


def test_huge_or_tiny_values_fall_back_to_the_exact_scan() -> None:
    rng = np.random.default_rng(3)
    for scale in (np.float32(1e15), np.float32(1e-25)):
        matrix = (rng.standard_normal((500, 16)) * scale).astype(np.float32)
        query = rng.standard_normal(16) * float(scale)
        _assert_scanned_exactly(matrix, query)


def test_blas_alone_would_rank_twins_by_position() -> None:
    # The counterexample the settling exists for: without it, a BLAS scan gives twin rows
    # different scores (OpenBLAS sums the rows past the last whole block of its kernel, and
    # those at a thread's boundary, another way), so ties would break by position, not
    # chunk_id. If this BLAS ever sums every row alike, this fails, and the settling may be
    # worth dropping.
    rng = np.random.default_rng(0)
    row = rng.standard_normal(384).astype(np.float32)
    matrix = np.tile(row, (20_011, 1))  # every row a twin, the odd tail among them
    query = rng.standard_normal(384).astype(np.float32)
    index = _index(matrix)
    blas = index.matrix() @ query
    exact = index.cosine(query.astype(np.float64))
    assert len(set(exact.tolist())) == 1
    assert len(set(blas.tolist())) > 1
    scan = index.scan(query.astype(np.float64))
    scan.settle(np.arange(len(matrix)), 10)
    assert len(set(scan.scores.tolist())) == 1  # every row ties within the slack: all settled
    assert top_rows(np.arange(len(matrix)), scan.scores, _chunks(len(matrix), 7), 10) == list(
        range(10)
    )
