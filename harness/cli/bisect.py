"""``toolfuzz bisect PATH... --target SPEC --package PKG``: the releases of PKG on which each fixture fails.

:mod:`toolfuzz.corpus.bisect` describes the search.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace

from toolfuzz.corpus.bisect import SAMPLES, bisect, describe, probe_in_environment
from toolfuzz.corpus.fixtures import dumps, write_atomic
from toolfuzz.corpus.releases import DEFAULT_YEARS, FALLBACK_RELEASES, releases
from toolfuzz.corpus.replay import load_fixtures
from toolfuzz.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bisect", help="find the releases of a package on which fixtures fail",
                       description="For each fixture, run TARGET on releases of PKG, each in an environment of its "
                       "own (toolfuzz env), by bisection, and print the first release where it fails after passing "
                       "(introduced) and the first where it stops failing (fixed), with every release tested. A "
                       "release fails when it diverges with the root cause the fixture records for the target (its "
                       "kind, and for a raise its crash state); one that diverges another way is changed. "
                       f"Without --between, the releases of the last {DEFAULT_YEARS} years by the index's upload dates "
                       f"(the {FALLBACK_RELEASES} newest where the index gives none).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="fixture file, or folder of *.json fixtures")
    p.add_argument("--target", required=True, metavar="SPEC",
                   help="a built-in target, or module:attr importable where PKG is installed")
    p.add_argument("--package", required=True, metavar="PKG", help="the distribution whose releases are tried")
    p.add_argument("--between", nargs=2, metavar=("OLD", "NEW"), help="the oldest and the newest release to try")
    p.add_argument("--samples", type=int, default=SAMPLES, metavar="N",
                   help=f"releases probed evenly between the two ends before bisecting, so that a bug that came and "
                   f"went shows (default {SAMPLES})")
    p.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds a case may take (default 5)")
    p.add_argument("--json", action="store_true",
                   help='print a list of {"fixture", "introduced", "fixed", "tested": {version: verdict}}')
    p.add_argument("--record", action="store_true",
                   help="also write each range into its fixture (its history field, under the target's name), which "
                   "findings/README.md and corpus check then show")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # Every fixture read before any environment is made: a bad one is one line, and costs nothing.
    fixtures = load_fixtures(args.paths)
    if args.samples < 0:
        raise UsageError(f"--samples {args.samples}: must be 0 or more")
    versions, chosen = releases(args.package, tuple(args.between) if args.between else None)

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    say(f"toolfuzz bisect: {len(fixtures)} fixture{'s' * (len(fixtures) != 1)} over {len(versions)} releases of "
        f"{args.package}, {chosen} ({versions[0]} to {versions[-1]})")
    # Each fixture's recorded root cause for the target, where it records one: a release that diverges another
    # way is changed, not failing.
    name = args.target.partition("@")[0]
    found = [bisect(str(f.path), versions,
                    probe_in_environment(f.fixture.case, args.target, args.package, args.timeout, say,
                                         f.root_cause(name)), args.samples)
             for f in fixtures]
    if args.record:
        for loaded, r in zip(fixtures, found):
            entry = {"package": args.package, "tested": r.tested, "introduced": r.introduced, "fixed": r.fixed}
            updated = replace(loaded.fixture, history={**loaded.fixture.history, args.target: entry})
            write_atomic(loaded.path, dumps(updated))
    if args.json:
        json.dump([r.to_json() for r in found], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in found:
            print(describe(r))
    return 0
