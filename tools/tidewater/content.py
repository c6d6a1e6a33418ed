"""The content of the set, read from the data folder in the order its manifest gives.

``data/set.toml`` lists the files of documents and of questions in order (the order numbers
the questions, assigns splits and decides which facts back claims) and the settings of the
claims. A file either declares ``[[doc]]`` and ``[[question]]`` tables, or names the
``family`` whose module builds documents and questions from its tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tools.tidewater import payment_cases, rows, specs
from tools.tidewater.fields import Fields, read_text, read_toml
from tools.tidewater.model import CLAIM_KINDS, DocSpec, Family, NoEvidenceClaim, QuerySpec, Roster

DATA = Path(__file__).resolve().parent / "data"

#: The parts of the data card, each a markdown file under ``card/``.
CARD = ("intro", "judging", "limits")

#: The modules that build a family file's documents and questions from its tables.
FAMILIES: dict[str, Callable[[Fields, Roster, int], Family]] = {
    "rows": rows.expand,
    "payment-cases": payment_cases.expand,
}


@dataclass(frozen=True)
class Content:
    """Everything the set is made from, before rendering."""

    roster: Roster
    docs: tuple[DocSpec, ...]
    questions: tuple[QuerySpec, ...]
    no_evidence: tuple[NoEvidenceClaim, ...]
    #: How many claims of each kind to keep (all candidates when there are fewer).
    quotas: Mapping[str, int]
    #: When claims are checked, and questions asked unless they name their own tick.
    now_tick: int
    #: The prose of the data card by part (``intro``, ``judging``, ``limits``).
    card: Mapping[str, str]


def _read(data: Path, name: str, roster: Roster, now_tick: int) -> Family:
    top = read_toml(data / name, name)
    if "family" in top:
        family = top.text("family")
        if family not in FAMILIES:
            raise top.fail("family", f"must be one of {', '.join(FAMILIES)}")
        return FAMILIES[family](top, roster, now_tick)
    top.only("doc", "question")
    return Family(
        tuple(specs.document(entry, name) for entry in top.tables("doc")),
        tuple(specs.question(entry, roster, now_tick) for entry in top.tables("question")),
    )


def load(data: Path = DATA) -> Content:
    """Read every data file under ``data``; a malformed one raises :class:`DataError`."""
    manifest = read_toml(data / "set.toml", "set.toml")
    manifest.only("documents", "questions", "now_tick", "quotas")
    now_tick = manifest.integer("now_tick")
    roster = specs.roster(read_toml(data / "people.toml", "people.toml"))
    families: dict[str, Family] = {}

    def listed(field: str, name: str) -> Family:
        if name not in families:
            families[name] = _read(data, name, roster, now_tick)
        family = families[name]
        if not (family.docs if field == "documents" else family.questions):
            raise manifest.fail(field, f"lists {name}, which declares none")
        return family

    docs = tuple(d for name in manifest.texts("documents") for d in listed("documents", name).docs)
    questions = tuple(
        q for name in manifest.texts("questions") for q in listed("questions", name).questions
    )
    quotas = manifest.grades("quotas")
    if sorted(quotas) != sorted(CLAIM_KINDS):
        raise manifest.fail("quotas", f"must give a quota for each of {', '.join(CLAIM_KINDS)}")
    no_evidence = specs.no_evidence(
        read_toml(data / "no-evidence.toml", "no-evidence.toml"), roster
    )
    return Content(
        roster=roster,
        docs=docs,
        questions=questions,
        no_evidence=no_evidence,
        quotas=quotas,
        now_tick=now_tick,
        card={part: read_text(data / "card" / f"{part}.md", f"card/{part}.md") for part in CARD},
    )
