"""Strict JSON-lines reading: the line policy, encodings and the typed getters."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from ragward.errors import InputError
from ragward.evals.jsonl import Record, describe, read_jsonl, read_lines


def test_lines_keep_their_numbers_and_trailing_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n{"a": 2}\n\n  \n')
    assert [(r.line, r.data) for r in read_jsonl(path)] == [(1, {"a": 1}), (2, {"a": 2})]


def test_a_blank_line_between_records_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "a.tsv"
    path.write_text("x\n\n \ny\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        list(read_lines(path))
    assert str(caught.value) == (
        f"{path} line 2: blank line between records (only trailing blank lines are allowed)"
    )


def test_gz_files_are_decompressed_and_broken_ones_named(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl.gz"
    path.write_bytes(gzip.compress('{"t": "é"}\n'.encode()))
    assert [r.data for r in read_jsonl(path)] == [{"t": "é"}]
    path.write_bytes(b"not gzip")
    with pytest.raises(InputError) as caught:
        list(read_jsonl(path))
    assert str(caught.value) == f"{path}: cannot read the file: Not a gzipped file (b'no')"


def test_bytes_that_are_not_utf8_are_named(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"t": "x"}\n{"t": "\xff"}\n')
    with pytest.raises(InputError, match=r"a\.jsonl line 2: not UTF-8 text$"):
        list(read_jsonl(path))  # by line (issue 30), not by an offset into a decoded block


def test_describe_shows_the_type_and_a_short_value() -> None:
    assert describe(None) == "null"
    assert describe(False) == "boolean false"
    assert describe(2.5) == "number 2.5"
    assert describe([1]) == "an array"
    assert describe("x" * 50) == 'string "' + "x" * 36 + "..."


def test_nested_records_name_the_whole_path() -> None:
    record = Record("f.jsonl", 4, {"p": {"q": [1, ""]}, "n": None, "b": "  "})
    nested = record.nested("p", record.data["p"])
    with pytest.raises(InputError) as caught:
        nested.strings("q")
    assert str(caught.value) == (
        "f.jsonl line 4: field 'p.q[0]': expected a non-empty string, got integer 1"
    )
    assert record.optional_string("n") is None
    assert record.optional_integer("missing") is None
    assert record.string("b", empty=True) == "  "
    with pytest.raises(InputError, match=r"field 'n': must not be null"):
        record.string("n")
