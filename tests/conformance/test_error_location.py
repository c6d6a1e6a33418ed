"""An error verdict says where the error was raised as any machine can read it: the
module's path under its import root, never this machine's absolute path."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import REGISTRY
from ragward.conformance.records import Asker, Policy
from ragward.conformance.runner import run_invariant, shown_path
from ragward.engines.reference import ReferenceSystem


def test_a_file_under_an_import_root_is_shown_under_it() -> None:
    root = os.path.abspath(sys.path[-1])
    inside = os.path.join(root, "pkg", "mod.py")
    assert shown_path(inside) == os.path.join("pkg", "mod.py")
    assert shown_path(json.__file__) == os.path.join("json", "__init__.py")


def test_the_innermost_root_wins_and_an_outside_file_is_kept(tmp_path: Path) -> None:
    outer, inner = tmp_path / "lib", tmp_path / "lib" / "site-packages"
    saved = list(sys.path)
    try:
        sys.path[:] = [str(outer), str(inner)]
        assert shown_path(str(inner / "pymilvus" / "x.py")) == os.path.join("pymilvus", "x.py")
        assert shown_path(str(outer / "y.py")) == "y.py"
        elsewhere = str(tmp_path / "other" / "z.py")
        assert shown_path(elsewhere) == elsewhere
        sys.path[:] = [os.sep]  # the filesystem's root is no import root to cut at
        assert shown_path(elsewhere) == elsewhere
    finally:
        sys.path[:] = saved


class _Crashes(ReferenceSystem):
    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Any:
        raise OverflowError("int too large")


def test_an_error_verdict_names_no_absolute_path() -> None:
    verdict = run_invariant(REGISTRY["ISO-001"], _Crashes, shrink=False)
    assert verdict.status == "error"
    assert verdict.reason.startswith("OverflowError: int too large (at ")
    where = verdict.reason.split("(at ", 1)[1]
    assert not os.path.isabs(where), verdict.reason
    assert where.startswith(os.path.join("tests", "conformance", "test_error_location.py:"))
