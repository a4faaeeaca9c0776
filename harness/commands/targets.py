"""``toolfuzz targets``: the built-in targets, their level, version and what they claim."""

from __future__ import annotations

import argparse
import sys

from targets.registry import builtin_targets


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("targets", help="list the built-in targets",
                       description="List the built-in targets with their level, version and claims.")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rows = [("name", "level", "version", "claims", "what")]
    for t in builtin_targets().values():
        rows.append((t.name, t.level, t.version or "-", ",".join(sorted(t.reports)),
                     ("[self-test] " if t.selftest else "") + t.summary))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        sys.stdout.write("  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + "  " + r[4] + "\n")
    return 0
