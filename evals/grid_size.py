"""How big a grid run is, checked before it starts: its number of settings and its memory.

A grid is a product of lists, so a few long lists make a run of a million settings, and
every setting keeps one answer per question to the end of the run (the report is made
from all of them). Such a run used to print nothing and grow until the machine ran out
of memory. Before any work, ``eval`` and ``tune`` now refuse, in one line:

* a grid of more than ``--max-settings`` retrieval settings (default
  :data:`MAX_SETTINGS`), counted from the lists without making the settings, as soon as
  the grid is read;
* a run whose estimated memory exceeds ``--max-memory`` (default: three quarters of the
  machine's memory), once the dataset is read and the grid fitted to the implementation.

The estimate (:func:`memory_estimate`) is a model fitted to measured runs of the
reference on the bundled set (peak resident memory of 400 and 800 settings, depth 10 and
100, grounding depth 5 and 20), where it came within +10% to +20% of what ran; it is meant
to tell a run of megabytes from one of terabytes, not to budget to the last byte.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ragward.errors import InputError
from ragward.evals.grid import Grid
from ragward.evals.records import Dataset

__all__ = [
    "MAX_SETTINGS",
    "SizeLimits",
    "check_memory",
    "check_settings",
    "default_memory_limit",
    "memory_estimate",
    "parse_size",
    "setting_count",
]

#: The most retrieval settings a grid may sweep unless ``--max-settings`` says more (the
#: bundled grids have 24 and 36).
MAX_SETTINGS = 10_000

# The model's constants, in bytes (see the module's docstring for how they were fitted).
_PER_ANSWER = 2_500  # an answer's records, its ranking's tuple and its place in the tables
_PER_RANK = 16  # one document of a ranking kept to the grid's depth
_PER_HIT = 400  # one hit kept for grounding
_PER_SCORE = 120  # one per-query value or grounding verdict kept per setting
_PER_CORPUS_CHAR = 50  # the index of one character of the corpus (one index at a time)
_BASE = 100 << 20  # the interpreter, numpy and ragward


@dataclass(frozen=True)
class SizeLimits:
    """The most settings and bytes a run may take (``--max-settings``, ``--max-memory``)."""

    settings: int = MAX_SETTINGS
    memory: int | None = None  # None: :func:`default_memory_limit`


def setting_count(grid: Grid) -> int:
    """The number of retrieval settings ``grid`` sweeps, counted, not made."""
    per_index = sum(grid.hybrid_settings_per_index() if m == "hybrid" else 1 for m in grid.modes)
    return len(grid.indexes) * per_index * len(grid.reranks) * len(grid.candidate_limits)


def memory_estimate(grid: Grid, dataset: Dataset, splits: tuple[str, ...]) -> int:
    """About how many bytes a run of ``grid`` on ``splits`` of ``dataset`` holds at its peak."""
    queries = sum(len(dataset.split_queries(s)) for s in splits)
    claims = sum(len(dataset.split_claims(s)) for s in splits)
    ranks = min(grid.depth, len(dataset.docs))
    hits = min(grid.grounding_depth, grid.depth)
    answer = _PER_ANSWER + _PER_RANK * ranks + _PER_HIT * hits
    scores = _PER_SCORE * (queries * (len(grid.measures) + 1) + claims * len(grid.min_overlaps))
    per_setting = (queries + claims) * answer + scores
    corpus = sum(len(d.text) + len(d.title) for d in dataset.docs)
    return _BASE + _PER_CORPUS_CHAR * corpus + setting_count(grid) * per_setting


def default_memory_limit() -> int:
    """Three quarters of this machine's memory (8 GiB where it cannot be read)."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return 8 << 30
    return total * 3 // 4 if total > 0 else 8 << 30


def check_settings(grid: Grid, where: str, limits: SizeLimits) -> None:
    """Refuse ``grid`` (read from ``where``) if it sweeps more than ``limits.settings``."""
    count = setting_count(grid)
    if count > limits.settings:
        raise InputError(
            f"{where}: {count:,} settings ({_product(grid)}) are more than --max-settings "
            f"{limits.settings:,}; shorten its lists or raise --max-settings"
        )


def check_memory(
    grid: Grid, dataset: Dataset, splits: tuple[str, ...], where: str, limits: SizeLimits
) -> None:
    """Refuse a run whose :func:`memory_estimate` is above ``limits.memory``."""
    limit = default_memory_limit() if limits.memory is None else limits.memory
    estimate = memory_estimate(grid, dataset, splits)
    if estimate > limit:
        questions = sum(
            len(dataset.split_queries(s)) + len(dataset.split_claims(s)) for s in splits
        )
        default = " (3/4 of this machine's memory)" if limits.memory is None else ""
        raise InputError(
            f"{where}: {setting_count(grid):,} settings x {questions:,} questions need an "
            f"estimated {_bytes(estimate)}, more than --max-memory {_bytes(limit)}{default}; "
            "shorten the grid or raise --max-memory"
        )


def parse_size(text: str) -> int:
    """A number of bytes written as ``4096``, ``512M``, ``1.5G`` or ``2T`` (powers of 1024)."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)i?B?\s*", text, re.I)
    if found is None or len(found.group(1)) > 20:
        raise InputError(f"--max-memory {text[:40]!r}: expected a size such as 512M or 8G")
    scale = 1 << (10 * " KMGT".index(found.group(2).upper() or " "))
    size = int(float(found.group(1)) * scale)
    if size < 1:
        raise InputError(f"--max-memory {text!r}: must be at least one byte")
    return size


def _product(grid: Grid) -> str:
    """The lists a grid's settings multiply, named."""
    hybrid = "hybrid" in grid.modes
    parts = [
        (len(grid.indexes), "indexes"),
        (
            len(grid.modes) - hybrid + (grid.hybrid_settings_per_index() if hybrid else 0),
            "mode and fusion settings",
        ),
        (len(grid.reranks), "rerank"),
        (len(grid.candidate_limits), "candidate_limit"),
    ]
    return " x ".join(f"{n:,} {what}" for n, what in parts)


def _bytes(size: int) -> str:
    for unit, shift in (("T", 40), ("G", 30), ("M", 20)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f}{unit}"
    return f"{size}B"
