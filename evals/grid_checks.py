"""Every value of a grid checked when it is read: its type, its range, its limits.

A number out of range is refused at load, naming the file, the line and the key, never
later in numpy or in the middle of a run: counts are integers up to :data:`COUNT_MAX`,
``rrf_k`` a finite number up to :data:`RRF_K_MAX`, thresholds in (0, 1]; a list names no
value twice; measure, embedder and reranker names are words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragward.conformance.records import FUSION_METHODS, MODES
from ragward.errors import InputError
from ragward.evals.grid import NO_RERANK, OWN_RERANKER, Grid, IndexSetting
from ragward.evals.measures import parse_measures

__all__ = ["COUNT_MAX", "RRF_K_MAX", "checked_grid", "line_of"]

#: The largest count a grid may give (a depth, a chunk size, a candidate limit): a 32-bit
#: integer, far beyond any useful value, so a typo is refused at load, not in numpy.
COUNT_MAX = 2**31 - 1
#: The largest ``rrf_k``. Fusion ranks by ``1 / (k + rank)``: beyond about 10**8 the
#: scores of nearby ranks are equal in float64 and every fused list is a tie, and long
#: before that the ranking is the sum of ranks' whatever ``k``.
RRF_K_MAX = 1_000_000.0


def checked_grid(data: Mapping[str, Any], path: str | Path, text: str) -> Grid:
    """The grid ``data`` holds (the default's keys with a file's laid over them), every
    value checked; an error names ``path``, the line of ``text`` holding the key, the key."""

    def fail(key: str, problem: str) -> InputError:
        return InputError.at(path, line_of(text, key.rpartition(".")[2]), key, problem)

    def values(
        table: str, key: str, kind: type, check: Any, what: str, default: Any = None
    ) -> tuple[Any, ...]:
        held = data[table] if table else data
        raw = held.get(key, default) if default is not None else held[key]
        name = f"{table}.{key}" if table else key
        if not isinstance(raw, list) or not raw:
            raise fail(name, f"must be a non-empty list of {what}")
        for item in raw:
            if kind is float and isinstance(item, int) and not isinstance(item, bool):
                if abs(item) > 2**64:  # float() of a longer one overflows
                    raise fail(name, f"{_shown(item)} is not {what}")
                item = float(item)
            if not isinstance(item, kind) or (kind is not bool and isinstance(item, bool)):
                raise fail(name, f"{_shown(item)} is not {what}")
            if not check(item):
                raise fail(name, f"{_shown(item)} is not {what}")
        if len(set(raw)) != len(raw):
            raise fail(name, "lists a value twice")
        return tuple(float(v) if kind is float else v for v in raw)

    for key in ("name", "split"):
        if not isinstance(data[key], str) or not re.fullmatch(r"[A-Za-z0-9._-]+", data[key]):
            raise fail(key, f"{_shown(data[key])} must be a word of letters, digits, '.', '_', '-'")
    for key in ("depth", "grounding_depth"):
        if not _count(data[key], 1):
            raise fail(key, f"{_shown(data[key])} must be an integer >= 1 and <= {COUNT_MAX}")
    named = values("", "measures", str, lambda m: bool(m), "measure names")
    try:
        measures = tuple(dict.fromkeys(m.name for m in parse_measures(named)))
    except InputError as error:
        raise fail("measures", str(error)) from None
    chunkings = data["index"]["chunking"]
    if not isinstance(chunkings, list) or not chunkings:
        raise fail("index.chunking", "must be a non-empty list of {max_tokens, overlap_tokens}")
    sizes: list[tuple[int, int, int | None, int]] = []
    lexical_keys = {"lexical_max_tokens", "lexical_overlap_tokens"}
    for item in chunkings:
        keys = set(item) if isinstance(item, dict) else set()
        if not keys or not {"max_tokens", "overlap_tokens"} <= keys <= {
            "max_tokens",
            "overlap_tokens",
            *lexical_keys,
        }:
            raise fail(
                "index.chunking",
                f"{_shown(item)} must be {{max_tokens = N, overlap_tokens = M}}, optionally with "
                "lexical_max_tokens and lexical_overlap_tokens",
            )
        pairs = [(item["max_tokens"], item["overlap_tokens"])]
        if "lexical_max_tokens" in item:
            pairs.append((item["lexical_max_tokens"], item.get("lexical_overlap_tokens", 0)))
        elif "lexical_overlap_tokens" in item:
            raise fail(
                "index.chunking", f"{_shown(item)}: lexical_overlap_tokens needs lexical_max_tokens"
            )
        for size, overlap in pairs:
            if not (_count(size, 1) and _count(overlap, 0) and overlap < size):
                raise fail(
                    "index.chunking",
                    f"{_shown(item)} needs integers with 0 <= overlap < max <= {COUNT_MAX}",
                )
        lexical = pairs[1] if len(pairs) > 1 else (None, 0)
        sizes.append((*pairs[0], *lexical))
    if len(set(sizes)) != len(sizes):
        raise fail("index.chunking", "lists a chunking twice")
    embedders = values("index", "embedder", str, lambda e: bool(e), "embedder names")
    # Not named: every index keeps the implementation's own analyzer (nothing passed).
    analyzers: tuple[str | None, ...] = (None,)
    if "analyzer" in data["index"]:
        analyzers = values("index", "analyzer", str, lambda a: bool(a), "analyzer names")
    counters: tuple[str | None, ...] = (None,)
    if "counter" in data["index"]:
        counters = values("index", "counter", str, lambda c: bool(c), "token counter names")
    modes = values("retrieval", "mode", str, lambda m: m in MODES, f"one of {', '.join(MODES)}")
    return Grid(
        name=data["name"],
        split=data["split"],
        depth=data["depth"],
        measures=measures,
        grounding_depth=data["grounding_depth"],
        indexes=tuple(
            IndexSetting(s, o, e, ls, lo, a, c)
            for (s, o, ls, lo) in sizes
            for e in embedders
            for a in analyzers
            for c in counters
        ),
        modes=modes,
        rrf_ks=values(
            "retrieval",
            "rrf_k",
            float,
            lambda k: 0 < k <= RRF_K_MAX,  # NaN and infinity are neither
            f"a number > 0 and <= {RRF_K_MAX:.0f}",
        ),
        reranks=_rerankers(data["retrieval"]["rerank"], fail),
        candidate_limits=values(
            "retrieval",
            "candidate_limit",
            int,
            lambda n: 1 <= n <= COUNT_MAX,
            f"an integer >= 1 and <= {COUNT_MAX}",
        ),
        min_overlaps=values(
            "grounding", "min_overlap", float, lambda m: 0.0 < m <= 1.0, "a number in (0, 1]"
        ),
        fusions=values(
            "retrieval",
            "fusion",
            str,
            lambda f: f in FUSION_METHODS,
            f"one of {', '.join(FUSION_METHODS)}",
            default=["rrf"],
        ),
        dense_weights=values(
            "retrieval",
            "dense_weight",
            float,
            lambda w: 0.0 <= w <= 1.0,
            "a number from 0 to 1",
            default=[0.5],
        ),
    )


def _rerankers(raw: Any, fail: Any) -> tuple[str, ...]:
    """``retrieval.rerank``: reranker names, or booleans (false: ``none``; true: the
    system's own reranker, ``default``)."""
    what = "a reranker name (none, default, lexical-overlap, minilm, ...) or true/false"
    if not isinstance(raw, list) or not raw:
        raise fail("retrieval.rerank", f"must be a non-empty list of {what}")
    names: list[str] = []
    for item in raw:
        if isinstance(item, bool):
            names.append(OWN_RERANKER if item else NO_RERANK)
        elif isinstance(item, str) and re.fullmatch(r"[a-z0-9][a-z0-9._-]*", item):
            names.append(item)
        else:
            raise fail("retrieval.rerank", f"{_shown(item)} is not {what}")
    if len(set(names)) != len(names):
        raise fail("retrieval.rerank", "lists a reranker twice")
    return tuple(names)


def _count(value: object, minimum: int) -> bool:
    """Whether ``value`` is an integer (not a boolean) from ``minimum`` to COUNT_MAX."""
    return isinstance(value, int) and not isinstance(value, bool) and minimum <= value <= COUNT_MAX


def _shown(value: object) -> str:
    """``repr(value)`` for a message, cut when long (a list or number of any size)."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a huge integer"
    return text if len(text) <= 80 else text[:70] + "..."


def line_of(text: str, key: str) -> int | None:
    """The line of ``text`` where ``key`` (or a table of that name) is set, if any."""
    pattern = re.compile(rf"^\s*(\[+\s*)?{re.escape(key)}\b")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None
