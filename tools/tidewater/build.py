"""From the content modules' declarations to records: versions rendered, ids assigned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tidewater import (
    advisory_deals,
    advisory_mandates,
    advisory_policies,
    advisory_queries,
    distractors,
    fresh_docs,
    fresh_queries,
    retail_cases,
    retail_policies,
    retail_products,
    retail_queries,
    shared,
    wholesale_cases,
    wholesale_clients,
    wholesale_levfin,
    wholesale_policies,
    wholesale_queries,
)
from tidewater.markup import MarkupError, render
from tidewater.model import DocSpec, QuerySpec

TENANTS: tuple[str, ...] = ("wholesale", "retail", "advisory")

#: Share of each query kind (and claim kind) put in the train split: positions 1 and 3 of 5.
TRAIN_POSITIONS = (1, 3)


@dataclass(frozen=True)
class Version:
    """One rendered version of a document, with the spans of its marked facts."""

    number: int
    tick: int
    text: str
    spans: dict[str, tuple[int, int]]


@dataclass(frozen=True)
class Rendered:
    """A document with all of its versions, oldest first."""

    spec: DocSpec
    versions: tuple[Version, ...]

    @property
    def current(self) -> Version:
        return self.versions[-1]

    @property
    def key(self) -> tuple[str, str]:
        return (self.spec.tenant, self.spec.doc_id)


@dataclass(frozen=True)
class Question:
    """A query with its id and split."""

    query_id: str
    split: str
    spec: QuerySpec


def all_specs() -> list[DocSpec]:
    """Every document, in a fixed order."""
    return [
        *wholesale_policies.DOCS,
        *wholesale_cases.DOCS,
        *wholesale_clients.DOCS,
        *wholesale_levfin.DOCS,
        *retail_policies.DOCS,
        *retail_products.DOCS,
        *retail_cases.DOCS,
        *advisory_deals.DOCS,
        *advisory_policies.DOCS,
        *advisory_mandates.DOCS,
        *shared.DOCS,
        *distractors.DOCS,
        *fresh_docs.DOCS,
    ]


def all_query_specs() -> list[QuerySpec]:
    """Every question, in a fixed order."""
    return [
        *wholesale_queries.QUERIES,
        *wholesale_cases.QUERIES,
        *wholesale_clients.QUERIES,
        *retail_queries.QUERIES,
        *retail_cases.QUERIES,
        *advisory_queries.QUERIES,
        *advisory_mandates.QUERIES,
        *shared.QUERIES,
        *fresh_queries.QUERIES,
    ]


def render_doc(spec: DocSpec) -> Rendered:
    """Render every version of ``spec``; a malformed source names the document."""
    versions: list[Version] = []
    for number, (tick, values) in enumerate(spec.versions, start=1):
        try:
            text, spans = render(spec.source, values)
        except MarkupError as error:
            raise MarkupError(f"{spec.tenant}/{spec.doc_id} v{number}: {error}") from None
        versions.append(Version(number, tick, text, spans))
    return Rendered(spec, tuple(versions))


def split_of(position: int) -> str:
    """``train`` for two positions in five, ``test`` otherwise."""
    return "train" if position % 5 in TRAIN_POSITIONS else "test"


def number_queries(specs: Sequence[QuerySpec]) -> list[Question]:
    """Ids in file order; splits assigned within each query kind so both splits mix kinds."""
    seen: dict[str, int] = {}
    questions: list[Question] = []
    for index, spec in enumerate(specs, start=1):
        position = seen.get(spec.kind, 0)
        seen[spec.kind] = position + 1
        questions.append(Question(f"q{index:03d}", split_of(position), spec))
    return questions
