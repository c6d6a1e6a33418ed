"""The reference implementation of authorized hybrid retrieval.

Its records are named for the conformance kit's words, prefixed ``Reference``: they are
the reference's own, checked when made (a bad field is an
:class:`~ragward.errors.InvalidArgument`), where the kit's are plain records that may hold
anything. Their former names still import, with a :class:`DeprecationWarning`.
"""

from typing import Any

from ragward.exports import Exports
from ragward.reference.assembly import AssembledContext, Segment, assemble_context, neutralise
from ragward.reference.chunking import Chunk, Chunking, chunk_document
from ragward.reference.dense import VectorIndex
from ragward.reference.documents import (
    CLASSIFICATIONS,
    ReferenceAsker,
    ReferenceDoc,
    classification_rank,
)
from ragward.reference.embedding import Embedder, HashEmbedder
from ragward.reference.fusion import reciprocal_rank_fusion
from ragward.reference.grounding import (
    Claim,
    ClaimCheck,
    GroundingChecker,
    GroundingReport,
    LexicalOverlapChecker,
    check_grounding,
)
from ragward.reference.lexical import BM25Index, BM25Params
from ragward.reference.ranking import LIMIT_UNITS, ScoredChunk, cut, ranked
from ragward.reference.rerank import LexicalOverlapReranker, Reranker, rerank
from ragward.reference.retriever import (
    MODES,
    AuthorizedRetriever,
    FirstStage,
    ReferencePolicy,
    RetrievalResult,
)
from ragward.reference.text import STOPWORDS, TokenCounter, estimate_tokens, tokenize

__all__ = [
    "CLASSIFICATIONS",
    "LIMIT_UNITS",
    "MODES",
    "STOPWORDS",
    "AssembledContext",
    "AuthorizedRetriever",
    "BM25Index",
    "BM25Params",
    "Chunk",
    "Chunking",
    "Claim",
    "ClaimCheck",
    "Embedder",
    "FirstStage",
    "GroundingChecker",
    "GroundingReport",
    "HashEmbedder",
    "LexicalOverlapChecker",
    "LexicalOverlapReranker",
    "ReferenceAsker",
    "ReferenceDoc",
    "ReferencePolicy",
    "Reranker",
    "RetrievalResult",
    "ScoredChunk",
    "Segment",
    "TokenCounter",
    "VectorIndex",
    "assemble_context",
    "check_grounding",
    "chunk_document",
    "classification_rank",
    "cut",
    "estimate_tokens",
    "neutralise",
    "ranked",
    "reciprocal_rank_fusion",
    "rerank",
    "tokenize",
]


#: Former names, still importable (the README's examples used them), each with a warning.
_DEPRECATED = {
    "Document": "ReferenceDoc",
    "Principal": "ReferenceAsker",
    "RetrievalPolicy": "ReferencePolicy",
}


_EXPORTS = Exports("ragward.reference", globals(), former=_DEPRECATED)


def __getattr__(name: str) -> Any:
    return _EXPORTS.find(name)
