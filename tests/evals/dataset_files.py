"""A small valid dataset directory, written line by line so a test can break one line."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

INTERNAL = {"user_id": "u", "tenant": "default", "max_classification": "internal"}
NO_BARRIER = {"user_id": "v", "tenant": "default", "max_classification": "restricted"}

#: File -> its lines. One tenant; d2 is restricted behind barrier "deals"; d3 has two
#: versions, written newest first.
BASE: dict[str, list[str]] = {
    "corpus.jsonl": [
        json.dumps({"_id": "d1", "title": "T1", "text": "Alpha beta gamma. Delta epsilon."}),
        json.dumps(
            {
                "_id": "d2",
                "text": "Secret merger terms.",
                "classification": "restricted",
                "barrier": "deals",
            }
        ),
        json.dumps({"_id": "d3", "text": "New text here.", "version": 2, "updated_tick": 5}),
        json.dumps({"_id": "d3", "text": "Old text.", "metadata": {"x": 1}}),
    ],
    "queries.jsonl": [
        json.dumps({"_id": "q1", "text": "alpha?", "metadata": {}}),
        json.dumps({"_id": "q2", "text": "merger?", "principal": INTERNAL, "now_tick": 3}),
        json.dumps({"_id": "q3", "text": "deal?", "principal": NO_BARRIER, "max_stale_ticks": 2}),
    ],
    "qrels/test.tsv": ["query-id\tcorpus-id\tscore", "q1\td1\t1", "q2\td2\t0", "q3\td3\t2"],
    "claims.jsonl": [
        json.dumps(
            {
                "_id": "c1",
                "claim": "Alpha beta.",
                "label": "supported",
                "evidence": [{"doc_id": "d1", "text": "Delta"}],
            }
        ),
        json.dumps(
            {
                "_id": "c2",
                "claim": "Merger.",
                "label": "unsupported",
                "principal": INTERNAL,
                "evidence": [{"doc_id": "d2", "start": 7, "end": 13}],
                "kind": "invisible",
                "split": "dev",
                "query": "what merger?",
                "now_tick": 4,
            }
        ),
    ],
}


def write_dataset(
    root: Path,
    changes: Mapping[str, Mapping[int, str | None]] = {},
    files: Mapping[str, Sequence[str] | None] = {},
    newline: str = "\n",
) -> Path:
    """Write ``BASE`` into ``root``, with ``changes`` (file -> 1-based line -> new text,
    None deletes it; one past the end appends) and whole ``files`` replaced (None: absent)."""
    for name, base in BASE.items():
        lines: list[str | None] = list(base)
        for number, text in sorted(changes.get(name, {}).items()):
            if number == len(lines) + 1:
                lines.append(text)
            else:
                lines[number - 1] = text
        write_lines(root / name, [line for line in lines if line is not None], newline)
    for name, content in files.items():
        if content is None:
            (root / name).unlink()
        else:
            write_lines(root / name, content, newline)
    return root


def write_lines(path: Path, lines: Sequence[str], newline: str = "\n") -> Path:
    """Write ``lines`` to ``path``, each ended by ``newline``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes("".join(line + newline for line in lines).encode("utf-8"))
    return path
