"""ragward reproduces independent implementations on a SciFact slice.

* Lexical, one chunk per document, title + text: within 0.002 of bm25s (``lucene``,
  k1 = 1.5, b = 0.75, fed ragward's tokens) scored by pytrec_eval; and with the ``english``
  analyzer, within 0.002 of bm25s analysing the text itself (its tokenizer, its English
  stop words, PyStemmer's Snowball English stemmer).
* Dense with MiniLM: within 0.005 of the same int8 ONNX model run directly with
  onnxruntime, ranked by one matrix product, scored by pytrec_eval.

The lexical slice is the first 100 test queries with every document they judge, plus
every fourth other document (about 1,400 in all); the dense one, which the model embeds
twice, the first 50 queries with theirs plus every twelfth other (about 480). Skipped,
with the reason, when ``RAGWARD_DATA`` does not hold SciFact; ``.ci/run`` sets it.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragward.bench.anchors import (
    bm25s_english_run,
    bm25s_run,
    dense_run,
    minilm_direct,
    pytrec_means,
    reproduction_grid,
)
from ragward.evals import evaluate, load_dataset, load_grid

MEASURES = ("ndcg_cut_10", "recall_100")
Slice = tuple[Path, list[dict[str, str]], dict[str, str], dict[str, dict[str, int]]]


def _scifact() -> Path:
    data = os.environ.get("RAGWARD_DATA")
    if not data or not (Path(data) / "scifact" / "beir").is_dir():
        pytest.skip("set RAGWARD_DATA to a directory holding scifact/ to check SciFact")
    return Path(data) / "scifact" / "beir"


def _lines(path: Path) -> Iterator[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            yield json.loads(line)


def _slice(tmp_path_factory: pytest.TempPathFactory, asked: int, every: int) -> Slice:
    beir = _scifact()
    qrels: dict[str, dict[str, int]] = {}
    for line in (beir / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, judged_doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[judged_doc] = int(grade)
    chosen = sorted(qrels, key=int)[:asked]
    qrels = {q: qrels[q] for q in chosen}
    judged = {doc for grades in qrels.values() for doc in grades}
    corpus = [
        d
        for n, d in enumerate(_lines(beir / "corpus.jsonl.gz"))
        if d["_id"] in judged or n % every == 0
    ]
    queries = {q["_id"]: q["text"] for q in _lines(beir / "queries.jsonl") if q["_id"] in qrels}
    root = tmp_path_factory.mktemp(f"scifact-slice-{asked}")
    (root / "qrels").mkdir()
    with (root / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for doc in corpus:
            out.write(json.dumps({"_id": doc["_id"], "title": doc["title"], "text": doc["text"]}))
            out.write("\n")
    with (root / "queries.jsonl").open("w", encoding="utf-8") as out:
        for qid, text in queries.items():
            out.write(json.dumps({"_id": qid, "text": text}) + "\n")
    rows = [f"{q}\t{d}\t{g}" for q, grades in qrels.items() for d, g in grades.items()]
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    return root, corpus, queries, qrels


@pytest.fixture(scope="module")
def scifact_slice(tmp_path_factory: pytest.TempPathFactory) -> Slice:
    return _slice(tmp_path_factory, asked=100, every=4)


@pytest.fixture(scope="module")
def scifact_small_slice(tmp_path_factory: pytest.TempPathFactory) -> Slice:
    return _slice(tmp_path_factory, asked=50, every=12)


def _ragward(
    root: Path, tmp_path: Path, embedder: str, mode: str, analyzer: str | None = None
) -> dict[str, float]:
    grid_file = tmp_path / "grid.toml"
    grid_file.write_text(reproduction_grid(embedder, mode, analyzer), encoding="utf-8")
    (result,) = evaluate(load_dataset(root), grid=load_grid(grid_file)).settings
    return {"ndcg_cut_10": result.means["ndcg_cut_10"], "recall_100": result.means["recall_100"]}


@pytest.mark.slow
def test_lexical_reproduces_bm25s(scifact_slice: Slice, tmp_path: Path) -> None:
    root, corpus, queries, qrels = scifact_slice
    run = bm25s_run([(d["_id"], d["title"] + " " + d["text"]) for d in corpus], queries)
    want = pytrec_means(qrels, run, MEASURES)
    got = _ragward(root, tmp_path, "hash-96", "lexical")
    assert want["ndcg_cut_10"] > 0.5  # the slice is a real retrieval task
    for measure, value in want.items():
        assert got[measure] == pytest.approx(value, abs=0.002), measure


@pytest.mark.slow
def test_english_analyzer_reproduces_bm25s_english(scifact_slice: Slice, tmp_path: Path) -> None:
    root, corpus, queries, qrels = scifact_slice
    run = bm25s_english_run([(d["_id"], d["title"] + " " + d["text"]) for d in corpus], queries)
    want = pytrec_means(qrels, run, MEASURES)
    got = _ragward(root, tmp_path, "hash-96", "lexical", "english")
    plain = _ragward(root, tmp_path, "hash-96", "lexical")
    assert want["ndcg_cut_10"] > plain["ndcg_cut_10"]  # stems found what plain words miss
    for measure, value in want.items():
        assert got[measure] == pytest.approx(value, abs=0.002), measure


@pytest.mark.slow
def test_minilm_dense_reproduces_the_model_run_directly(
    scifact_small_slice: Slice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, corpus, queries, qrels = scifact_small_slice
    docs = minilm_direct([d["title"] + " " + d["text"] for d in corpus])
    asked = list(queries)
    questions = dict(zip(asked, minilm_direct([queries[q] for q in asked]), strict=True))
    run = dense_run([d["_id"] for d in corpus], docs, questions)
    want = pytrec_means(qrels, run, MEASURES)
    monkeypatch.setenv("RAGWARD_CACHE", str(tmp_path / "cache"))
    got = _ragward(root, tmp_path, "minilm", "dense")
    assert want["ndcg_cut_10"] > 0.5
    for measure, value in want.items():
        assert got[measure] == pytest.approx(value, abs=0.005), measure
