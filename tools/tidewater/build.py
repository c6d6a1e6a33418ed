"""From the declared documents and questions to records: versions rendered, ids assigned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tools.tidewater.markup import MarkupError, render
from tools.tidewater.model import DocSpec, QuerySpec

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


def render_doc(spec: DocSpec) -> Rendered:
    """Render every version of ``spec``; a malformed source names the document."""
    versions: list[Version] = []
    for number, (tick, values) in enumerate(spec.versions, start=1):
        try:
            text, spans = render(spec.source, values)
        except MarkupError as error:
            where = f"{spec.origin}: " if spec.origin else ""
            raise MarkupError(f"{where}{spec.tenant}/{spec.doc_id} v{number}: {error}") from None
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
