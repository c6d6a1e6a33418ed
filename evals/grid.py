"""The evaluation grid: which settings a run sweeps, read from a TOML file.

A grid names index settings (chunking x embedder: one index each), retrieval settings
(mode x ``rrf_k`` x rerank x ``candidate_limit``: answered from the index's first stage)
and grounding thresholds (``min_overlap``: applied to the verdicts of each retrieval).
``rrf_k`` only matters to hybrid fusion, so lexical and dense settings are not repeated
for every ``rrf_k``. The packaged ``grids/default.toml`` holds every default; a user's
file overrides it key by key, and anything it does not know is an error naming the line.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ragward.conformance.records import MODES
from ragward.errors import InputError
from ragward.evals.measures import parse_measures
from ragward.parsing import Unparsable, parse_toml

__all__ = [
    "NO_RERANK",
    "OWN_INDEX",
    "OWN_RERANKER",
    "Grid",
    "IndexSetting",
    "RetrievalSetting",
    "default_grid",
    "load_grid",
]

_SCHEMA: dict[str, dict[str, type] | type] = {
    "name": str,
    "split": str,
    "depth": int,
    "measures": list,
    "grounding_depth": int,
    "index": {"chunking": list, "embedder": list},
    "retrieval": {"mode": list, "rrf_k": list, "rerank": list, "candidate_limit": list},
    "grounding": {"min_overlap": list},
}


#: The label of an index the implementation built its own way (no index settings passed).
OWN_INDEX = "own"

#: The largest count a grid may give (a depth, a chunk size, a candidate limit): a 32-bit
#: integer, far beyond any useful value, so a typo is refused at load, not in numpy.
COUNT_MAX = 2**31 - 1
#: The largest ``rrf_k``. Fusion ranks by ``1 / (k + rank)``: beyond about 10**8 the
#: scores of nearby ranks are equal in float64 and every fused list is a tie, and long
#: before that the ranking is the sum of ranks' whatever ``k``.
RRF_K_MAX = 1_000_000.0


@dataclass(frozen=True)
class IndexSetting:
    """What one index is built with; ``lexical_max_tokens`` (with its overlap) gives the
    lexical index chunks of its own size.

    ``max_tokens``, ``overlap_tokens`` and ``embedder`` are None for an index the
    implementation chunked and embedded its own way, because it takes no index settings
    (:meth:`own`): such an index is labelled ``own``, never by a grid's chunking and
    embedder that were not passed to it.
    """

    max_tokens: int | None
    overlap_tokens: int | None
    embedder: str | None
    lexical_max_tokens: int | None = None
    lexical_overlap_tokens: int = 0

    @property
    def is_own(self) -> bool:
        """Whether the implementation chose the chunking and embedder itself."""
        return self.max_tokens is None

    @property
    def label(self) -> str:
        lexical = (
            ""
            if self.lexical_max_tokens is None
            else f"+lex{self.lexical_max_tokens}o{self.lexical_overlap_tokens}"
        )
        if self.is_own:
            return f"{OWN_INDEX}{lexical}"
        return f"c{self.max_tokens}o{self.overlap_tokens}{lexical}/{self.embedder}"

    def own(self) -> IndexSetting:
        """This setting as what runs when the chunking and embedder are not passed: the
        implementation's own (the lexical chunk size, passed separately, is kept)."""
        return IndexSetting(None, None, None, self.lexical_max_tokens, self.lexical_overlap_tokens)


#: The reranker name that turns reranking off, and the one that keeps the system's own.
NO_RERANK = "none"
OWN_RERANKER = "default"


@dataclass(frozen=True)
class RetrievalSetting:
    """One retrieval configuration over one index; ``rrf_k`` is None outside hybrid.

    ``reranker`` is ``"none"`` (rerank off), ``"default"`` (the system's own reranker) or
    the name of a reranker the system is built with (``lexical-overlap``, ``minilm``).
    """

    index: IndexSetting
    mode: str
    rrf_k: float | None
    reranker: str
    candidate_limit: int

    @property
    def rerank(self) -> bool:
        """Whether this setting reranks at all."""
        return self.reranker != NO_RERANK

    @property
    def id(self) -> str:
        """A stable name, the key reports and the gate match settings by."""
        fusion = f"k{_number(self.rrf_k)}/" if self.rrf_k is not None else ""
        if not self.rerank:
            rerank = "norerank"
        elif self.reranker == OWN_RERANKER:
            rerank = "rerank"
        else:
            rerank = f"rerank-{self.reranker}"
        return f"{self.index.label}/{self.mode}/{fusion}{rerank}/cl{self.candidate_limit}"


@dataclass(frozen=True)
class Grid:
    """A parsed grid: every index and retrieval setting it sweeps, in file order."""

    name: str
    split: str
    depth: int
    measures: tuple[str, ...]
    grounding_depth: int
    indexes: tuple[IndexSetting, ...]
    modes: tuple[str, ...]
    rrf_ks: tuple[float, ...]
    reranks: tuple[str, ...]
    candidate_limits: tuple[int, ...]
    min_overlaps: tuple[float, ...]

    def settings(self, index: IndexSetting) -> tuple[RetrievalSetting, ...]:
        """The retrieval settings answered from ``index``."""
        out: list[RetrievalSetting] = []
        for mode, rerank, limit in itertools.product(
            self.modes, self.reranks, self.candidate_limits
        ):
            ks: Sequence[float | None] = self.rrf_ks if mode == "hybrid" else (None,)
            out.extend(RetrievalSetting(index, mode, k, rerank, limit) for k in ks)
        return tuple(out)

    def named_rerankers(self) -> tuple[str, ...]:
        """The rerankers a system must be built with (neither ``none`` nor ``default``)."""
        return tuple(r for r in self.reranks if r not in (NO_RERANK, OWN_RERANKER))

    def all_settings(self) -> tuple[RetrievalSetting, ...]:
        return tuple(s for index in self.indexes for s in self.settings(index))

    def to_data(self) -> dict[str, Any]:
        """The grid as TOML-shaped data (what ``results.json`` records); an index the
        implementation built its own way has null chunking and embedder."""
        return {
            "name": self.name,
            "split": self.split,
            "depth": self.depth,
            "measures": list(self.measures),
            "grounding_depth": self.grounding_depth,
            "index": {
                "chunking": _unique(_chunking_data(i) for i in self.indexes),
                "embedder": _unique(i.embedder for i in self.indexes),
            },
            "retrieval": {
                "mode": list(self.modes),
                "rrf_k": list(self.rrf_ks),
                "rerank": list(self.reranks),
                "candidate_limit": list(self.candidate_limits),
            },
            "grounding": {"min_overlap": list(self.min_overlaps)},
        }


def default_grid() -> Grid:
    """The packaged default grid (the bundled set's)."""
    return _parse(_default_data(), "default.toml", "")


def load_grid(path: str | Path) -> Grid:
    """The default grid with ``path``'s keys laid over it; errors name file, line and key."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise InputError.at(path, None, None, "grid file not found") from None
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise InputError.at(path, line, None, "not UTF-8 text") from None
    except OSError as error:
        raise InputError.at(path, None, None, f"cannot read grid file ({error})") from None
    try:
        data = parse_toml(text)
    except Unparsable as error:
        raise InputError.at(path, error.line, None, f"not valid TOML: {error}") from None
    merged = _default_data()
    for key, value in data.items():
        if key not in _SCHEMA:
            raise InputError.at(path, _line_of(text, key), key, f"unknown key; known: {_known()}")
        expected = _SCHEMA[key]
        if isinstance(expected, dict):
            if not isinstance(value, dict):
                raise InputError.at(path, _line_of(text, key), key, "must be a table")
            for sub in value:
                if sub not in expected:
                    raise InputError.at(
                        path,
                        _line_of(text, sub),
                        f"{key}.{sub}",
                        f"unknown key; known: {', '.join(expected)}",
                    )
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return _parse(merged, path, text)


def _default_data() -> dict[str, Any]:
    source = resources.files("ragward.evals").joinpath("grids/default.toml")
    return tomllib.loads(source.read_text(encoding="utf-8"))


def _parse(data: Mapping[str, Any], path: str | Path, text: str) -> Grid:
    def fail(key: str, problem: str) -> InputError:
        return InputError.at(path, _line_of(text, key.rpartition(".")[2]), key, problem)

    def values(table: str, key: str, kind: type, check: Any, what: str) -> tuple[Any, ...]:
        raw = data[table][key] if table else data[key]
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
    modes = values("retrieval", "mode", str, lambda m: m in MODES, f"one of {', '.join(MODES)}")
    return Grid(
        name=data["name"],
        split=data["split"],
        depth=data["depth"],
        measures=measures,
        grounding_depth=data["grounding_depth"],
        indexes=tuple(IndexSetting(s, o, e, ls, lo) for (s, o, ls, lo) in sizes for e in embedders),
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


def _chunking_data(index: IndexSetting) -> dict[str, int | None]:
    data = {"max_tokens": index.max_tokens, "overlap_tokens": index.overlap_tokens}
    if index.lexical_max_tokens is not None:
        data["lexical_max_tokens"] = index.lexical_max_tokens
        data["lexical_overlap_tokens"] = index.lexical_overlap_tokens
    return data


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^\s*(\[+\s*)?{re.escape(key)}\b")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def _known() -> str:
    return ", ".join(_SCHEMA)


def _number(value: float | None) -> str:
    return "" if value is None else (f"{value:g}")


def _unique(items: Any) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
