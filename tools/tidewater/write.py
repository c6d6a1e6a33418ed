"""Render the set as the files of ``evals/DATASET_FORMAT.md`` (plus the data card)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tools.tidewater.build import Question, Rendered
from tools.tidewater.claims import NumberedClaim
from tools.tidewater.content import Content
from tools.tidewater.readme import data_card

SPLITS: tuple[str, ...] = ("train", "test")


def _line(record: dict[str, object]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n"


def corpus(docs: Sequence[Rendered]) -> str:
    """One line per version, in ingest order: by tick, then tenant, id and version."""
    rows = [
        (v.tick, d.spec.tenant, d.spec.doc_id, v.number, d, v) for d in docs for v in d.versions
    ]
    rows.sort(key=lambda row: row[:4])
    out: list[str] = []
    for _, _, _, _, d, v in rows:
        s = d.spec
        out.append(
            _line(
                {
                    "_id": s.doc_id,
                    "title": s.title,
                    "text": v.text,
                    "tenant": s.tenant,
                    "classification": s.classification,
                    "barrier": s.barrier,
                    "version": v.number,
                    "updated_tick": v.tick,
                    "metadata": {"doc_type": s.doc_type},
                }
            )
        )
    return "".join(out)


def queries(questions: Sequence[Question]) -> str:
    return "".join(
        _line(
            {
                "_id": q.query_id,
                "text": q.spec.text,
                "principal": q.spec.asker.as_json(),
                "now_tick": q.spec.now_tick,
                "max_stale_ticks": q.spec.max_stale_ticks,
                "metadata": {"kind": q.spec.kind},
            }
        )
        for q in questions
    )


def qrels(questions: Sequence[Question], split: str) -> str:
    """Judgements of one split, best grade first within a query."""
    lines = ["query-id\tcorpus-id\tscore\n"]
    for q in questions:
        if q.split != split:
            continue
        judged = sorted(q.spec.judged.items(), key=lambda item: (-item[1], item[0]))
        lines += [f"{q.query_id}\t{doc_id}\t{grade}\n" for doc_id, grade in judged]
    return "".join(lines)


def claims(numbered: Sequence[NumberedClaim], now_tick: int) -> str:
    out: list[str] = []
    for c in numbered:
        p = c.planned
        record: dict[str, object] = {
            "_id": c.claim_id,
            "claim": p.text,
            "label": "supported" if p.supported else "unsupported",
            "split": c.split,
            "kind": p.kind,
            "principal": p.asker.as_json(),
        }
        if p.query:
            record["query"] = p.query
        record["now_tick"] = now_tick
        record["evidence"] = [
            {"doc_id": e.doc_id, "start": e.start, "end": e.end} for e in p.evidence
        ]
        out.append(_line(record))
    return "".join(out)


def render_files(
    content: Content,
    docs: Sequence[Rendered],
    questions: Sequence[Question],
    numbered: Sequence[NumberedClaim],
) -> dict[str, str]:
    """Relative path -> content of every file of the set."""
    files = {
        "corpus.jsonl": corpus(docs),
        "queries.jsonl": queries(questions),
        "claims.jsonl": claims(numbered, content.now_tick),
    }
    for split in SPLITS:
        files[f"qrels/{split}.tsv"] = qrels(questions, split)
    files["README.md"] = data_card(content, docs, questions, numbered)
    return files
