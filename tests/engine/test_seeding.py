"""A seed gives the same draws whatever local source is loaded, inside toolfuzz's own Hypothesis runs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

# Run in a process of its own: the literals Hypothesis collects from loaded modules stay for the life of
# the process, and this test must neither inherit the suite's nor leave its own to the other tests.
SCRIPT = textwrap.dedent("""
    import json, sys
    from hypothesis import HealthCheck, Phase, given, seed, settings, strategies as st
    from toolfuzz.cli.generate import generate
    from toolfuzz.vocabulary import Tool
    from toolfuzz.engine.seeding import seeded_by_strategies_only
    from toolfuzz.engine.search import search
    from toolfuzz.targets.specs import resolve_all
    from toolfuzz.strategies.cases import Planner

    # A free string in every case, so that a search of a hundred cases meets the literals when it may.
    TOOLS = (Tool("find", {"type": "object", "properties": {"q": {"type": "string", "maxLength": 20}},
                           "required": ["q"]}),)

    def texts():
        out = []

        @seed(7)
        @settings(max_examples=400, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(st.text(alphabet="-0123456789filtz", min_size=1, max_size=20))
        def collect(text):
            out.append(text)

        collect()
        return out

    def searched():
        seen = []
        search(resolve_all(["reference"]), Planner(tools=TOOLS), max_examples=100, seed=5,
               on_case=lambda case: seen.append(repr(case)))
        return seen

    def inside():
        with seeded_by_strategies_only():
            return texts()

    before = {"texts": inside(), "generated": [repr(c) for c in generate(15, 3)], "searched": searched()}
    sys.path.insert(0, sys.argv[1])
    import toolfuzz_literals
    literals = set(toolfuzz_literals.LITERALS)
    after = {"texts": inside(), "generated": [repr(c) for c in generate(15, 3)], "searched": searched()}
    print(json.dumps({
        "same": {k: before[k] == after[k] and bool(before[k]) for k in before},
        "inside": sorted(literals & set(after["texts"])),
        "outside": sorted(literals & set(texts())),
    }))
""")


def test_a_new_local_module_changes_no_draw_of_a_seeded_run_but_would_without(tmp_path):
    # Short, distinct literals in a module outside site-packages: what Hypothesis mixes into its draws.
    literals = [f"tfz-lit-{n:04d}" for n in range(300)]
    (tmp_path / "toolfuzz_literals.py").write_text(f"LITERALS = {literals!r}\n")
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    # The control: outside the block, the new module's literals are drawn, so the block has work to do
    # (if Hypothesis moved its hook, this still passes and the next assertions fail).
    assert result["outside"], "Hypothesis drew none of the module's literals: the control shows nothing"
    assert result["inside"] == []
    assert result["same"] == {"texts": True, "generated": True, "searched": True}
