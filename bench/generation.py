"""Cases per second, stage by stage and end to end, on the bundled corpus.

    .venv/bin/python -m bench.generation [--examples N]

Each figure is Hypothesis drawing from one strategy inside a @given test
(generate phase only, no database), so it includes the engine's own cost,
which is what a fuzzing run pays.  Ratios against the end-to-end rate show
where the time goes; the goal is 300 end-to-end cases per second per core.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from toolfuzz.vocabulary import DIALECTS
from toolfuzz.strategies import (
    bundled_tools,
    call_defects,
    cases,
    finish_reasons,
    fragments,
    framings,
    interleavings,
    profile_sets,
    read_cuts,
    schema_values,
    serialisations,
    stream_endings,
    tool_arguments,
)
from toolfuzz.strategies.arguments import validator
from toolfuzz.strategies.framing import Payload


def rate(strategy: st.SearchStrategy[Any], n: int) -> float:
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(_: Any) -> None:
        pass

    start = time.perf_counter()
    run()
    return n / (time.perf_counter() - start)


def measure(n: int = 1000) -> list[tuple[str, float]]:
    """Cases per second for each stage, end to end last: (stage, rate) rows for ``python -m bench`` too."""
    tools = bundled_tools()
    text = json.dumps({"path": "src/main.py", "content": 'print("hé\\\\llo")\n' * 20})
    wire = b"".join(b'data: {"choices":[{"index":0,"delta":{"content":"h\xc3\xa9"}}]}\r\n\r\n' for _ in range(20))
    simple = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
              "required": ["a"]}
    from hypothesis_jsonschema import from_schema

    rows = [
        ("arguments: simple schema, fast path", schema_values(simple)),
        ("arguments: simple schema, hypothesis-jsonschema", from_schema(simple).filter(validator(simple).is_valid)),
        ("arguments: simple schema, closed, hypothesis-jsonschema",
         from_schema({**simple, "additionalProperties": False})),
        ("arguments: bundled corpus", st.sampled_from(tools).flatmap(tool_arguments)),
        # a fixed value has only a handful of serialisations, so draw values too
        ("serialisation (with its value)", st.sampled_from(tools).flatmap(tool_arguments).flatmap(serialisations)),
        ("fragments (1 KB text)", fragments(text)),
        ("interleaving (3 calls)", interleavings([6, 4, 8])),
        ("framing (10 payloads)", framings([Payload({"choices": [], "n": i}) for i in range(10)])),
        ("read cuts (1.5 KB wire)", read_cuts(wire)),
        ("call shapes: profile_sets()", profile_sets()),
        ("endings: stream_endings, finish_reasons, call_defects",
         st.tuples(stream_endings(), finish_reasons("tool_calls"), call_defects())),
        *[(f"end to end: cases(dialect={d!r})", cases(dialect=d)) for d in DIALECTS if d != "openai-chat"],
        ("end to end: cases()", cases()),
    ]
    return [(name, rate(s, n)) for name, s in rows]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=1000)
    results = measure(parser.parse_args().examples)
    end_to_end = results[-1][1]
    print(f"{'stage':<58} {'cases/s':>9} {'x end-to-end':>13}")
    for name, r in results:
        print(f"{name:<58} {r:9.0f} {r / end_to_end:13.1f}")
    print(f"\ngoal: 300 end-to-end cases/s per core; measured {end_to_end:.0f} ({end_to_end / 300:.0%} of goal)")


if __name__ == "__main__":
    main()
