"""Running a grid: one index per index setting, first stages reused across settings.

For each index setting the harness builds one system and ingests the dataset once. For
each question (a judged query or a claim's query) it takes the first stage once, with the
widest candidate limit of the grid, and finishes it once per retrieval setting (as a
listing, where the implementation offers one: only what the grid reads); an
implementation without staged verbs is asked ``retrieve`` per setting instead. Before it
relies on the staged verbs, the harness checks on the first questions that they give the
hits ``retrieve`` gives. Every answer is checked against the dataset's own view of what
the asker may see (:mod:`ragward.evals.answers`), so leakage is measured, not trusted.
"""

from __future__ import annotations

import dataclasses
import gc
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import groupby
from typing import Any, TextIO, cast

from ragward.clipped import clip
from ragward.conformance.contract import (
    BatchStagedSystem,
    BulkSystem,
    Listing,
    ListingSystem,
    RetrievalSystem,
    StagedSystem,
    is_batched,
    is_bulk,
    is_listing,
    is_staged,
    is_sweeping,
)
from ragward.conformance.loading import message_of, one_line
from ragward.conformance.records import Asker, Doc, Policy, Result
from ragward.errors import AdapterError, RagwardError
from ragward.evals.answers import ViewChecks, check_listing, check_result, read_answer
from ragward.evals.fingerprints import models_of
from ragward.evals.grid import NO_RERANK, OWN_RERANKER, Grid, IndexSetting, RetrievalSetting
from ragward.evals.grid_grounding import ground_all
from ragward.evals.grid_outcome import Answer, GridOutcome, Question
from ragward.evals.progress import Progress, progress
from ragward.evals.records import Dataset
from ragward.evals.systems import SystemBuilder, a_type
from ragward.evals.visibility import current_docs
from ragward.models.cache_file import CacheFault

# The records of a run are ragward.evals.grid_outcome (imported from here too), reading
# the answers ragward.evals.answers, grounding them ragward.evals.grid_grounding.
__all__ = ["Answer", "GridOutcome", "Question", "run_grid"]

#: Documents per ``ingest_many`` call: enough to fill a model's batches, few enough for
#: the progress bar to move.
BATCH_DOCS = 128

#: How many questions per index are answered both ways to check the staged verbs.
STAGED_CHECKS = 3

#: How many questions' first stages the harness asks for in one call, where the
#: implementation takes them together (:class:`~ragward.conformance.contract.BatchStagedSystem`).
QUESTION_BLOCK = 256

#: Allocations between two collections of the youngest generation while a grid runs
#: (CPython's default is 700); see :func:`_collecting_rarely`.
GRID_GC_THRESHOLD = 50_000


@contextmanager
def _collecting_rarely() -> Iterator[None]:
    """Collect cyclic garbage less often while a grid runs, then as before.

    A grid builds millions of small acyclic objects (chunks, hits, answers) that live to
    its end, and CPython's collector walks every tracked object on each full collection:
    on the SciFact grid 16 full collections over some five million objects were 26% of
    the time (28.5 s against 21.1 s with the collector off). With the youngest
    generation collected every :data:`GRID_GC_THRESHOLD` allocations and the older ones
    20 times more rarely each, young cycles are still reclaimed and no full collection
    runs. The thresholds are restored on the way out, whatever happens.
    """
    before = gc.get_threshold()
    gc.set_threshold(GRID_GC_THRESHOLD, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def run_grid(
    dataset: Dataset,
    grid: Grid,
    factory: Callable[..., Any],
    *,
    splits: tuple[str, ...],
    name: str = "implementation",
    reuse: bool = True,
    stream: TextIO = sys.stderr,
) -> GridOutcome:
    """Answer every query and claim of ``splits`` under every setting of ``grid``."""
    with _collecting_rarely():
        return _run_grid(
            dataset, grid, factory, splits=splits, name=name, reuse=reuse, stream=stream
        )


def _run_grid(
    dataset: Dataset,
    grid: Grid,
    factory: Callable[..., Any],
    *,
    splits: tuple[str, ...],
    name: str,
    reuse: bool,
    stream: TextIO,
) -> GridOutcome:
    builder = SystemBuilder(factory, name, grid)
    grid = builder.as_run(grid)  # an index built the implementation's own way named so
    queries = {q.query_id: q for split in splits for q in dataset.split_queries(split)}
    claims = [c for split in splits for c in dataset.split_claims(split)]
    questions: dict[str, Question] = {
        qid: Question(q.text, q.asker, q.now_tick, q.max_stale_ticks) for qid, q in queries.items()
    }
    # a claim asked exactly as a judged query (or another claim) shares its answers
    known: dict[Question, str] = {}
    for key, question in questions.items():
        known.setdefault(question, key)
    claim_keys: dict[str, str] = {}
    for claim in claims:
        question = Question(claim.query, claim.asker, claim.now_tick, None)
        key = known.setdefault(question, f"claim:{claim.claim_id}")
        questions.setdefault(key, question)
        claim_keys[claim.claim_id] = key
    outcome = GridOutcome(settings=grid.all_settings())
    outcome.index_settings_passed = builder.passes_settings
    current = current_docs(dataset)
    work = {"indexes": 0, "ingests": 0, "first_stages": 0, "finishes": 0, "retrieves": 0}
    phases = ("ingest", "first_stages", "finishes", "retrieves", "checks", "read", "ground")
    seconds = dict.fromkeys(phases, 0.0)
    clock = time.perf_counter
    # which (document, version) pairs may answer, by the view a question is asked in
    checked_in: dict[tuple[Asker, int, int | None], ViewChecks] = {}
    for index, reranker, settings in _builds(grid):
        system = builder.build(index, reranker)
        builder.check(system, grid)
        work["indexes"] += 1
        label = index.label if reranker is None else f"{index.label} rerank-{reranker}"
        if outcome.capabilities is None:
            outcome.capabilities = system.capabilities
        outcome.models[label] = models_of(system, index, reranker, name)
        started = clock()
        with progress(len(dataset.docs), f"index {label}", stream=stream) as bar:
            _ingest_all(system, dataset.docs, name, work, bar)
        seconds["ingest"] += clock() - started
        said = getattr(system, "embedder_truncation", None)
        cut = said() if callable(said) else None
        if isinstance(cut, tuple) and len(cut) == 3 and all(type(n) is int for n in cut):
            keys = ("truncated", "embedded", "limit")
            outcome.truncated[label] = dict(zip(keys, cut, strict=True))
        staged = reuse and is_staged(system)
        outcome.staged = staged
        way = ("finish_listings" if is_listing(system) else "finish") if staged else "retrieve"
        # Depth is counted in documents wherever the system can: "recall@100" then means
        # 100 documents, not 100 chunks of fewer documents.
        unit = "documents" if system.capabilities.document_limits else "chunks"
        outcome.depth_unit = unit
        answers = {s.id: outcome.answers.setdefault(s.id, {}) for s in settings}
        asked = list(questions.items())
        block = QUESTION_BLOCK if staged and is_batched(system) else 1
        with progress(len(questions), f"queries {label}", stream=stream) as bar:
            for begin in range(0, len(asked), block):
                part = asked[begin : begin + block]
                stages: list[object] = [None] * len(part)
                if block > 1:
                    stages = _first_stages(
                        cast(BatchStagedSystem, system),
                        [question for _, question in part],
                        settings,
                        grid,
                        (work, seconds),
                        name,
                        unit,
                    )
                for number, (key, question), stage in zip(
                    range(begin, begin + len(part)), part, stages, strict=True
                ):
                    results = _answer_all(
                        system, question, settings, grid, way, (work, seconds), name, unit, stage
                    )
                    answered = clock()
                    if staged and number < STAGED_CHECKS:
                        _check_staged(system, question, settings, grid, results, name, unit)
                    checked = clock()
                    view = _view_of(question)
                    pairs = checked_in.get(view)
                    if pairs is None:
                        pairs = checked_in[view] = ViewChecks()
                    for setting in settings:
                        answers[setting.id][key] = read_answer(
                            results[setting.id], question, current, pairs, grid.grounding_depth
                        )
                    seconds["checks"] += checked - answered
                    seconds["read"] += clock() - checked
                    bar.advance()
        outcome.grounding = system.capabilities.grounding
        if outcome.grounding and claims:
            started = clock()
            sweep = reuse and is_sweeping(system)
            ground_all(system, grid, settings, claims, claim_keys, outcome, current, name, sweep)
            seconds["ground"] += clock() - started
    outcome.work = work
    outcome.seconds = seconds
    return outcome


def _builds(
    grid: Grid,
) -> list[tuple[IndexSetting, str | None, tuple[RetrievalSetting, ...]]]:
    """The systems a grid needs, per index setting: one per named reranker, and one built
    as the factory makes it (``None``) for ``default`` — or when nothing is named. Settings
    with rerank off go to the first: a reranker that is not called changes nothing."""
    out: list[tuple[IndexSetting, str | None, tuple[RetrievalSetting, ...]]] = []
    named = grid.named_rerankers()
    for index in grid.indexes:
        settings = grid.settings(index)
        builds: list[str | None] = list(named)
        if OWN_RERANKER in grid.reranks or not named:
            builds.insert(0, None)
        for number, reranker in enumerate(builds):
            wanted = OWN_RERANKER if reranker is None else reranker
            mine = tuple(
                s
                for s in settings
                if s.reranker == wanted or (number == 0 and s.reranker == NO_RERANK)
            )
            out.append((index, reranker, mine))
    return out


def _ingest_all(
    system: RetrievalSystem, docs: Sequence[Doc], name: str, work: dict[str, int], bar: Progress
) -> None:
    if not is_bulk(system):
        for doc in docs:
            _ingest(system, doc, name)
            work["ingests"] += 1
            bar.advance()
        return
    bulk = cast(BulkSystem, system)
    for start in range(0, len(docs), BATCH_DOCS):
        batch = docs[start : start + BATCH_DOCS]
        first = batch[0]
        with _blamed(
            f"{name} failed to ingest a batch of {len(batch)} documents from "
            f"{clip(first.tenant, 80)}/{clip(first.doc_id, 80)} v{first.version}: "
        ):
            # A generator, as the protocol allows: a verb that reads it twice shows here.
            accepted = bulk.ingest_many(doc for doc in batch)
        if not isinstance(accepted, tuple | list) or len(accepted) != len(batch):
            raise AdapterError(
                f"{name}.ingest_many returned {clip(repr(accepted), 80)} for {len(batch)} "
                "documents; expected one bool per document"
            )
        for doc, ok in zip(batch, accepted, strict=True):
            _accepted(name, doc, ok, many=True)
        work["ingests"] += len(batch)
        bar.advance(len(batch))


@contextmanager
def _blamed(prefix: str, said: Callable[[BaseException], str] = message_of) -> Iterator[None]:
    """An exception the implementation raises (on valid data) as an AdapterError: ``prefix``
    and ``said(error)``. The embedding cache's faults pass: they are ragward's."""
    try:
        yield
    except CacheFault:
        raise
    except Exception as error:
        raise AdapterError(prefix + said(error)) from None


def _ingest(system: RetrievalSystem, doc: Doc, name: str) -> None:
    with _blamed(
        f"{name} failed to ingest {clip(doc.tenant, 80)}/{clip(doc.doc_id, 80)} v{doc.version}: "
    ):
        accepted = system.ingest(doc)
    _accepted(name, doc, accepted, many=False)


def _accepted(name: str, doc: Doc, ok: object, *, many: bool) -> None:
    """``ok``, what ``ingest`` (or, ``many``, ``ingest_many``) answered for ``doc``, says
    it was taken: else an AdapterError."""
    shown = f"{doc.tenant}/{doc.doc_id} v{doc.version}"
    if not isinstance(ok, bool):
        said = (
            f"ingest_many returned {a_type(ok)} for {shown}"
            if many
            else f"ingest({shown}) returned {a_type(ok)}"
        )
        raise AdapterError(f"{name}.{said}, not a bool")
    if not ok:
        raise AdapterError(f"{name} refused {shown}")


def _policy(
    setting: RetrievalSetting, grid: Grid, question: Question, unit: str = "chunks"
) -> Policy:
    return Policy(
        mode=setting.mode,
        rrf_k=setting.rrf_k if setting.rrf_k is not None else 60,
        fusion=setting.fusion,
        dense_weight=setting.dense_weight,
        rerank=setting.rerank,
        candidate_limit=setting.candidate_limit,
        result_limit=grid.depth,
        max_stale_ticks=question.max_stale_ticks,
        limit_unit=unit,
    )


def _wide(
    settings: tuple[RetrievalSetting, ...], grid: Grid, question: Question, unit: str
) -> Policy:
    """The policy a question's first stage is taken with: hybrid (both rankings), at the
    widest candidate limit of ``settings``."""
    return dataclasses.replace(
        _policy(settings[0], grid, question, unit),
        mode="hybrid",
        candidate_limit=max(s.candidate_limit for s in settings),
    )


def _first_stages(
    system: BatchStagedSystem,
    asked: list[Question],
    settings: tuple[RetrievalSetting, ...],
    grid: Grid,
    tally: tuple[dict[str, int], dict[str, float]],
    name: str,
    unit: str,
) -> list[object]:
    """The first stage of each of ``asked``, questions asked alike (same asker, time and
    freshness contract) taken together in one ``first_stages`` call."""
    work, seconds = tally
    started = time.perf_counter()
    stages: list[object] = []
    for _, run in groupby(asked, key=_view_of):
        alike = list(run)
        first = alike[0]
        wide = _wide(settings, grid, first, unit)
        texts = [question.text for question in alike]
        with _blamed(f"{name}.first_stages({clip(repr(texts[0]), 80)}, ...) raised ", one_line):
            # A generator, as the protocol allows: a verb that reads it twice shows here.
            taken = system.first_stages((t for t in texts), first.asker, first.now_tick, wide)
        if not isinstance(taken, tuple | list) or len(taken) != len(texts):
            many = f"{len(texts)} question" + ("" if len(texts) == 1 else "s")
            raise AdapterError(
                f"{name}.first_stages returned {a_type(taken)} for {many}; "
                "expected one stage per question"
            )
        stages.extend(taken)
    work["first_stages"] += len(asked)
    seconds["first_stages"] += time.perf_counter() - started
    return stages


def _view_of(question: Question) -> tuple[Asker, int, int | None]:
    return (question.asker, question.now_tick, question.max_stale_ticks)


def _answer_all(
    system: RetrievalSystem,
    question: Question,
    settings: tuple[RetrievalSetting, ...],
    grid: Grid,
    way: str,
    tally: tuple[dict[str, int], dict[str, float]],
    name: str,
    unit: str,
    stage: object = None,
) -> dict[str, Result | Listing]:
    """Every setting's answer to ``question``, asked ``way`` (``"retrieve"``, ``"finish"``
    or ``"finish_listings"``), from ``stage`` where the first stage was taken already;
    ``tally`` counts the calls made and adds their wall seconds."""
    work, seconds = tally
    results: dict[str, Result | Listing] = {}
    started = time.perf_counter()
    with _blamed(f"{name} failed to answer {clip(repr(question.text), 80)}: "):
        if way != "retrieve":
            assert isinstance(system, StagedSystem)
            if stage is None:
                wide = _wide(settings, grid, question, unit)
                stage = system.first_stage(question.text, question.asker, question.now_tick, wide)
                work["first_stages"] += 1
            staged_at = time.perf_counter()
            seconds["first_stages"] += staged_at - started
            if way == "finish_listings":
                policies = [_policy(setting, grid, question, unit) for setting in settings]
                listed = cast(ListingSystem, system).finish_listings(
                    stage, (p for p in policies), grid.grounding_depth
                )
                if not isinstance(listed, tuple | list) or len(listed) != len(settings):
                    raise AdapterError(
                        f"{name}.finish_listings returned {a_type(listed)} for "
                        f"{len(settings)} policies; expected one Listing per policy"
                    )
                results.update(zip((s.id for s in settings), listed, strict=True))
            else:
                for setting in settings:
                    policy = _policy(setting, grid, question, unit)
                    results[setting.id] = system.finish(stage, policy)
            work["finishes"] += len(settings)
            seconds["finishes"] += time.perf_counter() - staged_at
        else:
            for setting in settings:
                policy = _policy(setting, grid, question, unit)
                results[setting.id] = system.retrieve(
                    question.text, question.asker, question.now_tick, policy
                )
                work["retrieves"] += 1
            seconds["retrieves"] += time.perf_counter() - started
    call = f"{name}.{way}({clip(repr(question.text), 80)})"
    if way == "finish_listings":
        for result in results.values():
            check_listing(result, call, grid.grounding_depth)
    else:
        for result in results.values():
            check_result(result, call)
    return results


def _check_staged(
    system: RetrievalSystem,
    question: Question,
    settings: tuple[RetrievalSetting, ...],
    grid: Grid,
    results: Mapping[str, Result | Listing],
    name: str,
    unit: str,
) -> None:
    for setting in settings:
        policy = _policy(setting, grid, question, unit)
        direct = system.retrieve(question.text, question.asker, question.now_tick, policy)
        staged = results[setting.id]
        if isinstance(staged, Listing):
            keys = [(h.chunk_id, h.doc_id, h.version) for h in direct.hits]
            same = list(staged.keys) == keys and staged.top == direct.hits[: len(staged.top)]
        else:
            same = [h.chunk_id for h in direct.hits] == [h.chunk_id for h in staged.hits]
        if not same:
            raise RagwardError(
                f"{name}: first_stage/finish disagree with retrieve for "
                f"{clip(repr(question.text), 80)} under {setting.id}; run with --no-reuse"
            )
