"""``ragward eval`` reports an adapter's mistakes as ``ragward conform`` does: one line
naming the adapter and the call, exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands import TINY_GRID, first_invariant, one_error_line, run
from tests.evals.dataset_files import write_dataset

MODULE = "tests.adapter_mistakes"
INDEX_CALL = "(max_tokens=16, overlap_tokens=2, embedder='hash-96')"


def _eval(tmp_path: Path, factory: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    data = write_dataset(tmp_path / "data")
    grid = tmp_path / "grid.toml"
    grid.write_text(TINY_GRID, encoding="utf-8")
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(data), "--grid", str(grid), "--out", str(out), "--quiet"]
    code, stdout, err = run([*argv, "--impl", f"{MODULE}:{factory}"], capsys)
    assert stdout == ""
    assert not out.exists()
    return code, one_error_line(err, "eval")


@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        pytest.param(
            "raising",
            f"{MODULE}:raising{INDEX_CALL} raised RuntimeError: no licence for this engine",
            id="factory-raises",
        ),
        pytest.param(
            "not_a_system",
            f"{MODULE}:not_a_system{INDEX_CALL} returned an int, not a RetrievalSystem "
            "(it lacks capabilities, ingest, delete, retrieve)",
            id="not-a-system",
        ),
        pytest.param(
            "wrong_capabilities",
            f"{MODULE}:wrong_capabilities{INDEX_CALL}.capabilities is a dict, "
            "not ragward.conformance.Capabilities",
            id="capabilities-of-the-wrong-type",
        ),
        pytest.param(
            "retrieve_list",
            f"{MODULE}:retrieve_list.retrieve('alpha?') returned a list, "
            "not ragward.conformance.Result",
            id="retrieve-returns-a-list",
        ),
        pytest.param(
            "ingest_string",
            f"{MODULE}:ingest_string.ingest(default/d1 v1) returned a str, not a bool",
            id="ingest-returns-a-str",
        ),
        pytest.param(
            "listing_tuples",
            f"{MODULE}:listing_tuples.finish_listings('alpha?') returned a tuple, "
            "not ragward.conformance.contract.Listing",
            id="finish-listings-returns-tuples",
        ),
        pytest.param(
            "ingest_many_twice",
            f"{MODULE}:ingest_many_twice.ingest_many returned () for 4 documents; "
            "expected one bool per document",
            id="ingest-many-reads-its-documents-twice",
        ),
        pytest.param(
            "stages_short",
            f"{MODULE}:stages_short.first_stages returned a list for 1 question; "
            "expected one stage per question",
            id="first-stages-one-short",
        ),
        pytest.param(
            "sweep_short",
            f"{MODULE}:sweep_short.ground_sweep(('Alpha beta.',), ..., 1 threshold) "
            "returned a list, not one answer per threshold",
            id="ground-sweep-one-short",
        ),
        pytest.param(
            "ingest_raises",
            f"{MODULE}:ingest_raises failed to ingest default/d1 v1: engine went away",
            id="ingest-raises",
        ),
    ],
)
def test_eval_names_the_adapter_and_the_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], factory: str, expected: str
) -> None:
    code, line = _eval(tmp_path, factory, capsys)
    assert code == 2
    assert line == f"ragward eval: error: {expected}"


def test_eval_stops_at_listings_that_disagree_with_retrieve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, line = _eval(tmp_path, "listing_short", capsys)
    assert code == 2
    assert line.startswith(
        f"ragward eval: error: {MODULE}:listing_short: first_stage/finish disagree with "
        "retrieve for 'alpha?' under "
    )
    assert line.endswith("; run with --no-reuse")


def test_eval_stops_at_a_sweep_that_disagrees_with_ground(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, line = _eval(tmp_path, "sweep_inverted", capsys)
    assert code == 2
    assert line == (
        f"ragward eval: error: {MODULE}:sweep_inverted: ground_sweep disagrees with ground "
        "for claim c1; run with --no-reuse"
    )


@pytest.mark.parametrize("factory", ["raising", "not_a_system", "wrong_capabilities"])
def test_conform_gives_the_same_exit_code_for_a_broken_factory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], factory: str
) -> None:
    """A factory that cannot give a system is bad input to both commands (exit 2). A
    system that answers wrongly is a verdict to ``conform`` (exit 1) and, having no
    verdicts to give, bad input to ``eval`` (exit 2), as the test above shows."""
    eval_code, _ = _eval(tmp_path, factory, capsys)
    argv = ["conform", "--impl", f"{MODULE}:{factory}", "--select", first_invariant()]
    code, _, err = run(argv, capsys)
    assert (code, eval_code) == (2, 2)
    assert f"{MODULE}:{factory}" in one_error_line(err, "conform")
