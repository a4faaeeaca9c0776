"""Subcommands of ``toolfuzz``; each module has ``register(subparsers)`` and sets ``run``."""

from harness.commands import assemble, corpus, export, generate, profiles, replay, run, show, targets

COMMANDS = (run, replay, corpus, export, generate, profiles, targets, assemble, show)
