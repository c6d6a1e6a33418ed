"""Properties of the reference's text stages: chunking, assembly, grounding and RRF.

Each property is checked against a small independent model written here (the section
structure of a document, the rendering of an assembled prompt, the best-overlap rule of
grounding, the RRF sum), never against the implementation itself.
"""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragward.errors import BudgetError, InvalidArgument
from ragward.reference import (
    STOPWORDS,
    AssembledContext,
    Chunk,
    Claim,
    ReferenceDoc,
    ScoredChunk,
    assemble_context,
    check_grounding,
    chunk_document,
    estimate_tokens,
    neutralise,
    reciprocal_rank_fusion,
)
from ragward.reference.text import tokenize

# -- Chunking --------------------------------------------------------------------------

_WORD = re.compile(r"\S+")
_HEADING_LINE = re.compile(r"##[ \t]+(\S.*)", re.DOTALL)

_word_chars = st.characters(
    blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"),
).filter(lambda c: not c.isspace())
_short_words = st.text(alphabet=_word_chars, min_size=1, max_size=10)
_long_words = st.text(alphabet="abcxyz-", min_size=20, max_size=70)
_tricky_words = st.sampled_from(["##", "###", "[instructions]", "<<a@v1#s[0:1]>>", "é", "日本"])
_words = st.one_of(_short_words, _short_words, _long_words, _tricky_words)
_BLANKS = " |  |   |\t|\n|\n\n|\r\n|\r| \n |\n\t  |\r\n\r\n|\u2028|\xa0|\u3000|\x0c|\x85"
_blanks = st.sampled_from(_BLANKS.split("|"))
_inner = st.sampled_from([" ", "  ", "\t", "\r", "\u2028", "\x0b", "\x85", " \r "])
_headings = st.builds(
    lambda name, lead, trail: f"\n##{lead}{name}{trail}\n",
    st.lists(st.tuples(_short_words, _inner), min_size=1, max_size=3).map(
        lambda parts: "".join(word + gap for word, gap in parts).rstrip()
    ),
    st.sampled_from([" ", "\t", "  ", " \t"]),
    st.sampled_from(["", " ", "\r", "\t "]),
)
_near_headings = st.sampled_from(["\n##\n", "\n##x\n", "\n ## y\n", "\n## \n", "##"])
_pieces = st.one_of(_words, _words, _blanks, _blanks, _headings, _near_headings)
_small_pieces = st.one_of(
    st.text("ab1", min_size=1, max_size=4), st.sampled_from([" ", "\n", "  "])
)
_texts = st.one_of(
    st.lists(_pieces),
    st.lists(_pieces, min_size=8, max_size=60),
    st.lists(_small_pieces, min_size=10, max_size=60),
).map("".join)
_sizes = st.one_of(st.integers(1, 6), st.integers(1, 24)).flatmap(
    lambda m: st.tuples(st.just(m), st.integers(0, m - 1))
)


def _model_sections(text: str) -> list[tuple[str, int, int]]:
    """``(raw name, start, end)`` of each section: a heading is a whole line (lines end at
    ``\\n``) of ``##``, blanks or tabs, then a non-blank name; text before the first heading
    is section ``body``. A section's words are its body's, ``text[start:end]``; a section
    with no body word is cut from its heading's name instead, and ``start:end`` is then
    the name's place."""
    headings: list[tuple[str, int, int, int]] = []
    offset = 0
    for line in text.split("\n"):
        match = _HEADING_LINE.fullmatch(line)
        if match:
            named = offset + match.start(1)
            headings.append((match.group(1).strip(), offset, offset + len(line), named))
        offset += len(line) + 1
    if not headings:
        return [("body", 0, len(text))]
    sections = [("body", 0, headings[0][1])]
    for i, (name, _, end, named) in enumerate(headings):
        stop = headings[i + 1][1] if i + 1 < len(headings) else len(text)
        if _WORD.search(text, end, stop):
            sections.append((name, end, stop))
        else:
            sections.append((name, named, end))
    return sections


def _section_of(chunk: Chunk, sections: list[tuple[str, int, int]]) -> int:
    """Index of the section whose words contain the chunk; fails if none does."""
    homes = [
        i
        for i, (_, start, end) in enumerate(sections)
        if start <= chunk.start_char and chunk.end_char <= end
    ]
    assert len(homes) == 1, (chunk, sections)
    return homes[0]


@given(
    text=_texts,
    sizes=_sizes,
    doc_id=st.text(alphabet="abc-_.", min_size=1, max_size=5),
    version=st.integers(1, 99),
)
def test_chunking_provenance_coverage_and_size(
    text: str, sizes: tuple[int, int], doc_id: str, version: int
) -> None:
    max_tokens, overlap = sizes
    doc = ReferenceDoc(doc_id, "t", "T", text, version=version)
    chunks = chunk_document(doc, max_tokens=max_tokens, overlap_tokens=overlap)
    sections = _model_sections(text)

    assert [c.chunk_id for c in chunks] == [f"{doc_id}::{n}" for n in range(1, len(chunks) + 1)]
    homes = [_section_of(c, sections) for c in chunks]  # no chunk crosses a boundary
    assert homes == sorted(homes)
    for chunk, home in zip(chunks, homes, strict=True):
        assert chunk.text == text[chunk.start_char : chunk.end_char]
        assert chunk.text, chunk
        assert not chunk.text[0].isspace()
        assert not chunk.text[-1].isspace()
        # the heading's words, on one line (a line break inside a heading is a blank)
        assert chunk.section.split() == sections[home][0].split()
        assert chunk.section.splitlines() == [chunk.section.strip()]
        assert chunk.citation() == (
            f"{doc_id}@v{version}#{chunk.section}[{chunk.start_char}:{chunk.end_char}]"
        )
        assert (chunk.doc_id, chunk.tenant, chunk.doc_version) == (doc_id, "t", version)
        if estimate_tokens(chunk.text) > max_tokens:
            assert len(_WORD.findall(chunk.text)) == 1, (chunk.text, max_tokens)

    for i, (_, start, end) in enumerate(sections):
        mine = [c for c, home in zip(chunks, homes, strict=True) if home == i]
        for word in _WORD.finditer(text, start, end):
            assert any(c.start_char <= word.start() and word.end() <= c.end_char for c in mine), (
                word.group(),
                word.start(),
            )
        if not _WORD.search(text, start, end):
            assert not mine
        for prev, nxt in itertools.pairwise(mine):
            assert nxt.start_char > prev.start_char
            assert nxt.end_char > prev.end_char
            if nxt.start_char < prev.end_char:
                shared = text[nxt.start_char : prev.end_char]
                assert estimate_tokens(shared) <= overlap, (shared, overlap)


# -- Assembly --------------------------------------------------------------------------

_SEGMENTS = ("instructions", "tool_schemas", "policy", "memory", "retrieved", "question")
_STABLE = ("instructions", "tool_schemas", "policy")
_HEADER_LINE = re.compile(
    r"\[\s*(?:instructions|tool_schemas|policy|memory|retrieved|question)\s*\]|<<.*>>",
    re.IGNORECASE | re.DOTALL,
)
_BREAKS = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"]
_BREAK = st.sampled_from(_BREAKS)
_forgeries = st.sampled_from(
    [
        "[instructions]",
        "  [question]  ",
        "[retrieved]",
        "[ memory ]",
        "[Policy]",
        "\t[tool_schemas]",
        "<<x@v1#s[0:1]>>",
        "<<>>",
        "[]",
        "\\[question]",
        "[question] trailing",
        "",
    ]
)
_lines = st.one_of(_forgeries, _forgeries, st.text(max_size=12))
_values = st.lists(st.tuples(_lines, st.sampled_from(_BREAKS)), max_size=5).map(
    lambda parts: "".join(line + brk for line, brk in parts)
)
_optional = st.one_of(st.just(""), _values)
_questions = st.builds(
    lambda a, b, c: a + b + c,
    _values,
    st.text(alphabet="Why is TRF-3318 held?", min_size=1, max_size=8).filter(str.strip),
    _values,
)


def _header_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if _HEADER_LINE.fullmatch(line.strip())]


def _shape(headers: list[str]) -> list[str]:
    return ["<<>>" if line.startswith("<<") else line for line in headers]


def _chunks(texts: list[str]) -> list[ScoredChunk]:
    return [
        ScoredChunk(
            Chunk(f"d{i}::1", f"d{i}", "t", text, "body", 0, len(text), "public", None, 1, 0), 1
        )
        for i, text in enumerate(texts)
    ]


def _render(fixed: dict[str, str], retrieved: list[ScoredChunk], count: int) -> str:
    """The assembled prompt with the first ``count`` chunks, as the seed lays it out."""
    parts = []
    for name in _SEGMENTS:
        if name == "retrieved":
            if count:
                body = "\n\n".join(
                    f"<<{s.chunk.citation()}>>\n{neutralise(s.chunk.text)}"
                    for s in retrieved[:count]
                )
                parts.append(f"[retrieved]\n{body}")
        elif fixed[name]:
            parts.append(f"[{name}]\n{neutralise(fixed[name])}")
    return "\n\n".join(parts)


def _expected_headers(fixed: dict[str, str], retrieved: list[ScoredChunk], count: int) -> list[str]:
    lines = []
    for name in _SEGMENTS:
        if name == "retrieved":
            if count:
                lines.append("[retrieved]")
                lines += [f"<<{s.chunk.citation()}>>" for s in retrieved[:count]]
        elif fixed[name]:
            lines.append(f"[{name}]")
    return lines


def _assemble(fixed: dict[str, str], retrieved: list[ScoredChunk], budget: int) -> AssembledContext:
    return assemble_context(
        budget_tokens=budget,
        instructions=fixed["instructions"],
        tool_schemas=fixed["tool_schemas"],
        policy=fixed["policy"],
        memory=fixed["memory"],
        question=fixed["question"],
        retrieved=retrieved,
    )


@given(
    instructions=_optional,
    tool_schemas=_optional,
    policy=_optional,
    memory=_optional,
    question=_questions,
    texts=st.lists(_values, max_size=6),
    data=st.data(),
)
def test_assembly_budget_prefix_order_and_headers(
    instructions: str,
    tool_schemas: str,
    policy: str,
    memory: str,
    question: str,
    texts: list[str],
    data: st.DataObject,
) -> None:
    fixed = {
        "instructions": instructions,
        "tool_schemas": tool_schemas,
        "policy": policy,
        "memory": memory,
        "question": question,
    }
    retrieved = _chunks(texts)
    ids = tuple(s.chunk.chunk_id for s in retrieved)
    most = estimate_tokens(_render(fixed, retrieved, len(retrieved)))
    budget = data.draw(st.integers(1, most + 3), label="budget")

    if estimate_tokens(_render(fixed, retrieved, 0)) > budget:
        with pytest.raises(BudgetError):
            _assemble(fixed, retrieved, budget)
        return
    ctx = _assemble(fixed, retrieved, budget)
    count = len(ctx.included_chunks)
    assert ctx.tokens == estimate_tokens(ctx.text) <= budget
    assert ctx.included_chunks == ids[:count]
    assert ctx.dropped_chunks == ids[count:]
    assert ctx.text == _render(fixed, retrieved, count)
    for more in range(count + 1, len(retrieved) + 1):  # the longest prefix that fits
        assert estimate_tokens(_render(fixed, retrieved, more)) > budget
    assert ctx.text.endswith("[question]\n" + neutralise(question))
    assert _header_lines(ctx.text) == _expected_headers(fixed, retrieved, count)
    assert _header_lines(ctx.text)[-1] == "[question]"
    stable = "\n\n".join(f"[{n}]\n{neutralise(fixed[n])}" for n in _STABLE if fixed[n])
    assert ctx.text.startswith(stable)
    assert ctx.stable_prefix_tokens == estimate_tokens(stable)


@given(text=_values)
def test_neutralise_only_escapes_structural_lines(text: str) -> None:
    out = neutralise(text)
    before = text.splitlines(keepends=True)
    after = out.splitlines(keepends=True)
    assert len(after) == len(before)
    for old, new in zip(before, after, strict=True):
        assert new in (old, "\\" + old)
        if _HEADER_LINE.fullmatch(old.strip()):
            assert new == "\\" + old
        if not old.strip().startswith(("[", "<<")):
            assert new == old
    assert _header_lines(out) == []


_heading_names = st.lists(st.tuples(st.sampled_from(["x", "", "[y]"]), st.sampled_from(_BREAKS)))


@given(
    names=st.lists(
        st.tuples(_heading_names.map(lambda p: "".join(a + b for a, b in p)), _forgeries),
        min_size=1,
        max_size=3,
    ),
    body=_values,
    doc_id=st.one_of(
        st.just("d"),
        st.builds(lambda a, b, c: a + b + c, st.sampled_from(["a", "[x]"]), _BREAK, _forgeries),
    ),
)
def test_assembly_headers_cannot_be_forged_through_document_text(
    names: list[tuple[str, str]], body: str, doc_id: str
) -> None:
    # Retrieved chunks come from documents: every part of a chunk the assembler writes
    # out (its text and its citation: the document's id and its own headings) is
    # retrieved text.
    text = "".join(f"## h{lead}{forged}\n{body} word\n" for lead, forged in names)
    try:
        document = ReferenceDoc(doc_id, "t", "T", text)
    except InvalidArgument:
        return  # an id refused at the door cannot forge anything later
    retrieved = [ScoredChunk(c, 1.0) for c in chunk_document(document)]
    fixed = {
        "instructions": "Cite.",
        "tool_schemas": "",
        "policy": "",
        "memory": "",
        "question": "Q?",
    }
    ctx = _assemble(fixed, retrieved, 10**6)
    # One marker line per chunk (however a citation is made to fit on one line), and no
    # segment header but the assembler's.
    assert _shape(_header_lines(ctx.text)) == _shape(
        _expected_headers(fixed, retrieved, len(retrieved))
    )


# -- Grounding -------------------------------------------------------------------------

_VOCAB = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
_ABSENT = ["omega", "sigma", "kappa", "trf-3318", "x9"]
_STOPS = ["the", "of", "is", "and", "to", "it"]
_chunk_texts = st.lists(st.sampled_from(_VOCAB + _STOPS), max_size=8).map(" ".join)
_claim_texts = st.lists(st.sampled_from(_VOCAB + _STOPS + _ABSENT), max_size=5).map(" ".join)
_chunk_ids = st.lists(
    st.builds(lambda d, n: f"d{d}::{n}", st.integers(0, 3), st.integers(1, 12)),
    unique=True,
    max_size=6,
)
_thresholds = st.one_of(
    st.sampled_from([0.2, 1 / 3, 0.5, 0.6, 2 / 3, 0.75, 1.0]), st.floats(0.01, 1.0)
)


@st.composite
def _retrieved_sets(draw: st.DrawFn) -> list[ScoredChunk]:
    ids = draw(_chunk_ids)
    out = []
    for chunk_id in ids:
        text = draw(_chunk_texts)
        doc_id = chunk_id.split("::")[0]
        start = draw(st.integers(0, 50))
        chunk = Chunk(
            chunk_id, doc_id, "t", text, "s", start, start + len(text), "public", None, 2, 0
        )
        out.append(ScoredChunk(chunk, draw(st.floats(-5, 5))))
    return out


def _terms(text: str) -> set[str]:
    return set(text.split()) - STOPWORDS


@given(
    claims=st.lists(_claim_texts, max_size=5),
    retrieved=_retrieved_sets(),
    min_overlap=_thresholds,
    data=st.data(),
)
def test_grounding_matches_best_overlap_model_in_any_order(
    claims: list[str], retrieved: list[ScoredChunk], min_overlap: float, data: st.DataObject
) -> None:
    report = check_grounding([Claim(c) for c in claims], retrieved, min_overlap=min_overlap)
    citations = {s.chunk.citation() for s in retrieved}
    supported: list[Claim] = []
    unsupported: list[Claim] = []
    for text in claims:
        terms = _terms(text)
        # best (overlap, chunk_id, citation): highest overlap, then smallest chunk_id
        best: tuple[float, str, str] | None = None
        for s in retrieved:
            if not terms:
                break
            overlap = len(terms & _terms(s.chunk.text)) / len(terms)
            key = (-overlap, s.chunk.chunk_id)
            if overlap > 0 and (best is None or key < (-best[0], best[1])):
                best = (overlap, s.chunk.chunk_id, s.chunk.citation())
        if best is not None and best[0] >= min_overlap:
            supported.append(Claim(text, best[2]))
        else:
            unsupported.append(Claim(text))
    assert list(report.supported) == supported
    assert list(report.unsupported) == unsupported
    for claim in report.supported:
        assert claim.citation in citations
    assert report.coverage == (len(supported) / len(claims) if claims else 1.0)
    shuffled = data.draw(st.permutations(retrieved), label="shuffled")
    again = check_grounding([Claim(c) for c in claims], shuffled, min_overlap=min_overlap)
    assert again == report


@given(
    absent=st.lists(
        st.lists(st.sampled_from(_ABSENT + _STOPS), min_size=1, max_size=5).map(" ".join),
        min_size=1,
        max_size=4,
    ),
    retrieved=_retrieved_sets(),
    min_overlap=_thresholds,
)
def test_grounding_claims_about_nothing_retrieved_are_unsupported(
    absent: list[str], retrieved: list[ScoredChunk], min_overlap: float
) -> None:
    report = check_grounding([Claim(c) for c in absent], retrieved, min_overlap=min_overlap)
    assert report.supported == ()
    assert [c.text for c in report.unsupported] == absent
    assert report.coverage == 0.0


# -- RRF -------------------------------------------------------------------------------

_ids = st.sampled_from([f"c{i}" for i in range(10)])
_rankings = st.lists(st.lists(_ids, unique=True, max_size=8), max_size=4)
_ks = st.one_of(st.integers(1, 200), st.floats(0.01, 1000.0))


def _scored_rankings(rankings: list[list[str]], scores: list[float]) -> list[list[ScoredChunk]]:
    flat = iter(scores)
    return [
        [
            ScoredChunk(Chunk(i, "d", "t", "x", "body", 0, 1, "public", None, 1, 0), next(flat))
            for i in ranking
        ]
        for ranking in rankings
    ]


def _pairs(fused: list[ScoredChunk]) -> list[tuple[str, float]]:
    return [(s.chunk.chunk_id, s.score) for s in fused]


@given(rankings=_rankings, k=_ks, data=st.data())
def test_rrf_is_score_free_order_free_and_the_sum_formula(
    rankings: list[list[str]], k: float, data: st.DataObject
) -> None:
    size = sum(len(r) for r in rankings)
    any_scores = st.lists(st.floats(allow_nan=False), min_size=size, max_size=size)
    first = _scored_rankings(rankings, data.draw(any_scores, label="scores"))
    second = _scored_rankings(rankings, data.draw(any_scores, label="other scores"))
    fused = reciprocal_rank_fusion(first, k=k)

    expected: dict[str, float] = {}
    for ranking in rankings:
        for rank, chunk_id in enumerate(ranking, start=1):
            expected[chunk_id] = expected.get(chunk_id, 0.0) + 1 / (k + rank)
    assert sorted(s.chunk.chunk_id for s in fused) == sorted(expected)
    for s in fused:
        assert s.score == pytest.approx(expected[s.chunk.chunk_id], rel=1e-12)
    assert _pairs(fused) == sorted(_pairs(fused), key=lambda p: (-p[1], p[0]))

    assert _pairs(reciprocal_rank_fusion(second, k=k)) == _pairs(fused)
    permuted = data.draw(st.permutations(first), label="permuted rankings")
    assert _pairs(reciprocal_rank_fusion(permuted, k=k)) == _pairs(fused)
    limit = data.draw(st.integers(0, 12), label="limit")
    assert _pairs(reciprocal_rank_fusion(first, k=k, limit=limit)) == _pairs(fused)[:limit]


# -- Tokens ----------------------------------------------------------------------------


# An independent model of the tokens: maximal runs of letters, digits and inner hyphens,
# starting with a letter or digit, read character by character from the lower-cased text.
def _model_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    current = ""
    for char in text.lower():
        if (char.isalnum() and char != "_") or (char == "-" and current):
            current += char
        else:
            if current:
                tokens.append(current)
            current = ""
    return [*tokens, current] if current else tokens


_ascii_text = st.text(alphabet=st.characters(max_codepoint=127), max_size=60)
_any_text = st.text(
    alphabet=st.one_of(st.sampled_from("aZ9-_ .\t\nÉé日本ǅﬁ²½İ"), st.characters(codec="utf-8")),
    max_size=40,
)


@given(text=st.one_of(_ascii_text, _any_text))
def test_tokens_are_the_runs_the_model_reads_for_ascii_and_any_script(text: str) -> None:
    # ASCII text takes a faster pattern than the rest; both must read as the model does
    # wherever str.isalnum agrees with the regex's classes (letters and digits).
    assert tokenize(text) == _model_tokens(text)
