"""The reference implementation of authorized hybrid retrieval."""

from ragward.reference.assembly import AssembledContext, Segment, assemble_context, neutralise
from ragward.reference.chunking import Chunk, Chunking, chunk_document
from ragward.reference.dense import VectorIndex
from ragward.reference.documents import CLASSIFICATIONS, Document, Principal, classification_rank
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
    RetrievalPolicy,
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
    "Document",
    "Embedder",
    "FirstStage",
    "GroundingChecker",
    "GroundingReport",
    "HashEmbedder",
    "LexicalOverlapChecker",
    "LexicalOverlapReranker",
    "Principal",
    "Reranker",
    "RetrievalPolicy",
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
