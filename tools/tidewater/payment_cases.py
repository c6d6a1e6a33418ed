"""Payment case files PMT-41xx: one document and one question per case of a table.

The table and every sentence are in ``data/families/payment-cases.toml``. A case's
versions are its steps (held, released, ...), each with its own decision sentence, and its
question compares it with the other cases of the same beneficiary; this module does that
and picks the variants (by case number).
"""

from __future__ import annotations

from datetime import date

from tools.tidewater.fields import DataError, Fields, fill
from tools.tidewater.model import DocSpec, FactInfo, Family, QuerySpec, Roster
from tools.tidewater.rows import pick_asker


def _by_status(template: Fields, table: str, step: Fields) -> str:
    """The sentence of ``[template.TABLE]`` for the status of ``step``."""
    sentences = template.strings(table)
    status = step.text("status")
    if status not in sentences:
        raise DataError(f"{step.where}: no sentence for status {status!r} in [template.{table}]")
    return sentences[status]


def _month(iso_date: str, months: tuple[str, ...], entry: Fields) -> str:
    """``2026-04-09`` as ``April 2026``."""
    try:
        day = date.fromisoformat(iso_date)
    except ValueError:
        raise entry.fail("value_date", "must be a date such as 2026-04-09") from None
    if len(months) != 12:
        raise DataError(f"{entry.where}: 'months' must name the twelve months")
    return f"{months[day.month - 1]} {day.year}"


def _step_values(case: dict[str, str], step: Fields) -> dict[str, str]:
    return {**case, "date": step.optional_text("date") or case["value_date"]}


def _document(top: Fields, entry: Fields, case: dict[str, str]) -> DocSpec:
    template = top.table("template")
    where = entry.where
    number = entry.integer("number")
    intros, screenings = template.texts("intro"), template.texts("screening")
    intro = intros[number % len(intros)]
    screening = fill(screenings[number % len(screenings)], case, where)
    source = fill(
        template.text("source"),
        {**case, "intro": fill(intro, case, where), "screening": screening},
        where,
    )
    steps = entry.tables("steps")
    if not steps:
        raise entry.fail("steps", "must list at least one step")
    versions = []
    for step in steps:
        # A step before the last says what is under way; the last gives the case's reason.
        last = step is steps[-1]
        detail = entry.text("reason") if last else _by_status(template, "detail", step)
        status = fill(_by_status(template, "status", step), _step_values(case, step), step.where)
        versions.append((step.integer("tick"), {"status": status, "detail": detail}))
    final = _step_values(case, steps[-1])
    key = case["key"]
    facts = {
        f"{key}-pay": FactInfo(
            fill(template.text("pay_paraphrase"), case, where),
            fill(intro, {**case, "amount": case["wrong_amount"]}, where),
            fill(template.text("pay_question"), case, where),
            private=True,
        ),
        f"{key}-status": FactInfo(
            fill(_by_status(template, "status_paraphrase", steps[-1]), final, where),
            fill(_by_status(template, "status_distortion", steps[-1]), final, where),
            fill(template.text("status_question"), case, where),
            private=True,
        ),
    }
    return DocSpec(
        tenant=top.text("tenant"),
        doc_id=case["id"],
        title=fill(template.text("title"), case, where),
        classification=entry.text("classification"),
        source=source,
        versions=tuple(versions),
        doc_type="payment-case",
        facts=facts,
        origin=top.where,
    )


def _question(
    top: Fields, roster: Roster, now_tick: int, entry: Fields, case: dict[str, str]
) -> QuerySpec:
    template = top.table("template")
    questions = template.table("question")
    number = entry.integer("number")
    asker = pick_asker(template, roster, entry.text("classification"), number)
    # The case itself, and the other case files of the same beneficiary as hard negatives.
    judged = {case["id"]: 2}
    for other in top.tables("case"):
        same_party = other.text("party") == entry.text("party")
        visible = asker.sees(top.text("tenant"), other.text("classification"), None)
        if same_party and visible and other.integer("number") != number:
            judged[fill(template.text("id"), other.scalars(), other.where)] = 0
    kind = ("id", "question", "paraphrase", "keyword")[number % 4]
    # An id question asks one of several ways, by the case number divided by 4.
    ids = questions.texts("id")
    text = ids[(number // 4) % len(ids)] if kind == "id" else questions.text(kind)
    # Only the placeholders the question names must be known: fill reports a missing one.
    values = dict(case)
    verbs = template.strings("verb")
    last = entry.tables("steps")[-1].text("status")
    if last in verbs:
        values["verb"] = verbs[last]
    kinds = top.strings("client_kind")
    if case["client"] in kinds:
        values["client_kind"] = kinds[case["client"]]
    values["month"] = _month(case["value_date"], top.texts("months"), entry)
    return QuerySpec(fill(text, values, entry.where), asker, judged, now_tick, kind)


def expand(top: Fields, roster: Roster, now_tick: int) -> Family:
    """Every case's document and question, in table order."""
    top.only("family", "tenant", "months", "template", "party", "client_kind", "case")
    parties = top.named("party")
    template = top.table("template")
    docs: list[DocSpec] = []
    questions: list[QuerySpec] = []
    for entry in top.tables("case"):
        party = entry.text("party")
        if party not in parties:
            raise entry.fail("party", f"names no [party.{party}]")
        case = {**parties[party].scalars(), **entry.scalars()}
        for name in ("ref", "key", "id"):
            case[name] = fill(template.text(name), case, entry.where)
        docs.append(_document(top, entry, case))
        questions.append(_question(top, roster, now_tick, entry, case))
    return Family(tuple(docs), tuple(questions))
