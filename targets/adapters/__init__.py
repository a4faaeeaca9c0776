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
import json
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from toolfuzz.targets.adapters.scopes import SCOPES
from toolfuzz.targets.base import Target
from toolfuzz.vocabulary import TEXT_FORMATS, version_key

__all__ = ["Adapter", "KNOWN", "installed", "status", "verified", "verified_text", "unavailable", "distributions_for",
           "VERIFIED", "level_of"]

#: Which releases of each library its adapters' tests passed on: ``toolfuzz verify --write`` keeps it.
VERIFIED = Path(__file__).with_name("verified.json")


@dataclass(frozen=True)
class Adapter:
    """One adapter module: which distributions it needs, and the extra that installs them."""

    module: str
    distributions: tuple[str, ...]
    extra: str
    #: The target names the module defines, for listing them when it cannot be imported.
    names: tuple[str, ...]
    #: The oldest release of the first distribution the adapter supports, and why none before ("" for every one).
    since: str = ""
    why: str = ""
    #: The built-in environment recipe it runs in (``toolfuzz env add NAME``), for a library whose pins cannot
    #: share toolfuzz's environment: its targets run there as ``TARGET@NAME``.
    environment: str = ""
    #: The level of its targets, said where they cannot be loaded ("" for the default, events or bytes).
    level: str = ""


KNOWN: tuple[Adapter, ...] = (
    Adapter("toolfuzz.targets.adapters.openai_chat", ("openai",), "openai",
            ("openai-stream-state", "openai-client", "openai-client-done-events")),
    Adapter("toolfuzz.targets.adapters.langchain_core", ("langchain-core",), "langchain", ("langchain-core",)),
    Adapter("toolfuzz.targets.adapters.openai_sse", ("openai",), "openai", ("openai-sse",)),
    Adapter("toolfuzz.targets.adapters.anthropic_sse", ("anthropic",), "anthropic", ("anthropic-sse",)),
    Adapter("toolfuzz.targets.adapters.httpx_sse", ("httpx-sse", "httpx"), "sse", ("httpx-sse",)),
    Adapter("toolfuzz.targets.adapters.sseclient_py", ("sseclient-py",), "sse", ("sseclient-py",)),
    Adapter("toolfuzz.targets.adapters.anthropic_messages", ("anthropic",), "anthropic",
            ("anthropic-accumulator", "anthropic-client")),
    Adapter("toolfuzz.targets.adapters.openai_responses", ("openai",), "openai",
            ("openai-responses-state", "openai-responses-client"),
            since="1.66.0", why="the Responses API and its stream state came in openai 1.66.0"),
    Adapter("toolfuzz.targets.adapters.langchain_anthropic", ("langchain-anthropic", "anthropic"),
            "langchain-anthropic", ("langchain-anthropic", "langchain-anthropic-client")),
    Adapter("toolfuzz.targets.adapters.litellm", ("litellm", "openai"), "litellm",
            ("litellm-builder", "litellm-client")),
    Adapter("toolfuzz.targets.adapters.pydantic_ai", ("pydantic-ai-slim", "openai"), "pydantic-ai",
            ("pydantic-ai-parts", "pydantic-ai-openai"),
            since="1.0.0", why="written for pydantic-ai's 1.0 API; the 0.x parts manager and models differ"),
    Adapter("toolfuzz.targets.adapters.llama_index", ("llama-index-llms-openai", "openai"), "llama-index",
            ("llama-index",)),
    Adapter("toolfuzz.targets.adapters.haystack", ("haystack-ai", "httpx", "openai"), "haystack", ("haystack",)),
    Adapter("toolfuzz.targets.adapters.openai_agents", ("openai-agents", "openai"), "openai-agents", ("openai-agents",),
            since="0.0.12", why="ChatCmplStreamHandler, the assembler it feeds, came in openai-agents 0.0.12"),
    Adapter("toolfuzz.targets.adapters.smolagents", ("smolagents", "openai"), "smolagents", ("smolagents-agglomerate",),
            since="1.19.0", why="agglomerate_stream_deltas, the assembler it judges, came in smolagents 1.19.0"),
    Adapter("toolfuzz.targets.adapters.langchain_openai", ("langchain-openai", "langchain-core", "openai"),
            "langchain-openai", ("langchain-openai",)),
    Adapter("toolfuzz.targets.adapters.pydantic_ai_anthropic", ("pydantic-ai-slim", "anthropic", "openai"),
            "pydantic-ai,anthropic", ("pydantic-ai-anthropic",),
            since="1.0.0", why="written for pydantic-ai's 1.0 API; the 0.x parts manager and models differ"),
    Adapter("toolfuzz.targets.adapters.litellm_anthropic", ("litellm", "httpx", "openai"), "litellm",
            ("litellm-anthropic", "litellm-anthropic-client")),
    # Partial JSON parsers (level partial): a value shown for each prefix of a call's arguments.
    Adapter("toolfuzz.targets.adapters.jiter_partial", ("jiter",), "partial",
            ("jiter-partial", "jiter-trailing-strings")),
    Adapter("toolfuzz.targets.adapters.pydantic_core_partial", ("pydantic-core",), "partial",
            ("pydantic-core-partial", "pydantic-core-trailing-strings")),
    Adapter("toolfuzz.targets.adapters.partial_json_parser", ("partial-json-parser",), "partial",
            ("partial-json-parser", "partial-json-parser-no-str")),
    Adapter("toolfuzz.targets.adapters.json_repair", ("json-repair",), "partial",
            ("json-repair", "json-repair-stream-stable")),
    Adapter("toolfuzz.targets.adapters.langchain_core_partial", ("langchain-core",), "partial",
            ("langchain-core-partial", "langchain-core-chunk-args")),
    # The provisional values SDKs hand out while a call streams, judged by the same partial contract.
    Adapter("toolfuzz.targets.adapters.openai_partial", ("openai",), "openai", ("openai-parsed-arguments",)),
    Adapter("toolfuzz.targets.adapters.anthropic_partial", ("anthropic",), "anthropic", ("anthropic-input-snapshot",)),
    # Serving engines' tool parsers (level producer), each engine in an environment of its own.
    Adapter("toolfuzz.targets.adapters.sglang", ("sglang",), "", tuple(f"sglang-{f}" for f in TEXT_FORMATS),
            environment="sglang", level="producer"),
    Adapter("toolfuzz.targets.adapters.vllm", ("vllm",), "",
            tuple(f"vllm-{f}" for f in TEXT_FORMATS if f not in ("internlm", "cohere-command4")),
            environment="vllm", level="producer"),
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
        installed = _version(adapter.distributions[0])
        if missing and adapter.environment:
            result: tuple[tuple[Target, ...], str] = (
                (), f"not installed here: it runs in an environment of its own (toolfuzz env add "
                    f"{adapter.environment}, then --target NAME@{adapter.environment})")
        elif missing:
            result = ((), f"not installed (pip install 'toolfuzz[{adapter.extra}]')")
        elif adapter.since and installed and version_key(installed) < version_key(adapter.since):
            result = ((), f"needs {adapter.distributions[0]} {adapter.since} or later, not {installed}: {adapter.why}")
        else:
            try:
                # Each with its scope from the one table (scopes.py), which grades fixtures of targets not
                # installed here the same way.
                result = (tuple(replace(t, scope=SCOPES.get(t.name, t.scope))
                                for t in importlib.import_module(adapter.module).TARGETS), "")
            except Exception as e:  # noqa: BLE001 - a broken install is reported, not fatal
                result = ((), f"installed but does not import: {type(e).__name__}: {e}"[:200])
        _cache[adapter.module] = result
    return _cache[adapter.module]


def installed(names: Iterable[str] | None = None) -> list[Target]:
    """The targets of every adapter whose library is installed and imports.

    With ``names``, only the adapters that define one of them are imported: a run of two targets should not
    pay for importing every library on the machine (litellm alone takes seconds).
    """
    wanted = None if names is None else set(names)
    return [t for adapter in KNOWN if wanted is None or wanted & set(adapter.names) for t in _load(adapter)[0]]


def unavailable(name: str) -> str | None:
    """Why the known adapter target ``name`` cannot run here (not installed, or does not import); None when
    it can, or when no known adapter defines it."""
    for adapter in KNOWN:
        if name in adapter.names:
            targets, why = _load(adapter)
            return None if any(t.name == name for t in targets) else why or "installed, but the adapter does not define it"
    return None


def distributions_for(name: str) -> tuple[str, ...]:
    """The distributions the known adapter target ``name`` needs installed; empty for a name no adapter defines."""
    return next((adapter.distributions for adapter in KNOWN if name in adapter.names), ())


def verified() -> dict[str, str]:
    """Target name -> the releases of its library its adapter's tests passed on ("" where none were tried)."""
    try:
        doc = json.loads(VERIFIED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = {}
    found = {}
    for adapter in KNOWN:
        library = adapter.distributions[0]
        parts = [verified_text(doc[library], library)] if isinstance(doc.get(library), dict) else []
        parts += [f"this adapter: {adapter.since} and later"] * bool(adapter.since)
        found.update(dict.fromkeys(adapter.names, "; ".join(parts)))
    return found


def verified_text(entry: dict[str, Any], library: str = "") -> str:
    """One library's verdicts for a person: ``openai 1.56.1, 2.8.0, 3.57.0`` and what failed or did not load."""
    releases = entry.get("releases", {})
    said = {outcome: [v for v, r in releases.items() if isinstance(r, dict) and r.get("outcome") == outcome]
            for outcome in ("passes", "fails", "error")}
    text = ", ".join(said["passes"]) or "no release"
    rest = [f"fails on {', '.join(said['fails'])}"] * bool(said["fails"]) \
        + [f"{', '.join(said['error'])}: did not run"] * bool(said["error"])
    return f"{library} {text}".strip() + (f" ({'; '.join(rest)})" if rest else "")


def level_of(name: str) -> str:
    """The level of the known adapter target ``name`` as its adapter says it without loading ("" if it does not)."""
    return next((adapter.level for adapter in KNOWN if name in adapter.names), "")


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
