"""The data card, ``datasets/tidewater/README.md``: fixed prose around counted tables."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from tidewater.build import TENANTS, Question, Rendered
from tidewater.claims import CLAIM_TICK, NumberedClaim
from tidewater.model import CLASSIFICATIONS
from tidewater.people import ROSTER

INTRO = """\
# Tidewater: a labelled set for authorized hybrid retrieval

Tidewater is a fictional banking group with three tenants that share one retrieval layer:
**wholesale** (Corporate & Transaction Banking: payments, sanctions screening, trade
finance, markets), **retail** (collections scripts, hardship procedures, product terms,
fraud and branch policies) and **advisory** (M&A and equity capital markets, with live deals
behind information barriers). The set is what `ragward eval` runs when no `--dataset` is
given. Every document, person, company and figure in it is invented.

It is built to tell retrieval settings apart *under authorization*: every question is asked
by a principal (tenant, clearance, barriers) at a tick, some with a freshness contract, and
is judged only on what that principal may see. The corpus has near-duplicates (case files of
the same beneficiary, one-year and two-year bonds, two- and five-year mortgages), distractors
that share vocabulary with the answers, facts stated in other words than the questions, and
documents whose facts change between versions.

## How it is made

Everything is written by hand as prose templates and parameter tables under
`tools/tidewater/` and rendered by a deterministic generator (standard library only):

```
python tools/gen_tidewater.py                # rewrite datasets/tidewater/ (byte-identical)
python tools/gen_tidewater.py --out DIR      # write the set somewhere else
python tools/gen_tidewater.py --check        # also score the reference retriever on it
```

Facts are marked in the templates, so the generator knows the exact span of each one in each
version; claims and their evidence are derived from those spans. Before writing, the
generator validates every rule below and stops with the reasons if any is broken. Do not
edit the files here by hand: change the templates and regenerate.

## Files

The layout and fields are those of `evals/DATASET_FORMAT.md` (BEIR layout plus ragward's
`tenant`, `classification`, `barrier`, `version`, `updated_tick`, `principal`, `now_tick`,
`max_stale_ticks` and `claims.jsonl`). `metadata` (ignored by loaders) carries `doc_type`
for documents and `kind` for queries, for break-downs. Corpus lines are in ingest order (by
`updated_tick`), so every document's versions come oldest first. Ticks order events; they
are not mapped to the calendar dates in the text. Versions were written between ticks
{first} and {last}. Every claim and most questions are asked at tick {claim_tick}; some
freshness questions are asked earlier, at ticks {earlier}.

Query kinds (`metadata.kind`): `keyword` (terse search-box terms), `question` (a natural
question), `paraphrase` (a question sharing few words with its answer), `id` (a case or
payment reference such as `PMT-4108`), `hidden-best` (the best-matching text is in a
document the asker may not see), `fresh` (a freshness contract excludes some relevant
documents: the best-matching text is in a document stale for the asker) and `isolation` (the
same words asked in every tenant).

`python tools/gen_tidewater.py --check` prints nDCG@10, recall@10 and MRR@10 of the
reference retriever per mode, with and without rerank, and the share of claims of each kind
its grounding check calls supported; the figures are not stored here, so this card does not
depend on the reference.
"""

JUDGING = """\
## How the labels were judged

- **Isolation.** A question is judged only against documents of its asker's tenant. The ids
  `pol-complaints-handling`, `pol-data-retention`, `proc-incident-escalation` and
  `pol-gifts-hospitality` exist in all three tenants with different content; the
  `isolation` questions ask the same words in each tenant.
- **Entitlement.** A grade above 0 is given only to a document the asker may see: its
  classification at or below the asker's clearance (public < internal < confidential <
  restricted) and its barrier, if any, among the asker's barriers. For `hidden-best`
  questions the best-matching text is in a document the asker may not see (a restricted
  committee minute, a deal paper behind a barrier); the judgements name the visible answer
  or the visible partial answer instead.
- **Freshness.** For a question with `max_stale_ticks`, a document whose current version is
  older than `now_tick - max_stale_ticks` (stale: `now_tick - updated_tick >
  max_stale_ticks`) is never graded above 0, however relevant. The `fresh` questions are
  written so that the contract matters: each is phrased in the words of a document that is
  stale for its asker (an old circular, bulletin, memo, rate notice or incident, or a draft
  later replaced) and judges that document 0, while a newer document answers it (2) or, for a
  few, only partly answers it (1). Most stale documents stand next to the re-issue that
  replaced them under another id (`circ-2024-yearend-freeze` and `circ-2025-yearend-freeze`),
  so a retriever that ignores the contract ranks the out-of-date answer first. Freshness
  questions are asked at several ticks, and every document graded above 0 was written at or
  before the tick its question is asked. The generator checks both rules and that every
  `fresh` question judges at least one visible stale document.
- **Grades.** 2 = answers the question; 1 = partly answers it or is the governing policy of
  the answer; 0 = judged not relevant (hard negatives: the other case file of the same
  beneficiary, the neighbouring product). Every question has at least one document graded
  above 0.
- **Claims**, labelled *for their principal* at tick {claim_tick}, with evidence as character
  slices of the current version of a document in the principal's tenant:
  - `verbatim`: a sentence copied from a visible document; supported.
  - `paraphrase`: the same fact in other words; supported.
  - `fabrication`: a near-miss (right words, wrong amount, date, owner or direction);
    unsupported; the evidence is the passage it distorts.
  - `invisible`: true only according to a document the principal may not see; unsupported;
    the evidence points into that document (and is left out of the gold context).
  - `superseded`: true of an older version only; unsupported; the evidence is the current
    passage that replaced it.
  - `no-evidence`: plausible but stated nowhere; unsupported; no evidence.

  The generator checks that every slice is exact, that supported claims rest on evidence the
  principal may see, and that no unsupported claim appears verbatim in a document the
  principal may see.
"""

LIMITS = """\
## Known limitations

- Small by retrieval standards (a few hundred chunks per tenant), and written by one hand:
  the vocabulary is more regular than a real knowledge base's, and templated documents
  (payment cases, screening alerts, client profiles, hardship cases, mandates) follow a few
  phrasings each.
- Relevance was judged by the author with the documents in view, not pooled from system
  runs; a document that answers a question but was not foreseen is unjudged (counted as not
  relevant by `trec_eval` semantics).
- `paraphrase` and `invisible` labels rest on the author's reading: the generator can check
  exact text, not meaning. Facts that back `invisible` claims were marked as stated in one
  document only.
- The corpus has no history: every document is indexed as of its newest version, so a
  question asked at an earlier tick still sees documents written after it (they are never
  stale for it, and none of them is graded). Documents graded above 0 for a question were
  all written by the time it is asked.
- Each tenant is small (under a hundred documents), so a 30- or 50-chunk candidate pool
  already holds most documents that share a word with the question; differences between
  settings show more in nDCG and MRR than in recall@10.
- English only, apart from a few names (Türkiye, OÜ, Pacífico).

## License

Written for ragward and released under the same license as the project, Apache-2.0. All
names, figures and events are fictional; any resemblance to real organisations is
coincidental.
"""


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


def _principals() -> str:
    rows = [
        [
            f"`{a.user_id}`",
            a.tenant,
            a.max_classification,
            ", ".join(f"`{b}`" for b in sorted(a.barriers)) or "-",
            a.role,
        ]
        for a in ROSTER
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
    docs: Sequence[Rendered], questions: Sequence[Question], numbered: Sequence[NumberedClaim]
) -> str:
    """The full data card."""
    ticks = [v.tick for d in docs for v in d.versions]
    earlier = sorted({q.spec.now_tick for q in questions} - {CLAIM_TICK})
    intro = INTRO.format(
        first=min(ticks),
        last=max(ticks),
        earlier=", ".join(str(t) for t in earlier),
        claim_tick=CLAIM_TICK,
    )
    return "\n".join(
        [
            intro,
            _documents(docs),
            _principals(),
            _queries(questions),
            _claims(numbered),
            JUDGING.format(claim_tick=CLAIM_TICK),
            LIMITS,
        ]
    )
