"""The kit's own immutable records: what crosses the adapter boundary.

They are plain frozen dataclasses of strings, numbers and tuples, independent of any
implementation (the reference included), and each converts to and from JSON-ready data
so that a counterexample can be printed, stored and replayed, and so that the external
driver can put them on the wire.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, is_dataclass
from functools import cache
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

__all__ = [
    "CLASSIFICATIONS",
    "FUSION_METHODS",
    "LIMIT_UNITS",
    "MODES",
    "Asker",
    "AssembleRequest",
    "Context",
    "Doc",
    "Hit",
    "Policy",
    "Result",
    "Span",
    "Support",
    "case_data",
    "from_data",
    "to_data",
]

#: Classification names, least to most sensitive.
CLASSIFICATIONS: tuple[str, ...] = ("public", "internal", "confidential", "restricted")
#: Retrieval modes an implementation may declare.
MODES: tuple[str, ...] = ("hybrid", "lexical", "dense")
#: How hybrid mode fuses its rankings (:attr:`Policy.fusion`): weighted reciprocal rank
#: fusion, or a convex combination of min-max or z-score normalised scores.
FUSION_METHODS: tuple[str, ...] = ("rrf", "minmax", "zscore")
#: What a policy's limits may count.
LIMIT_UNITS: tuple[str, ...] = ("chunks", "documents")


@dataclass(frozen=True)
class Doc:
    """One version of a document; its identity is ``(tenant, doc_id)``."""

    tenant: str
    doc_id: str
    text: str
    title: str = ""
    classification: str = "internal"
    barrier: str | None = None
    version: int = 1
    updated_tick: int = 0


@dataclass(frozen=True)
class Asker:
    """The principal a retrieval is answered for."""

    user_id: str
    tenant: str
    max_classification: str = "internal"
    barriers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Policy:
    """Per-request settings; an adapter ignores those its capabilities do not declare.

    ``limit_unit`` says what ``candidate_limit`` and ``result_limit`` count (capability
    ``document_limits``): ``"chunks"``, or ``"documents"`` — a ranking then keeps every
    chunk placed before the first chunk of the ``limit + 1``-th distinct document.
    ``fusion`` (capability ``fusion_methods``) names how hybrid mode fuses its rankings and
    ``dense_weight`` (capability ``fusion_weights``) the dense side's share in [0, 1], the
    lexical side having the rest: ``rrf`` at 0.5 is plain reciprocal rank fusion.
    """

    mode: str = "hybrid"
    rrf_k: float = 60
    rerank: bool = True
    rerank_min_score: float = 0.0
    candidate_limit: int = 12
    result_limit: int = 5
    max_stale_ticks: int | None = None
    limit_unit: str = "chunks"
    fusion: str = "rrf"
    dense_weight: float = 0.5


@dataclass(frozen=True)
class Hit:
    """One returned chunk: where it comes from, its exact text and its score.

    ``text`` must equal ``document.text[start:end]`` of version ``version`` of the asker's
    tenant's document ``doc_id``; the kit checks that, it does not take it on trust.
    """

    chunk_id: str
    doc_id: str
    version: int
    start: int
    end: int
    text: str
    score: float
    citation: str = ""


@dataclass(frozen=True)
class Result:
    """A ranked answer and, where the adapter declares ``counts``, the audit counts."""

    hits: tuple[Hit, ...]
    considered: int | None = None
    excluded_by_entitlement: int | None = None
    excluded_by_freshness: int | None = None
    degraded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Span:
    """One chunk as the adapter's chunker cuts it (capability ``chunking``)."""

    chunk_id: str
    section: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class AssembleRequest:
    """Inputs of context assembly (capability ``assembly``)."""

    budget_tokens: int
    instructions: str
    question: str
    tool_schemas: str = ""
    policy: str = ""
    memory: str = ""
    retrieved: tuple[Hit, ...] = ()


@dataclass(frozen=True)
class Context:
    """An assembled prompt: its text, its size and which chunks went in."""

    text: str
    tokens: int
    included: tuple[str, ...]
    dropped: tuple[str, ...]


@dataclass(frozen=True)
class Support:
    """The verdict on one claim (capability ``grounding``)."""

    claim: str
    supported: bool
    chunk_id: str | None = None


RecordT = TypeVar("RecordT")


def to_data(record: object) -> Any:
    """A record (or a tuple of records) as JSON-ready data: dicts, lists and scalars."""
    if isinstance(record, tuple | list):
        return [to_data(item) for item in record]
    if is_dataclass(record) and not isinstance(record, type):
        return {f.name: to_data(getattr(record, f.name)) for f in fields(record)}
    return record


def case_data(record: object) -> Any:
    """A record as :func:`to_data` gives it, less every field at its declared default: a
    counterexample as short as it can be said (a document ``{"tenant", "doc_id",
    "text"}`` unless it is other than internal, barrier-free, version 1 at tick 0).
    :func:`from_data` reads it back to the same record."""
    if isinstance(record, tuple | list):
        return [case_data(item) for item in record]
    if is_dataclass(record) and not isinstance(record, type):
        out = {}
        for field in fields(record):
            value = getattr(record, field.name)
            default = field.default
            # Same type too: 60.0 is said where the default is 60, so it reads back as drawn.
            if default is not MISSING and value == default and type(value) is type(default):
                continue
            out[field.name] = case_data(value)
        return out
    return record


def from_data(kind: type[RecordT], data: Any) -> RecordT:
    """Rebuild a record of type ``kind`` from :func:`to_data` output.

    Nested records and tuples of records are rebuilt from the field annotations; an
    unknown or missing field is a :class:`TypeError` naming it.
    """
    return _build(kind, data, kind.__name__)  # type: ignore[no-any-return]


@cache
def _hints(kind: type[Any]) -> dict[str, Any]:
    return get_type_hints(kind)


def _build(hint: Any, data: Any, where: str) -> Any:
    origin = get_origin(hint)
    if origin is tuple:
        if not isinstance(data, list | tuple):
            raise TypeError(f"{where}: expected a list, got {data!r}")
        item = get_args(hint)[0]
        return tuple(_build(item, value, f"{where}[{i}]") for i, value in enumerate(data))
    if origin in (Union, UnionType):
        if data is None and type(None) in get_args(hint):
            return None
        options = [a for a in get_args(hint) if a is not type(None)]
        return _build(options[0], data, where) if len(options) == 1 else data
    if isinstance(hint, type) and is_dataclass(hint):
        if not isinstance(data, dict):
            raise TypeError(f"{where}: expected an object, got {data!r}")
        hints = _hints(hint)
        names = {f.name for f in fields(hint)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise TypeError(f"{where}: unknown field(s) {', '.join(unknown)}")
        values = {
            name: _build(hints[name], value, f"{where}.{name}") for name, value in data.items()
        }
        try:
            return hint(**values)
        except TypeError as error:
            raise TypeError(f"{where}: {error}") from None
    return data
