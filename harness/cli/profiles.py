"""``toolfuzz profiles``: the call-shape profiles a run can draw, with their evidence."""

from __future__ import annotations

import argparse
import sys

from toolfuzz.cli.arguments import add_dialect_option
from toolfuzz.strategies.profiles import DIALECT_PROFILES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profiles", help="list the call-shape profiles and their evidence",
                       description="List the call-shape profiles that `toolfuzz generate --profile NAME` "
                       "accepts: one line each with what the shape is, then where it was seen.")
    p.add_argument("--verbose", "-v", action="store_true", help="also print the evidence for each profile")
    add_dialect_option(p, "list this dialect's profiles")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    profiles = DIALECT_PROFILES[args.dialect]
    width = max(len(name) for name in profiles)
    for profile in profiles.values():
        sys.stdout.write(f"{profile.name:<{width}}  {profile.summary}\n")
        if args.verbose:
            sys.stdout.write(f"{'':<{width}}  evidence: {profile.evidence}\n")
    return 0
