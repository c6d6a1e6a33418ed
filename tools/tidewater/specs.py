"""The plain shapes of the data files: a document, a question, an asker, a no-evidence claim."""

from __future__ import annotations

from collections.abc import Mapping

from tools.tidewater.fields import Fields, fill
from tools.tidewater.model import Asker, DocSpec, FactInfo, NoEvidenceClaim, QuerySpec, Roster

DOC_FIELDS = (
    "tenant",
    "id",
    "title",
    "classification",
    "type",
    "barrier",
    "tick",
    "versions",
    "source",
    "facts",
)
QUESTION_FIELDS = ("text", "asker", "kind", "judged", "now_tick", "max_stale_ticks", "hidden")


def versions(entry: Fields) -> tuple[tuple[int, Mapping[str, str]], ...]:
    """``tick = N`` (one version, nothing to fill) or ``versions = [{ tick = N, key = ... }]``
    (each version's tick and the values of the source's placeholders), oldest first."""
    if ("tick" in entry) == ("versions" in entry):
        raise entry.fail("tick", "or 'versions' must be given, and not both")
    if "tick" in entry:
        return ((entry.integer("tick"), {}),)
    out = tuple(
        (version.integer("tick"), {key: version.text(key) for key in version if key != "tick"})
        for version in entry.tables("versions")
    )
    if not out:
        raise entry.fail("versions", "must list at least one version")
    return out


def fact(entry: Fields) -> FactInfo:
    entry.only("paraphrase", "distortion", "question", "private")
    return FactInfo(
        entry.optional_text("paraphrase"),
        entry.optional_text("distortion"),
        entry.optional_text("question"),
        private=entry.flag("private"),
    )


def document(entry: Fields, origin: str) -> DocSpec:
    """A ``[[doc]]`` table: metadata, the marked-up ``source`` and its ``facts``."""
    entry.only(*DOC_FIELDS)
    facts = entry.named("facts") if "facts" in entry else {}
    return DocSpec(
        tenant=entry.text("tenant"),
        doc_id=entry.text("id"),
        title=entry.text("title"),
        classification=entry.text("classification"),
        source=entry.text("source"),
        versions=versions(entry),
        barrier=entry.optional_text("barrier"),
        doc_type=entry.text("type"),
        facts={key: fact(info) for key, info in facts.items()},
        origin=origin,
    )


def question(entry: Fields, roster: Roster, now_tick: int) -> QuerySpec:
    """A ``[[question]]`` table; asked at ``now_tick`` unless it names its own."""
    entry.only(*QUESTION_FIELDS)
    asked = entry.optional_integer("now_tick")
    return QuerySpec(
        text=entry.text("text"),
        asker=roster.pick(entry.text("asker"), entry.where),
        judged=entry.grades("judged"),
        now_tick=now_tick if asked is None else asked,
        kind=entry.text("kind"),
        max_stale_ticks=entry.optional_integer("max_stale_ticks"),
        hidden=entry.texts("hidden"),
    )


def roster(top: Fields) -> Roster:
    """``people.toml``: one ``[[asker]]`` per principal, known to the others by ``handle``."""
    top.only("asker")
    by_handle: dict[str, Asker] = {}
    for entry in top.tables("asker"):
        entry.only("handle", "user_id", "tenant", "clearance", "barriers", "role")
        handle = entry.text("handle")
        if handle in by_handle:
            raise entry.fail("handle", f"{handle!r} is used twice")
        by_handle[handle] = Asker(
            entry.text("user_id"),
            entry.text("tenant"),
            entry.text("clearance"),
            entry.texts("barriers"),
            entry.text("role"),
        )
    return Roster(tuple(by_handle.values()), by_handle)


def no_evidence(top: Fields, roster: Roster) -> tuple[NoEvidenceClaim, ...]:
    """``no-evidence.toml``: claims stated nowhere, each with its asker and maybe a query."""
    top.only("claim")
    out: list[NoEvidenceClaim] = []
    for entry in top.tables("claim"):
        entry.only("text", "asker", "query")
        asker = roster.pick(entry.text("asker"), entry.where)
        out.append(NoEvidenceClaim(entry.text("text"), asker, entry.optional_text("query")))
    return tuple(out)


def templated_facts(template: Fields, values: Mapping[str, str], where: str) -> dict[str, FactInfo]:
    """A family's ``[template.facts.NAME]`` tables filled with one row's ``values``, keyed
    ``{key}-NAME`` as the source marks them."""
    out: dict[str, FactInfo] = {}
    if "facts" not in template:
        return out
    for name, entry in template.named("facts").items():
        info = fact(entry)

        def filled(text: str | None) -> str | None:
            return None if text is None else fill(text, values, where)

        out[f"{values['key']}-{name}"] = FactInfo(
            filled(info.paraphrase),
            filled(info.distortion),
            filled(info.question),
            private=info.private,
        )
    return out
