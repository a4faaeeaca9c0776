"""Hypothesis strategies for streamed tool calls: from tool schemas to cut network reads.

The pipeline, each stage a strategy usable in your own ``@given`` tests:

1. tools: :func:`bundled_tools`, :func:`usable_tools`
2. arguments: :func:`tool_arguments`, :func:`schema_values`
3. serialisation: :func:`serialisations`
4. fragments: :func:`fragments`
5. interleaving: :func:`interleavings`
6. call shapes: :data:`PROFILES`, :func:`profile_sets`, :func:`entry_steps`, :func:`render_chunk`
7. endings: :func:`stream_endings`, :func:`finish_reasons`, :func:`call_defects`
8. transport: :func:`framings`, :func:`read_cuts`

and :func:`cases`, which runs them all and knows the outcome.
"""

from toolfuzz.strategies.arguments import schema_values, tool_arguments
from toolfuzz.strategies.cases import PLAIN_FEATURES, cases, profile_sets
from toolfuzz.strategies.chunks import groupings, render_chunk
from toolfuzz.strategies.corpus import bundled_tools, resolve_tools
from toolfuzz.strategies.endings import call_defects, finish_reasons, stream_endings
from toolfuzz.strategies.fragments import fragments, hard_places
from toolfuzz.strategies.framing import Framed, FramedEvent, Payload, framings
from toolfuzz.strategies.interleave import interleavings, merge
from toolfuzz.strategies.plan import entry_steps
from toolfuzz.strategies.profiles import PROFILES, Profile
from toolfuzz.strategies.reads import read_cuts
from toolfuzz.strategies.serialise import SERIALISERS, serialisations
from toolfuzz.strategies.usable import usable_tools

__all__ = [
    "PLAIN_FEATURES",
    "PROFILES",
    "Profile",
    "SERIALISERS",
    "Framed",
    "FramedEvent",
    "Payload",
    "bundled_tools",
    "resolve_tools",
    "call_defects",
    "cases",
    "entry_steps",
    "finish_reasons",
    "fragments",
    "framings",
    "groupings",
    "hard_places",
    "interleavings",
    "merge",
    "profile_sets",
    "read_cuts",
    "render_chunk",
    "schema_values",
    "serialisations",
    "stream_endings",
    "tool_arguments",
    "usable_tools",
]
