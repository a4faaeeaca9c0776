"""``toolfuzz targets``: the built-in targets, their level, version and what they claim, and every library adapter installed or not, with the releases it is verified on."""

from __future__ import annotations

import argparse
import sys

from toolfuzz.outputs.tables import aligned
from toolfuzz.targets import adapters
from toolfuzz.targets.registry import builtin_targets


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("targets", help="list the built-in targets",
                       description="List the built-in targets with their level, version and claims, and "
                       "whether each library adapter is installed.")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    targets = builtin_targets()
    state = {name: why for name, _, why in adapters.status()}
    verified = adapters.verified()
    rows = [("name", "level", "version", "claims", "installed", "verified on", "what")]
    for t in targets.values():
        rows.append((t.name, t.level, t.version or "-", ",".join(sorted(t.reports)),
                     "yes" if state.get(t.name, "installed") == "installed" else "no", verified.get(t.name) or "-",
                     ("[self-test] " if t.selftest else "") + t.summary))
    # Adapters whose library is missing (or does not import): listed so that
    # nobody wonders where they went, with what to install.
    for name, version, why in adapters.status():
        if name not in targets:
            rows.append((name, "-", version, "-", "no", verified.get(name) or "-", why))
    sys.stdout.write(aligned(rows))
    return 0
