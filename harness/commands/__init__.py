"""Subcommands of ``toolfuzz``; each module has ``register(subparsers)`` and sets ``run``."""

from harness.commands import assemble, export, generate, profiles, replay, run, show, targets

COMMANDS = (run, replay, export, generate, profiles, targets, assemble, show)
