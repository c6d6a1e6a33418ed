"""Load a labelled dataset directory (BEIR layout plus ragward's fields) strictly.

The format is ``DATASET_FORMAT.md`` beside this module; any BEIR download loads as is::

    dataset = load_dataset("scifact/beir", claims={"test": "scifact/claims_dev.jsonl"})

Nothing is guessed or repaired: the first problem stops the load with an
:class:`~ragward.errors.InputError` naming the file, the line and the field (see
:mod:`ragward.evals.jsonl` for the line policy). Corpus and query records may carry fields
outside the format (BEIR has ``metadata``); they are ignored. Claim records may not (see
:mod:`ragward.evals.claims`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ragward.conformance.records import CLASSIFICATIONS, Doc
from ragward.errors import InputError
from ragward.evals.beir_qrels import read_beir_qrels
from ragward.evals.claims import check_claims, read_claim_file, read_claims
from ragward.evals.jsonl import read_jsonl
from ragward.evals.principals import DEFAULT_TENANT, Principals
from ragward.evals.records import Dataset, Query
from ragward.evals.scifact import LocatedClaim
from ragward.evals.visibility import current_docs

__all__ = ["load_dataset", "read_corpus", "read_queries"]


def load_dataset(
    directory: str | os.PathLike[str],
    *,
    claims: Mapping[str, str | os.PathLike[str]] | None = None,
    name: str | None = None,
) -> Dataset:
    """The dataset in ``directory``, with the claims files of ``claims`` (split -> file).

    ``Dataset.sources`` says which files were read: ``corpus``, ``queries``,
    ``qrels:<split>`` and ``claims`` relative to ``directory``; ``claims:<split>`` by file
    name only (reports must not carry the paths of one machine).
    ``name`` defaults to the directory's name (its parent's, for a folder called ``beir``,
    as in ``scifact/beir``).
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputError.at(root, None, None, "dataset directory not found")
    corpus = _corpus_file(root)
    docs = read_corpus(corpus)
    current = current_docs(docs)
    principals = Principals.of(docs)
    queries = read_queries(root / "queries.jsonl", principals)
    sources = {"corpus": corpus.name, "queries": "queries.jsonl"}
    splits = sorted((root / "qrels").glob("*.tsv"))
    if not splits:
        raise InputError.at(root / "qrels", None, None, "no qrels: expected qrels/<split>.tsv")
    qrels = {}
    for path in splits:
        qrels[path.stem] = read_beir_qrels(path, queries, current)
        sources[f"qrels:{path.stem}"] = f"qrels/{path.name}"
    located: list[LocatedClaim] = []
    if (root / "claims.jsonl").exists():  # optional; a folder of that name is an error
        located += read_claims(root / "claims.jsonl", principals, current)
        sources["claims"] = "claims.jsonl"
    for split, file in (claims or {}).items():
        located += read_claim_file(file, split, principals, current)
        sources[f"claims:{split}"] = Path(file).name  # a name, not a path of this machine
    return Dataset(
        name=name or _name_of(root),
        docs=docs,
        queries=queries,
        qrels=qrels,
        claims=check_claims(located, current),
        sources=sources,
    )


def read_corpus(path: str | os.PathLike[str]) -> tuple[Doc, ...]:
    """Every document version of a corpus file, in ingest order.

    That is file order, except that the versions of each ``(tenant, _id)`` are put oldest
    first into the places its records held: ``d1 v2, d2 v1, d1 v1`` ingests as ``d1 v1,
    d2 v1, d1 v2``.
    """
    docs: list[Doc] = []
    lines: dict[tuple[str, str, int], int] = {}
    places: dict[tuple[str, str], list[int]] = {}
    for record in read_jsonl(path):
        title = record.string("title", "", empty=True)
        # BEIR allows an empty text beside a title; only a document with neither is empty.
        text = record.string("text", empty=bool(title.strip()))
        if not text.strip():
            # A title-only document is indexed by its title: with no text it would give no
            # chunk, and could never be found (silently).
            text = title
        doc = Doc(
            tenant=record.string("tenant", DEFAULT_TENANT),
            doc_id=record.string("_id"),
            text=text,
            title=title,
            classification=record.choice("classification", CLASSIFICATIONS, "public"),
            barrier=record.optional_string("barrier"),
            version=record.integer("version", 1, minimum=1),
            updated_tick=record.integer("updated_tick", 0),
        )
        first = lines.setdefault((doc.tenant, doc.doc_id, doc.version), record.line)
        if first != record.line:
            problem = (
                f"document {doc.doc_id!r} version {doc.version} of tenant {doc.tenant!r} "
                f"is already at line {first}"
            )
            raise record.error("_id", problem)
        places.setdefault((doc.tenant, doc.doc_id), []).append(len(docs))
        docs.append(doc)
    if not docs:
        raise InputError.at(path, None, None, "no documents")
    for slots in places.values():
        if len(slots) > 1:
            versions = sorted((docs[slot] for slot in slots), key=lambda doc: doc.version)
            for slot, doc in zip(slots, versions, strict=True):
                docs[slot] = doc
    return tuple(docs)


def read_queries(path: str | os.PathLike[str], principals: Principals) -> dict[str, Query]:
    """The queries of a queries file by id, in file order."""
    queries: dict[str, Query] = {}
    lines: dict[str, int] = {}
    for record in read_jsonl(path):
        query_id = record.string("_id")
        record.first("_id", query_id, lines, "query id")
        queries[query_id] = Query(
            query_id=query_id,
            text=record.string("text"),
            asker=principals.asker(record),
            now_tick=record.integer("now_tick", 0),
            max_stale_ticks=record.optional_integer("max_stale_ticks"),
        )
    if not queries:
        raise InputError.at(path, None, None, "no queries")
    return queries


def _corpus_file(root: Path) -> Path:
    found = [root / n for n in ("corpus.jsonl", "corpus.jsonl.gz") if (root / n).is_file()]
    if len(found) != 1:
        problem = "found both" if found else "found neither"
        raise InputError.at(
            root, None, None, f"expected corpus.jsonl or corpus.jsonl.gz, {problem}"
        )
    return found[0]


def _name_of(root: Path) -> str:
    resolved = root.resolve()
    return resolved.parent.name if resolved.name == "beir" else resolved.name
