"""Plan the labelled claims from the marked facts.

Every fact offers candidates of each kind it can back; a fixed quota per kind is then taken
evenly across the candidate list, so every tenant and document type is represented.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tools.tidewater.build import Rendered, split_of
from tools.tidewater.content import Content
from tools.tidewater.model import CLAIM_KINDS, Asker

SUPPORTED_KINDS = frozenset({"verbatim", "paraphrase"})


@dataclass(frozen=True)
class Evidence:
    doc_id: str
    start: int
    end: int


@dataclass(frozen=True)
class PlannedClaim:
    """A claim before numbering; ``fact`` names its source fact (empty for no-evidence)."""

    kind: str
    text: str
    asker: Asker
    query: str | None
    evidence: tuple[Evidence, ...]
    fact: str = ""

    @property
    def supported(self) -> bool:
        return self.kind in SUPPORTED_KINDS


@dataclass(frozen=True)
class NumberedClaim:
    claim_id: str
    split: str
    planned: PlannedClaim


def _fill(template: str | None, values: Mapping[str, str]) -> str | None:
    return None if template is None else template.format(**values)


def _viewers(doc: Rendered, roster: Sequence[Asker], *, see: bool) -> list[Asker]:
    s = doc.spec
    return [
        a
        for a in roster
        if a.tenant == s.tenant and a.sees(s.tenant, s.classification, s.barrier) == see
    ]


def candidates(docs: Sequence[Rendered], roster: Sequence[Asker]) -> dict[str, list[PlannedClaim]]:
    """Every claim each fact could back, by kind, in document and fact order."""
    out: dict[str, list[PlannedClaim]] = {kind: [] for kind in CLAIM_KINDS}
    turn = 0
    for doc in docs:
        spec = doc.spec
        viewers = _viewers(doc, roster, see=True)
        outsiders = _viewers(doc, roster, see=False)
        current = doc.current
        values = spec.versions[-1][1]
        for key, (start, end) in sorted(current.spans.items(), key=lambda item: item[1]):
            info = spec.facts[key]
            sentence = current.text[start:end]
            evidence = (Evidence(spec.doc_id, start, end),)
            question = _fill(info.question, values)
            tag = f"{spec.tenant}/{spec.doc_id}#{key}"
            turn += 1
            asker = viewers[turn % len(viewers)]
            out["verbatim"].append(
                PlannedClaim("verbatim", sentence, asker, question, evidence, tag)
            )
            paraphrase = _fill(info.paraphrase, values)
            if paraphrase:
                other = viewers[(turn + 1) % len(viewers)]
                out["paraphrase"].append(
                    PlannedClaim("paraphrase", paraphrase, other, question, evidence, tag)
                )
            distortion = _fill(info.distortion, values)
            if distortion:
                other = viewers[(turn + 2) % len(viewers)]
                out["fabrication"].append(
                    PlannedClaim("fabrication", distortion, other, question, evidence, tag)
                )
            if info.private and outsiders:
                outsider = outsiders[turn % len(outsiders)]
                text = paraphrase if paraphrase and turn % 2 else sentence
                out["invisible"].append(
                    PlannedClaim("invisible", text, outsider, question, evidence, tag)
                )
            seen = {sentence}
            for older in reversed(doc.versions[:-1]):
                if key not in older.spans:
                    continue
                old_start, old_end = older.spans[key]
                old_text = older.text[old_start:old_end]
                old_values = spec.versions[older.number - 1][1]
                old_paraphrase = _fill(info.paraphrase, old_values)
                if old_paraphrase and old_paraphrase != paraphrase and turn % 2:
                    old_text = old_paraphrase
                if old_text in seen or older.text[old_start:old_end] in seen:
                    continue
                seen.add(old_text)
                seen.add(older.text[old_start:old_end])
                out["superseded"].append(
                    PlannedClaim("superseded", old_text, asker, question, evidence, tag)
                )
    return out


def spread(items: Sequence[PlannedClaim], count: int) -> list[PlannedClaim]:
    """``count`` items taken evenly across ``items`` (all of them if fewer)."""
    if count >= len(items):
        return list(items)
    return [items[(i * len(items)) // count] for i in range(count)]


def spread_by_tenant(items: Sequence[PlannedClaim], count: int) -> list[PlannedClaim]:
    """Like :func:`spread`, but the quota is shared as evenly as possible between tenants
    (a tenant with fewer candidates gives its unused share to the others)."""
    groups: dict[str, list[PlannedClaim]] = {}
    for item in items:
        groups.setdefault(item.asker.tenant, []).append(item)
    shares = dict.fromkeys(groups, 0)
    left = min(count, len(items))
    while left:
        open_groups = [t for t in groups if shares[t] < len(groups[t])]
        for tenant in open_groups[:left]:
            shares[tenant] += 1
            left -= 1
    picked = {id(item) for t, group in groups.items() for item in spread(group, shares[t])}
    return [item for item in items if id(item) in picked]


def plan(docs: Sequence[Rendered], content: Content) -> list[NumberedClaim]:
    """The claims of the set, numbered, with splits assigned within each kind."""
    pool = candidates(docs, content.roster.askers)
    chosen: list[PlannedClaim] = []
    for kind in CLAIM_KINDS:
        chosen.extend(spread_by_tenant(pool[kind], content.quotas[kind]))
    for extra in content.no_evidence:
        chosen.append(PlannedClaim("no-evidence", extra.claim, extra.asker, extra.query, ()))
    # Interleave kinds by source order so the file reads as a mixed stream, not in blocks.
    order = {id(claim): index for index, claim in enumerate(chosen)}
    chosen.sort(key=lambda claim: (claim.fact or "~", claim.kind, order[id(claim)]))
    numbered: list[NumberedClaim] = []
    positions: dict[str, int] = {}
    for index, claim in enumerate(chosen, start=1):
        position = positions.get(claim.kind, 0)
        positions[claim.kind] = position + 1
        numbered.append(NumberedClaim(f"c{index:04d}", split_of(position), claim))
    return numbered
