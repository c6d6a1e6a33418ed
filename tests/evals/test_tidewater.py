"""The bundled Tidewater set keeps its rules, read with plain json and csv.

These tests do not use ragward's loader: they check the files as written, so a loader bug
and a data bug cannot hide each other.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "datasets" / "tidewater"
LEVELS = ("public", "internal", "confidential", "restricted")
SPLITS = ("train", "test")
UNSUPPORTED_KINDS = ("fabrication", "invisible", "superseded", "no-evidence")

Record = dict[str, Any]


def _jsonl(name: str) -> list[Record]:
    with (DATA / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@cache
def corpus() -> list[Record]:
    return _jsonl("corpus.jsonl")


@cache
def queries() -> dict[str, Record]:
    return {q["_id"]: q for q in _jsonl("queries.jsonl")}


@cache
def claims() -> list[Record]:
    return _jsonl("claims.jsonl")


@cache
def qrels(split: str) -> list[tuple[str, str, int]]:
    with (DATA / "qrels" / f"{split}.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["query-id", "corpus-id", "score"]
    return [(q, d, int(s)) for q, d, s in rows[1:]]


@cache
def current() -> dict[tuple[str, str], Record]:
    """The newest version of every document, keyed by ``(tenant, _id)``."""
    latest: dict[tuple[str, str], Record] = {}
    for doc in corpus():
        key = (doc["tenant"], doc["_id"])
        if key not in latest or doc["version"] > latest[key]["version"]:
            latest[key] = doc
    return latest


def sees(principal: Record, doc: Record) -> bool:
    return (
        doc["tenant"] == principal["tenant"]
        and LEVELS.index(doc["classification"]) <= LEVELS.index(principal["max_classification"])
        and (doc["barrier"] is None or doc["barrier"] in principal["barriers"])
    )


def stale(query: Record, doc: Record) -> bool:
    limit = query["max_stale_ticks"]
    return limit is not None and query["now_tick"] - doc["updated_tick"] > limit


def judgements() -> Iterator[tuple[str, Record, str, int]]:
    for split in SPLITS:
        for query_id, doc_id, grade in qrels(split):
            yield split, queries()[query_id], doc_id, grade


def test_minimums_of_the_issue() -> None:
    docs = current()
    assert len(docs) >= 150
    assert len(corpus()) >= 180
    assert len({tenant for tenant, _ in docs}) >= 3
    by_level = Counter(d["classification"] for d in docs.values())
    assert all(by_level[level] >= 20 for level in LEVELS), by_level
    assert len({d["barrier"] for d in docs.values() if d["barrier"]}) >= 2
    assert sum(1 for d in docs.values() if d["version"] > 1) >= 8
    assert len(queries()) >= 100
    assert len(claims()) >= 200
    tenants_per_id = Counter(doc_id for _, doc_id in docs)
    assert any(count >= 3 for count in tenants_per_id.values()), "no id reused across tenants"


def test_corpus_records_are_well_formed() -> None:
    seen: set[tuple[str, str, int]] = set()
    last: dict[tuple[str, str], Record] = {}
    for doc in corpus():
        assert isinstance(doc["_id"], str)
        assert doc["_id"]
        assert isinstance(doc["title"], str)
        assert doc["classification"] in LEVELS
        assert doc["barrier"] is None or isinstance(doc["barrier"], str)
        key = (doc["tenant"], doc["_id"], doc["version"])
        assert key not in seen, key
        seen.add(key)
        previous = last.get(key[:2])
        # Versions of one document come oldest first, numbered 1, 2, ... with rising ticks.
        assert doc["version"] == (previous["version"] + 1 if previous else 1), key
        if previous:
            assert doc["updated_tick"] > previous["updated_tick"], key
            assert doc["text"] != previous["text"], key
            assert doc["classification"] == previous["classification"], key
        last[key[:2]] = doc
        sections = [line for line in doc["text"].split("\n") if line.startswith("## ")]
        assert 2 <= len(sections) <= 5, key
        assert doc["text"].startswith("## "), key
        assert "\r" not in doc["text"]


def test_queries_are_well_formed_and_split_about_40_60() -> None:
    split_of: dict[str, str] = {}
    for split in SPLITS:
        for query_id, _, _ in qrels(split):
            assert split_of.setdefault(query_id, split) == split, f"{query_id} in two splits"
    assert set(split_of) == set(queries()), "every query is judged, in exactly one split"
    train = sum(1 for split in split_of.values() if split == "train")
    assert 0.35 <= train / len(split_of) <= 0.45
    tenants = {tenant for tenant, _ in current()}
    for query in queries().values():
        assert query["text"].strip()
        principal = query["principal"]
        assert principal["tenant"] in tenants
        assert principal["max_classification"] in LEVELS
        assert isinstance(principal["barriers"], list)
        assert isinstance(query["now_tick"], int)
    assert sum(1 for q in queries().values() if q["max_stale_ticks"] is not None) >= 5


def test_judged_documents_are_in_the_askers_tenant() -> None:
    for _, query, doc_id, grade in judgements():
        assert (query["principal"]["tenant"], doc_id) in current(), (query["_id"], doc_id)
        assert grade in (0, 1, 2)


def test_relevant_documents_are_visible_and_fresh() -> None:
    for _, query, doc_id, grade in judgements():
        if grade > 0:
            doc = current()[(query["principal"]["tenant"], doc_id)]
            assert sees(query["principal"], doc), (query["_id"], doc_id)
            assert not stale(query, doc), (query["_id"], doc_id)


def test_fresh_queries_judge_a_stale_document_and_are_asked_at_several_ticks() -> None:
    stale_negatives = Counter(
        query["_id"]
        for _, query, doc_id, grade in judgements()
        if grade == 0
        and stale(query, doc := current()[(query["principal"]["tenant"], doc_id)])
        and sees(query["principal"], doc)
    )
    fresh = [q for q in queries().values() if q["metadata"]["kind"] == "fresh"]
    assert len(fresh) >= 30
    for query in fresh:
        assert query["max_stale_ticks"] is not None, query["_id"]
        assert stale_negatives[query["_id"]] > 0, query["_id"]
    assert len({q["now_tick"] for q in fresh}) >= 5
    for _, query, doc_id, grade in judgements():
        if grade > 0:
            doc = current()[(query["principal"]["tenant"], doc_id)]
            assert doc["updated_tick"] <= query["now_tick"], (query["_id"], doc_id)


def test_every_query_has_a_relevant_document() -> None:
    relevant = Counter(query["_id"] for _, query, _, grade in judgements() if grade > 0)
    assert set(relevant) == set(queries())


def test_grades_and_hard_negatives_are_present() -> None:
    grades = Counter(grade for _, _, _, grade in judgements())
    assert min(grades[2], grades[1], grades[0]) > 0, grades


def test_claims_are_labelled_by_kind_and_roughly_balanced() -> None:
    kinds = Counter(c["kind"] for c in claims())
    assert set(kinds) == {"verbatim", "paraphrase", *UNSUPPORTED_KINDS}
    ids = Counter(c["_id"] for c in claims())
    assert max(ids.values()) == 1
    for claim in claims():
        expected = "unsupported" if claim["kind"] in UNSUPPORTED_KINDS else "supported"
        assert claim["label"] == expected, claim["_id"]
        assert claim["split"] in SPLITS
        assert claim["claim"].strip()
    supported = sum(1 for c in claims() if c["label"] == "supported")
    assert 0.40 <= supported / len(claims()) <= 0.50
    train = sum(1 for c in claims() if c["split"] == "train")
    assert 0.35 <= train / len(claims()) <= 0.45
    assert sum(1 for c in claims() if c.get("query")) >= len(claims()) // 2


def test_claim_evidence_slices_are_exact_and_visible_as_labelled() -> None:
    for claim in claims():
        principal = claim["principal"]
        evidence = claim["evidence"]
        if claim["kind"] == "no-evidence":
            assert evidence == []
            continue
        assert evidence, claim["_id"]
        for ev in evidence:
            doc = current()[(principal["tenant"], ev["doc_id"])]
            assert 0 <= ev["start"] < ev["end"] <= len(doc["text"]), claim["_id"]
            passage = doc["text"][ev["start"] : ev["end"]]
            assert passage.strip() == passage != "", claim["_id"]
            if claim["kind"] == "verbatim":
                assert passage == claim["claim"], claim["_id"]
            if claim["kind"] in ("fabrication", "superseded"):
                assert passage != claim["claim"], claim["_id"]
            # Supported claims rest on what the principal may see; invisible ones do not.
            assert sees(principal, doc) == (claim["kind"] != "invisible"), claim["_id"]


def test_unsupported_claims_are_not_stated_where_the_principal_can_see() -> None:
    for claim in claims():
        if claim["kind"] not in UNSUPPORTED_KINDS:
            continue
        principal = claim["principal"]
        for doc in current().values():
            if sees(principal, doc):
                assert claim["claim"] not in doc["text"], (claim["_id"], doc["_id"])


def test_superseded_claims_come_from_documents_with_older_versions() -> None:
    versioned = {(d["tenant"], d["_id"]) for d in corpus() if d["version"] > 1}
    for claim in claims():
        if claim["kind"] == "superseded":
            (ev,) = claim["evidence"]
            assert (claim["principal"]["tenant"], ev["doc_id"]) in versioned, claim["_id"]


def test_files_are_plain_utf8_with_lf_line_ends() -> None:
    for path in sorted(DATA.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            assert b"\r" not in data, path.name
            assert data.endswith(b"\n"), path.name
            data.decode("utf-8")


@pytest.mark.slow
def test_regeneration_is_byte_identical(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tools.gen_tidewater", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    bundled = {p.relative_to(DATA): p.read_bytes() for p in DATA.rglob("*") if p.is_file()}
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert sorted(fresh) == sorted(bundled)
    stale_files = [str(name) for name in sorted(bundled) if bundled[name] != fresh[name]]
    assert stale_files == [], "run: python -m tools.gen_tidewater"
