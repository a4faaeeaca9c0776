"""``toolfuzz verify [LIBRARY...]``: run each adapter's tests on a sample of its library's releases.

:mod:`toolfuzz.corpus.verification` describes how.
"""

from __future__ import annotations

import argparse
import json
import sys

from toolfuzz.corpus.releases import DEFAULT_YEARS, releases
from toolfuzz.corpus.verification import RELEASES, libraries, record, render_docs, sample, verify
from toolfuzz.corpus.fixtures import write_atomic
from toolfuzz.errors import UsageError
from toolfuzz.targets import environments
from toolfuzz.targets.adapters import VERIFIED


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="run the adapters' tests on old and new releases of their libraries",
                       description="For each library an adapter is built on, install the oldest, the middle and the "
                       f"newest of its releases of the last {DEFAULT_YEARS} years, each in an environment of its own "
                       "(toolfuzz env), and run the adapter's tests there. Needs the source folder toolfuzz runs from "
                       "(a checkout): the tests live there. --write keeps the verdicts for `toolfuzz targets` and "
                       "docs/adapters.md.")
    p.add_argument("libraries", nargs="*", metavar="LIBRARY",
                   help="a distribution an adapter is built on (default: every one)")
    p.add_argument("--releases", type=int, default=RELEASES, metavar="N",
                   help=f"releases per library, spread evenly with both ends (default {RELEASES})")
    p.add_argument("--between", nargs=2, metavar=("OLD", "NEW"), help="the oldest and the newest release to sample")
    p.add_argument("--json", action="store_true", help='print {library: {version: {"outcome", "detail"}}}')
    p.add_argument("--write", action="store_true",
                   help="keep the verdicts in targets/adapters/verified.json and the table of docs/adapters.md")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    source = environments.source_folder()
    if source is None:
        raise UsageError("needs a source checkout: it runs the adapters' tests, which live there; install toolfuzz "
                         "from one (pip install -e .) and run it there")
    known = libraries(source)
    wanted = args.libraries or [lib.distribution for lib in known]
    unknown = sorted(set(wanted) - {lib.distribution for lib in known})
    if unknown:
        raise UsageError(f"no adapter is built on {', '.join(unknown)} "
                         f"(known: {', '.join(lib.distribution for lib in known)})")
    chosen = [lib for lib in known if lib.distribution in wanted]
    empty = [lib.distribution for lib in chosen if not lib.tests]
    if empty:
        raise UsageError(f"no test module under {source / 'tests/targets/adapters'} tests {', '.join(empty)}")
    # Every release list asked for before any environment is made: a library the index lacks costs nothing.
    plans = [(lib, sample(releases(lib.distribution, tuple(args.between) if args.between else None)[0],
                          args.releases, lib.since)) for lib in chosen]

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    found = {}
    for lib, versions in plans:
        say(f"toolfuzz verify: {lib.distribution} {', '.join(versions)} with {', '.join(lib.tests)}")
        found[lib.distribution] = [verify(lib, v, source, say) for v in versions]
    if args.write:
        path = source / "targets" / "adapters" / VERIFIED.name
        record(found, path)
        docs = source / "docs" / "adapters.md"
        text = render_docs(docs.read_text(encoding="utf-8"), json.loads(path.read_text(encoding="utf-8")), str(docs))
        write_atomic(docs, text)
        say(f"wrote {path} and {docs}")
    if args.json:
        json.dump({lib: {v.version: v.to_json() for v in vs} for lib, vs in found.items()}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for lib, vs in found.items():
            for v in vs:
                print(f"{lib} {v.version}: {v.outcome} ({v.detail})")
    return 0
