"""A deterministic minimiser for a failing case, run after hypothesis' shrink.

Hypothesis shrinks the choices behind a case; this works on the case itself, a frozen
record of the kit (documents, operations, askers, texts, ticks...), with moves a person
would make by hand: delta debugging over every tuple in it (documents, flood, operations,
barriers, claims: the whole tuple, then halves, quarters... down to one element, parallel
tuples of one record such as ``flood``/``flood_at`` cut together), over the words of every
text, then shorter words (renamed everywhere in the case at once, so a query keeps
matching its documents), then fields to their declared defaults (``rrf_k=60`` reads as
"nothing special"; a field at its default is left so), optional fields to None, booleans
to False, and ticks and numbers toward zero (zero, one, half; one less only up to 16). A
candidate is taken only when ``keeps`` says it still fails the same way; a candidate the
check rejects as invalid is not taken.

It is counted in steps (calls of ``keeps``), never in seconds: it ends at the same case on
every machine and under any load. It stops when a whole round of moves changes nothing
(``complete``) or at its step cap.

>>> minimise(case, keeps, cap=300).case  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import functools
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ragward.conformance.contract import Factory
from ragward.conformance.invariant import Invariant, Violation
from ragward.conformance.records import CLASSIFICATIONS, LIMIT_UNITS, MODES

__all__ = ["MINIMISE_STEPS", "Minimised", "minimise", "minimise_failure"]

#: Calls of the invariant's check the minimiser may make per failing invariant, by profile.
MINIMISE_STEPS: dict[str, int] = {"ci": 2_000, "thorough": 10_000}

Path = tuple[str | int, ...]

#: Words that name a kind, mode or level rather than say something: never renamed.
_RESERVED = frozenset({*MODES, *CLASSIFICATIONS, *LIMIT_UNITS, "ingest", "delete", "retrieve"})
#: Fields whose text is prose, whose words may be renamed shorter.
_PROSE = frozenset({"text", "title", "query", "question", "instructions", "memory", "claims"})
_WORD = re.compile(r"\w+")
#: The largest number the minimiser lowers by one (above it, only halving or zero/one).
_CREEP_LIMIT = 16
_PIECE = re.compile(r"\S+\s*")


@dataclass(frozen=True)
class Minimised:
    """The smallest case found, after ``steps`` calls of ``keeps``; ``complete`` when no
    single move kept the failure (False: the step cap ended it)."""

    case: Any
    steps: int
    complete: bool
    #: The invariant's words on ``case``, its Violation's whole message (set by
    #: :func:`minimise_failure`; the caller bounds it for a report).
    reason: str = ""


class _CapReached(Exception):
    """The step cap is spent: the case so far is the answer."""


class _Search:
    def __init__(self, case: Any, keeps: Callable[[Any], bool], cap: int) -> None:
        self.case, self.keeps, self.cap, self.steps = case, keeps, cap, 0

    def attempt(self, candidate: Any) -> bool:
        if candidate == self.case:
            return False
        if self.steps >= self.cap:
            raise _CapReached
        self.steps += 1
        if self.keeps(candidate):
            self.case = candidate
            return True
        return False


def minimise(case: Any, keeps: Callable[[Any], bool], cap: int) -> Minimised:
    """The smallest variant of ``case`` that ``keeps`` still accepts, found in at most
    ``cap`` calls of ``keeps`` (``case`` itself is assumed to be kept)."""
    search = _Search(case, keeps, cap)
    try:
        while _round(search):
            pass
    except _CapReached:
        return Minimised(search.case, search.steps, False)
    return Minimised(search.case, search.steps, True)


def _round(search: _Search) -> bool:
    """One round of every move; True when one was taken."""
    changed = False
    for move in (_cut_tuples, _cut_words, _rename_words, _simplify_scalars):
        changed = move(search) or changed
    return changed


def minimise_failure(
    invariant: Invariant,
    factory: Factory,
    case: Any,
    cap: int,
    baseline: Factory | None = None,
) -> Minimised:
    """The smallest variant of ``case`` on which ``invariant`` still fails on ``factory``
    with a :class:`Violation` (anything else raised, or a pass, is not the same failure)
    and, given a ``baseline`` that holds every invariant (the reference), holds on it: a
    candidate the generator could never have drawn (an operation on a document cut away)
    is then not taken for a finding. ``reason`` is the Violation's message on the
    result (empty when no candidate was taken)."""
    said: list[str] = []

    def keeps(candidate: Any) -> bool:
        try:
            invariant.check(factory, candidate)
        except Violation as violation:
            reason = str(violation)
        except Exception:  # another failure, or a candidate the check refuses
            return False
        else:
            return False
        if baseline is not None:
            try:
                invariant.check(baseline, candidate)
            except Exception:
                return False
        said[:] = [reason]
        return True

    found = minimise(case, keeps, cap)
    return dataclasses.replace(found, reason=said[0] if said else "")


# -- removals ---------------------------------------------------------------------------


def _cut_tuples(search: _Search) -> bool:
    changed = False
    done = 0
    while True:  # paths in pre-order; those before the current one never move
        paths = [p for p, v in _walk(search.case) if isinstance(v, tuple)]
        if done >= len(paths):
            return changed
        changed = _ddmin(search, paths[done]) or changed
        done += 1


def _ddmin(search: _Search, path: Path) -> bool:
    changed = False
    size = len(_get(search.case, path))
    while size >= 1:
        start = 0
        while start < len(_get(search.case, path)):
            if any(search.attempt(c) for c in _without(search.case, path, start, size)):
                changed = True
            else:
                start += size
        size //= 2
    return changed


def _without(case: Any, path: Path, start: int, size: int) -> Iterator[Any]:
    """``case`` with ``[start:start + size]`` cut from the tuple at ``path``: first from it
    and its parent record's tuples of the same length together, then from it alone."""
    items = _get(case, path)
    parent_path, name = path[:-1], path[-1] if path else None
    parent = _get(case, parent_path) if path else None
    twins: list[str] = []
    if isinstance(name, str) and dataclasses.is_dataclass(parent):
        twins = [
            f.name
            for f in dataclasses.fields(parent)
            if f.name != name
            and isinstance(getattr(parent, f.name), tuple)
            and len(getattr(parent, f.name)) == len(items)
        ]
    if twins:
        together = case
        for field in (name, *twins) if isinstance(name, str) else ():
            together = _set(
                together,
                (*parent_path, field),
                _cut(_get(case, (*parent_path, field)), start, size),
            )
        yield together
    yield _set(case, path, _cut(items, start, size))


def _cut(items: tuple[Any, ...], start: int, size: int) -> tuple[Any, ...]:
    return items[:start] + items[start + size :]


def _cut_words(search: _Search) -> bool:
    changed = False
    for path, value in list(_walk(search.case)):
        if not isinstance(value, str) or len(_PIECE.findall(value)) < 2:
            continue
        lead = value[: len(value) - len(value.lstrip())]
        size = len(_PIECE.findall(value))
        while size >= 1:
            start = 0
            while start < len(pieces := _PIECE.findall(_get(search.case, path))):
                text = lead + "".join(_cut(tuple(pieces), start, size))
                if search.attempt(_set(search.case, path, text)):
                    changed = True
                else:
                    start += size
            size //= 2
    return changed


# -- simplifications --------------------------------------------------------------------


def _rename_words(search: _Search) -> bool:
    """Each word of the prose, renamed shorter (a prefix) everywhere in the case at once."""
    changed = False
    for word in _words(search.case):
        taken = {w.lower() for w in _words(search.case, prose_only=False)}
        for length in sorted({1, 2, 3, len(word) // 2}):
            shorter = word[:length]
            if length >= len(word) or shorter.lower() in taken:
                continue
            renamed = functools.partial(re.compile(rf"(?<!\w){re.escape(word)}(?!\w)").sub, shorter)
            if search.attempt(_map_strings(search.case, renamed)):
                changed = True
                break
    return changed


def _words(case: Any, prose_only: bool = True) -> list[str]:
    seen: dict[str, None] = {}
    for path, value in _walk(case):
        if not isinstance(value, str):
            continue
        prose = any(isinstance(p, str) and p in _PROSE for p in path)
        if prose or not prose_only:
            seen.update((w, None) for w in _WORD.findall(value) if w not in _RESERVED)
    return [w for w in seen if len(w) > 1] if prose_only else list(seen)


def _simplify_scalars(search: _Search) -> bool:
    changed = False
    for path, value in list(_walk(search.case)):
        if isinstance(value, tuple) and not _optional(search.case, path):
            continue
        default = _default(search.case, path)
        if value == default and type(value) is type(default):  # a default says nothing
            continue
        ahead = [] if default is dataclasses.MISSING else [default]
        for candidate in ahead + _simpler(value, _optional(search.case, path)):
            if search.attempt(_set(search.case, path, candidate)):
                changed = True
                break
    return changed


def _simpler(value: Any, optional: bool) -> list[Any]:
    """Simpler values than ``value``, simplest first."""
    out: list[Any] = [None] if optional and value is not None else []
    if isinstance(value, str):  # the whitespace around a text, unless it matters
        return out + ([value.strip()] if value.strip() != value else [])
    if isinstance(value, bool):
        return out + ([False] if value else [])
    if isinstance(value, int):
        # Halving reaches any threshold in log steps; one less is taken only for a small
        # number, or a failure that needs a large one (a tick at the last int64 value)
        # would creep down one by one until the cap, each creep a less telling number.
        sign = -1 if value < 0 else 1
        steps = [0, 1, abs(value) // 2]
        if abs(value) <= _CREEP_LIMIT:
            steps.append(abs(value) - 1)
        return out + [sign * s for s in dict.fromkeys(steps) if 0 <= s < abs(value)]
    if isinstance(value, float):
        rounded = [0.0, 1.0, float(round(value)), round(value, 1), round(value, 2)]
        return out + [
            r
            for r in dict.fromkeys(rounded)
            if r != value and (abs(r) < abs(value) or len(repr(r)) < len(repr(value)))
        ]
    return out


# -- the case as a tree -----------------------------------------------------------------


def _walk(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every value in the case with its path, in pre-order (records, then tuples)."""
    yield path, value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.init:
                yield from _walk(getattr(value, f.name), (*path, f.name))
    elif isinstance(value, tuple):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, index))


def _get(value: Any, path: Path) -> Any:
    for step in path:
        value = value[step] if isinstance(step, int) else getattr(value, step)
    return value


def _set(value: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        return (*value[:head], _set(value[head], rest, new), *value[head + 1 :])
    return dataclasses.replace(value, **{head: _set(getattr(value, head), rest, new)})


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, tuple):
        return tuple(_map_strings(item, change) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(
            value,
            **{
                f.name: _map_strings(getattr(value, f.name), change)
                for f in dataclasses.fields(value)
                if f.init
            },
        )
    return value


def _default(case: Any, path: Path) -> Any:
    """The declared default of the record field at ``path`` (``MISSING`` when none)."""
    if not path or not isinstance(path[-1], str):
        return dataclasses.MISSING
    owner = _get(case, path[:-1])
    field = next(f for f in dataclasses.fields(owner) if f.name == path[-1])
    return field.default


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(owner: type[Any]) -> dict[str, Any]:
    if owner not in _HINTS:
        _HINTS[owner] = typing.get_type_hints(owner)
    return _HINTS[owner]


def _optional(case: Any, path: Path) -> bool:
    """Whether the record field at ``path`` may be None."""
    if not path or not isinstance(path[-1], str):
        return False
    hint = _hints(type(_get(case, path[:-1]))).get(path[-1])
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(
        None
    ) in typing.get_args(hint)
