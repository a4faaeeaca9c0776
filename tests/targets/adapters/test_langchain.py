"""The langchain-core adapter: summed AIMessageChunks, fed the seed fixtures and a few hand-made streams.

langchain-core is an optional extra (``pip install -e ".[targets]"``); without it this module is skipped
(under CI it fails).
"""

from __future__ import annotations

from importlib import metadata

import pytest

from tests.adapter_checks import require

require("langchain_core")

from toolfuzz.judge.compare import compare  # noqa: E402
from toolfuzz.corpus.fixtures import load  # noqa: E402
from toolfuzz.vocabulary import Case  # noqa: E402
from toolfuzz.judge.sandbox import observe  # noqa: E402
from toolfuzz.targets.adapters.langchain_core import TARGETS  # noqa: E402
from toolfuzz.targets.reference import assemble  # noqa: E402
from toolfuzz.targets.registry import builtin_targets  # noqa: E402
from tests.streams import chunk, frag, head, sse  # noqa: E402
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
(LC,) = TARGETS


def kinds(case):
    return [d.kind for d in compare(case.expected, observe(LC, case), LC)]


def case_of(wire: bytes) -> Case:
    return Case(reads=(wire,), expected=assemble([wire]))


def test_registered_with_the_installed_version():
    assert builtin_targets()["langchain-core"].fn is LC.fn
    assert LC.version == metadata.version("langchain-core") and LC.level == "events"


def test_the_two_interleaved_calls_merge_by_index():
    case = load(SEED / "two-calls-interleaved.json").case
    obs = observe(LC, case)
    assert [(c.index, c.id, c.name, c.arguments, c.complete) for c in obs.calls] == [
        (0, "call_w1", "get_weather", '{"city": "Paris", "unit": "celsius"}', True),
        (1, "call_r1", "read_file", '{"path": "/etc/hosts"}', True)]
    assert kinds(case) == []


@pytest.mark.parametrize("name", sorted(p.name for p in SEED.glob("*.json")))
def test_every_seed_fixture(name):
    assert kinds(load(SEED / name).case) == []


def test_the_finish_reason_survives_the_sum_and_decides_completion():
    finished = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), chunk(finish="tool_calls"))
    cut = sse(chunk(head(0, "call_1", "f", '{"a": 1}')), done=False)
    assert [c.complete for c in observe(LC, case_of(finished)).calls] == [True]
    assert [c.complete for c in observe(LC, case_of(cut)).calls] == [False]


def test_a_repeated_name_is_concatenated():
    # merge_dicts appends every string except an equal id: a server that repeats
    # the name on each fragment gives a user the tool name 'ff'.
    wire = sse(chunk(head(0, "call_1", "f", '{"a"')), chunk({"index": 0, "function": {"name": "f", "arguments": ": 1}"}}),
               chunk(finish="tool_calls"))
    assert [c.name for c in observe(LC, case_of(wire)).calls] == ["ff"]
    assert kinds(case_of(wire)) == ["name_differs"]


def test_fragments_without_an_index_are_never_merged():
    # merge_lists only merges entries with an integer index: each fragment
    # without one stays its own tool call chunk, so a user gets f('{"a"') and a
    # nameless call holding ': 1}' (all the text is there, split between calls).
    wire = sse(chunk(head(None, "call_1", "f", '{"a"')), chunk(frag(None, ": 1}")), chunk(finish="tool_calls"))
    assert [(c.name, c.arguments) for c in observe(LC, case_of(wire)).calls] == [("f", '{"a"'), (None, ": 1}")]
    assert kinds(case_of(wire)) == ["arguments_misattributed"]


def test_only_the_first_choice_is_read():
    # langchain has no choices: a second choice's call is lost to a user.
    wire = sse(chunk(head(0, "call_a", "f", "{}"), choice=0), chunk(head(0, "call_b", "g", "{}"), choice=1),
               {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"},
                            {"index": 1, "delta": {}, "finish_reason": "tool_calls"}]})
    obs = observe(LC, case_of(wire))
    assert {c.choice for c in obs.calls} == {0}
    assert kinds(case_of(wire))[0] in ("choices_mixed", "call_lost")
