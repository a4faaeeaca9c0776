"""Each self-test mutant that makes sense in an event dialect is found there; the correct targets stay quiet."""

from __future__ import annotations

from hypothesis import Phase, find, given, settings
import pytest

from toolfuzz import strategies
from toolfuzz.judge.compare import compare
from toolfuzz.vocabulary import Tool
from toolfuzz.judge.feeding import chunks_of
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.registry import REFERENCE
from toolfuzz.targets.selftest import PLAIN, SELFTEST

# Hypothesis warns when it writes a large case into a report; a found case here is the point, not a failure.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

DIALECTS = ("openai-responses", "anthropic")
#: Arguments that always hold multibyte characters, for the mistakes that only show on them.
UNICODE = Tool("say", {"type": "object", "properties": {"text": {"enum": ["naïve café 😀 ünïcödé"]}},
                       "required": ["text"], "additionalProperties": False})
#: Where a mistake needs a shape to show, the cases are drawn with it.
SHAPES = {
    "selftest-shared-buffer": {"openai-responses": ["interleaved-items"], "anthropic": ["interleaved-blocks"]},
    "selftest-tool-number-as-index": {"anthropic": ["text-before-tools", "thinking-before-tools"]},
}
TOOLS = {"selftest-decode-each-read": [UNICODE]}
FIND = settings(max_examples=400, database=None, derandomize=True, phases=[Phase.generate])


def kinds(target, case):
    return {d.kind for d in compare(case.expected, observe(target, case, chunks_of(case)), target)}


# A partial parser reads no wire: tests/targets/selftest/test_partial.py.
ASSEMBLERS = [m for m in SELFTEST if m.level != "partial"]
PAIRS = [(d, m) for d in DIALECTS for m in ASSEMBLERS if d in m.dialects]


def test_the_mutants_that_make_sense_in_each_dialect_run_there():
    names = {d: sorted(m.name.removeprefix("selftest-") for m in ASSEMBLERS if d in m.dialects) for d in DIALECTS}
    common = ["brace-completion", "decode-each-read", "hand-out-after-disconnect", "parse-each-fragment",
              "read-as-delta", "shared-buffer"]
    assert names["openai-responses"] == sorted(common + ["concat-names-and-ids", "item-id-for-call-id"])
    assert names["anthropic"] == sorted(common + ["tool-number-as-index"])


@pytest.mark.parametrize("dialect,mutant", PAIRS, ids=[f"{d}-{m.name}" for d, m in PAIRS])
def test_each_mutant_is_found_with_its_mistake(dialect, mutant):
    strategy = strategies.cases(TOOLS.get(mutant.name), SHAPES.get(mutant.name, {}).get(dialect), dialect)
    case = find(strategy, lambda c: mutant.mistake in kinds(mutant, c), settings=FIND)
    assert kinds(REFERENCE, case) == set()  # the divergence is the mutant's, not the generator's


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_correct_targets_never_diverge(dialect):
    @settings(max_examples=40)
    @given(strategies.cases(dialect=dialect))
    def check(case):
        assert kinds(REFERENCE, case) == set() and kinds(PLAIN, case) == set()

    check()
