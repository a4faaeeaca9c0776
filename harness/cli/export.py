"""``toolfuzz export --format F FIXTURE... --out DIR``: fixtures as files other projects consume.

``toolfuzz.outputs.export`` describes each format, ``toolfuzz.outputs.repro``
the repro scripts and issues.  Every fixture is loaded and rendered before
the first file is written, so a bad fixture leaves ``--out`` as it was; each
file is written atomically.  A repro export says in one line on stderr each
target it leaves out (no recipe, no check for its kind) and goes on with the
others; it then exits 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from toolfuzz.errors import UsageError
from toolfuzz.outputs.export import FORMATS, PYTEST_MODULE, pytest_module, render, stem_for
from toolfuzz.outputs.repro import NoRepro, issue, repros, script
from toolfuzz.corpus.fixtures import write_atomic
from toolfuzz.corpus.replay import load_fixtures
from toolfuzz.targets.base import LEVELS
from toolfuzz.vocabulary import text_format


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write fixtures as JSON, JSON lines, raw SSE, cases of one pytest module, or repro scripts",
        description="Write each fixture in a form another project consumes: json (chunks, SSE events, expected outcome, "
        "tools), jsonl (the parsed chunks, one per line), sse (the raw wire bytes, the read cuts, the "
        "expected outcome as `toolfuzz assemble` prints it, and the tools), pytest (the fixtures under "
        f"cases/ and one module, {PYTEST_MODULE}, with one marked place to plug in your assembler, judging "
        "every case as toolfuzz does), or repro (per fixture and diverging target, a standalone Python script "
        "that reproduces the finding with only the library installed, printing REPRODUCED or NOT REPRODUCED, and "
        "an issue body in Markdown for the library's maintainers; a target with no recipe is said on stderr and "
        "left out, and the export then exits 1). File names come from the fixture names.")
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
    if args.fmt == "repro":
        files, left_out = _repro_files(fixtures, out)
    else:
        files, left_out = _files(fixtures, args.fmt, args.level, out), []
    for path, data in files:
        try:
            write_atomic(path, data)
        except OSError as e:
            raise UsageError(f"{path}: cannot write: {e.strerror or e}") from None
    # Listed after every file is written: a closed pipe must not stop the export.
    for path, _ in files:
        print(path)
    for why in left_out:
        print(f"toolfuzz export: left out: {why}", file=sys.stderr)
    return 1 if left_out else 0


def _files(fixtures: list[Any], fmt: str, level: str | None, out: Path) -> list[tuple[Path, bytes]]:
    texts = [str(loaded.path) for loaded in fixtures if text_format(loaded.fixture.case.dialect) is not None]
    if texts or level == "producer":
        # Before anything is written: an export is every fixture or none.
        raise UsageError(f"{texts[0] if texts else '--level producer'}: a model's text (the producer level); export "
                         f"writes wires for assemblers: replay it with `toolfuzz replay` where its parser is")
    taken: set[str] = set()
    files: list[tuple[Path, bytes]] = []
    for loaded in fixtures:
        stem = stem_for(loaded.fixture.name, taken, python=fmt == "pytest")
        for name, data in render(loaded.fixture, fmt, stem, level or "events"):
            files.append((out / name, data))
    if fmt == "pytest":
        files.append((out / PYTEST_MODULE, pytest_module(level or "events").encode("utf-8")))
    return files


def _repro_files(fixtures: list[Any], out: Path) -> tuple[list[tuple[Path, bytes]], list[str]]:
    """A script and an issue for every diverging target of every fixture, and a line for each one left out."""
    taken: set[str] = set()
    files: list[tuple[Path, bytes]] = []
    left_out: list[str] = []
    for loaded in fixtures:
        found = repros(loaded.fixture, str(loaded.path))
        for repro in found:
            if isinstance(repro, NoRepro):
                left_out.append(str(repro))
                continue
            base = loaded.path.stem if len(found) == 1 else f"{loaded.path.stem}--{repro.target}"
            stem = stem_for(base, taken)
            try:
                code = script(repro, f"{stem}.py")
            except NoRepro as e:
                left_out.append(str(e))
                taken.discard(stem.casefold())
                continue
            files.append((out / f"{stem}.py", code.encode("utf-8")))
            files.append((out / f"{stem}.md", issue(repro, f"{stem}.py").encode("utf-8")))
    if not files:
        # Every fixture was read, so one of them at least records a divergence or says why it cannot.
        more = f" (and {len(left_out) - 1} more left out)" if len(left_out) > 1 else ""
        raise UsageError(f"nothing to write: {left_out[0]}{more}")
    return files, left_out
