"""Measuring helpers of the latency benchmark: a status line, timing series taken in
turns, summary statistics and a description of the machine the figures come from."""

from __future__ import annotations

import gc
import os
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "Progress",
    "describe_machine",
    "load_average",
    "rounded",
    "summary_stats",
    "time_interleaved",
]


class Progress:
    """Progress on stderr: on a terminal, one status line rewritten in place; anywhere
    else (a CI log), one line per finished stage."""

    def __init__(self, enabled: bool, name: str = "latency") -> None:
        self.enabled = enabled
        self._name = name
        self._label = ""
        self._last = 0.0
        self._width = 0
        self._terminal = enabled and sys.stderr.isatty()

    def stage(self, label: str) -> None:
        self.done()
        self._label = label
        if self._terminal:
            self._write(f"[{self._name}] {label}", force=True)

    def tick(self, done: int, total: int) -> None:
        if self._terminal:
            self._write(f"[{self._name}] {self._label} {done}/{total}", force=done == total)
        elif self.enabled and done == total:
            sys.stderr.write(f"[{self._name}] {self._label}: {done}/{total}\n")
            sys.stderr.flush()

    def done(self) -> None:
        if self._terminal and self._width:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self._width = 0

    def _write(self, text: str, *, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last < 0.25:
            return
        self._last = now
        sys.stderr.write("\r" + text.ljust(self._width))
        sys.stderr.flush()
        self._width = len(text)


def rounded(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


def summary_stats(milliseconds: Sequence[float]) -> dict[str, Any]:
    values = np.asarray(milliseconds, dtype=np.float64)
    if values.size == 0:
        return {"queries": 0, "median_ms": None, "p95_ms": None, "mean_ms": None}
    return {
        "queries": int(values.size),
        "median_ms": rounded(float(np.median(values))),
        "p95_ms": rounded(float(np.percentile(values, 95))),
        "mean_ms": rounded(float(values.mean())),
    }


def time_interleaved(
    calls: Mapping[str, Callable[[Any], object]],
    items: Sequence[Any],
    *,
    warmup: Sequence[Any] = (),
    progress: Progress | None = None,
    outputs: dict[str, list[Any]] | None = None,
) -> dict[str, list[float]]:
    """Milliseconds of each ``calls[label](item)``, item by item with the calls taking
    turns, so that load from outside the process falls on every series alike; untimed
    ``warmup`` items first. What a call returns is kept in ``outputs[label]`` if given."""
    for item in warmup:
        for call in calls.values():
            call(item)
    gc.collect()
    timings: dict[str, list[float]] = {label: [] for label in calls}
    for i, item in enumerate(items):
        for label, call in calls.items():
            begin = time.perf_counter()
            output = call(item)
            timings[label].append((time.perf_counter() - begin) * 1000.0)
            if outputs is not None:
                outputs.setdefault(label, []).append(output)
        if progress is not None:
            progress.tick(i + 1, len(items))
    return timings


def load_average() -> float | None:
    """The 1-minute load average (other work on the machine skews every figure)."""
    return rounded(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def describe_machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "load_average_1min_start": load_average(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
