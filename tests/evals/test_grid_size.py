"""A grid's size and numbers are checked before any work (issue 30, defect 4).

A grid of a million settings used to print nothing and grow to 12.9 GB; ``rrf_k = inf``
passed validation and failed mid-run, blaming the adapter; ``rrf_k = 1e308`` ran the whole
eval and failed at plotting. Now the number of settings is counted when the grid is read,
the run's memory estimated once the dataset is read, both against limits the command line
can raise, and every number of a grid is finite and in range, refused with file, line and
key.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragward.conformance.records import Asker, Doc
from ragward.errors import InputError
from ragward.evals.grid_checks import COUNT_MAX
from ragward.evals.grid_file import default_grid, load_grid
from ragward.evals.grid_size import (
    MAX_SETTINGS,
    memory_estimate,
    parse_size,
    setting_count,
)
from ragward.evals.records import Dataset, Query
from tests.commands import break_work, by_name, one_error_line, run, snapshot, write_inputs

MILLION = (
    "[retrieval]\n"
    f"rrf_k = [{', '.join(str(10 + i) for i in range(1000))}]\n"
    f"candidate_limit = [{', '.join(str(1 + i) for i in range(1000))}]\n"
)


def _grid(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_grid_of_millions_of_settings_is_refused_before_any_work(tmp_path: Path) -> None:
    grid = _grid(tmp_path, MILLION)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "ragward", "eval", "--grid", str(grid), "--out", "o"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    line = one_error_line(done.stderr, "eval")
    # 2 chunkings x (1000 rrf_k + lexical + dense) x 2 rerankers x 1000 candidate limits
    assert "grid.toml: 4,008,000 settings (2 indexes x 1,002 mode and fusion settings" in line
    assert "more than --max-settings 10,000; shorten its lists or raise --max-settings" in line
    assert done.stdout == ""
    assert not (tmp_path / "o").exists()
    print(f"refused in {elapsed:.2f} s")  # seen with -s; not asserted (no timed tests)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("inf", "inf"),
        ("-inf", "-inf"),
        ("nan", "nan"),
        ("1e308", "1e+308"),
        ("1e400", "inf"),  # TOML reads it as infinity
        ("1_000_001", "1000001.0"),
        ("0", "0.0"),
        ("-1", "-1.0"),
        (str(2**70), str(2**70)),
    ],
)
def test_every_rrf_k_is_finite_and_in_range_at_load(tmp_path: Path, value: str, shown: str) -> None:
    path = _grid(tmp_path, f'name = "x"\n[retrieval]\nrrf_k = [60, {value}]\n')
    with pytest.raises(InputError) as caught:
        load_grid(path)
    assert str(caught.value) == (
        f"{path} line 3: field 'retrieval.rrf_k': {shown} is not a number > 0 and <= 1000000"
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (f"depth = {COUNT_MAX + 1}\n", "depth"),
        (f"grounding_depth = {2**63}\n", "grounding_depth"),
        (f"[retrieval]\ncandidate_limit = [{COUNT_MAX + 1}]\n", "retrieval.candidate_limit"),
        (
            f"[index]\nchunking = [{{ max_tokens = {COUNT_MAX + 1}, overlap_tokens = 1 }}]\n",
            "index.chunking",
        ),
        (
            "[index]\nchunking = [{ max_tokens = 8, overlap_tokens = 1, "
            f"lexical_max_tokens = {2**40} }}]\n",
            "index.chunking",
        ),
        ("[grounding]\nmin_overlap = [nan]\n", "grounding.min_overlap"),
        ("[grounding]\nmin_overlap = [inf]\n", "grounding.min_overlap"),
    ],
)
def test_every_count_of_a_grid_is_in_range_at_load(tmp_path: Path, text: str, key: str) -> None:
    path = _grid(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_grid(path)
    message = str(caught.value)
    assert message.startswith(f"{path} line {text.count(chr(10))}: field '{key}': ")
    assert len(message) < 300


def test_the_largest_counts_load(tmp_path: Path) -> None:
    grid = load_grid(
        _grid(
            tmp_path,
            f"depth = {COUNT_MAX}\n[retrieval]\nrrf_k = [1000000]\n"
            f"candidate_limit = [{COUNT_MAX}]\n",
        )
    )
    assert (grid.depth, grid.rrf_ks, grid.candidate_limits) == (COUNT_MAX, (1e6,), (COUNT_MAX,))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[retrieval]\nrrf_k = [1, 2, 3]\ncandidate_limit = [4, 5]\nrerank = [false, true]\n",
        '[index]\nembedder = ["hash-8", "hash-16"]\n[retrieval]\nmode = ["dense", "hybrid"]\n',
        '[retrieval]\nmode = ["lexical", "dense"]\nrrf_k = [1, 2, 3]\n',
        '[retrieval]\nmode = ["hybrid"]\nrrf_k = [1, 2]\nrerank = [true, false, "minilm"]\n',
    ],
)
def test_settings_are_counted_as_the_grid_makes_them(tmp_path: Path, text: str) -> None:
    grid = load_grid(_grid(tmp_path, text))
    assert setting_count(grid) == len(grid.all_settings())


def test_the_memory_estimate_is_its_model_worked_by_hand() -> None:
    grid = default_grid()  # 24 settings, depth 10, grounding depth 5, 7 measures, 7 overlaps
    docs = tuple(Doc("t", f"d{i}", "x" * 100, title="T") for i in range(3))
    queries = {f"q{i}": Query(f"q{i}", "what?", Asker("u", "t")) for i in range(4)}
    dataset = Dataset("x", docs, queries, {"test": {f"q{i}": {"d0": 1} for i in range(4)}})
    # answer: 2500 + 16 x min(10, 3 docs) + 400 x 5 hits; scores: 120 x 4 x (7 measures + 1)
    per_setting = 4 * (2500 + 16 * 3 + 400 * 5) + 120 * 4 * 8
    assert memory_estimate(grid, dataset, ("test",)) == (100 << 20) + 50 * 303 + 24 * per_setting


@pytest.mark.parametrize(
    ("text", "size"),
    [("4096", 4096), ("512M", 512 << 20), ("1.5G", 3 << 29), ("2t", 2 << 40), ("8GiB", 8 << 30)],
)
def test_sizes_are_read_in_powers_of_1024(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "G", "-1G", "1X", "0", "1e3", "9" * 40])
def test_a_bad_size_is_one_line(text: str) -> None:
    with pytest.raises(InputError, match="--max-memory"):
        parse_size(text)


@pytest.mark.parametrize("command", ["eval", "tune"])
@pytest.mark.parametrize(
    ("option", "expected"),
    [
        (["--max-settings", "1"], "2 settings (1 indexes x 2 mode and fusion settings x 1 rerank"),
        (["--max-memory", "1M"], "need an estimated 100."),
    ],
)
def test_the_limits_refuse_before_anything_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    option: list[str],
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    inputs = write_inputs(tmp_path)
    break_work(monkeypatch, by_name(command), AssertionError("the grid ran"))
    before = snapshot(tmp_path)
    code, out, err = run([*by_name(command).argv(inputs, None), *option], capsys)
    assert code == 2, err
    assert expected in one_error_line(err, command)
    assert out == ""
    assert snapshot(tmp_path) == before


def test_raised_limits_let_the_same_grid_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = write_inputs(tmp_path)
    argv = by_name("eval").argv(inputs, tmp_path / "out")
    code, _, err = run([*argv, "--max-settings", "2", "--max-memory", "2G"], capsys)
    assert code == 0, err
    assert (tmp_path / "out" / "results.json").is_file()


def test_the_settings_limit_is_checked_before_the_dataset_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = write_inputs(tmp_path)
    inputs.grid.write_text(MILLION, encoding="utf-8")

    def never(*args: object, **kwargs: object) -> object:
        raise AssertionError("the dataset was read")

    monkeypatch.setattr("ragward.evals.datasets.load_dataset", never)
    code, _, err = run(by_name("eval").argv(inputs, tmp_path / "out"), capsys)
    assert code == 2
    assert f"more than --max-settings {MAX_SETTINGS:,}" in one_error_line(err, "eval")
