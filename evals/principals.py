"""Who asks: the ``principal`` object of a query or a claim, and the default reader.

A record without ``principal`` is asked by the default reader, ``{"user_id": "reader",
"tenant": <the corpus's only tenant>, "max_classification": "restricted", "barriers":
<every barrier of that tenant>}``: someone who may see the whole corpus. That default is
only allowed when every document is in one tenant; with several tenants the asker must be
spelled out, since any choice would silently change what counts as relevant or leaked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ragward.conformance.records import CLASSIFICATIONS, Asker, Doc
from ragward.evals.jsonl import Record

__all__ = ["DEFAULT_TENANT", "PRINCIPAL_FIELDS", "Principals", "default_reader"]

#: The tenant of a document that names none.
DEFAULT_TENANT = "default"
#: The fields a ``principal`` object may have.
PRINCIPAL_FIELDS = ("user_id", "tenant", "max_classification", "barriers")


def default_reader(tenant: str = DEFAULT_TENANT, barriers: Iterable[str] = ()) -> Asker:
    """The asker of a record without ``principal``: cleared for all of ``tenant``."""
    return Asker("reader", tenant, CLASSIFICATIONS[-1], tuple(sorted(set(barriers))))


@dataclass(frozen=True)
class Principals:
    """Reads the askers of records against a corpus's tenants."""

    tenants: tuple[str, ...]
    default: Asker | None

    @classmethod
    def of(cls, docs: Iterable[Doc]) -> Principals:
        """The principals of a corpus: the default reader exists when it has one tenant."""
        tenants: dict[str, set[str]] = {}
        for doc in docs:
            barriers = tenants.setdefault(doc.tenant, set())
            if doc.barrier is not None:
                barriers.add(doc.barrier)
        if len(tenants) > 1:
            return cls(tuple(sorted(tenants)), None)
        tenant, barriers = next(iter(tenants.items()), (DEFAULT_TENANT, set()))
        return cls((tenant,), default_reader(tenant, barriers))

    def asker(self, record: Record) -> Asker:
        """The asker of ``record``: its ``principal`` field, else the default reader."""
        if "principal" not in record.data:
            if self.default is None:
                problem = (
                    "missing; every query and claim needs a principal when the corpus has "
                    f"several tenants ({', '.join(self.tenants)})"
                )
                raise record.error("principal", problem)
            return self.default
        principal = record.nested("principal", record.data["principal"])
        principal.only(PRINCIPAL_FIELDS)
        return Asker(
            user_id=principal.string("user_id"),
            tenant=principal.string("tenant"),
            max_classification=principal.choice("max_classification", CLASSIFICATIONS, "internal"),
            barriers=principal.strings("barriers"),
        )
