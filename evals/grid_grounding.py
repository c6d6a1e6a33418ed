"""A grid's grounding verdicts: every setting's top hits, and the gold evidence, grounded
by the implementation under each threshold of the grid."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, cast

from ragward.clipped import clip
from ragward.conformance.contract import GroundingSweep, GroundingSystem, RetrievalSystem
from ragward.conformance.loading import one_line
from ragward.conformance.records import Doc, Hit
from ragward.conformance.visibility import entitled
from ragward.errors import AdapterError, RagwardError
from ragward.evals.grid import Grid, RetrievalSetting
from ragward.evals.grid_outcome import GridOutcome
from ragward.evals.records import LabelledClaim
from ragward.evals.systems import a_type

__all__ = ["gold_context", "ground_all"]

#: How many distinct (claim, hits) are grounded both ways to check ``ground_sweep``.
SWEEP_CHECKS = 3

_CHUNK_ID = attrgetter("chunk_id")


def ground_all(
    system: RetrievalSystem,
    grid: Grid,
    settings: tuple[RetrievalSetting, ...],
    claims: list[LabelledClaim],
    claim_keys: Mapping[str, str],
    outcome: GridOutcome,
    current: Mapping[tuple[str, str], Doc],
    name: str = "implementation",
    sweep: bool = False,
) -> None:
    """Every setting's grounding verdicts on ``claims``, and the gold ones once. With
    ``sweep``, each distinct (claim, hits) is grounded under every threshold in one
    ``ground_sweep`` call, checked against ``ground`` on the first ones."""
    ground = cast(GroundingSystem, system).ground  # declared by capabilities.grounding
    # Settings that return the same top hits get the same verdicts: ask once per distinct
    # (claim, hits) on this index, under every threshold.
    memo: dict[tuple[str, tuple[str, ...]], list[bool]] = {}
    thresholds = grid.min_overlaps
    swept = cast(GroundingSweep, system).ground_sweep if sweep else None
    for setting in settings:
        per_threshold = outcome.verdicts.setdefault(setting.id, {})
        columns = [per_threshold.setdefault(threshold, {}) for threshold in thresholds]
        answers = outcome.answers[setting.id]
        for claim in claims:
            hits = answers[claim_keys[claim.claim_id]].hits[: grid.grounding_depth]
            key = (claim.claim_id, tuple(map(_CHUNK_ID, hits)))
            known = memo.get(key)
            if known is None and swept is not None:
                known = _swept(swept, claim.text, hits, thresholds, name)
                if len(memo) < SWEEP_CHECKS and known != [
                    _supported(ground, claim.text, hits, threshold, name)
                    for threshold in thresholds
                ]:
                    raise RagwardError(
                        f"{name}: ground_sweep disagrees with ground for claim "
                        f"{claim.claim_id}; run with --no-reuse"
                    )
                memo[key] = known
            if known is None:
                known = memo[key] = [
                    _supported(ground, claim.text, hits, threshold, name)
                    for threshold in thresholds
                ]
            for verdicts, supported in zip(columns, known, strict=True):
                verdicts[claim.claim_id] = supported
    if outcome.gold:
        return
    columns = [outcome.gold.setdefault(threshold, {}) for threshold in thresholds]
    for claim in claims:
        context = gold_context(claim, current)  # once: the same hits under every threshold
        if swept is not None:
            known = _swept(swept, claim.text, context, thresholds, name)
        else:
            known = [
                _supported(ground, claim.text, context, threshold, name) for threshold in thresholds
            ]
        for verdicts, supported in zip(columns, known, strict=True):
            verdicts[claim.claim_id] = supported


def _supported(
    ground: Callable[..., Any], claim: str, hits: tuple[Hit, ...], threshold: float, name: str
) -> bool:
    """Whether the implementation's ``ground`` supports ``claim`` from ``hits``; a crash
    or an answer of the wrong shape is the implementation's mistake, said as one line."""
    try:
        answer = ground((claim,), hits, threshold)
    except Exception as error:
        call = _ground_call(name, claim, threshold)
        raise AdapterError(f"{call} raised {one_line(error)}") from None
    if not isinstance(answer, tuple | list) or len(answer) != 1:
        call = _ground_call(name, claim, threshold)
        raise AdapterError(f"{call} returned {type(answer).__name__}, not one Support per claim")
    supported = getattr(answer[0], "supported", None)
    if not isinstance(supported, bool):
        call = _ground_call(name, claim, threshold)
        raise AdapterError(f"{call} returned {a_type(answer[0])} without a bool supported")
    return supported


def _swept(
    sweep: Callable[..., Any],
    claim: str,
    hits: tuple[Hit, ...],
    thresholds: tuple[float, ...],
    name: str,
) -> list[bool]:
    """Whether the implementation's ``ground_sweep`` supports ``claim`` from ``hits`` under
    each of ``thresholds``; a crash or an answer of the wrong shape, said as one line."""
    count = f"{len(thresholds)} threshold" + ("" if len(thresholds) == 1 else "s")
    call = f"{name}.ground_sweep(({clip(repr(claim), 80)},), ..., {count})"
    try:
        answers = sweep((claim,), hits, (t for t in thresholds))
    except Exception as error:
        raise AdapterError(f"{call} raised {one_line(error)}") from None
    if not isinstance(answers, tuple | list) or len(answers) != len(thresholds):
        raise AdapterError(f"{call} returned {a_type(answers)}, not one answer per threshold")
    verdicts = []
    for answer in answers:
        if not isinstance(answer, tuple | list) or len(answer) != 1:
            raise AdapterError(f"{call} returned {a_type(answer)}, not one Support per claim")
        supported = getattr(answer[0], "supported", None)
        if not isinstance(supported, bool):
            raise AdapterError(f"{call} returned {a_type(answer[0])} without a bool supported")
        verdicts.append(supported)
    return verdicts


def _ground_call(name: str, claim: str, threshold: float) -> str:
    return f"{name}.ground(({clip(repr(claim), 80)},), ..., {threshold:g})"


def gold_context(claim: LabelledClaim, current: Mapping[tuple[str, str], Doc]) -> tuple[Hit, ...]:
    """The claim's gold evidence the asker may see, as hits."""
    hits: list[Hit] = []
    for number, evidence in enumerate(claim.evidence):
        doc = current.get((claim.asker.tenant, evidence.doc_id))
        if doc is None or not entitled(doc, claim.asker):
            continue
        end = evidence.start + len(evidence.text)
        hits.append(
            Hit(
                chunk_id=f"gold:{claim.claim_id}:{number}",
                doc_id=doc.doc_id,
                version=doc.version,
                start=evidence.start,
                end=end,
                text=evidence.text,
                score=1.0,
                citation=f"{doc.doc_id}@v{doc.version}#gold[{evidence.start}:{end}]",
            )
        )
    return tuple(hits)
