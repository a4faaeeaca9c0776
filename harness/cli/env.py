"""``toolfuzz env add|list|remove``: environments of their own, where ``TARGET@NAME`` runs a built-in target.

:mod:`toolfuzz.targets.environments` says where they live and how they are made.
"""

from __future__ import annotations

import argparse
import sys

from toolfuzz.targets import environments


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("env", help="make, list and remove environments of their own (--target TARGET@NAME)",
                       description="Environments of their own, one virtual environment each with toolfuzz and the "
                       "requirements given, for libraries that cannot share toolfuzz's environment or for another "
                       "release of one: `--target TARGET@NAME` runs the built-in TARGET inside NAME, side by side "
                       "with the run's other targets. They live under $TOOLFUZZ_ENVS (default ~/.cache/toolfuzz/envs).")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    add = verbs.add_parser("add", help="make (or make again) an environment",
                           description="Make the environment NAME with toolfuzz and REQUIREMENTs (pip syntax), with "
                           "uv when it is installed, else venv and the pip toolfuzz runs beside. With no REQUIREMENT, a built-in recipe "
                           f"of that name: {', '.join(f'{k} ({chr(32).join(v)})' for k, v in environments.RECIPES.items())}.")
    add.add_argument("name", metavar="NAME")
    add.add_argument("requirements", nargs="*", metavar="REQUIREMENT", help="e.g. 'openai==3.57.0'")
    add.set_defaults(run=_add)
    listing = verbs.add_parser("list", help="list the environments")
    listing.set_defaults(run=_list)
    remove = verbs.add_parser("remove", help="remove an environment")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(run=_remove)


def _add(args: argparse.Namespace) -> int:
    env = environments.add(args.name, args.requirements, lambda text: print(text, file=sys.stderr, flush=True))
    print(f"{env.name}: {env.folder} (--target TARGET@{env.name})")
    return 0


def _list(args: argparse.Namespace) -> int:
    found = environments.listed()
    if not found:
        print(f"no environments under {environments.root()} (toolfuzz env add NAME REQUIREMENT...)")
    for env in found:
        print(f"{env.name}  {' '.join(env.requirements) or '-'}  ({env.folder})")
    return 0


def _remove(args: argparse.Namespace) -> int:
    print(f"removed {environments.remove(args.name)}")
    return 0
