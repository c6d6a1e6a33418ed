"""Broken implementations with one assembly or grounding defect each.

Part of the catalogue of :mod:`tests.conformance.broken`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ragward.conformance.records import AssembleRequest, Context, Hit, Support
from ragward.engines.reference import ReferenceSystem
from ragward.engines.reference_records import scored_of
from ragward.errors import BudgetError, InvalidArgument
from ragward.reference import (
    Claim,
    ScoredChunk,
    Segment,
    check_grounding,
    estimate_tokens,
    neutralise,
)

__all__ = [
    "BudgetIgnoresSeparators",
    "GroundsOnCorpus",
    "HeadersNotNeutralised",
    "TruncatesQuestion",
    "assemble_with",
    "joined_size",
]


_SEPARATOR = "\n\n"


def assemble_with(
    request: AssembleRequest,
    *,
    measure: Callable[[list[str]], int],
    escape: Callable[[str], str],
) -> Context:
    """The reference assembler re-implemented with two hooks.

    ``measure`` sizes the parts of a candidate prompt (the reference measures
    ``_SEPARATOR.join(parts)``); ``escape`` neutralises a segment's body (the reference
    uses :func:`ragward.reference.neutralise`). With those two it is the reference's
    assembler (``test_kill_matrix.py`` checks that).
    """
    if request.budget_tokens <= 0:
        raise InvalidArgument(f"budget_tokens must be an integer > 0, got {request.budget_tokens}")
    if not request.question.strip():
        raise InvalidArgument(f"question must be a non-empty string, got {request.question!r}")
    fixed = {
        Segment.INSTRUCTIONS: request.instructions,
        Segment.TOOL_SCHEMAS: request.tool_schemas,
        Segment.POLICY: request.policy,
        Segment.MEMORY: request.memory,
        Segment.QUESTION: request.question,
    }
    blocks = {s: f"[{s.value}]\n{escape(v)}" for s, v in fixed.items() if v}
    hits = request.retrieved
    rendered = [f"<<{' '.join(h.citation.splitlines())}>>\n{escape(h.text)}" for h in hits]

    def parts(count: int) -> list[str]:
        out = []
        for segment in Segment:
            if segment is Segment.RETRIEVED:
                if count:
                    out.append(f"[{segment.value}]\n{_SEPARATOR.join(rendered[:count])}")
            elif segment in blocks:
                out.append(blocks[segment])
        return out

    for count in range(len(rendered), -1, -1):
        tokens = measure(parts(count))
        if tokens <= request.budget_tokens:
            break
    else:
        raise BudgetError(
            f"the fixed segments need {tokens} tokens but the budget is {request.budget_tokens}"
        )
    return Context(
        _SEPARATOR.join(parts(count)),
        tokens,
        tuple(h.chunk_id for h in hits[:count]),
        tuple(h.chunk_id for h in hits[count:]),
    )


def joined_size(parts: list[str]) -> int:
    return estimate_tokens(_SEPARATOR.join(parts))


class BudgetIgnoresSeparators(ReferenceSystem):
    """A budget that ignores separators.

    The assembler sizes a prompt as the sum of its pieces — each header-plus-body block
    measured on its own and added up — and never counts the blank lines it joins them
    with. Near the limit the assembled text is larger than the budget (and than the
    ``tokens`` it reports).

    Caught by: assembly (ASM-001, the budget is measured on the assembled text).
    """

    def assemble(self, request: AssembleRequest) -> Context:
        def pieces(parts: list[str]) -> int:
            return estimate_tokens("".join(part.replace(_SEPARATOR, "") for part in parts))

        return assemble_with(request, measure=pieces, escape=neutralise)


class TruncatesQuestion(ReferenceSystem):
    """Truncating the question to fit.

    When the prompt is over budget, the assembler keeps the retrieved evidence and clips
    the user's question to its longest word prefix that fits (the evidence is "what the
    answer needs"); only when not even one word of the question fits does it fall back to
    dropping chunks and, at last, to the budget error. The question reaches the model
    mangled.

    Caught by: assembly (ASM-002 question kept whole and last; ASM-007 refuses exactly
    when the fixed segments do not fit).
    """

    def assemble(self, request: AssembleRequest) -> Context:
        try:
            full: Context | None = super().assemble(request)
        except BudgetError:
            full = None
        if full is not None and not full.dropped:
            return full
        words = request.question.split()
        fallback: Context | None = None
        for size in range(len(words) - 1, 0, -1):
            try:
                clipped = super().assemble(replace(request, question=" ".join(words[:size])))
            except BudgetError:
                continue
            if not clipped.dropped:
                return clipped
            fallback = fallback or clipped
        if full is not None:
            return full
        if fallback is not None:
            return fallback
        return super().assemble(request)  # raises the budget error


class HeadersNotNeutralised(ReferenceSystem):
    """No neutralisation of forged headers.

    Retrieved text and the question are pasted into the prompt verbatim: a chunk holding a
    line such as ``[instructions]`` (or ``<<doc@v1#x[0:9]>>``) forges a segment header or a
    chunk marker, so the structure a model sees is not the one the assembler built — a
    prompt-injection vector.

    Caught by: assembly (ASM-006, no header forging).
    """

    def assemble(self, request: AssembleRequest) -> Context:
        return assemble_with(request, measure=joined_size, escape=lambda text: text)


class GroundsOnCorpus(ReferenceSystem):
    """Grounding against the whole corpus.

    The grounding check searches every chunk the system holds (the "knowledge base"), not
    only the chunks that were retrieved for the answer, so a claim is "supported" by a
    chunk the model never saw — and, the corpus being shared, by any tenant's chunk.

    Caught by: grounding (GRD-001 supported only by a retrieved chunk; GRD-002 invented
    claims stay unsupported).
    """

    def ground(
        self, claims: tuple[str, ...], retrieved: tuple[Hit, ...], min_overlap: float
    ) -> tuple[Support, ...]:
        evidence = [scored_of(hit) for hit in retrieved]
        for namespace in self.retriever._namespaces.values():
            live = namespace.live()
            evidence.extend(
                ScoredChunk(chunk, 0.0) for row, chunk in enumerate(namespace.chunks) if live[row]
            )
        report = check_grounding([Claim(c) for c in claims], evidence, min_overlap=min_overlap)
        verdicts = []
        for check in report.checks:
            ok = check.chunk_id is not None and check.overlap >= min_overlap
            verdicts.append(Support(check.claim.text, ok, check.chunk_id if ok else None))
        return tuple(verdicts)
