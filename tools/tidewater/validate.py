"""Every rule the written set must keep; a broken rule stops the generator with its reason."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from tools.tidewater.build import TENANTS, Question, Rendered
from tools.tidewater.claims import NumberedClaim
from tools.tidewater.model import CLASSIFICATIONS, Asker

#: The minimums the issue asks for.
MIN_DOCS = 150
MIN_QUERIES = 100
MIN_CLAIMS = 200
MIN_PER_CLASSIFICATION = 20
MIN_BARRIERS = 2
MIN_MULTI_VERSION = 8
SUPPORTED_SHARE = (0.40, 0.50)

_SECTION = re.compile(r"^## \S", re.MULTILINE)


class DatasetError(ValueError):
    """The set breaks one of its rules."""


def _fail(problems: list[str]) -> None:
    if problems:
        shown = "\n  ".join(problems[:40])
        more = f"\n  ... and {len(problems) - 40} more" if len(problems) > 40 else ""
        raise DatasetError(f"{len(problems)} problem(s):\n  {shown}{more}")


def _sees(asker: Asker, doc: Rendered) -> bool:
    s = doc.spec
    return asker.sees(s.tenant, s.classification, s.barrier)


def _stale(now_tick: int, max_stale_ticks: int | None, doc: Rendered) -> bool:
    """Whether ``doc`` is stale under a contract: ``now_tick - updated_tick > max_stale``."""
    return max_stale_ticks is not None and now_tick - doc.current.tick > max_stale_ticks


def check_docs(docs: Sequence[Rendered]) -> None:
    problems: list[str] = []
    keys = Counter(d.key for d in docs)
    problems += [f"document {k} declared {n} times" for k, n in keys.items() if n > 1]
    for d in docs:
        s = d.spec
        where = f"{s.tenant}/{s.doc_id}"
        if s.tenant not in TENANTS:
            problems.append(f"{where}: unknown tenant")
        if s.classification not in CLASSIFICATIONS:
            problems.append(f"{where}: unknown classification {s.classification!r}")
        ticks = [v.tick for v in d.versions]
        if ticks != sorted(set(ticks)):
            problems.append(f"{where}: version ticks must strictly increase, got {ticks}")
        marked = set(s.facts)
        for v in d.versions:
            sections = len(_SECTION.findall(v.text))
            if not 2 <= sections <= 5:
                problems.append(f"{where} v{v.number}: {sections} sections, want 2 to 5")
            if not v.text.startswith("## "):
                problems.append(f"{where} v{v.number}: text must open with a section heading")
            if set(v.spans) != marked:
                problems.append(
                    f"{where} v{v.number}: marked facts {sorted(v.spans)} != declared "
                    f"{sorted(marked)}"
                )
        texts = [v.text for v in d.versions]
        if len(set(texts)) != len(texts):
            problems.append(f"{where}: two versions have the same text")
    _fail(problems)
    current = list(docs)
    by_class = Counter(d.spec.classification for d in current)
    barriers = {d.spec.barrier for d in current if d.spec.barrier}
    multi = sum(1 for d in docs if len(d.versions) > 1)
    if len(current) < MIN_DOCS:
        problems.append(f"{len(current)} documents, want at least {MIN_DOCS}")
    problems += [
        f"{n} {c} documents, want at least {MIN_PER_CLASSIFICATION}"
        for c in CLASSIFICATIONS
        if (n := by_class[c]) < MIN_PER_CLASSIFICATION
    ]
    if len(barriers) < MIN_BARRIERS:
        problems.append(f"{len(barriers)} barriers, want at least {MIN_BARRIERS}")
    if multi < MIN_MULTI_VERSION:
        problems.append(f"{multi} documents with several versions, want {MIN_MULTI_VERSION}")
    reused = Counter(d.spec.doc_id for d in docs)
    if not any(n == len(TENANTS) for n in reused.values()):
        problems.append("no document id is reused across every tenant")
    _fail(problems)


def check_queries(questions: Sequence[Question], docs: Sequence[Rendered]) -> None:
    problems: list[str] = []
    index = {d.key: d for d in docs}
    ids = Counter(q.query_id for q in questions)
    problems += [f"query id {i} used {n} times" for i, n in ids.items() if n > 1]
    for q in questions:
        spec = q.spec
        asker = spec.asker
        where = f"{q.query_id} ({spec.text!r}, {asker.user_id})"
        if not spec.text.strip():
            problems.append(f"{where}: empty text")
        relevant = 0
        stale_negatives = 0
        for doc_id, grade in spec.judged.items():
            doc = index.get((asker.tenant, doc_id))
            if doc is None:
                problems.append(f"{where}: judged {doc_id!r} is not a {asker.tenant} document")
                continue
            if grade not in (0, 1, 2):
                problems.append(f"{where}: grade {grade} for {doc_id}")
            stale = _stale(spec.now_tick, spec.max_stale_ticks, doc)
            if grade <= 0:
                if stale and _sees(asker, doc):
                    stale_negatives += 1
                continue
            if not _sees(asker, doc):
                problems.append(f"{where}: grades {doc_id} > 0 but may not see it")
            if stale:
                problems.append(f"{where}: grades {doc_id} > 0 but it is stale")
            if doc.current.tick > spec.now_tick:
                problems.append(
                    f"{where}: grades {doc_id} > 0 but it was written at tick "
                    f"{doc.current.tick}, after the question is asked"
                )
            relevant += 1
        if relevant == 0:
            problems.append(f"{where}: no relevant document")
        for doc_id in spec.hidden:
            doc = index.get((asker.tenant, doc_id))
            if doc is None or _sees(asker, doc):
                problems.append(f"{where}: hidden {doc_id!r} is missing or visible to the asker")
            if doc_id in spec.judged:
                problems.append(f"{where}: hidden {doc_id!r} is also judged")
        if spec.kind == "fresh":
            if spec.max_stale_ticks is None:
                problems.append(f"{where}: a freshness question needs max_stale_ticks")
            elif not stale_negatives:
                problems.append(
                    f"{where}: a freshness question needs a judged (grade 0) document the "
                    "asker may see that is stale for it"
                )
        if spec.kind == "hidden-best" and not spec.hidden:
            problems.append(f"{where}: a hidden-best question must name the hidden documents")
    if len(questions) < MIN_QUERIES:
        problems.append(f"{len(questions)} queries, want at least {MIN_QUERIES}")
    if not any(q.spec.max_stale_ticks is not None for q in questions):
        problems.append("no query has a freshness contract")
    _fail(problems)


def check_claims(
    claims: Sequence[NumberedClaim], docs: Sequence[Rendered], claim_tick: int
) -> None:
    problems: list[str] = []
    index = {d.key: d for d in docs}
    ids = Counter(c.claim_id for c in claims)
    problems += [f"claim id {i} used {n} times" for i, n in ids.items() if n > 1]
    texts = Counter((c.planned.asker.user_id, c.planned.text) for c in claims)
    problems += [f"claim {t!r} repeated for {u}" for (u, t), n in texts.items() if n > 1]
    for c in claims:
        p = c.planned
        asker = p.asker
        where = f"{c.claim_id} ({p.kind}, {asker.user_id}): {p.text[:60]!r}"
        visible = [d for d in docs if d.spec.tenant == asker.tenant and _sees(asker, d)]
        for ev in p.evidence:
            doc = index.get((asker.tenant, ev.doc_id))
            if doc is None:
                problems.append(f"{where}: evidence {ev.doc_id} is not in {asker.tenant}")
                continue
            if not 0 <= ev.start < ev.end <= len(doc.current.text):
                problems.append(f"{where}: evidence slice out of range")
            if p.kind == "verbatim" and doc.current.text[ev.start : ev.end] != p.text:
                problems.append(f"{where}: verbatim claim is not its evidence slice")
            seen = _sees(asker, doc)
            if p.kind == "invisible" and seen:
                problems.append(f"{where}: invisible claim's evidence is visible")
            if p.kind != "invisible" and not seen:
                problems.append(f"{where}: evidence {ev.doc_id} is not visible to the asker")
        if p.supported and not p.evidence:
            problems.append(f"{where}: supported claim without evidence")
        if p.kind in ("fabrication", "superseded", "invisible", "no-evidence"):
            hits = [d.spec.doc_id for d in visible if p.text in d.current.text]
            if hits:
                problems.append(f"{where}: unsupported claim appears verbatim in {hits}")
        if p.kind == "fabrication":
            ev = p.evidence[0]
            original = index[(asker.tenant, ev.doc_id)].current.text[ev.start : ev.end]
            if original == p.text:
                problems.append(f"{where}: fabrication equals its source")
    supported = sum(1 for c in claims if c.planned.supported)
    share = supported / len(claims) if claims else 0.0
    low, high = SUPPORTED_SHARE
    if not low <= share <= high:
        problems.append(f"supported share {share:.2f} outside [{low}, {high}]")
    if len(claims) < MIN_CLAIMS:
        problems.append(f"{len(claims)} claims, want at least {MIN_CLAIMS}")
    newest = max(v.tick for d in docs for v in d.versions)
    if newest >= claim_tick:
        problems.append(f"claims are checked at tick {claim_tick}, before version tick {newest}")
    _fail(problems)
