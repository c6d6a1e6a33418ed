"""Documents, principals and the classification order they are compared by."""

from __future__ import annotations

from dataclasses import dataclass

from ragward.errors import InvalidArgument

__all__ = ["CLASSIFICATIONS", "TICK_MAX", "ReferenceAsker", "ReferenceDoc", "classification_rank"]

#: Data classifications, least to most sensitive.
CLASSIFICATIONS: tuple[str, ...] = ("public", "internal", "confidential", "restricted")


#: Largest tick (and version) a document may carry: ticks are stored as 64-bit integers.
TICK_MAX = 2**63 - 1


def classification_rank(name: str, *, field: str = "classification") -> int:
    """Position of ``name`` in :data:`CLASSIFICATIONS`.

    >>> classification_rank("confidential")
    2
    """
    try:
        return CLASSIFICATIONS.index(name)
    except ValueError:
        raise InvalidArgument(
            f"{field}: unknown classification {name!r}; "
            f"expected one of {', '.join(CLASSIFICATIONS)}"
        ) from None


def _require_text(owner: str, field: str, value: object, *, allow_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise InvalidArgument(f"{owner}.{field} must be a string, got {value!r}")
    if not allow_empty and not value.strip():
        raise InvalidArgument(f"{owner}.{field} must be a non-empty string, got {value!r}")


def _require_int(owner: str, field: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{owner}.{field} must be an integer, got {value!r}")
    if value < minimum:
        raise InvalidArgument(f"{owner}.{field} must be >= {minimum}, got {value!r}")
    if value > TICK_MAX:
        raise InvalidArgument(f"{owner}.{field} must be <= 2**63 - 1, got {value!r}")


@dataclass(frozen=True)
class ReferenceDoc:
    """A source document. Its identity is ``(tenant, doc_id)``.

    ``tenant`` selects the namespace the document's chunks are written to;
    ``classification`` and ``barrier`` decide, inside that namespace, who may see them.
    """

    doc_id: str
    tenant: str
    title: str
    text: str
    classification: str = "internal"
    barrier: str | None = None
    version: int = 1
    updated_tick: int = 0

    def __post_init__(self) -> None:
        _require_text("ReferenceDoc", "doc_id", self.doc_id)
        _require_text("ReferenceDoc", "tenant", self.tenant)
        _require_text("ReferenceDoc", "title", self.title, allow_empty=True)
        _require_text("ReferenceDoc", "text", self.text, allow_empty=True)
        classification_rank(self.classification, field="ReferenceDoc.classification")
        if self.barrier is not None:
            _require_text("ReferenceDoc", "barrier", self.barrier)
        _require_int("ReferenceDoc", "version", self.version, 1)
        _require_int("ReferenceDoc", "updated_tick", self.updated_tick, 0)

    @property
    def key(self) -> tuple[str, str]:
        """The document's identity, ``(tenant, doc_id)``."""
        return (self.tenant, self.doc_id)


@dataclass(frozen=True)
class ReferenceAsker:
    """Who is asking: every retrieval is answered relative to a principal.

    ``barriers`` are the information barriers the principal is *inside*.
    """

    user_id: str
    tenant: str
    max_classification: str = "internal"
    barriers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _require_text("ReferenceAsker", "user_id", self.user_id)
        _require_text("ReferenceAsker", "tenant", self.tenant)
        classification_rank(self.max_classification, field="ReferenceAsker.max_classification")
        if not isinstance(self.barriers, tuple):
            raise InvalidArgument(f"ReferenceAsker.barriers must be a tuple, got {self.barriers!r}")
        for barrier in self.barriers:
            _require_text("ReferenceAsker", "barriers", barrier)

    @property
    def clearance(self) -> int:
        """Rank of :attr:`max_classification` in :data:`CLASSIFICATIONS`."""
        return CLASSIFICATIONS.index(self.max_classification)
