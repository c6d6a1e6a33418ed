"""Generate the bundled labelled set ``datasets/tidewater/`` (see its README.md).

The content lives in ``tools/tidewater/data/`` as data files (TOML for documents,
questions, people and the tables of templated families; markdown for the data card's
prose; ``set.toml`` says which files, in which order); the small builder in
``tools/tidewater/`` reads them, renders the documents, validates every rule of the set and
writes the files. The output is deterministic: running it again rewrites the same bytes.

    python -m tools.gen_tidewater                 # rewrite datasets/tidewater/
    python -m tools.gen_tidewater --out DIR       # write the set into DIR instead
    python -m tools.gen_tidewater --data DIR      # read the content from DIR instead
    python -m tools.gen_tidewater --check         # also score the reference retriever

Exit codes: 0 written; 1 the content breaks a rule of the set (every problem listed); 2 a
data file is malformed (one line naming the file, the entry and the field).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.tidewater.build import Question, Rendered, number_queries, render_doc
from tools.tidewater.claims import NumberedClaim, plan
from tools.tidewater.content import DATA, load
from tools.tidewater.fields import DataError
from tools.tidewater.markup import MarkupError
from tools.tidewater.validate import DatasetError, check_claims, check_docs, check_queries
from tools.tidewater.write import render_files

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "datasets" / "tidewater"


@dataclass(frozen=True)
class Generated:
    """The validated set: its records and the files that render them."""

    docs: list[Rendered]
    questions: list[Question]
    claims: list[NumberedClaim]
    files: dict[str, str]


def generate(data: Path = DATA) -> Generated:
    """Read, render and validate the set; raise :class:`DataError` or :class:`MarkupError` on
    a malformed data file, :class:`DatasetError` on a broken rule."""
    content = load(data)
    docs = [render_doc(spec) for spec in content.docs]
    check_docs(docs)
    questions = number_queries(content.questions)
    check_queries(questions, docs)
    claims = plan(docs, content)
    check_claims(claims, docs, content.now_tick)
    return Generated(docs, questions, claims, render_files(content, docs, questions, claims))


def write(files: dict[str, str], out: Path) -> None:
    """Write ``files`` under ``out`` with ``\\n`` line ends."""
    for relative, content in sorted(files.items()):
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="directory to write")
    parser.add_argument("--data", type=Path, default=DATA, help="directory of the content")
    parser.add_argument(
        "--check", action="store_true", help="score the reference retriever on the test split"
    )
    args = parser.parse_args(argv)
    try:
        generated = generate(args.data)
    except (DataError, MarkupError) as error:
        print(f"gen_tidewater: {error}", file=sys.stderr)
        return 2
    except DatasetError as error:
        print(f"gen_tidewater: {error}", file=sys.stderr)
        return 1
    write(generated.files, args.out)
    print(f"gen_tidewater: wrote {len(generated.files)} files to {args.out}")
    if args.check:
        from tools.tidewater.check import self_check

        self_check(generated.docs, generated.questions, generated.claims, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
