"""Analysis invariant (statistics level): the lexical index matches what its declared analyzer says.

An adapter that declares ``analyzer`` (capability; ``plain`` or ``english``, the analyzers
:mod:`ragward.analysis` defines) promises that its lexical index and its
questions go through that analyzer. The kit applies the same named analyzer to the
documents and the question and holds the lexical answer to it: a document comes back
exactly when it shares an analysed term with the question.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from ragward.analysis import analyzer_named
from ragward.conformance.answer_diff import asked
from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import Asker, Doc, Policy
from ragward.conformance.text_strategies import latest, load

__all__ = ["AnalysedCase"]

#: Forms of a few words (inflections an English stemmer conflates, a plain analyzer does
#: not), with stop words of both kinds: Lucene's ("the", "not", "such") and not ("were").
_FORMS: tuple[str, ...] = (
    "payment",
    "payments",
    "screening",
    "screened",
    "screens",
    "release",
    "released",
    "releasing",
    "ledger",
    "ledgers",
    "Treatments",
    "treated",
    "the",
    "not",
    "such",
    "were",
    "TRF-3318",
    "trf",
)
_TENANT, _OTHER = "acme", "globex"
_WIDE = 200  # more than any case has chunks


@dataclass(frozen=True)
class AnalysedCase:
    """Documents of the asker's tenant and of another, and a question, all of the forms."""

    docs: tuple[Doc, ...]
    query: str


@st.composite
def _cases(draw: st.DrawFn) -> AnalysedCase:
    words = st.lists(st.sampled_from(_FORMS), min_size=1, max_size=6)
    joins = st.sampled_from((" ", ", ", ". ", "\n"))
    ids = draw(st.lists(st.sampled_from(("d1", "d2", "d3", "d4")), unique=True, min_size=1))
    docs = [Doc(_TENANT, i, draw(joins).join(draw(words))) for i in ids]
    docs += [Doc(_OTHER, i, draw(joins).join(draw(words))) for i in ids[:1]]
    query = draw(joins).join(draw(st.lists(st.sampled_from(_FORMS), min_size=1, max_size=3)))
    return AnalysedCase(tuple(docs), query)


@invariant("STAT-005", cases=_cases, requires=("analyzer", "lexical", "policy_knobs"))
def lexical_matches_are_the_analyzers(factory: Factory, case: AnalysedCase) -> None:
    """lexical matches are exactly the declared analyzer's

    In lexical mode, with rerank off and limits wider than the corpus, the documents
    returned are exactly the asker's documents that share a term with the question once
    both are put through the analyzer the adapter declares (``plain``: lower-cased words,
    every one kept; ``english``: Lucene's English stop words dropped, Snowball English
    stems): under ``english``, "payments" finds "payment" and a question of stop words
    finds nothing; under ``plain``, neither. Another tenant's documents never count."""
    system = factory()
    load(system, case.docs)
    caps = system.capabilities
    analyzer = analyzer_named(caps.analyzer)
    asker = Asker("u1", _TENANT)
    policy = Policy(mode="lexical", rerank=False, candidate_limit=_WIDE, result_limit=_WIDE)
    result = system.retrieve(case.query, asker, 0, policy)
    if "lexical" in result.degraded:
        return  # the stage was shed: nothing to compare
    wanted = set(analyzer.terms(case.query))
    held = latest(case.docs)
    expected = {
        doc_id
        for (tenant, doc_id), doc in held.items()
        if tenant == _TENANT and wanted & set(analyzer.terms(f"{doc.title} {doc.text}"))
    }
    got = {hit.doc_id for hit in result.hits}
    if got != expected:
        question = asked(case.query, asker, 0, policy, caps)
        extra, missing = sorted(got - expected), sorted(expected - got)
        said = f"{caps.analyzer} terms of the question: {sorted(wanted)}"
        raise Violation(
            f"{question}: {said}; returned without a shared term: {extra}, "
            f"sharing one but not returned: {missing}"
        )
