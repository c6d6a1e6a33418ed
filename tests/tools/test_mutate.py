"""The mutation planter of ``tools/mutate.py``: operators, exact positions, round trips."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parent.parent.parent


mutate = load_tool("mutate")

SOURCE = '''"""A module docstring."""

LIMIT = 3


def f(a: int, b: list[int], c: bool = True) -> int:
    """A docstring: never mutated."""
    if a < 1:
        raise InvalidArgument(f"a must be >= {1}, got {a}")  # validation: out of scope
    total = a + b[0] * 2  # é, a non-ASCII comment before nothing
    if not c and a >= LIMIT:
        total -= 1
    for x in b:
        if x == 0:
            continue
    return total if x is None else ~total


def __repr__() -> str:
    return "x" + "y"
'''


def _plant() -> list[Any]:
    found: list[Any] = mutate.plant(SOURCE, "m.py")
    return found


def test_operators_produce_the_expected_mutants() -> None:
    found = {(m.line, m.operator, m.original, m.replacement) for m in _plant()}
    expected = {
        (3, "const", "3", "4"),
        (6, "bool", "True", "False"),
        (10, "arith", "+", "-"),
        (10, "arith", "*", "/"),
        (10, "const", "0", "1"),
        (10, "const", "2", "3"),
        (10, "stmt", "total = a + b[0] * 2", "pass"),
        (11, "drop-unary", "not ", ""),
        (11, "bool", "and", "or"),
        (11, "cmp", ">=", ">"),
        (12, "arith", "-=", "+="),
        (12, "const", "1", "0"),
        (12, "stmt", "total -= 1", "pass"),
        (14, "cmp", "==", "!="),
        (15, "stmt", "continue", "pass"),
        (16, "cmp", "is", "is not"),
        (16, "drop-unary", "~", ""),
    }
    assert expected <= found
    lines = {m.line for m in _plant()}
    assert not lines & {1, 7, 8, 9, 19, 20}  # docstrings, validation, __repr__


def test_positions_are_exact() -> None:
    for mutant in _plant():
        assert SOURCE[mutant.start : mutant.end] == mutant.original
        mutated = mutant.apply(SOURCE)
        ast.parse(mutated)  # every mutant is valid Python
        before, after = mutant.diff(SOURCE)
        assert before != after
        changed = [
            i + 1
            for i, (x, y) in enumerate(zip(SOURCE.splitlines(), mutated.splitlines(), strict=False))
            if x != y
        ]
        assert changed[0] == mutant.line
        # the rest of the file is byte-identical
        assert mutated.startswith(SOURCE[: mutant.start])
        assert mutated.endswith(SOURCE[mutant.end :])


def test_ids_are_unique_and_stable() -> None:
    first = [m.id for m in _plant()]
    assert len(set(first)) == len(first)
    assert first == [m.id for m in _plant()]


def test_the_reference_round_trips_and_every_mutant_parses() -> None:
    mutants = mutate.all_mutants()
    assert len(mutants) > 100
    by_file: dict[str, str] = {}
    for path in mutate.SCOPE:
        by_file[path] = (ROOT / path).read_text(encoding="utf-8")
    for mutant in mutants:
        source = by_file[mutant.path]
        assert source[mutant.start : mutant.end] == mutant.original
        ast.parse(mutant.apply(source))
    assert len({m.id for m in mutants}) == len(mutants)


def test_a_stale_mutant_is_refused() -> None:
    mutant = _plant()[0]
    with pytest.raises(ValueError, match="source changed"):
        mutant.apply("x" + SOURCE)
