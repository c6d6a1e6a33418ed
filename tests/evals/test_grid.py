"""The grid file: defaults, overrides, settings expansion and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragward.errors import InputError
from ragward.evals.grid_file import default_grid, load_grid


def _grid(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_default_grid_expands_rrf_k_for_hybrid_only() -> None:
    grid = default_grid()
    per_index = grid.settings(grid.indexes[0])
    hybrid = [s for s in per_index if s.mode == "hybrid"]
    lexical = [s for s in per_index if s.mode == "lexical"]
    assert len(hybrid) == len(grid.rrf_ks) * len(grid.reranks) * len(grid.candidate_limits)
    assert len(lexical) == len(grid.reranks) * len(grid.candidate_limits)
    assert all(s.rrf_k is None for s in lexical)
    ids = [s.id for s in grid.all_settings()]
    assert len(ids) == len(set(ids))
    assert ids[0] == "c96o16/hash-96/hybrid/k10/norerank/cl30"


def test_a_file_overrides_key_by_key(tmp_path: Path) -> None:
    grid = load_grid(_grid(tmp_path, '[retrieval]\nmode = ["lexical"]\nrrf_k = [5]\n'))
    assert grid.modes == ("lexical",)
    assert grid.rrf_ks == (5.0,)
    assert grid.reranks == default_grid().reranks  # untouched keys keep the defaults
    assert [s.mode for s in grid.all_settings()] == ["lexical"] * len(grid.all_settings())


def test_grid_round_trips_through_its_data(tmp_path: Path) -> None:
    import tomllib

    grid = default_grid()
    assert (
        tomllib.loads((Path(__file__).parents[2] / "evals/grids/default.toml").read_text())[
            "retrieval"
        ]
        == grid.to_data()["retrieval"]
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('name = "x"\n[retrieval\nmode = 1\n', "grid.toml line 2: not valid TOML"),
        ('name = "x"\ncolour = "red"\n', "grid.toml line 2: field 'colour': unknown key"),
        (
            '[retrieval]\nnormaliser = ["l2"]\n',
            "grid.toml line 2: field 'retrieval.normaliser': unknown",
        ),
        ('[retrieval]\nmode = ["fuzzy"]\n', "field 'retrieval.mode': 'fuzzy' is not one of"),
        ("[retrieval]\nrrf_k = []\n", "field 'retrieval.rrf_k': must be a non-empty list"),
        ("[retrieval]\nrrf_k = [0]\n", "field 'retrieval.rrf_k': 0.0 is not a number > 0"),
        ("[retrieval]\nrerank = [1]\n", "field 'retrieval.rerank': 1 is not a reranker name"),
        ("[retrieval]\ncandidate_limit = [5, 5]\n", "lists a value twice"),
        ("[grounding]\nmin_overlap = [1.5]\n", "1.5 is not a number in (0, 1]"),
        ("depth = 0\n", "grid.toml line 1: field 'depth': 0 must be an integer >= 1"),
        ("depth = true\n", "field 'depth': True must be an integer >= 1"),
        ('split = "a b"\n', "field 'split': 'a b' must be a word"),
        (
            "[index]\nchunking = [{ max_tokens = 8, overlap_tokens = 8 }]\n",
            "grid.toml line 2: field 'index.chunking'",
        ),
        ("[index]\nchunking = [{ size = 8 }]\n", "field 'index.chunking'"),
        ("retrieval = 3\n", "field 'retrieval': must be a table"),
    ],
)
def test_bad_grid_files_fail_with_file_line_and_key(
    tmp_path: Path, text: str, expected: str
) -> None:
    with pytest.raises(InputError) as caught:
        load_grid(_grid(tmp_path, text))
    message = str(caught.value)
    assert expected in message
    assert "\n" not in message
    assert message.startswith(str(tmp_path))


def test_missing_grid_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="grid file not found"):
        load_grid(tmp_path / "nope.toml")


def test_measure_names_are_checked_and_expanded(tmp_path: Path) -> None:
    grid = load_grid(_grid(tmp_path, 'measures = ["P.5,10", "recip_rank"]\n'))
    assert grid.measures == ("P_5", "P_10", "recip_rank")
    with pytest.raises(InputError, match=r"grid.toml line 1: field 'measures': .*ndcg_cut_10"):
        load_grid(_grid(tmp_path, 'measures = ["ndcg_10"]\n'))


def test_a_chunking_can_give_the_lexical_index_its_own_size(tmp_path: Path) -> None:
    grid = load_grid(
        _grid(
            tmp_path,
            "[index]\nchunking = [{ max_tokens = 64, overlap_tokens = 16, "
            "lexical_max_tokens = 1000, lexical_overlap_tokens = 10 }]\n",
        )
    )
    (index,) = grid.indexes
    assert (index.lexical_max_tokens, index.lexical_overlap_tokens) == (1000, 10)
    assert index.label == "c64o16+lex1000o10/hash-96"
    assert grid.to_data()["index"]["chunking"][0]["lexical_max_tokens"] == 1000


@pytest.mark.parametrize(
    "entry",
    [
        "{ max_tokens = 64, overlap_tokens = 16, lexical_overlap_tokens = 1 }",
        "{ max_tokens = 64, overlap_tokens = 16, lexical_max_tokens = 8, "
        "lexical_overlap_tokens = 8 }",
        "{ max_tokens = 64, overlap_tokens = 16, lexical = 8 }",
    ],
)
def test_bad_lexical_chunkings_name_the_key(tmp_path: Path, entry: str) -> None:
    with pytest.raises(InputError, match=r"index\.chunking"):
        load_grid(_grid(tmp_path, f"[index]\nchunking = [{entry}]\n"))


def test_analyzers_multiply_the_indexes_and_name_them(tmp_path: Path) -> None:
    grid = load_grid(
        _grid(
            tmp_path,
            "[index]\nchunking = [{ max_tokens = 96, overlap_tokens = 16 }]\n"
            'analyzer = ["plain", "english"]\n',
        )
    )
    assert [i.analyzer for i in grid.indexes] == ["plain", "english"]
    assert [i.label for i in grid.indexes] == ["c96o16+plain/hash-96", "c96o16+english/hash-96"]
    assert grid.to_data()["index"]["analyzer"] == ["plain", "english"]
    # unnamed: the implementation's own, passed to nobody, and the ids of before
    assert default_grid().indexes[0].analyzer is None
    assert "analyzer" not in default_grid().to_data()["index"]


@pytest.mark.parametrize("value", ["[]", '["english", ""]', '"english"', "[1]"])
def test_bad_analyzer_lists_name_the_key(tmp_path: Path, value: str) -> None:
    with pytest.raises(InputError, match=r"index\.analyzer"):
        load_grid(_grid(tmp_path, f"[index]\nanalyzer = {value}\n"))


def test_fusion_methods_and_weights_expand_hybrid_settings_only(tmp_path: Path) -> None:
    grid = load_grid(
        _grid(
            tmp_path,
            "[index]\nchunking = [{ max_tokens = 96, overlap_tokens = 16 }]\n"
            '[retrieval]\nmode = ["hybrid", "lexical"]\nfusion = ["rrf", "minmax", "zscore"]\n'
            "rrf_k = [10, 60]\ndense_weight = [0.5, 0.7]\nrerank = [false]\n"
            "candidate_limit = [30]\n",
        )
    )
    ids = [s.id.split("/", 2)[2] for s in grid.all_settings()]
    assert ids == [
        "hybrid/k10/norerank/cl30",
        "hybrid/k10w0.7/norerank/cl30",
        "hybrid/k60/norerank/cl30",
        "hybrid/k60w0.7/norerank/cl30",
        "hybrid/minmax/norerank/cl30",
        "hybrid/minmax-w0.7/norerank/cl30",
        "hybrid/zscore/norerank/cl30",
        "hybrid/zscore-w0.7/norerank/cl30",
        "lexical/norerank/cl30",
    ]
    assert grid.hybrid_settings_per_index() == 8
    data = grid.to_data()["retrieval"]
    assert (data["fusion"], data["dense_weight"]) == (["rrf", "minmax", "zscore"], [0.5, 0.7])
    assert "fusion" not in default_grid().to_data()["retrieval"]  # reports of before


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('fusion = ["linear"]', "retrieval.fusion"),
        ("fusion = []", "retrieval.fusion"),
        ("dense_weight = [1.5]", "retrieval.dense_weight"),
        ("dense_weight = [0.5, 0.5]", "retrieval.dense_weight"),
    ],
)
def test_bad_fusion_lists_name_the_key(tmp_path: Path, line: str, key: str) -> None:
    with pytest.raises(InputError, match=key.replace(".", r"\.")):
        load_grid(_grid(tmp_path, f"[retrieval]\n{line}\n"))
