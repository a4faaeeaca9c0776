"""Adapters for real libraries' assemblers, each an optional extra (``pip install toolfuzz[targets]``).

:data:`KNOWN` lists every adapter the project ships, whether or not its
library is installed, so that ``toolfuzz targets`` can say what is missing.
:func:`installed` imports an adapter module only when its distribution is
installed, and registers its targets only if that import works: a library
that is present but broken is reported, not run.

The import happens here, when the registry is built, and not lazily inside a
target call: a target runs under the harness's audit hook, and a first import
there could write ``__pycache__`` files (refused as ``blocked_action``) and
would spend the per-case time limit on loading the library.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata

from targets.base import Target

__all__ = ["Adapter", "KNOWN", "installed", "status"]


@dataclass(frozen=True)
class Adapter:
    """One adapter module: which distributions it needs, and the extra that installs them."""

    module: str
    distributions: tuple[str, ...]
    extra: str
    #: The target names the module defines, for listing them when it cannot be imported.
    names: tuple[str, ...]


KNOWN: tuple[Adapter, ...] = (
    Adapter("targets.adapters.openai_chat", ("openai",), "openai",
            ("openai-stream-state", "openai-client", "openai-client-done-events")),
    Adapter("targets.adapters.langchain_core", ("langchain-core",), "langchain", ("langchain-core",)),
)


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


_cache: dict[str, tuple[tuple[Target, ...], str]] = {}


def _load(adapter: Adapter) -> tuple[tuple[Target, ...], str]:
    """The adapter's targets and ``""``, or no targets and why not (cached: imports are slow)."""
    if adapter.module not in _cache:
        missing = [d for d in adapter.distributions if _version(d) is None]
        if missing:
            result: tuple[tuple[Target, ...], str] = ((), f"not installed (pip install 'toolfuzz[{adapter.extra}]')")
        else:
            try:
                result = (tuple(importlib.import_module(adapter.module).TARGETS), "")
            except Exception as e:  # noqa: BLE001 - a broken install is reported, not fatal
                result = ((), f"installed but does not import: {type(e).__name__}: {e}"[:200])
        _cache[adapter.module] = result
    return _cache[adapter.module]


def installed() -> list[Target]:
    """The targets of every adapter whose library is installed and imports."""
    return [t for adapter in KNOWN for t in _load(adapter)[0]]


def status() -> list[tuple[str, str, str]]:
    """``(target name, version or "-", "installed" or why not)`` for every known adapter target."""
    rows = []
    for adapter in KNOWN:
        targets, why = _load(adapter)
        if targets:
            rows.extend((t.name, t.version or "-", "installed") for t in targets)
        else:
            version = _version(adapter.distributions[0]) or "-"
            rows.extend((name, version, why) for name in adapter.names)
    return rows
