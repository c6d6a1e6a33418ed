"""Small records made by hand for the reference's worked examples."""

from __future__ import annotations

from ragward.reference import Chunk, ScoredChunk


def made_chunk(chunk_id: str, text: str = "x", section: str = "body") -> Chunk:
    """A chunk of version 1 of document ``chunk_id.split('::')[0]``, spanning its text."""
    doc_id = chunk_id.split("::")[0]
    return Chunk(chunk_id, doc_id, "t", text, section, 0, len(text), "public", None, 1, 0)


def made_hit(chunk_id: str, score: float = 0.0, text: str = "x") -> ScoredChunk:
    return ScoredChunk(made_chunk(chunk_id, text), score)


def chunk_ids(scored: list[ScoredChunk]) -> list[str]:
    return [s.chunk.chunk_id for s in scored]


def spans_of(chunks: list[Chunk]) -> list[tuple[str, str, int, int, str]]:
    """Each chunk's id, section, character span and text."""
    return [(c.chunk_id, c.section, c.start_char, c.end_char, c.text) for c in chunks]
