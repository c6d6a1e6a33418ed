"""Plant known defects in a copy of the reference and check the tests catch each one.

Every mutant is one realistic defect of the kind SPEC.md says the seed has or a careless
port would introduce. For each, the script copies the source tree to a temporary folder,
applies the one-line change, puts the copy ahead of the installed package on
``PYTHONPATH`` and runs the reference tests; a mutant is *killed* when they fail. The
unchanged copy must pass first, or no kill means anything.

    python -m tools.mutants              # all mutants, report table
    python -m tools.mutants upsert-keeps-old   # one mutant by name
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    name: str
    defect: str
    path: str
    old: str
    new: str


MUTANTS = (
    Mutant(
        "post-filter",
        "top-k over the whole namespace, eligibility applied afterwards",
        "reference/retriever.py",
        "            rows = np.flatnonzero(eligible & dense_rows & (scores > 0.0))\n"
        "            dense, dense_ranked = self._top("
        "namespace, scores, rows, policy, scan.settle)\n",
        "            rows = np.flatnonzero(live & dense_rows & (scores > 0.0))\n"
        "            dense, dense_ranked = self._top("
        "namespace, scores, rows, policy, scan.settle)\n"
        "            kept = [eligible[namespace.chunks.index(s.chunk)] for s in dense]\n"
        "            dense = tuple(s for s, ok in zip(dense, kept) if ok)\n"
        "            dense_ranked = [r for r, ok in zip(dense_ranked, kept) if ok]\n",
    ),
    Mutant(
        "namespace-statistics",
        "BM25 N and avgdl over every live row of the namespace",
        "reference/lexical.py",
        'memo["n_eligible"] = n_eligible = int(np.count_nonzero(eligible))',
        'memo["n_eligible"] = n_eligible = int(np.count_nonzero(live))\n'
        "            eligible = live",
    ),
    Mutant(
        "namespace-df",
        "BM25 document frequency over every live row of the namespace",
        "reference/lexical.py",
        "        df = rows.size\n",
        "        df = rows.size + others.size\n",
    ),
    Mutant(
        "double-count",
        "an excluded chunk counted once per index it matched in",
        "reference/retriever.py",
        "                int(np.count_nonzero(hidden)),\n",
        "                int(np.count_nonzero(hidden))\n"
        "                + int(np.count_nonzero(hidden)) * (policy.mode == 'hybrid'),\n",
    ),
    Mutant(
        "upsert-keeps-old",
        "a new version is added without retiring the old version's chunks",
        "reference/namespace.py",
        "        if state is not None:\n            self._kill(state.rows)\n",
        "",
    ),
    Mutant(
        "equal-version-accepted",
        "re-ingesting the same version is accepted",
        "reference/namespace.py",
        "document.version <= current",
        "document.version < current",
    ),
    Mutant(
        "delete-noop",
        "delete forgets the document but leaves its chunks in the index",
        "reference/namespace.py",
        "        self._kill(state.rows)\n        state.rows = range(0)\n",
        "        state.rows = range(0)\n",
    ),
    Mutant(
        "shared-namespace",
        "one namespace for every tenant, with no tenant check",
        "reference/retriever.py",
        "namespace = self._namespace(document.tenant)",
        'namespace = self._namespace("*")',
    ),
    Mutant(
        "barrier-ignored",
        "information barriers not enforced",
        "reference/namespace.py",
        "mask &= (barrier == 0) | np.isin(barrier, codes)",
        "mask &= barrier >= 0",
    ),
    Mutant(
        "rejoined-citation",
        "chunk text re-joined with single spaces (the seed's citation bug)",
        "reference/chunking.py",
        "text=text[begin:finish],",
        'text=" ".join(text[begin:finish].split()),',
    ),
    Mutant(
        "budget-ignores-separators",
        "budget measured on the pieces, not on the assembled text",
        "reference/assembly.py",
        "        tokens = token_counter(text)\n        if tokens <= budget_tokens:",
        "        tokens = token_counter(text.replace(_SEPARATOR, ''))\n"
        "        if tokens <= budget_tokens:",
    ),
    Mutant(
        "no-neutralise",
        "retrieved text and question pasted verbatim (header forging)",
        "reference/assembly.py",
        "    lines = text.splitlines(keepends=True)\n",
        "    return text\n    lines = text.splitlines(keepends=True)\n",
    ),
    Mutant(
        "unstable-ties",
        "equal scores ordered by row (ingestion order), not chunk_id",
        "reference/ranking.py",
        "key=lambda row: (chunks[row].chunk_id, row)",
        "key=lambda row: (row, row)",
    ),
    Mutant(
        "blas-dense",
        "dense scores straight from the BLAS pass, never made exact (position-dependent rounding)",
        "reference/dense.py",
        "        if self.slack == 0.0 or rows.size == 0:\n            return\n",
        "        if True:\n            return\n",
    ),
    Mutant(
        "version-zero",
        "Document accepts version 0",
        "reference/documents.py",
        '_require_int("ReferenceDoc", "version", self.version, 1)',
        '_require_int("ReferenceDoc", "version", self.version, 0)',
    ),
)

TEST_COMMAND = ("-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow")
TEST_TARGETS = ("tests/reference", "tests/bench")


def _copy() -> Path:
    target = Path(tempfile.mkdtemp(prefix="ragward-mutant-"))
    ignore = shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", ".*_cache", ".hypothesis", "reports"
    )
    shutil.copytree(ROOT, target, symlinks=True, dirs_exist_ok=True, ignore=ignore)
    return target


def _run(copy: Path) -> tuple[bool, str, float]:
    environment = dict(os.environ, PYTHONPATH=str(copy))
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, *TEST_COMMAND, *TEST_TARGETS],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    return result.returncode == 0, (failed[0][7:] if failed else ""), time.perf_counter() - started


def main(names: list[str]) -> int:
    chosen = [m for m in MUTANTS if not names or m.name in names]
    baseline = _copy()
    try:
        passed, first, seconds = _run(baseline)
    finally:
        shutil.rmtree(baseline, ignore_errors=True)
    print(f"baseline (no defect): {'pass' if passed else 'FAIL ' + first} ({seconds:.0f}s)")
    if not passed:
        return 1
    survivors = 0
    for mutant in chosen:
        copy = _copy()
        try:
            source = copy / mutant.path
            text = source.read_text(encoding="utf-8")
            if text.count(mutant.old) != 1:
                raise SystemExit(
                    f"{mutant.name}: the text to replace is not unique in {mutant.path}"
                )
            source.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
            passed, first, seconds = _run(copy)
        finally:
            shutil.rmtree(copy, ignore_errors=True)
        survivors += passed
        verdict = "SURVIVED" if passed else f"killed by {first}"
        print(f"{mutant.name:<26} {mutant.defect:<72} {verdict} ({seconds:.0f}s)", flush=True)
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
