"""Families built from tables: a document and a question per row, from the row's templates.

A family file (``data/families/*.toml``) holds, for each table ``NAME``, the rows
``[[NAME]]`` and their templates ``[template.NAME]``: the document's ``id``, ``title``,
``source`` and ``facts``, the ``classification`` and ``type`` (a row may give its own
classification) and the askers. Where a template offers variants (``opening``,
``questions``, the asker ``rotation``), a row takes variant ``turn`` modulo their number;
``turn`` is the row's ``number`` or its ``position`` in the table, as the template says.
"""

from __future__ import annotations

from collections.abc import Mapping

from tools.tidewater.fields import Fields, fill
from tools.tidewater.model import Asker, DocSpec, Family, QuerySpec, Roster
from tools.tidewater.specs import templated_facts, versions

TURNS = ("number", "position")


def row_values(template: Fields, row: Fields, turn: int) -> dict[str, str]:
    """The row's fields, its ``key`` and, if the template has openings, its ``opening``."""
    values = row.scalars()
    values["key"] = fill(template.text("key"), values, row.where)
    openings = template.texts("opening")
    if openings:
        values["opening"] = fill(openings[turn % len(openings)], values, row.where)
    return values


def pick_asker(template: Fields, roster: Roster, classification: str, turn: int) -> Asker:
    """``[asker]``: the asker named for the row's classification, or else the ``rotation``."""
    table = template.table("asker")
    if classification in table:
        return roster.pick(table.text(classification), table.where)
    rotation = table.texts("rotation")
    if not rotation:
        raise table.fail("rotation", "is missing or empty")
    return roster.pick(rotation[turn % len(rotation)], table.where)


def _document(top: Fields, template: Fields, row: Fields, values: Mapping[str, str]) -> DocSpec:
    where = row.where
    return DocSpec(
        tenant=top.text("tenant"),
        doc_id=fill(template.text("id"), values, where),
        title=fill(template.text("title"), values, where),
        classification=row.optional_text("classification") or template.text("classification"),
        source=fill(template.text("source"), values, where),
        versions=versions(row),
        doc_type=template.text("type"),
        facts=templated_facts(template, values, where),
        origin=top.where,
    )


def _question(
    template: Fields, row: Fields, values: Mapping[str, str], turn: int
) -> tuple[str, str]:
    """The text and kind of the row's question: the template's variant, or else the row's
    own ``question`` and ``kind``."""
    choices = template.tables("questions")
    if not choices:
        return row.text("question"), row.text("kind")
    choice = choices[turn % len(choices)]
    return fill(choice.text("text"), values, choice.where), choice.text("kind")


def expand(top: Fields, roster: Roster, now_tick: int) -> Family:
    """Every table's documents, in the order of ``[template]``, and their questions, in the
    order of ``question_order`` (the same by default)."""
    templates = top.table("template")
    names = list(templates)
    top.only("family", "tenant", "template", "question_order", *names)
    docs: list[DocSpec] = []
    asked: dict[str, list[QuerySpec]] = {}
    for name in names:
        template = templates.table(name)
        turn_by = template.text("turn")
        if turn_by not in TURNS:
            raise template.fail("turn", f"must be one of {', '.join(TURNS)}")
        asked[name] = []
        for position, row in enumerate(top.tables(name)):
            turn = position if turn_by == "position" else row.integer("number")
            values = row_values(template, row, turn)
            doc = _document(top, template, row, values)
            text, kind = _question(template, row, values, turn)
            asker = pick_asker(template, roster, doc.classification, turn)
            judged = {doc.doc_id: 2, **row.grades("also_judged")}
            docs.append(doc)
            asked[name].append(QuerySpec(text, asker, judged, now_tick, kind))
    order = top.texts("question_order") or tuple(names)
    if sorted(order) != sorted(names):
        raise top.fail("question_order", f"must list the tables {', '.join(names)}")
    return Family(tuple(docs), tuple(q for name in order for q in asked[name]))
