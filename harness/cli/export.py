"""``toolfuzz export --format F FIXTURE... --out DIR``: fixtures as files other projects consume.

``toolfuzz.outputs.export`` describes each format.  Every fixture is loaded and
rendered before the first file is written, so a bad fixture leaves ``--out``
as it was; each file is written atomically.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from toolfuzz.errors import UsageError
from toolfuzz.outputs.export import FORMATS, PYTEST_MODULE, pytest_module, render, stem_for
from toolfuzz.corpus.fixtures import write_atomic
from toolfuzz.corpus.replay import load_fixtures
from toolfuzz.targets.base import LEVELS
from toolfuzz.vocabulary import text_format


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write fixtures as JSON, JSON lines, raw SSE, or cases of one pytest module",
        description="Write each fixture in a form another project consumes: json (chunks, SSE events, expected outcome, "
        "tools), jsonl (the parsed chunks, one per line), sse (the raw wire bytes, the read cuts, the "
        "expected outcome as `toolfuzz assemble` prints it, and the tools), or pytest (the fixtures under "
        f"cases/ and one module, {PYTEST_MODULE}, with one marked place to plug in your assembler, judging "
        "every case as toolfuzz does). File names come from the fixture names.")
    p.add_argument("fixtures", nargs="+", metavar="FIXTURE", help="fixture file, or folder of *.json fixtures")
    p.add_argument("--format", required=True, choices=FORMATS, dest="fmt")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
    p.add_argument("--level", choices=LEVELS, default=None,
                   help="pytest only: the level of the assembler the module tests: events (parsed chunks, the "
                   "default), bytes (the network reads), sse (the reads, returning SSE events) or partial (a partial "
                   "JSON parser: one prefix of an argument text, returning the value it shows)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.level is not None and args.fmt != "pytest":
        raise UsageError(f"--level applies to --format pytest only, not {args.fmt}")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: not a folder")
    fixtures = load_fixtures(args.fixtures)
    texts = [str(loaded.path) for loaded in fixtures if text_format(loaded.fixture.case.dialect) is not None]
    if texts or args.level == "producer":
        # Before anything is written: an export is every fixture or none.
        raise UsageError(f"{texts[0] if texts else '--level producer'}: a model's text (the producer level); export "
                         f"writes wires for assemblers: replay it with `toolfuzz replay` where its parser is")
    taken: set[str] = set()
    files: list[tuple[Path, bytes]] = []
    for loaded in fixtures:
        stem = stem_for(loaded.fixture.name, taken, python=args.fmt == "pytest")
        for name, data in render(loaded.fixture, args.fmt, stem, args.level or "events"):
            files.append((out / name, data))
    if args.fmt == "pytest":
        files.append((out / PYTEST_MODULE, pytest_module(args.level or "events").encode("utf-8")))
    for path, data in files:
        try:
            write_atomic(path, data)
        except OSError as e:
            raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None
    # Listed after every file is written: a closed pipe must not stop the export.
    for path, _ in files:
        print(path)
    return 0
