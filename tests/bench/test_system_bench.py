"""``ragward bench``: any implementation through the contract, one report per name."""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ragward.bench.system import SystemBench, run_system_bench
from ragward.cli import main
from ragward.conformance.contract import Factory, RetrievalSystem
from ragward.conformance.records import Asker, Doc, Policy, Result
from tests.conformance.broken import BROKEN

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "conformance" / "examples" / "peer.py"


def _report(out: Path, name: str) -> tuple[dict[str, Any], str]:
    data = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
    return data, (out / f"{name}.md").read_text(encoding="utf-8")


def test_the_reference_through_its_adapter(tmp_path: Path) -> None:
    argv = ["bench", "--chunks", "300", "--queries", "4", "--quiet", "--out", str(tmp_path)]
    assert main(argv) == 0
    data, markdown = _report(tmp_path, "reference")
    modes = ("hybrid", "lexical", "dense")
    assert set(data["retrieve"]) == {m + s for m in modes for s in ("", "_no_rerank")}
    assert all(s["queries"] == 4 and s["median_ms"] > 0 for s in data["retrieve"].values())
    ingest = data["ingest"]
    assert ingest["documents_per_second"] > 0
    assert ingest["per_document"]["queries"] == data["corpus"]["documents"]
    assert data["memory"]["measured"] is (sys.platform == "linux")
    assert "| lexical_no_rerank |" in markdown
    assert f"{data['corpus']['documents']} documents" in markdown


def test_an_adapter_is_asked_in_the_modes_it_declares(tmp_path: Path) -> None:
    impl = "ragward.conformance.examples.toy:ToyAdapter"
    argv = ["bench", "--impl", impl, "--chunks", "200", "--queries", "3", "--quiet"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    data, _ = _report(tmp_path, "toy-ToyAdapter")
    assert set(data["retrieve"]) == {"lexical", "lexical_no_rerank"}


def test_a_peer_over_the_wire_is_benchmarked_without_our_memory(tmp_path: Path) -> None:
    command = f"{sys.executable} {PEER}"
    argv = ["bench", "--external", command, "--chunks", "200", "--queries", "2", "--quiet"]
    assert main([*argv, "--name", "peer", "--out", str(tmp_path)]) == 0
    data, markdown = _report(tmp_path, "peer")
    assert data["memory"] == {
        "measured": False,
        "resident_growth_bytes": None,
        "bytes_per_text_byte": None,
        "bytes_per_target_chunk": None,
    }
    assert "not measured (the system runs in another process)" in markdown


class _Recording:
    """A system that notes every document it is given."""

    def __init__(self, system: RetrievalSystem, seen: list[str]) -> None:
        self.system, self.seen = system, seen
        self.capabilities = system.capabilities

    def ingest(self, doc: Doc) -> bool:
        self.seen.append(f"{doc.tenant}/{doc.doc_id}")
        return self.system.ingest(doc)

    def delete(self, tenant: str, doc_id: str) -> None:
        self.system.delete(tenant, doc_id)

    def retrieve(self, query: str, asker: Asker, now_tick: int, policy: Policy) -> Result:
        self.seen.append(f"{asker.user_id}: {query}")
        return self.system.retrieve(query, asker, now_tick, policy)


def _recording(factory: Factory, seen: list[str]) -> RetrievalSystem:
    return _Recording(factory(), seen)


def test_two_systems_get_the_same_work() -> None:
    settings = SystemBench(chunks=200, queries=2)
    work: list[list[str]] = []
    for name in ("shared-namespace", "post-filter"):
        seen: list[str] = []
        factory = BROKEN[name][0]
        run_system_bench(partial(_recording, factory, seen), name, settings)
        work.append(seen)
    assert work[0] == work[1]
    assert len(work[0]) > 20


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--name", "../up"],
            "--name '../up': use letters, digits, '.', '_' and '-' (a file name)",
        ),
        (["--scales", "1000"], "--data and --scales go with --anchors"),
        (["--chunks", "0"], "--chunks, --queries and --scales must be >= 1"),
        # sizes checked before a corpus is made (issue 30): a typo must not fill the memory
        (["--chunks", "10000000001"], "must be at most 10,000,000, --queries at most 1,000,000"),
        (["--queries", "10000000"], "--queries at most 1,000,000"),
        (
            ["--anchors", "--scales", "10,99999999999"],
            "at most 10,000,000, --queries at most 1,000,000",
        ),
        (["--anchors", "--scales", "10,x"], "expected sizes like 10000,100000, got '10,x'"),
    ],
)
def test_bad_options_are_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bench", *argv, "--out", str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(message)
    assert not (tmp_path / "out").exists()
