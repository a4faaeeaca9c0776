"""``toolfuzz targets``: the built-in targets, their level, version and what they claim, every library adapter
installed or not, with the releases it is verified on, and the library targets of each environment of its own."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

from toolfuzz.cli.arguments import add_wide_option
from toolfuzz.targets import environments
from toolfuzz.outputs.tables import Column, fitted, terminal_width
from toolfuzz.targets import adapters
from toolfuzz.targets.registry import builtin_targets


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("targets", help="list the built-in targets",
                       description="List the built-in targets with their level, version and claims, whether each "
                       "library adapter is installed, and the library targets of each environment (toolfuzz env), "
                       "named TARGET@NAME as --target takes them.")
    p.add_argument("--json", action="store_true", help="print this environment's targets as JSON, without the others'")
    add_wide_option(p, "the table")
    p.set_defaults(run=run)


#: On a narrow terminal what a target is (its name, whether it is installed, what it does) stays; where it
#: is verified and what it claims go first (--wide and --json have them).
COLUMNS = (Column("name", shrink=True), Column("level"), Column("version", drop=3), Column("claims", wrap=",", drop=2),
           Column("installed"), Column("verified on", wrap=" ", drop=1), Column("what", wrap=" "))


def here() -> list[dict[str, Any]]:
    """Every built-in target of this environment, and each adapter that cannot load here with why."""
    targets = builtin_targets()
    status = adapters.status()
    state = {name: why for name, _, why in status}
    verified = adapters.verified()
    rows = [{"name": t.name, "level": t.level, "version": t.version or "-", "claims": sorted(t.reports),
             "installed": state.get(t.name, "installed") == "installed", "verified": verified.get(t.name) or "-",
             "library": t.name in state, "what": ("[self-test] " if t.selftest else "") + t.summary}
            for t in targets.values()]
    # Adapters whose library is missing (or does not import): listed so that
    # nobody wonders where they went, with what to install.
    rows += [{"name": name, "level": adapters.level_of(name) or "-", "version": version, "claims": [], "installed": False,
              "verified": verified.get(name) or "-", "library": True, "what": why}
             for name, version, why in status if name not in targets]
    return rows


def _theirs(env: environments.Environment) -> list[dict[str, Any]]:
    """The library targets installed in ``env``, named as --target takes them; one row saying why when it fails."""
    try:
        done = subprocess.run([str(env.python), "-m", "toolfuzz", "targets", "--json"], capture_output=True,
                              text=True, timeout=300)
        rows = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        rows = None
    if not isinstance(rows, list):
        return [{"name": f"?@{env.name}", "level": "-", "version": "-", "claims": [], "installed": False,
                 "verified": "-", "what": f"the environment does not list its targets ({env.folder})"}]
    return [{**r, "name": f"{r['name']}@{env.name}"} for r in rows if r.get("library") and r.get("installed")]


def run(args: argparse.Namespace) -> int:
    rows = here()
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for env in environments.listed():
        rows += _theirs(env)
    table = [(r["name"], r["level"], r["version"], ",".join(r["claims"]) or "-", "yes" if r["installed"] else "no",
              r["verified"], r["what"]) for r in rows]
    sys.stdout.write(fitted(table, COLUMNS, terminal_width(sys.stdout, args.wide), rule=False))
    return 0
