"""A deterministic, realistic multi-tenant corpus for the benchmark (no downloads).

Everything is drawn from one seeded :class:`numpy.random.Generator`, so a seed and a
target size always give the same documents and queries. What makes it realistic enough
to measure retrieval on:

* a Zipf-Mandelbrot vocabulary (``p(r) ∝ 1 / (r + 2.7)``) of ~50k terms headed by English
  function words, shorter words more frequent, and a per-tenant perturbation of the
  ranks so that tenants talk about different things;
* bursty documents: each has topic words that recur, and identifier-like tokens such as
  ``pmt-48213`` that a user would search for verbatim;
* several tenants of very unequal size, every classification, a few information
  barriers, versions and a spread of ``updated_tick``;
* ``## `` sections sized so that the default :class:`~ragward.reference.Chunking`
  (96 tokens, overlap 16) yields about ``target_chunks`` chunks in total;
* queries sampled from document text (2-8 terms, some with an identifier) asked by
  principals of every clearance.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragward.reference import CLASSIFICATIONS, Chunking, ReferenceAsker, ReferenceDoc, tokenize

__all__ = [
    "BARRIERS",
    "Corpus",
    "Query",
    "generate_corpus",
    "generate_queries",
    "omniscient",
    "principals_for",
]

Floats = npt.NDArray[np.float64]

#: Information barriers some documents sit behind.
BARRIERS: tuple[str, ...] = ("deals", "research", "legal")

# The head of the vocabulary: the most frequent English words, most frequent first.
_HEAD_WORDS = (
    "the of and to a in is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if "
    "will more no out so said what up its about than into them can only other new some "
    "could time these two may then do first any my now such like our over man me even most "
    "made after also did many before must through back years where much your way well down "
    "should because each just those people how too little state good very make world still "
    "own see men work long get here between both life being under never day same another "
    "know while last might us great old year off come since against go came right used take "
    "three"
)
_FUNCTION_WORDS: tuple[str, ...] = tuple(_HEAD_WORDS.split())
_ONSET_TEXT = "b c d f g h k l m n p r s t v w z br ch cl cr dr fl gr pl pr sh sl st th tr"
_ONSETS: tuple[str, ...] = tuple(_ONSET_TEXT.split())
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "y")
_CODAS = ("", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ng", "x")
_ID_PREFIXES = ("pmt", "inv", "acct", "case", "tkt", "po", "sku", "txn")
_ID_RE = re.compile(r"^[a-z]+-[0-9]+$")

_TICK_RANGE = 1000
_CLASS_WEIGHTS = (0.3, 0.4, 0.2, 0.1)
# Tenant sizes, largest first, as shares of the corpus (unequal on purpose).
_TENANT_SHARES = (0.36, 0.22, 0.14, 0.10, 0.07, 0.05, 0.04, 0.02)


@dataclass(frozen=True)
class Query:
    """One benchmark question: who asks what, and when."""

    text: str
    principal: ReferenceAsker
    now_tick: int


@dataclass(frozen=True)
class Corpus:
    """Generated documents and the facts needed to ask questions about them."""

    documents: tuple[ReferenceDoc, ...]
    tenants: tuple[str, ...]  # largest first
    seed: int
    target_chunks: int
    now_tick: int = _TICK_RANGE

    def documents_of(self, tenant: str) -> list[ReferenceDoc]:
        """The documents of ``tenant``, in generation order."""
        return [d for d in self.documents if d.tenant == tenant]


def _vocabulary(rng: np.random.Generator, size: int) -> list[str]:
    """``size`` distinct words, most frequent first: function words, then pseudo-words,
    shorter ones first (Zipf's law of abbreviation) with some noise."""
    head = list(_FUNCTION_WORDS[: max(0, min(len(_FUNCTION_WORDS), size))])
    seen = set(head)
    made: list[str] = []
    while len(head) + len(made) < size:
        n = 2 * (size - len(head) - len(made)) + 16
        lengths = (1 + rng.choice(3, size=n, p=(0.3, 0.5, 0.2))).tolist()
        onsets = rng.integers(len(_ONSETS), size=(n, 3)).tolist()
        vowels = rng.integers(len(_VOWELS), size=(n, 3)).tolist()
        codas = rng.integers(len(_CODAS), size=(n, 3)).tolist()
        for i, syllables in enumerate(lengths):
            word = "".join(
                _ONSETS[onsets[i][j]] + _VOWELS[vowels[i][j]] + _CODAS[codas[i][j]]
                for j in range(syllables)
            )
            if word not in seen:
                seen.add(word)
                made.append(word)
                if len(head) + len(made) == size:
                    break
    noise = rng.normal(0.0, 1.5, size=len(made))
    order = np.argsort(np.array([len(w) for w in made]) + noise, kind="stable")
    return head + [made[i] for i in order]


def _zipf_cdf(size: int) -> Floats:
    weights = 1.0 / (np.arange(1, size + 1, dtype=np.float64) + 2.7)
    cdf: Floats = np.cumsum(weights)
    cdf /= cdf[-1]
    return cdf


def _estimate_chunks(section_chars: int, chunking: Chunking) -> int:
    """Roughly how many chunks the default chunker cuts a section of this size into."""
    window = 4 * chunking.max_tokens  # ceil(chars / 4) <= max_tokens
    step = max(1, window - 4 * chunking.overlap_tokens)  # a window less the overlap
    if section_chars <= window:
        return 1
    return 1 + math.ceil((section_chars - window) / step)


def _sentences(rng: np.random.Generator, words: list[str]) -> str:
    """Punctuated prose with paragraph breaks from a run of words."""
    out: list[str] = []
    i = 0
    in_paragraph = 0
    while i < len(words):
        n = int(rng.integers(6, 21))
        sentence = words[i : i + n]
        i += n
        if len(sentence) > 6 and rng.random() < 0.4:
            cut = int(rng.integers(2, len(sentence) - 2))
            sentence[cut] += ","
        sentence[0] = sentence[0][:1].upper() + sentence[0][1:]
        out.append(" ".join(sentence) + ".")
        in_paragraph += 1
        if i < len(words) and in_paragraph >= int(rng.integers(2, 6)):
            out.append("\n\n")
            in_paragraph = 0
        elif i < len(words):
            out.append(" ")
    return "".join(out)


def generate_corpus(
    target_chunks: int = 100_000,
    *,
    seed: int = 0,
    tenants: int = 8,
    vocabulary: int = 50_000,
    chunking: Chunking | None = None,
) -> Corpus:
    """Documents for ``tenants`` tenants of unequal size, about ``target_chunks`` chunks.

    Deterministic in its arguments. Tenant ``t0`` is the largest; sizes follow fixed
    shares (36%, 22%, 14%, ... of the corpus for eight tenants), at least one document each.
    """
    if target_chunks < 1:
        raise ValueError(f"target_chunks must be >= 1, got {target_chunks!r}")
    if not 1 <= tenants <= len(_TENANT_SHARES):
        raise ValueError(f"tenants must be in [1, {len(_TENANT_SHARES)}], got {tenants!r}")
    chunking = chunking or Chunking()
    rng = np.random.default_rng(seed)
    words = _vocabulary(rng, vocabulary)
    cdf = _zipf_cdf(len(words))
    shares = np.array(_TENANT_SHARES[:tenants])
    shares = shares / shares.sum()
    documents: list[ReferenceDoc] = []
    names = tuple(f"t{i}" for i in range(tenants))
    head = min(len(_FUNCTION_WORDS), len(words))
    for tenant, share in zip(names, shares.tolist(), strict=True):
        # This tenant's rank order: the head is shared, the tail perturbed (its topics).
        tail = np.arange(head, len(words))
        perturbed = np.argsort(np.log1p(tail) + rng.normal(0.0, 1.0, tail.size), kind="stable")
        order = np.concatenate([np.arange(head), tail[perturbed]])
        lexicon = [words[i] for i in order.tolist()]
        budget = max(1, round(target_chunks * share))
        produced = 0
        n = 0
        while produced < budget:
            n += 1
            document, estimate = _document(rng, tenant, n, lexicon, cdf, chunking)
            documents.append(document)
            produced += estimate
    return Corpus(tuple(documents), names, seed, target_chunks)


def _document(
    rng: np.random.Generator,
    tenant: str,
    n: int,
    lexicon: Sequence[str],
    cdf: Floats,
    chunking: Chunking,
) -> tuple[ReferenceDoc, int]:
    """One document and the estimated number of chunks it will be cut into."""
    identifiers = [
        f"{_ID_PREFIXES[int(rng.integers(len(_ID_PREFIXES)))]}-{int(rng.integers(1, 100_000))}"
        for _ in range(int(rng.integers(0, 5)))
    ]
    topic = [lexicon[i] for i in np.searchsorted(cdf, rng.uniform(cdf[200], 1.0, 12)).tolist()]
    sections: list[str] = []
    estimate = 0
    for s in range(1 + int(rng.poisson(2.0))):
        size = max(8, int(rng.lognormal(math.log(110.0), 0.8)))
        picks = np.searchsorted(cdf, rng.random(size)).tolist()
        body = [lexicon[min(i, len(lexicon) - 1)] for i in picks]
        for j in np.flatnonzero(rng.random(size) < 0.12).tolist():
            body[j] = topic[int(rng.integers(len(topic)))]
        if identifiers:
            for j in np.flatnonzero(rng.random(size) < 0.015).tolist():
                identifier = identifiers[int(rng.integers(len(identifiers)))]
                body[j] = identifier.upper() if rng.random() < 0.5 else identifier
        text = _sentences(rng, body)
        if s == 0 and rng.random() < 0.5:
            sections.append(text)  # a preamble before the first heading
        else:
            title = " ".join(
                lexicon[i].capitalize()
                for i in np.searchsorted(cdf, rng.random(int(rng.integers(1, 5)))).tolist()
            )
            sections.append(f"## {title}\n{text}")
        estimate += _estimate_chunks(len(text), chunking)
    classification = CLASSIFICATIONS[int(rng.choice(len(CLASSIFICATIONS), p=_CLASS_WEIGHTS))]
    barrier = BARRIERS[int(rng.integers(len(BARRIERS)))] if rng.random() < 0.1 else None
    document = ReferenceDoc(
        doc_id=f"{tenant}-doc-{n:06d}",
        tenant=tenant,
        title=f"Document {n} of {tenant}",
        text="\n\n".join(sections),
        classification=classification,
        barrier=barrier,
        version=1 + int(rng.integers(0, 3)),
        updated_tick=int(_TICK_RANGE * rng.beta(2.0, 1.0)),
    )
    return document, estimate


def principals_for(tenant: str) -> list[ReferenceAsker]:
    """Principals of ``tenant`` at every clearance, inside none, one or all barriers."""
    return [
        ReferenceAsker(f"{tenant}-public", tenant, "public"),
        ReferenceAsker(f"{tenant}-internal", tenant, "internal"),
        ReferenceAsker(f"{tenant}-deals", tenant, "internal", ("deals",)),
        ReferenceAsker(f"{tenant}-confidential", tenant, "confidential", ("research",)),
        ReferenceAsker(f"{tenant}-legal", tenant, "confidential", ("legal", "deals")),
        ReferenceAsker(f"{tenant}-restricted", tenant, "restricted"),
        omniscient(tenant),
    ]


def omniscient(tenant: str) -> ReferenceAsker:
    """A principal of ``tenant`` who sees every chunk: top clearance, inside every barrier."""
    return ReferenceAsker(f"{tenant}-all", tenant, CLASSIFICATIONS[-1], BARRIERS)


def generate_queries(
    corpus: Corpus,
    count: int,
    *,
    seed: int = 0,
    tenant: str | None = None,
    principal: ReferenceAsker | None = None,
) -> list[Query]:
    """``count`` queries sampled from the text of ``tenant``'s documents (default: the
    largest tenant), 2-8 terms, a quarter of them with one of the document's identifiers,
    asked at the corpus's ``now_tick`` by ``principal`` or by one of
    :func:`principals_for` chosen at random."""
    tenant = tenant or corpus.tenants[0]
    documents = corpus.documents_of(tenant)
    if not documents:
        raise ValueError(f"tenant {tenant!r} has no documents")
    rng = np.random.default_rng([seed, corpus.seed, zlib.crc32(tenant.encode("utf-8"))])
    people = principals_for(tenant)
    weights = np.array([len(d.text) for d in documents], dtype=np.float64)
    picks = rng.choice(len(documents), size=count, p=weights / weights.sum())
    queries: list[Query] = []
    for pick in picks.tolist():
        tokens = tokenize(documents[pick].text)
        identifiers = sorted({t for t in tokens if _ID_RE.match(t)})
        length = int(rng.integers(2, 9))
        if rng.random() < 0.5:  # a phrase
            start = int(rng.integers(0, max(1, len(tokens) - length)))
            terms = tokens[start : start + length]
        else:  # a bag of the document's words
            terms = [tokens[int(i)] for i in rng.integers(0, len(tokens), size=length)]
        if identifiers and rng.random() < 0.25:
            terms[int(rng.integers(len(terms)))] = identifiers[int(rng.integers(len(identifiers)))]
        asker = principal or people[int(rng.integers(len(people)))]
        queries.append(Query(" ".join(terms), asker, corpus.now_tick))
    return queries
