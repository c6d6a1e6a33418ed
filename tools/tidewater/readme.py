"""The data card, ``datasets/tidewater/README.md``: the prose of ``data/card/`` around
counted tables.

``intro.md``, ``judging.md`` and ``limits.md`` are markdown with ``{placeholders}`` filled
from the set: ``first`` and ``last`` (the ticks of the oldest and newest versions),
``earlier`` (the ticks of questions asked before the claims) and ``claim_tick``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from tools.tidewater.build import TENANTS, Question, Rendered
from tools.tidewater.claims import NumberedClaim
from tools.tidewater.content import Content
from tools.tidewater.fields import fill
from tools.tidewater.model import CLASSIFICATIONS, Asker


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _documents(docs: Sequence[Rendered]) -> str:
    by = Counter((d.spec.tenant, d.spec.classification) for d in docs)
    rows = [
        [t, *(by[(t, c)] for c in CLASSIFICATIONS), sum(by[(t, c)] for c in CLASSIFICATIONS)]
        for t in TENANTS
    ]
    rows.append(
        [
            "**all**",
            *(sum(by[(t, c)] for t in TENANTS) for c in CLASSIFICATIONS),
            len(docs),
        ]
    )
    records = sum(len(d.versions) for d in docs)
    multi = Counter(len(d.versions) for d in docs)
    barriers = Counter((d.spec.barrier, d.spec.tenant) for d in docs if d.spec.barrier)
    types = Counter(d.spec.doc_type for d in docs)
    reused = sorted(i for i, n in Counter(d.spec.doc_id for d in docs).items() if n > 1)
    parts = [
        "## Counts\n",
        f"{len(docs)} documents ({records} corpus records, counting every version) in "
        f"{len(TENANTS)} tenants. Current documents by tenant and classification:\n",
        _table(["tenant", *CLASSIFICATIONS, "total"], rows),
        "Versions per document: "
        + ", ".join(f"{n} version{'s' if n > 1 else ''}: {multi[n]}" for n in sorted(multi))
        + f". Ids used in more than one tenant: {', '.join(f'`{i}`' for i in reused)}.\n",
        _table(
            ["barrier", "tenant", "documents"],
            [[f"`{b}`", t, n] for (b, t), n in sorted(barriers.items())],
        ),
        _table(["document type", "documents"], sorted(types.items())),
    ]
    return "\n".join(parts)


def _principals(roster: Sequence[Asker]) -> str:
    rows = [
        [
            f"`{a.user_id}`",
            a.tenant,
            a.max_classification,
            ", ".join(f"`{b}`" for b in sorted(a.barriers)) or "-",
            a.role,
        ]
        for a in roster
    ]
    return "Principals who ask:\n\n" + _table(
        ["user_id", "tenant", "clearance", "barriers", "role"], rows
    )


def _queries(questions: Sequence[Question]) -> str:
    kinds = sorted({q.spec.kind for q in questions})
    by = Counter((q.spec.kind, q.split) for q in questions)
    rows = [
        [k, by[(k, "train")], by[(k, "test")], by[(k, "train")] + by[(k, "test")]] for k in kinds
    ]
    train = sum(1 for q in questions if q.split == "train")
    rows.append(["**all**", train, len(questions) - train, len(questions)])
    grades = Counter((q.split, g) for q in questions for g in q.spec.judged.values())
    fresh = sum(1 for q in questions if q.spec.max_stale_ticks is not None)
    ticks = len({q.spec.now_tick for q in questions if q.spec.max_stale_ticks is not None})
    tenants = Counter(q.spec.asker.tenant for q in questions)
    return "\n".join(
        [
            f"{len(questions)} queries ({', '.join(f'{t}: {tenants[t]}' for t in TENANTS)}); "
            f"{fresh} carry a freshness contract, asked at {ticks} different ticks. By kind and "
            "split:\n",
            _table(["kind", "train", "test", "total"], rows),
            "Judgements by grade:\n",
            _table(
                ["split", "grade 2", "grade 1", "grade 0"],
                [[s, grades[(s, 2)], grades[(s, 1)], grades[(s, 0)]] for s in ("train", "test")],
            ),
        ]
    )


def _claims(numbered: Sequence[NumberedClaim]) -> str:
    kinds = ("verbatim", "paraphrase", "fabrication", "invisible", "superseded", "no-evidence")
    by = Counter((c.planned.kind, c.split) for c in numbered)
    rows = []
    for k in kinds:
        label = "supported" if k in ("verbatim", "paraphrase") else "unsupported"
        rows.append([k, label, by[(k, "train")], by[(k, "test")]])
    supported = sum(1 for c in numbered if c.planned.supported)
    with_query = sum(1 for c in numbered if c.planned.query)
    train = sum(1 for c in numbered if c.split == "train")
    rows.append(["**all**", f"{supported} supported", train, len(numbered) - train])
    return "\n".join(
        [
            f"{len(numbered)} claims, {supported} supported and {len(numbered) - supported} "
            f"unsupported; {with_query} carry a `query` (a question that retrieves the "
            "evidence), the rest are retrieved by their own text.\n",
            _table(["kind", "label", "train", "test"], rows),
        ]
    )


def data_card(
    content: Content,
    docs: Sequence[Rendered],
    questions: Sequence[Question],
    numbered: Sequence[NumberedClaim],
) -> str:
    """The full data card."""
    ticks = [v.tick for d in docs for v in d.versions]
    earlier = sorted({q.spec.now_tick for q in questions} - {content.now_tick})
    values = {
        "first": min(ticks),
        "last": max(ticks),
        "earlier": ", ".join(str(t) for t in earlier),
        "claim_tick": content.now_tick,
    }
    prose = {name: fill(text, values, f"card/{name}.md") for name, text in content.card.items()}
    return "\n".join(
        [
            prose["intro"],
            _documents(docs),
            _principals(content.roster.askers),
            _queries(questions),
            _claims(numbered),
            prose["judging"],
            prose["limits"],
        ]
    )
