"""Subcommands of ``toolfuzz``; each module has ``register(subparsers)`` and sets ``run``."""

from harness.commands import assemble, export, generate, profiles, replay, run, show, targets

COMMANDS = (run, assemble, show, generate, profiles, targets, replay, export)
