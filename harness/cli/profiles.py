"""``toolfuzz profiles``: the call-shape profiles a run can draw, with their evidence, and the servers behind them."""

from __future__ import annotations

import argparse
import sys

from toolfuzz.cli.arguments import add_dialect_option
from toolfuzz.severity import SERVERS, Source
from toolfuzz.strategies.features import SHAPES, sent_by
from toolfuzz.strategies.profiles import DIALECT_PROFILES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profiles", help="list the call-shape profiles and their evidence, or the servers",
                       description="List the call-shape profiles that `toolfuzz generate --profile NAME` "
                       "accepts: one line each with what the shape is, then where it was seen. With --servers, "
                       "the servers `toolfuzz run --server NAME` accepts, each with the shapes it is known to "
                       "send in the dialect (documented by its provider or seen from it).")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print the evidence for each profile and the servers seen sending it")
    p.add_argument("--servers", action="store_true", help="list the servers and what each is known to send")
    add_dialect_option(p, "list this dialect's profiles")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.servers:
        return _servers(args.dialect)
    profiles = DIALECT_PROFILES[args.dialect]
    width = max(len(name) for name in profiles)
    for profile in profiles.values():
        sys.stdout.write(f"{profile.name:<{width}}  {profile.summary}\n")
        if args.verbose:
            sys.stdout.write(f"{'':<{width}}  evidence: {profile.evidence}\n")
            seen = sorted(profile.seen_from | profile.documented_by)
            sys.stdout.write(f"{'':<{width}}  servers: {', '.join(seen) or 'none seen (inferred)'}\n")
    return 0


def _servers(dialect: str) -> int:
    # What is not in every case (the plainest stream's features, read cuts, endings every server has) is
    # what tells servers apart: only those are listed, and only the dialect's own profiles.
    mine = DIALECT_PROFILES[dialect]
    everyone = {n for n, shape in SHAPES.items() if shape.source is Source.INHERENT} | {next(iter(mine))}
    others = {p for d, profiles in DIALECT_PROFILES.items() if d != dialect for p in profiles} - set(mine)
    width = max(len(name) for name in SERVERS)
    for name, summary in SERVERS.items():
        own = sorted(sent_by([name], dialect) - everyone - others)
        said = ", ".join(own) or "nothing beyond the documented shape of the dialect"
        sys.stdout.write(f"{name:<{width}}  {summary}: {said}\n")
    return 0
