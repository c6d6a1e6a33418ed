"""Assembly invariants: budget, question, segment order, prefix, minimal drops, no forging.

The kit holds ``assemble`` to the adapter's own ``count_tokens``: it first asks for the
fixed segments alone and for everything at an unbounded budget, places the budget
between the two (or below the fixed segments, to test refusals), and then checks the
prompt the adapter builds. Segment headers are lines reading ``[instructions]``,
``[tool_schemas]``, ``[policy]``, ``[memory]``, ``[retrieved]`` and ``[question]``;
chunk markers are lines reading ``<<...>>``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, cast

from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Violation, invariant
from ragward.conformance.records import AssembleRequest, Context, Hit
from ragward.conformance.text_strategies import AsmCase, asm_cases

__all__: list[str] = []

_UNBOUNDED = 10**9
_FIXED = ("instructions", "tool_schemas", "policy", "memory")
_HEADER = re.compile(r"\[(instructions|tool_schemas|policy|memory|retrieved|question)\]")
_STRUCTURE = re.compile(
    r"\[\s*(?:instructions|tool_schemas|policy|memory|retrieved|question)\s*\]|<<.*>>",
    re.DOTALL,
)


def _request(
    case: AsmCase, budget: int, retrieved: tuple[Hit, ...] | None = None
) -> AssembleRequest:
    return AssembleRequest(
        budget,
        case.instructions,
        case.question,
        case.tool_schemas,
        case.policy,
        case.memory,
        case.retrieved if retrieved is None else retrieved,
    )


class _Run:
    """One case against one system: the measured sizes, the budget and the outcome."""

    def __init__(self, factory: Factory, case: AsmCase) -> None:
        # The optional verbs are declared by capability, not by type.
        self.system: Any = cast(Any, factory())
        self.case = case
        self.fixed = self.size(self.unbounded(()))
        full = self.size(self.unbounded(case.retrieved))
        if case.squeeze >= 0:
            span = max(1, full - self.fixed + 2)
            self.budget = self.fixed + case.squeeze * span // 100
        else:
            self.budget = max(1, self.fixed + case.squeeze * (self.fixed + 1) // 100)
        self.context: Context | None = None
        self.refusal: Exception | None = None
        try:
            self.context = self.system.assemble(_request(case, self.budget))
        except Exception as error:  # a refusal; whether it was due is checked below
            self.refusal = error

    def size(self, context: Context) -> int:
        tokens = int(self.system.count_tokens(context.text))
        if tokens < 0 or int(self.system.count_tokens("")) < 0:
            raise Violation(f"count_tokens gave a negative count ({tokens} for the context)")
        return tokens

    def unbounded(self, retrieved: tuple[Hit, ...]) -> Context:
        context: Context = self.system.assemble(_request(self.case, _UNBOUNDED, retrieved))
        return context

    def built(self) -> Context | None:
        """The context, None for a due refusal; an undue refusal is a violation."""
        if self.refusal is not None and self.fixed <= self.budget:
            raise Violation(
                f"assemble refused budget {self.budget} though the fixed segments need "
                f"{self.fixed}: {type(self.refusal).__name__}: {self.refusal}"
            )
        return self.context


def _lines_after_last(text: str, header: str) -> list[str] | None:
    lines = text.splitlines(keepends=True)
    marks = [i for i, line in enumerate(lines) if line.strip() == header]
    return "".join(lines[marks[-1] + 1 :]).splitlines() if marks else None


def _headers(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if _HEADER.fullmatch(line.strip())]


@invariant("ASM-001", cases=asm_cases, requires=("assembly",))
def budget_kept(factory: Factory, case: AsmCase) -> None:
    """the assembled prompt fits the budget, measured on its own text

    The context's reported ``tokens`` equals ``count_tokens`` of its whole text —
    headers, markers and separators included — and does not exceed the budget. A budget
    checked on the parts (ignoring the separators the assembler adds between them) fails
    here."""
    run = _Run(factory, case)
    context = run.built()
    if context is None:
        return
    actual = run.size(context)
    if context.tokens != actual:
        raise Violation(f"context reports {context.tokens} tokens, its text has {actual}")
    if actual > run.budget:
        raise Violation(f"context has {actual} tokens, over the budget of {run.budget}")


@invariant("ASM-002", cases=lambda: asm_cases(low=-30), requires=("assembly",))
def question_kept_last(factory: Factory, case: AsmCase) -> None:
    """the question is kept whole, verbatim, and last

    Whatever the budget, either the assembler refuses (because the fixed segments
    alone do not fit) or the last segment header is ``[question]`` and what follows it is
    the question, line for line: unchanged, except that a line which could pass for
    structure may be escaped (it must still contain its original text). The question is
    never dropped, truncated or moved to make room."""
    run = _Run(factory, case)
    context = run.context
    if context is None:
        return
    headers = _headers(context.text)
    if not headers or headers[-1] != "[question]":
        raise Violation(f"the last segment header is {headers[-1:]}, not [question]")
    got = _lines_after_last(context.text, "[question]") or []
    want = case.question.splitlines()
    if len(got) != len(want):
        raise Violation(f"question segment holds {got!r}, the question is {want!r}")
    for old, new in zip(want, got, strict=True):
        if new != old and not (_STRUCTURE.fullmatch(old.strip()) and old.strip() in new):
            raise Violation(f"question line {old!r} came out as {new!r}")


@invariant("ASM-003", cases=asm_cases, requires=("assembly",))
def segment_order(factory: Factory, case: AsmCase) -> None:
    """segments come in the fixed order, each non-empty one once

    The segment headers of the prompt are exactly, in this order: ``[instructions]``,
    ``[tool_schemas]``, ``[policy]``, ``[memory]`` for each of those that is non-empty,
    ``[retrieved]`` when some chunk is included, and ``[question]`` — stable content
    first, so a provider's prefix cache survives, and the question last."""
    run = _Run(factory, case)
    context = run.built()
    if context is None:
        return
    want = [f"[{name}]" for name in _FIXED if getattr(case, name)]
    want += ["[retrieved]"] * bool(context.included) + ["[question]"]
    got = _headers(context.text)
    if got != want:
        raise Violation(f"segment headers {got}, expected {want}")


@invariant("ASM-004", cases=asm_cases, requires=("assembly",))
def included_prefix(factory: Factory, case: AsmCase) -> None:
    """included chunks are a prefix of the ranking, dropped ones the rest

    ``included`` is the first n chunk ids of ``retrieved``, in rank order, and
    ``dropped`` is the rest, in rank order: the lowest-ranked chunks go first, and every
    chunk is accounted for exactly once."""
    run = _Run(factory, case)
    context = run.built()
    if context is None:
        return
    ids = tuple(hit.chunk_id for hit in case.retrieved)
    n = len(context.included)
    if context.included != ids[:n] or context.dropped != ids[n:]:
        raise Violation(
            f"included {context.included} and dropped {context.dropped} do not split {ids}"
        )


@invariant("ASM-005", cases=asm_cases, requires=("assembly",))
def drops_minimal(factory: Factory, case: AsmCase) -> None:
    """no more chunks are dropped than the budget requires

    When chunks are dropped, the prompt that would also hold the first dropped chunk
    (built by the same assembler at an unbounded budget) measures more than the budget:
    the included chunks are the longest prefix of the ranking that fits."""
    run = _Run(factory, case)
    context = run.built()
    if context is None or not context.dropped:
        return
    n = len(context.included)
    bigger = run.unbounded(case.retrieved[: n + 1])
    if run.size(bigger) <= run.budget:
        raise Violation(
            f"dropped {context.dropped[0]} although the prompt with it has "
            f"{run.size(bigger)} tokens, within the budget of {run.budget}"
        )


def _clean(text: str, filler: str) -> str:
    kept = [
        line for line in text.splitlines(keepends=True) if not _STRUCTURE.fullmatch(line.strip())
    ]
    cleaned = "".join(kept)
    return cleaned if cleaned.strip() or not text else filler


def _shape(text: str) -> list[str]:
    return [
        "<<>>" if line.strip().startswith("<<") else line.strip()
        for line in text.splitlines()
        if _STRUCTURE.fullmatch(line.strip())
    ]


@invariant("ASM-006", cases=lambda: asm_cases(forge=True), requires=("assembly",))
def no_header_forging(factory: Factory, case: AsmCase) -> None:
    """retrieved text and the question cannot forge a segment header

    Chunk texts, document ids and prompt pieces laced with lines such as
    ``[instructions]``, ``  [question]  `` or ``<<x@v1#s[0:1]>>`` — after any line break
    ``str.splitlines`` knows (``\\r``, ``\\u2028``, ``\\x85``...) — produce no header or
    marker line the assembler did not write: the prompt's structure lines are the same
    as those of the prompt built from the same inputs with such lines removed. Escaping
    may mark a line but not lose one: every other line of an included chunk is still a
    line of the prompt."""
    run = _Run(factory, case)
    context = run.built()
    if context is None:
        return
    included = case.retrieved[: len(context.included)]
    clean_hits = tuple(
        replace(
            hit,
            doc_id=f"d{i}",
            text=_clean(hit.text, "x"),
            end=len(_clean(hit.text, "x")),
            citation=f"d{i}@v1#body[0:{len(_clean(hit.text, 'x'))}]",
        )
        for i, hit in enumerate(included)
    )
    clean = replace(
        case,
        instructions=_clean(case.instructions, "x"),
        question=_clean(case.question, "held?"),
        tool_schemas=_clean(case.tool_schemas, "x"),
        policy=_clean(case.policy, "x"),
        memory=_clean(case.memory, "x"),
    )
    expected: Context = run.system.assemble(_request(clean, _UNBOUNDED, clean_hits))
    if _shape(context.text) != _shape(expected.text):
        raise Violation(
            f"structure lines {_shape(context.text)}, the assembler wrote {_shape(expected.text)}"
        )
    # Escaping may mark a line, never lose one: every line of an included chunk that is
    # not structure is a line of the prompt (built at an unbounded budget, so none is cut).
    lines = {line.strip() for line in run.unbounded(included).text.splitlines()}
    for hit in included:
        for line in hit.text.splitlines():
            if (
                line.strip()
                and not _STRUCTURE.fullmatch(line.strip())
                and line.strip() not in lines
            ):
                raise Violation(
                    f"line {line.strip()!r} of {hit.chunk_id} is not a line of the prompt: "
                    "escaping the structure beside it lost a line break"
                )


@invariant("ASM-007", cases=lambda: asm_cases(low=-30), requires=("assembly",))
def refuses_only_when_due(factory: Factory, case: AsmCase) -> None:
    """assembly refuses exactly when the fixed segments do not fit

    The assembler raises an error when, and only when, the fixed segments (every
    segment but the retrieved chunks, the question included) measure more than the
    budget on their own: it neither squeezes the question to fit nor refuses a budget
    that the fixed segments fit."""
    run = _Run(factory, case)
    run.built()
    if run.refusal is None and run.fixed > run.budget:
        raise Violation(
            f"assemble returned a context at budget {run.budget} though the fixed segments "
            f"alone need {run.fixed}"
        )
