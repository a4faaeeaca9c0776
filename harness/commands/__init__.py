"""Subcommands of ``toolfuzz``; each module has ``register(subparsers)`` and sets ``run``."""

from harness.commands import assemble, show

COMMANDS = (assemble, show)
