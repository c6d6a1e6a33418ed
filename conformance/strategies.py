"""Hypothesis strategies that hunt for leaks, and the case records they draw.

Corpora are adversarial by construction: several tenants reuse the same ``doc_id``; texts
are copies or near-duplicates of one another; ``## `` headings, newlines, tabs, runs of
spaces and unicode abound; every clearance, barrier and freshness edge is exercised; and
*floods* of chunks outside the asker's eligible view repeat the query words so that they
would outrank everything visible if they were ever let in.

Every document's text carries a *fingerprint*: a word unique to its ``(tenant, doc_id,
version)`` (see :func:`fingerprint`), written at the start of each section and every few
words. The kit therefore traces any returned text to exactly one ingested document version
without trusting what the implementation says about it.

Floods of such documents are :mod:`ragward.conformance.floods`; sequences of writes and
questions, :mod:`ragward.conformance.programs`.

Strategies take no capabilities: checks fit what they draw to what an adapter declares
(see :mod:`ragward.conformance.view`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from ragward.conformance.records import (
    CLASSIFICATIONS,
    FUSION_METHODS,
    MODES,
    Asker,
    Doc,
    Policy,
)
from ragward.conformance.visibility import in_view

__all__ = [
    "BARRIERS",
    "DOC_IDS",
    "LAST_TICK",
    "MAX_TICK",
    "TENANTS",
    "VOCABULARY",
    "Scene",
    "askers",
    "bodies",
    "documents",
    "fingerprint",
    "fingerprints_in",
    "fusions",
    "policies",
    "queries",
    "restamp",
    "scenes",
    "stamp",
]

TENANTS: tuple[str, ...] = ("acme", "globex", "initech")
DOC_IDS: tuple[str, ...] = ("d1", "d2", "shared", "a::b", "Ωmega")
BARRIERS: tuple[str, ...] = ("ma-deal", "litigation", "hr")
#: Content words: a count check relies on one of them being matched by any analyzer.
ANCHORS: tuple[str, ...] = ("payment", "ledger", "screening", "release", "merger", "wire")
VOCABULARY: tuple[str, ...] = (
    *ANCHORS,
    "ref-604",
    "held",
    "dual",
    "control",
    "q3",
    "x9",
    "café",
    "naïve",
    "straße",
    "東京",
    "the",
    "of",
    "and",
)
MAX_TICK = 100
SEPARATORS: tuple[str, ...] = (" ", " ", " ", "  ", "    ", "\n", "\n\n", "\t", " \t ", "\r\n")
SECTIONS: tuple[str, ...] = ("Intro", "Hold", "Release", "Notes  and  more")
#: Where :func:`stamp` writes the fingerprint; never produced otherwise.
MARK = "§"
_FINGERPRINT_RE = re.compile(r"(?<![a-z])qx[a-z]{6}(?![a-z])")


def fingerprint(tenant: str, doc_id: str, version: int) -> str:
    """The word unique to one document version: ``qx`` and six letters of a hash."""
    parts = (tenant, doc_id, str(version))
    # Joined with NUL while no part holds one (the pinned cases' fingerprints stay what they
    # were), else as JSON, which holds no raw NUL: the two forms never meet, and each reads
    # back into its parts, so two identities never share a fingerprint.
    key = json.dumps(parts) if any("\0" in part for part in parts) else "\0".join(parts)
    digest = hashlib.sha256(key.encode()).digest()
    return "qx" + "".join(chr(ord("a") + b % 26) for b in digest[:6])


def fingerprints_in(text: str) -> frozenset[str]:
    """Every fingerprint written in ``text``."""
    return frozenset(_FINGERPRINT_RE.findall(text))


def stamp(body: str, tenant: str, doc_id: str, version: int) -> str:
    """``body`` with each fingerprint mark replaced by the version's fingerprint."""
    return body.replace(MARK, fingerprint(tenant, doc_id, version))


def _word(draw: st.DrawFn, vocabulary: Sequence[str]) -> str:
    word = draw(st.sampled_from(vocabulary))
    style = draw(st.sampled_from(("plain",) * 4 + ("upper", "title", ",", ".", "()")))
    if style == "upper":
        return word.upper()
    if style == "title":
        return word.title()
    if style == "()":
        return f"({word})"
    return word + style if style in {",", "."} else word


@st.composite
def bodies(draw: st.DrawFn, max_words: int = 14, shape: str = "") -> str:
    """Text with fingerprint marks: optional headings, irregular whitespace, unicode;
    now and then a document of one word, its fingerprint (a vector of norm one), and now
    and then a long one, beside which a one-word chunk lies far below the average length
    (where a length normalisation gone wrong turns its BM25 score negative). ``shape``
    ``"one word"`` or ``"long"`` asks for one of those two."""
    shapes = {"one word": 0, "long": 1}
    roll = shapes[shape] if shape else draw(st.integers(min_value=0, max_value=11))
    if roll == 0:
        return draw(st.sampled_from((MARK, f" {MARK}\n")))
    if roll == 1:
        max_words = 48
    parts: list[str] = [draw(st.sampled_from(("", "", " ", "\n", "\t  ")))]
    for index in range(1 if roll == 1 else draw(st.integers(min_value=1, max_value=3))):
        if index > 0 or draw(st.booleans()):
            if parts[-1] and not parts[-1].endswith("\n"):
                parts.append("\n")
            heading = draw(st.sampled_from(SECTIONS))
            parts.append(f"## {heading}" + draw(st.sampled_from(("\n", "\n\n", "\r\n", "\n  "))))
        every = draw(st.integers(min_value=3, max_value=6))
        least = max_words // 2 if shape == "long" else 0
        for n in range(draw(st.integers(min_value=least, max_value=max_words))):
            if n % every == 0:
                parts.append(MARK + " ")
            parts.append(_word(draw, VOCABULARY) + draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


@st.composite
def near_duplicates(draw: st.DrawFn, body: str, vocabulary: Sequence[str] = VOCABULARY) -> str:
    """``body`` with one small edit: whitespace, one word (of ``vocabulary``) added, one
    dropped or re-cased."""
    pieces = re.split(r"(\s+)", body)
    words = [i for i, p in enumerate(pieces) if p and not p.isspace() and MARK not in p]
    edit = draw(st.sampled_from(("space", "append", "drop", "case")))
    if edit == "append" or not words:
        return body + " " + _word(draw, vocabulary)
    index = draw(st.sampled_from(words))
    if edit == "drop":
        pieces[index] = ""
    elif edit == "case":
        pieces[index] = pieces[index].swapcase()
    else:
        pieces[index] += draw(st.sampled_from(("  ", "\t", "\n")))
    return "".join(pieces)


@st.composite
def documents(
    draw: st.DrawFn, tenant: str, doc_id: str, body: str | None = None, version: int = 0
) -> Doc:
    """A fingerprinted document with any classification, barrier, version and tick."""
    version = version or draw(st.integers(min_value=1, max_value=4))
    body = draw(bodies()) if body is None else body
    return Doc(
        tenant=tenant,
        doc_id=doc_id,
        text=stamp(body, tenant, doc_id, version),
        title=draw(st.sampled_from(("", "Hold notice", "Q3 ledger"))),
        classification=draw(st.sampled_from(CLASSIFICATIONS)),
        barrier=draw(st.one_of(st.none(), st.none(), st.sampled_from(BARRIERS))),
        version=version,
        updated_tick=draw(st.integers(min_value=0, max_value=MAX_TICK)),
    )


def restamp(doc: Doc, body_of: Doc | None = None) -> Doc:
    """``doc`` with its text re-fingerprinted for its own key and version."""
    text = _unmark((body_of or doc).text)
    return replace(doc, text=stamp(text, doc.tenant, doc.doc_id, doc.version))


@st.composite
def corpora(draw: st.DrawFn, tenants: Sequence[str] = TENANTS, max_size: int = 7) -> list[Doc]:
    """Distinct ``(tenant, doc_id)`` keys, colliding ``doc_id``s, copied and edited bodies."""
    keys = draw(
        st.lists(
            st.tuples(st.sampled_from(tuple(tenants)), st.sampled_from(DOC_IDS)),
            unique=True,
            max_size=max_size,
        )
    )
    made: list[str] = []
    corpus: list[Doc] = []
    for tenant, doc_id in keys:
        kind = draw(st.sampled_from(("fresh", "copy", "near"))) if made else "fresh"
        body = draw(bodies()) if kind == "fresh" else draw(st.sampled_from(made))
        if kind == "near":
            body = draw(near_duplicates(body))
        made.append(body)
        corpus.append(draw(documents(tenant, doc_id, body)))
    return corpus


def askers(
    tenants: Sequence[str] = TENANTS, clearances: Sequence[str] = CLASSIFICATIONS
) -> st.SearchStrategy[Asker]:
    """Any tenant, any clearance of ``clearances`` (a name twice is drawn twice as often),
    any barriers (including one no document uses)."""
    return st.builds(
        Asker,
        user_id=st.sampled_from(("u1", "u2")),
        tenant=st.sampled_from(tuple(tenants)),
        max_classification=st.sampled_from(tuple(clearances)),
        barriers=st.lists(
            st.sampled_from((*BARRIERS, "no-such-barrier")), unique=True, max_size=3
        ).map(lambda names: tuple(sorted(names))),
    )


@st.composite
def queries(draw: st.DrawFn, texts: Sequence[str] = ()) -> str:
    """Mostly words of ``texts``; sometimes a fingerprint, a whole text, or no term at all."""
    words = sorted({w for t in texts for w in t.split() if MARK not in w})
    vocabulary = [w for w in words if not _FINGERPRINT_RE.search(w)] or list(VOCABULARY)
    marks = sorted({f for t in texts for f in fingerprints_in(t)})
    kind = draw(st.sampled_from(("words",) * 6 + ("mark", "text", "empty")))
    if kind == "text" and texts:
        return draw(st.sampled_from(tuple(texts)))
    if kind == "empty":
        return draw(st.sampled_from(("", "   ", "?!", "_ _", "\n")))
    chosen = draw(st.lists(st.sampled_from(vocabulary), min_size=1, max_size=4))
    if kind == "mark" and marks:
        chosen.append(draw(st.sampled_from(marks)))
    return draw(st.sampled_from((" ", "  ", "\n", ", "))).join(chosen)


def fusions() -> st.SearchStrategy[tuple[str, float]]:
    """A fusion method and a dense weight: plain RRF most often; every method, and
    weights at both ends, the rest."""
    return st.tuples(
        st.sampled_from(("rrf", "rrf", *FUSION_METHODS)),
        st.sampled_from((0.5, 0.5, 0.0, 0.25, 0.8, 1.0)),
    )


def policies(modes: Sequence[str] = MODES, fusion: bool = True) -> st.SearchStrategy[Policy]:
    """Every mode, rerank on and off, small limits, with or without freshness; every
    fusion method and weight unless ``fusion`` is false (then plain RRF, for a caller
    that draws them last, see :func:`scenes`)."""
    plain = st.builds(
        Policy,
        mode=st.sampled_from(tuple(modes)),
        rrf_k=st.sampled_from((60.0, 1.0, 0.5, 10.0)),
        rerank=st.booleans(),
        rerank_min_score=st.sampled_from((0.0, 0.0, 0.25, -1.0)),
        candidate_limit=st.integers(min_value=1, max_value=8),
        result_limit=st.integers(min_value=1, max_value=6),
        # 0 and 1 on purpose: a contract of 0 ticks is a contract, not "none".
        max_stale_ticks=st.one_of(
            st.none(), st.sampled_from((0, 1)), st.integers(min_value=0, max_value=60)
        ),
    )
    if not fusion:
        return plain
    return st.tuples(plain, fusions()).map(
        lambda drawn: replace(drawn[0], fusion=drawn[1][0], dense_weight=drawn[1][1])
    )


@dataclass(frozen=True)
class Scene:
    """One request against one corpus: documents (ingested in order), asker, query, policy."""

    docs: tuple[Doc, ...]
    asker: Asker
    query: str
    policy: Policy
    now_tick: int


@st.composite
def scenes(draw: st.DrawFn, twins: bool = False) -> Scene:
    """A corpus, an asker (usually of a tenant in it), a query mostly about what they may
    see, documents on both sides of the freshness edge; with ``twins``, identical copies
    of visible documents under other ``doc_id``\\ s."""
    corpus = draw(corpora())
    present = sorted({d.tenant for d in corpus}) or list(TENANTS)
    tenant = draw(st.one_of(st.sampled_from(present), st.sampled_from(TENANTS)))
    asker = draw(askers((tenant,)))
    # fusion is drawn last (the committed matrix's examples come from this order; it
    # does not keep older examples, hypothesis's choices shift with any new draw)
    policy = draw(policies(fusion=False))
    now = draw(st.integers(min_value=0, max_value=MAX_TICK + 20))
    # Now and then the scene happens at the last tick, its contract often 0 ticks long:
    # the freshness edge is then the largest tick a column holds.
    last = draw(st.sampled_from((False, False, False, True)))
    if last and policy.max_stale_ticks is not None and draw(st.booleans()):
        policy = replace(policy, max_stale_ticks=0)
    if policy.max_stale_ticks is not None:
        edge = [t for t in (now - policy.max_stale_ticks + d for d in (-1, 0, 1)) if t >= 0]
        for i, doc in enumerate(corpus):
            if draw(st.booleans()) and edge:
                corpus[i] = replace(doc, updated_tick=draw(st.sampled_from(edge)))
    used = {(d.tenant, d.doc_id) for d in corpus}
    free = [i for i in (*DOC_IDS, "v1", "v2", "v3") if (tenant, i) not in used]
    oldest = 0 if policy.max_stale_ticks is None else max(0, now - policy.max_stale_ticks)
    mine = draw(st.lists(st.sampled_from(free), unique=True, max_size=3))
    # Now and then the asker's first two documents are one word and a long text: in one
    # view, the one-word chunk lies far below the average length.
    contrast = len(mine) > 1 and draw(st.integers(min_value=0, max_value=3)) == 0
    for n, doc_id in enumerate(mine):
        shape = ("one word", "long")[n] if contrast and n < 2 else ""
        doc = draw(documents(tenant, doc_id, draw(bodies(shape=shape)) if shape else None))
        rank = CLASSIFICATIONS.index(asker.max_classification)
        doc = replace(
            doc,
            classification=draw(st.sampled_from(CLASSIFICATIONS[: rank + 1])),
            barrier=draw(st.sampled_from((None, *asker.barriers))),
            updated_tick=draw(
                st.one_of(
                    st.integers(min_value=oldest, max_value=max(oldest, MAX_TICK)),
                    # exactly on the freshness edge (still fresh), or one tick past it
                    st.sampled_from((oldest, max(0, oldest - 1))),
                )
            ),
        )
        corpus.insert(draw(st.integers(min_value=0, max_value=len(corpus))), doc)
    seen = [d for d in corpus if in_view(d, asker, now, policy)]
    if twins and seen:
        for n, source in enumerate(draw(st.lists(st.sampled_from(seen), max_size=3))):
            # Ids that sort apart from their documents: "d10::1" < "d1::1" < "d1~0::1".
            ids = (f"t{n}", f"{source.doc_id}~{n}", f"{source.doc_id}{n}", f"{source.doc_id}-{n}")
            twin = replace(source, doc_id=draw(st.sampled_from(ids)))
            if (twin.tenant, twin.doc_id) not in used:
                used.add((twin.tenant, twin.doc_id))
                corpus.insert(draw(st.integers(min_value=0, max_value=len(corpus))), twin)
        if draw(st.booleans()):
            # One document of many identical sections: chunks ::2 and ::10 tie.
            source = draw(st.sampled_from(seen))
            section = f"## {SECTIONS[1]}\n{_unmark(source.text).strip() or MARK}\n"
            doc_id = draw(st.sampled_from(("r", "r1")))
            if (source.tenant, doc_id) not in used:
                used.add((source.tenant, doc_id))
                body = section * draw(st.sampled_from((2, 11, 12)))
                doc = restamp(replace(source, doc_id=doc_id, text=body))
                corpus.insert(draw(st.integers(min_value=0, max_value=len(corpus))), doc)
    about = seen if seen and draw(st.integers(min_value=0, max_value=4)) > 0 else corpus
    query = draw(queries([d.text for d in about]))
    if last:
        corpus, now = _at_the_last_tick(corpus, now)
    fusion, dense_weight = draw(fusions())
    policy = replace(policy, fusion=fusion, dense_weight=dense_weight)
    return Scene(tuple(corpus), asker, query, policy, now)


#: The last tick an int64 column holds: ticks are 64-bit signed integers.
LAST_TICK = 2**63 - 1


def _at_the_last_tick(corpus: list[Doc], now: int) -> tuple[list[Doc], int]:
    """The same scene moved in time so that ``now`` is :data:`LAST_TICK`: every
    document keeps its age, and one from the future (it is fresh either way) is held at
    the last tick. The freshness edge then lies on the largest tick a column holds."""
    shift = LAST_TICK - now
    moved = [replace(d, updated_tick=min(d.updated_tick + shift, LAST_TICK)) for d in corpus]
    return moved, LAST_TICK


def _unmark(text: str) -> str:
    return _FINGERPRINT_RE.sub(MARK, text)
