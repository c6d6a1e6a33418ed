"""Hypothesis strategies for property tests of the reference retriever.

Corpora are adversarial by construction: several tenants that reuse the same ``doc_id``,
identical and near-duplicate texts, ``## `` headings, whitespace-heavy text (newlines,
tabs, runs of spaces, ``\\r\\n``), every classification, information barriers and a range
of ``updated_tick`` values. Queries are drawn mostly from the corpus vocabulary so that
they match something; policies cover every mode, rerank on and off, small limits and
freshness contracts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from ragward.conformance.strategies import askers
from ragward.conformance.strategies import near_duplicates as kit_near_duplicates
from ragward.engines.reference_records import reference_asker
from ragward.reference import (
    CLASSIFICATIONS,
    MODES,
    Chunking,
    ReferenceAsker,
    ReferenceDoc,
    ReferencePolicy,
    tokenize,
)
from ragward.reference.fusion_methods import FUSIONS

__all__ = [
    "BARRIERS",
    "CHUNKINGS",
    "DOC_IDS",
    "MAX_TICK",
    "TENANTS",
    "VOCABULARY",
    "Scenario",
    "barrier_values",
    "chunkings",
    "classifications",
    "corpora",
    "documents",
    "floods",
    "near_duplicates",
    "now_ticks",
    "policies",
    "principals",
    "queries",
    "scenarios",
    "texts",
    "ticks",
]

TENANTS: tuple[str, ...] = ("acme", "globex", "initech")
DOC_IDS: tuple[str, ...] = ("d1", "d2", "d3", "d4", "shared", "a::b")
BARRIERS: tuple[str, ...] = ("ma-deal", "litigation", "hr")
VOCABULARY: tuple[str, ...] = (
    "payment",
    "trf-3318",
    "held",
    "screening",
    "release",
    "dual",
    "control",
    "ledger",
    "wire",
    "sanction",
    "merger",
    "q3",
    "x9",
    "café",
    "naïve",
    "the",
    "of",
    "and",
)
MAX_TICK = 100
SEPARATORS: tuple[str, ...] = (" ", " ", "  ", "    ", "\n", "\n\n", "\t", " \t ", "\r\n", " \n  ")
SECTION_NAMES: tuple[str, ...] = ("Intro", "Hold", "Release", "Notes")
# Small windows make several chunks per document (and overlaps); (1, 0) is one word each.
CHUNKINGS: tuple[Chunking, ...] = (
    Chunking(),
    Chunking(max_tokens=8, overlap_tokens=2),
    Chunking(max_tokens=4, overlap_tokens=0),
    Chunking(max_tokens=12, overlap_tokens=5),
    Chunking(max_tokens=1, overlap_tokens=0),
)


def chunkings() -> st.SearchStrategy[Chunking]:
    return st.sampled_from(CHUNKINGS)


def classifications() -> st.SearchStrategy[str]:
    return st.sampled_from(CLASSIFICATIONS)


def barrier_values() -> st.SearchStrategy[str | None]:
    """Mostly no barrier, sometimes one of :data:`BARRIERS`."""
    return st.one_of(st.none(), st.none(), st.sampled_from(BARRIERS))


def ticks(max_tick: int = MAX_TICK) -> st.SearchStrategy[int]:
    return st.integers(min_value=0, max_value=max_tick)


def now_ticks() -> st.SearchStrategy[int]:
    return st.integers(min_value=0, max_value=MAX_TICK + 20)


@st.composite
def _words(draw: st.DrawFn, vocabulary: Sequence[str] = VOCABULARY) -> str:
    """A vocabulary word as it may appear in prose: cased, punctuated or bracketed."""
    word = draw(st.sampled_from(vocabulary))
    style = draw(st.sampled_from(("plain", "plain", "plain", "upper", "title", ",", ".", "()")))
    if style == "upper":
        return word.upper()
    if style == "title":
        return word.title()
    if style == "()":
        return f"({word})"
    if style in {",", "."}:
        return word + style
    return word


@st.composite
def texts(draw: st.DrawFn, vocabulary: Sequence[str] = VOCABULARY, max_words: int = 12) -> str:
    """Prose with optional ``## `` headings and irregular whitespace (possibly empty)."""
    parts: list[str] = [draw(st.sampled_from(("", "", " ", "\n", "\t  ")))]
    for index in range(draw(st.integers(min_value=1, max_value=3))):
        if index > 0 or draw(st.booleans()):
            if parts[-1] and not parts[-1].endswith("\n"):
                parts.append("\n")
            name = draw(st.sampled_from(SECTION_NAMES))
            parts.append(f"## {name}" + draw(st.sampled_from(("\n", "\n\n", "\r\n", "\n  "))))
        words = draw(st.lists(_words(vocabulary), max_size=max_words))
        for word in words:
            parts.append(word + draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


@st.composite
def documents(
    draw: st.DrawFn,
    tenant: str,
    doc_id: str,
    text: str | None = None,
    max_tick: int = MAX_TICK,
) -> ReferenceDoc:
    """A document under ``(tenant, doc_id)`` with any classification, barrier and tick."""
    return ReferenceDoc(
        doc_id=doc_id,
        tenant=tenant,
        title=draw(st.sampled_from(("", "Hold notice", "Q3 ledger"))),
        text=draw(texts()) if text is None else text,
        classification=draw(classifications()),
        barrier=draw(barrier_values()),
        version=draw(st.integers(min_value=1, max_value=4)),
        updated_tick=draw(ticks(max_tick)),
    )


@st.composite
def corpora(
    draw: st.DrawFn,
    min_size: int = 0,
    max_size: int = 8,
    tenants: Sequence[str] = TENANTS,
) -> list[ReferenceDoc]:
    """Documents with distinct ``(tenant, doc_id)`` keys; ``doc_id`` collides across tenants,
    and many texts are copies or near-duplicates of earlier ones."""
    keys = draw(
        st.lists(
            st.tuples(st.sampled_from(tenants), st.sampled_from(DOC_IDS)),
            unique=True,
            min_size=min_size,
            max_size=max_size,
        )
    )
    corpus: list[ReferenceDoc] = []
    for tenant, doc_id in keys:
        kind = draw(st.sampled_from(("fresh", "copy", "near"))) if corpus else "fresh"
        text: str | None = None
        if kind != "fresh":
            twins = [d for d in corpus if d.doc_id == doc_id] or corpus
            source = draw(st.sampled_from(twins)).text
            text = source if kind == "copy" else draw(near_duplicates(source))
        corpus.append(draw(documents(tenant, doc_id, text)))
    return corpus


def principals(tenants: Sequence[str] = TENANTS) -> st.SearchStrategy[ReferenceAsker]:
    """Any tenant, any clearance (the two highest more often), any set of barriers
    (including one no document uses): the kit's askers, as the reference's."""
    clearances = (*CLASSIFICATIONS, "confidential", "restricted")
    return askers(tenants, clearances).map(reference_asker)


def near_duplicates(text: str) -> st.SearchStrategy[str]:
    """``text`` with one small edit: whitespace, one word added, dropped or re-cased."""
    return kit_near_duplicates(text, VOCABULARY)


@st.composite
def queries(draw: st.DrawFn, corpus: Sequence[ReferenceDoc] = ()) -> str:
    """Mostly words of the corpus; sometimes a whole text, an unknown word or no term."""
    vocabulary = sorted({t for d in corpus for t in tokenize(d.text)}) or list(VOCABULARY)
    kind = draw(st.sampled_from(("words",) * 6 + ("mixed", "text", "empty")))
    if kind == "text" and corpus:
        return draw(st.sampled_from([d.text for d in corpus]))
    if kind == "empty":
        return draw(st.sampled_from(("", "   ", "?!", "_ _", "\n")))
    words = draw(st.lists(_words(vocabulary), min_size=1, max_size=4))
    if kind == "mixed":
        words.append(draw(st.text(alphabet="kqxz", min_size=3, max_size=6)))
    return draw(st.sampled_from((" ", "  ", "\n", ", "))).join(words)


def policies(modes: Sequence[str] = MODES) -> st.SearchStrategy[ReferencePolicy]:
    """Every mode, rerank on/off, small limits, with or without a freshness contract."""
    return st.builds(
        ReferencePolicy,
        max_stale_ticks=st.one_of(st.none(), st.integers(min_value=0, max_value=60)),
        enable_rerank=st.booleans(),
        rerank_min_score=st.sampled_from((0.0, 0.0, 0.25, -1.0)),
        candidate_limit=st.integers(min_value=1, max_value=8),
        result_limit=st.integers(min_value=1, max_value=6),
        rrf_k=st.sampled_from((60, 1, 0.5, 10.0)),
        mode=st.sampled_from(tuple(modes)),
        fusion=st.sampled_from(("rrf", "rrf", *FUSIONS)),
        dense_weight=st.sampled_from((0.5, 0.5, 0.0, 0.25, 0.8, 1.0)),
    )


@dataclass(frozen=True)
class Scenario:
    """One retrieval request against one corpus."""

    corpus: tuple[ReferenceDoc, ...]
    principal: ReferenceAsker
    query: str
    policy: ReferencePolicy
    now_tick: int
    chunking: Chunking


@st.composite
def scenarios(
    draw: st.DrawFn,
    min_docs: int = 0,
    max_docs: int = 8,
    modes: Sequence[str] = MODES,
) -> Scenario:
    """A corpus, a principal (usually of a tenant present in it), a query and a policy.

    Besides the random corpus, up to four documents are made visible to the principal
    (their tenant, a classification within clearance, no barrier or one they are inside,
    fresh under the policy), and the query is mostly about what they may see, so that
    results are seldom empty."""
    corpus = draw(corpora(min_size=min_docs, max_size=max_docs))
    present = sorted({d.tenant for d in corpus}) or list(TENANTS)
    tenant = draw(
        st.one_of(st.sampled_from(present), st.sampled_from(present), st.sampled_from(TENANTS))
    )
    principal = draw(principals((tenant,)))
    policy = draw(policies(modes))
    now_tick = draw(now_ticks())
    if policy.max_stale_ticks is not None:
        # Put documents on and around the freshness edge: age == max_stale_ticks is fresh.
        edge = now_tick - policy.max_stale_ticks
        near_edge = [t for t in (edge - 1, edge, edge + 1) if t >= 0]
        for i, document in enumerate(corpus):
            move = draw(st.booleans())
            if near_edge and move:
                corpus[i] = replace(document, updated_tick=draw(st.sampled_from(near_edge)))
    used = {d.key for d in corpus}
    free = [i for i in (*DOC_IDS, "v1", "v2", "v3", "v4") if (tenant, i) not in used]
    oldest = 0 if policy.max_stale_ticks is None else max(0, now_tick - policy.max_stale_ticks)
    for doc_id in draw(st.lists(st.sampled_from(free), unique=True, max_size=4)):
        kind = draw(st.sampled_from(("fresh", "copy", "near"))) if corpus else "fresh"
        text = draw(texts())
        if kind != "fresh":
            source = draw(st.sampled_from(corpus)).text
            text = source if kind == "copy" else draw(near_duplicates(source))
        document = draw(documents(tenant, doc_id, text))
        visible = replace(
            document,
            classification=draw(st.sampled_from(CLASSIFICATIONS[: principal.clearance + 1])),
            barrier=draw(st.sampled_from((None, *principal.barriers))),
            updated_tick=draw(
                st.one_of(
                    st.just(oldest),
                    st.integers(min_value=oldest, max_value=max(oldest, MAX_TICK)),
                )
            ),
        )
        corpus.insert(draw(st.integers(min_value=0, max_value=len(corpus))), visible)
    seen = [
        d
        for d in corpus
        if d.tenant == tenant
        and CLASSIFICATIONS.index(d.classification) <= principal.clearance
        and (d.barrier is None or d.barrier in principal.barriers)
        and (policy.max_stale_ticks is None or now_tick - d.updated_tick <= policy.max_stale_ticks)
    ]
    mostly = draw(st.integers(min_value=0, max_value=4)) > 0
    about = seen if seen and mostly else corpus
    return Scenario(
        corpus=tuple(corpus),
        principal=principal,
        query=draw(queries(about)),
        policy=policy,
        now_tick=now_tick,
        chunking=draw(chunkings()),
    )


@st.composite
def floods(draw: st.DrawFn, scenario: Scenario, max_size: int = 25) -> list[ReferenceDoc]:
    """Documents outside the scenario principal's eligible view ``E(P, t)``.

    Each is another tenant's (often under a ``doc_id`` the corpus uses), above the
    principal's clearance, behind a barrier they are outside of, or stale under the
    policy. Most texts are copies of the query, so they match it better than anything
    visible; others are copies of corpus texts (identical chunks on both sides).
    """
    principal, policy, now = scenario.principal, scenario.policy, scenario.now_tick
    kinds = ["tenant", "barrier"]
    if principal.clearance < len(CLASSIFICATIONS) - 1:
        kinds.append("classification")
    if policy.max_stale_ticks is not None and now - policy.max_stale_ticks - 1 >= 0:
        kinds.append("stale")
    other_tenants = [t for t in (*TENANTS, "flood-tenant") if t != principal.tenant]
    outside = [b for b in (*BARRIERS, "flood-barrier") if b not in principal.barriers]
    used = {d.key for d in scenario.corpus}
    query_text = scenario.query if tokenize(scenario.query) else " ".join(VOCABULARY[:3])
    flood: list[ReferenceDoc] = []
    for index in range(draw(st.integers(min_value=1, max_value=max_size))):
        source = draw(st.sampled_from(("query",) * 3 + ("corpus",)))
        if source == "corpus" and scenario.corpus:
            text = draw(st.sampled_from(scenario.corpus)).text
        else:
            separator = draw(st.sampled_from(SEPARATORS))
            text = separator.join([query_text] * draw(st.integers(min_value=1, max_value=5)))
        document = draw(documents(principal.tenant, f"flood-{index}", text))
        kind = draw(st.sampled_from(kinds))
        if kind == "tenant":
            tenant = draw(st.sampled_from(other_tenants))
            doc_ids = [d.doc_id for d in scenario.corpus] + list(DOC_IDS)
            doc_id = draw(st.sampled_from(doc_ids))
            if (tenant, doc_id) in used:
                doc_id = f"flood-{index}"
            document = replace(document, tenant=tenant, doc_id=doc_id)
        elif kind == "classification":
            above = CLASSIFICATIONS[principal.clearance + 1 :]
            document = replace(document, classification=draw(st.sampled_from(above)))
        elif kind == "barrier":
            document = replace(document, barrier=draw(st.sampled_from(outside)))
        else:
            assert policy.max_stale_ticks is not None
            latest = now - policy.max_stale_ticks - 1
            tick = draw(st.one_of(st.just(latest), st.integers(min_value=0, max_value=latest)))
            document = replace(document, updated_tick=tick)
        used.add(document.key)
        flood.append(document)
    return flood
