"""``toolfuzz replay PATH...``: run fixture files against targets and print a matrix of what each did.

Exit 0 when every cell is as the fixtures lead us to expect (a recorded
divergence that still fails, or is now fixed, is expected), 1 when a cell
diverges that was not recorded as diverging or the reference disagrees with
a fixture, 2 for a usage or input error (a fixture that cannot be read is a
row of its own, and the others run).  ``toolfuzz.corpus.replay`` says how.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from toolfuzz.cli.arguments import add_dialect_option, add_target_options, add_wide_option
from toolfuzz.errors import UsageError, need_writable
from toolfuzz.corpus.fixtures import write_atomic
from toolfuzz.corpus.findings import path_for, replayed_fixture, save_fixture
from toolfuzz.corpus.replay import divergent, read_fixtures, replay
from toolfuzz.outputs.replay_matrix import render, replay_junit
from toolfuzz.outputs.tables import terminal_width
from toolfuzz.targets.specs import resolve_all
from toolfuzz.targets.registry import builtin_targets


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay", help="replay fixture files against targets and print a matrix of the results",
        description="Replay fixture files (or folders of them) on the reference and on targets, and print a "
        "matrix of fixtures by targets. With no --target, each fixture runs on the built-in targets it "
        "records. A target recorded as diverging is expected to diverge: it is reported as 'still fails', "
        "as 'changed' when it diverges another way (another kind, or a raise at another crash state), "
        "or as 'fixed' once it agrees. Exit 0 when every cell is as expected, 1 when a target diverges "
        "where it was not recorded to (or the reference disagrees with a fixture), 2 for a usage error or a fixture "
        "that cannot be read (a row of its own; the others run).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="fixture file, or folder of *.json fixtures")
    add_target_options(p, "the reference and the built-in targets each fixture records")
    add_dialect_option(p, "replay only the fixtures of this dialect (each runs in its own dialect)", None)
    p.add_argument("--json", action="store_true", help="print a machine-readable report instead of the matrix")
    add_wide_option(p, "every fixture and target of the matrix (on a terminal only those with news are shown)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML, one testcase per fixture and target")
    p.add_argument("--findings", metavar="DIR", help="also write each unexpected divergence as a finding under DIR "
                   "(as toolfuzz run does: one file per root cause, the smallest case kept), its 'found' keeping "
                   "where the replayed fixture came from: for recorded traffic imported with corpus import")
    p.set_defaults(run=run)



def run(args: argparse.Namespace) -> int:
    # Everything that can be wrong with the input is found before anything runs.
    given = resolve_all(args.target, args.level) if args.target else None
    fixtures, unreadable = read_fixtures(args.paths)
    if args.dialect is not None:
        fixtures = [f for f in fixtures if f.fixture.case.dialect == args.dialect]
        if not fixtures and not unreadable:
            raise UsageError(f"no fixture of dialect {args.dialect} in {' '.join(args.paths)}")
    if args.findings:
        need_writable(args.findings, "--findings")
    report = replay(fixtures, given, args.timeout, unreadable)
    if args.findings:
        targets = {t.name: t for t in given} if given is not None else builtin_targets(
            {name for f in fixtures for name in f.fixture.observed})
        for loaded, finding in divergent(report, targets, args.timeout):
            path = path_for(Path(args.findings), finding)
            try:
                path, what = save_fixture(path, replayed_fixture(finding, loaded.fixture.found))
            except OSError as e:
                raise UsageError(f"{path}: cannot write the finding: {e.strerror or e}") from None
            print(f"{what:<8} {path}  ({finding.target.name} {finding.divergence.kind}, from {loaded.path})",
                  file=sys.stderr)
    if args.junit:
        try:
            write_atomic(args.junit, replay_junit(report))
        except OSError as e:
            raise UsageError(f"{args.junit}: cannot write: {e.strerror or e}") from None
    if args.json:
        # ASCII: a target's exception text may hold anything, and this output is for machines.
        json.dump(report.to_json(), sys.stdout, indent=2, ensure_ascii=True)
        sys.stdout.write("\n")
    elif (fit := terminal_width(sys.stdout, args.wide)) is not None:
        sys.stdout.write(render(report, fit, compact=True))
    else:
        # Whole, as it always was: its blocks of columns as wide as COLUMNS or the terminal, else 120.
        sys.stdout.write(render(report, shutil.get_terminal_size((120, 24)).columns))
    return report.exit_code
