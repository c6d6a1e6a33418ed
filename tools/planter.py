"""The mutation planter shared by ``tools/mutate.py`` (the kit) and ``tools/judge_mutate.py``
(the gate's verdict path): automatic mutants of a Python source, one exact segment each.

A small AST walker makes one mutant per operator site: comparisons off by one or negated,
arithmetic and mask operators swapped, numeric constants moved (0 and 1 swap, any other n
becomes n + 1), booleans flipped, ``not``/``~``/unary minus dropped, and simple statements
replaced by ``pass``. Each mutant replaces one exact source segment (found from the node
positions and the token stream), so the rest of the file stays byte-identical and every
mutant is one readable diff line at ``file:line``; its id is
``file:line operator original => replacement``.

What is never mutated is a :class:`Rules`: docstrings, string constants, f-strings,
``raise`` statements, ``assert``, annotations and ``if TYPE_CHECKING`` always; argument
validation, some functions by name, and listed functions as each scope decides.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import tokenize
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Rules:
    """What one scope never mutates, beyond what is never mutated anywhere.

    ``excluded`` maps ``(file, qualified name)`` to the reason the function is left out;
    ``skip_validation`` leaves out an ``if`` whose body only raises ``InvalidArgument``;
    ``skipped_names`` are function names left out in every file (``__repr__``...).
    """

    excluded: Mapping[tuple[str, str], str] = field(default_factory=dict)
    skip_validation: bool = True
    skipped_names: frozenset[str] = frozenset({"__repr__", "__post_init__", "name"})


#: What an operator becomes, as (its symbol, the mutant's): a comparison moves its edge
#: (``<`` and ``<=``) or is negated; arithmetic and mask operators swap with their pair.
_SWAPPED: dict[type[ast.AST], tuple[str, str]] = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "/"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "/"),
    ast.BitAnd: ("&", "|"),
    ast.BitOr: ("|", "&"),
}
_UNARY = {ast.Not: "not", ast.Invert: "~", ast.USub: "-"}
_DROPPABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Continue, ast.Break)


@dataclass(frozen=True)
class Mutant:
    """One planted defect: ``source[start:end]`` (character offsets) becomes ``replacement``."""

    path: str
    line: int
    end_line: int
    start: int
    end: int
    operator: str
    original: str
    replacement: str
    function: str
    occurrence: int = 1

    @property
    def id(self) -> str:
        """Stable across runs while the file is unchanged: file, line, operator, texts."""
        text = f"{self.path}:{self.line} {self.operator} {flat(self.original)} => "
        text += flat(self.replacement)
        return text if self.occurrence == 1 else f"{text} #{self.occurrence}"

    def apply(self, source: str) -> str:
        """``source`` with this mutant planted."""
        if source[self.start : self.end] != self.original:
            raise ValueError(f"{self.id}: the source changed under the mutant")
        return source[: self.start] + self.replacement + source[self.end :]

    def diff(self, source: str) -> tuple[str, str]:
        """The first mutated line, before and after (stripped)."""
        begin = source.rfind("\n", 0, self.start) + 1
        stop = source.find("\n", self.end)
        stop = len(source) if stop < 0 else stop
        before = source[begin:stop]
        after = source[begin : self.start] + self.replacement + source[self.end : stop]
        return flat(before), flat(after)


def flat(text: str) -> str:
    """``text`` on one line, runs of white space made one space."""
    return " ".join(text.split())


class _Source:
    """Character offsets of AST positions (which count UTF-8 bytes) and of tokens."""

    def __init__(self, source: str) -> None:
        self.text = source
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.tokens: list[tuple[int, int, str]] = []
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.OP, tokenize.NAME, tokenize.NUMBER, tokenize.STRING):
                (row, col), (end_row, end_col) = token.start, token.end
                self.tokens.append(
                    (self.starts[row - 1] + col, self.starts[end_row - 1] + end_col, token.string)
                )

    def offset(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1]
        return self.starts[line - 1] + len(text.encode("utf-8")[:byte_col].decode("utf-8"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def between(self, low: int, high: int, words: str) -> tuple[int, int] | None:
        """The span of the token sequence ``words`` lying in ``[low, high)``."""
        wanted = words.split()
        inside = [t for t in self.tokens if low <= t[0] and t[1] <= high]
        for i in range(len(inside) - len(wanted) + 1):
            window = inside[i : i + len(wanted)]
            if [t[2] for t in window] == wanted:
                return window[0][0], window[-1][1]
        return None

    def token_after(self, position: int) -> int:
        """Start of the first token at or after ``position``."""
        return min(t[0] for t in self.tokens if t[0] >= position)


def _is_validation(node: ast.If) -> bool:
    """An ``if`` whose body only raises InvalidArgument."""
    if len(node.body) != 1 or node.orelse or not isinstance(node.body[0], ast.Raise):
        return False
    raised = node.body[0].exc
    return (
        isinstance(raised, ast.Call)
        and isinstance(raised.func, ast.Name)
        and raised.func.id == "InvalidArgument"
    )


class _Planter:
    def __init__(self, source: str, path: str, rules: Rules) -> None:
        self.src = _Source(source)
        self.path = path
        self.rules = rules
        self.found: list[Mutant] = []

    def add(self, node: ast.AST, span: tuple[int, int], op: str, new: str, where: str) -> None:
        start, end = span
        self.found.append(
            Mutant(
                self.path,
                node.lineno,  # type: ignore[attr-defined]
                node.end_lineno,  # type: ignore[attr-defined]
                start,
                end,
                op,
                self.src.text[start:end],
                new,
                where,
            )
        )

    def walk(self, node: ast.AST, where: str, in_function: bool) -> None:
        if isinstance(node, ast.Raise | ast.Assert | ast.JoinedStr):
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            self.definition(node, where)
            return
        if isinstance(node, ast.If):
            test = node.test
            if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
                return
            if self.rules.skip_validation and _is_validation(node):
                for orelse in node.orelse:
                    self.walk(orelse, where, in_function)
                return
        if isinstance(node, ast.AnnAssign):  # the annotation is type-only
            if node.value is not None:
                self.statement(node, where, in_function)
                self.walk(node.value, where, in_function)
            return
        if isinstance(node, ast.stmt):
            self.statement(node, where, in_function)
        self.expression(node, where)
        for child in ast.iter_child_nodes(node):
            self.walk(child, where, in_function)

    def definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, where: str
    ) -> None:
        qualname = f"{where}.{node.name}" if where else node.name
        if (self.path, qualname) in self.rules.excluded:
            return
        if not isinstance(node, ast.ClassDef) and node.name in self.rules.skipped_names:
            return
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        if not isinstance(node, ast.ClassDef):
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self.walk(default, qualname, False)
        for child in body:
            self.walk(child, qualname, not isinstance(node, ast.ClassDef))

    def statement(self, node: ast.stmt, where: str, in_function: bool) -> None:
        if not in_function or not isinstance(node, _DROPPABLE):
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return  # a docstring or `...`
        self.add(node, self.src.span(node), "stmt", "pass", where)

    def expression(self, node: ast.AST, where: str) -> None:
        src = self.src
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                old, new = _SWAPPED[type(op)]
                span = src.between(src.span(left)[1], src.span(right)[0], old)
                if span is not None:
                    self.add(node, span, "cmp", new, where)
                left = right
        elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _SWAPPED:
            old, new = _SWAPPED[type(node.op)]
            if isinstance(node, ast.BinOp):
                low, high = src.span(node.left)[1], src.span(node.right)[0]
            else:
                low, high = src.span(node.target)[1], src.span(node.value)[0]
                old, new = old + "=", new + "="
            span = src.between(low, high, old)
            if span is not None:
                self.add(node, span, "arith" if old[0] in "+-*/" else "mask", new, where)
        elif isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for left, right in zip(node.values, node.values[1:], strict=False):
                span = src.between(src.span(left)[1], src.span(right)[0], old)
                if span is not None:
                    self.add(node, span, "bool", new, where)
        elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            start, _ = src.span(node)
            end = src.token_after(start + len(_UNARY[type(node.op)]))
            self.add(node, (start, end), "drop-unary", "", where)
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            self.add(node, src.span(node), "bool", str(not node.value), where)
        elif isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            number = node.value  # 0 <-> 1, any other n -> n + 1 (bool is handled above)
            moved = 1 - number if number in (0, 1) else number + 1
            self.add(node, src.span(node), "const", repr(moved), where)


def plant(
    source: str, path: str, rules: Rules | None = None, only: Collection[str] | None = None
) -> list[Mutant]:
    """Every mutant of ``source`` (the text of ``path``), in source order, ids unique.

    With ``only``, just the top-level functions and classes of those names are mutated
    (a file of which one part is in scope); module-level statements are then left out too.
    """
    planter = _Planter(source, path, rules or Rules())
    for node in ast.parse(source).body:
        if only is not None and not (
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and node.name in only
        ):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the module docstring
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        planter.walk(node, "", False)
    found = sorted(planter.found, key=lambda m: (m.start, m.end, m.replacement))
    seen: Counter[str] = Counter()
    out = []
    for mutant in found:
        seen[mutant.id] += 1
        out.append(dataclasses.replace(mutant, occurrence=seen[mutant.id]))
    return out
