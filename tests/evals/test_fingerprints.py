"""Fingerprints: each change to the data or the grid moves exactly its own hash, and
nothing that changes no answer (compression, key order, line order) moves any."""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from ragward.conformance.contract import Capabilities
from ragward.errors import AdapterError
from ragward.evals.datasets import load_dataset
from ragward.evals.fingerprints import (
    data_fingerprints,
    digest,
    grid_fingerprint,
    markdown,
    models_of,
)
from ragward.evals.grid import Grid, IndexSetting
from ragward.evals.grid_file import default_grid

from .dataset_files import BASE, write_dataset, write_lines

Changes = Mapping[str, Mapping[int, str | None]]


def _prints(
    root: Path, changes: Changes | None = None, grid: Grid | None = None
) -> dict[str, object]:
    dataset = load_dataset(write_dataset(root, changes or {}))
    return {**data_fingerprints(dataset, "test"), "grid": grid_fingerprint(grid or default_grid())}


def _claim(**fields: object) -> str:
    record = {
        "_id": "c1",
        "claim": "Alpha beta.",
        "label": "supported",
        "evidence": [{"doc_id": "d1", "text": "Delta"}],
    }
    return json.dumps({**record, **fields})


@pytest.mark.parametrize(
    ("changes", "moved"),
    [
        # the case: the same query ids, a label regraded
        ({"qrels/test.tsv": {2: "q1\td1\t2"}}, {"qrels"}),
        ({"qrels/test.tsv": {5: "q2\td1\t0"}}, {"qrels"}),  # another document judged
        ({"queries.jsonl": {1: json.dumps({"_id": "q1", "text": "alpha!"})}}, {"queries"}),
        # the same text asked at another time
        (
            {"queries.jsonl": {1: json.dumps({"_id": "q1", "text": "alpha?", "now_tick": 1})}},
            {"queries"},
        ),
        ({"corpus.jsonl": {5: json.dumps({"_id": "d4", "text": "Zeta."})}}, {"corpus"}),
        (
            {
                "corpus.jsonl": {
                    1: json.dumps(
                        {"_id": "d1", "title": "T1", "text": "Alpha beta gamma! Delta epsilon."}
                    )
                }
            },
            {"corpus"},
        ),
        # a field only filtered on
        (
            {
                "corpus.jsonl": {
                    3: json.dumps({"_id": "d3", "text": "New text here.", "version": 2})
                }
            },
            {"corpus"},
        ),
        # d2's barrier gone: the default asker, cleared for every barrier of the corpus, is
        # another asker, so the queries and claims it asks are asked differently
        (
            {
                "corpus.jsonl": {
                    2: json.dumps(
                        {
                            "_id": "d2",
                            "text": "Secret merger terms.",
                            "classification": "restricted",
                        }
                    )
                }
            },
            {"corpus", "queries", "claims"},
        ),
        ({"claims.jsonl": {1: _claim(label="unsupported")}}, {"claims"}),
        ({"claims.jsonl": {1: _claim(kind="verbatim")}}, {"claims"}),
    ],
)
def test_each_change_moves_exactly_its_own_fingerprint(
    tmp_path: Path, changes: Changes, moved: set[str]
) -> None:
    before = _prints(tmp_path / "before")
    after = _prints(tmp_path / "after", changes)
    assert {key for key in before if before[key] != after[key]} == moved
    assert all(isinstance(v, str) and v.startswith("sha256:") for v in after.values())


def test_a_change_in_another_split_moves_nothing_of_this_one(tmp_path: Path) -> None:
    # c2 is a claim of split "dev": the test split's claims are the same
    dev = json.loads(BASE["claims.jsonl"][1])
    changes = {"claims.jsonl": {2: json.dumps({**dev, "claim": "Merger terms."})}}
    assert _prints(tmp_path / "after", changes) == _prints(tmp_path / "before")


@pytest.mark.parametrize(
    "change",
    [
        {"rrf_ks": (10.0, 60.0)},
        {"depth": 5},
        {"measures": ("ndcg_cut_10",)},
        {"min_overlaps": (0.5,)},
        {"indexes": (IndexSetting(96, 16, "hash-64"),)},
        {"indexes": (IndexSetting(96, 16, "hash-96").own(),)},
    ],
)
def test_a_different_grid_moves_only_the_grid_fingerprint(
    tmp_path: Path, change: dict[str, object]
) -> None:
    before = _prints(tmp_path / "before")
    after = _prints(tmp_path / "after", grid=replace(default_grid(), **change))  # type: ignore[arg-type]
    assert {key for key in before if before[key] != after[key]} == {"grid"}


def test_a_grid_s_name_and_default_split_change_no_fingerprint() -> None:
    grid = default_grid()
    renamed = replace(grid, name="other", split="dev")
    assert grid_fingerprint(renamed) == grid_fingerprint(grid)


def _reordered(line: str) -> str:
    record = json.loads(line)
    return json.dumps(dict(reversed(list(record.items()))))


def test_gzip_key_order_line_order_and_line_ends_change_no_fingerprint(tmp_path: Path) -> None:
    plain = _prints(tmp_path / "plain")
    other = write_dataset(tmp_path / "other", newline="\r\n")
    for name in ("queries.jsonl", "claims.jsonl"):
        write_lines(other / name, [_reordered(line) for line in reversed(BASE[name])])
    write_lines(
        other / "qrels/test.tsv", [BASE["qrels/test.tsv"][0], *BASE["qrels/test.tsv"][:0:-1]]
    )
    corpus = [_reordered(line) for line in BASE["corpus.jsonl"]]
    corpus = [corpus[1], corpus[0], *corpus[2:]]  # d2 before d1
    with gzip.open(other / "corpus.jsonl.gz", "wb") as stream:
        stream.write("".join(line + "\n" for line in corpus).encode("utf-8"))
    (other / "corpus.jsonl").unlink()
    dataset = load_dataset(other)
    assert dataset.sources["corpus"] == "corpus.jsonl.gz"
    assert [d.doc_id for d in dataset.docs][:2] == ["d2", "d1"]  # truly in another order
    assert {**data_fingerprints(dataset, "test"), "grid": grid_fingerprint(default_grid())} == plain


def test_a_split_without_claims_has_no_claims_fingerprint(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path, files={"claims.jsonl": None}))
    assert data_fingerprints(dataset, "test")["claims"] is None


def test_digest_is_of_canonical_json() -> None:
    # a hand-worked expectation: sorted keys, no spaces, UTF-8
    import hashlib

    expected = hashlib.sha256('{"a":[1,2],"b":"é"}'.encode()).hexdigest()
    assert digest({"b": "é", "a": [1, 2]}) == f"sha256:{expected}"
    with pytest.raises(ValueError, match="JSON compliant"):
        digest({"a": float("nan")})  # no NaN: its text would make two values one


class _Declares:
    capabilities = Capabilities()

    def __init__(self, identity: object) -> None:
        self.model_identity = identity


def test_models_are_what_the_system_says_it_answers_with() -> None:
    index = IndexSetting(96, 16, "hash-96")
    assert models_of(_Declares("embedder e5@abc"), index, None, "impl") == "embedder e5@abc"
    # one that says nothing is marked so, with what it was asked to be built with
    assert models_of(object(), index, "minilm", "impl") == (
        "unreported (embedder hash-96, reranker minilm)"
    )
    assert models_of(object(), index.own(), None, "impl") == "unreported (its own index)"
    with pytest.raises(AdapterError, match=r"impl: model_identity is an int, not a non-empty"):
        models_of(_Declares(3), index, None, "impl")
    with pytest.raises(AdapterError, match="not a non-empty str"):
        models_of(_Declares("  "), index, None, "impl")


def test_the_summary_shows_every_fingerprint_cut_to_twelve_digits() -> None:
    from tests.evals.gate_inputs import fingerprints

    prints = fingerprints(corpus="sha256:" + "ab" * 32, grid="sha256:" + "cd" * 32)
    lines = markdown(prints)
    assert lines[2] == (
        "Data and grid (sha256, first 12 hex digits): corpus `abababababab`, queries `q0`, "
        "qrels `r0`, claims `none`, grid `cdcdcdcdcdcd`. ragward 0.1.0; index settings passed."
    )
    assert lines[4:] == ["- `hash-96`: hashing/96", ""]
