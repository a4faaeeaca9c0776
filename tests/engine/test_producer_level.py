"""The producer level end to end: a serving engine's parser searched, judged and reduced like any target.

The parsers are tests/data/hermes_parser.py's: one that reads the hermes format right, and the same with one
mistake of the kind real parsers make.
"""

from __future__ import annotations

from tests.data.hermes_parser import drops_after, parse
from toolfuzz.engine.search import search
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets.base import Target

RIGHT = Target(name="hermes-right", fn=parse, level="producer", dialects=("text:hermes",), takes_request=True)
DROPS_AFTER = Target(name="hermes-drops-after", fn=drops_after, level="producer", dialects=("text:hermes",),
                     takes_request=True)


def test_a_parser_that_reads_its_format_right_has_no_divergence_whatever_the_batches():
    findings, stats = search([RIGHT], Planner(dialect="text:hermes"), max_examples=400, budget=600, seed=4)
    assert findings == [] and stats.examples == 400
    assert stats.by_feature.get("one-token-batches", 0) > 20 and stats.by_feature.get("content-between", 0) > 20


def test_a_parser_that_drops_the_text_after_the_calls_is_one_root_cause_reduced_to_that_text():
    findings, stats = search([DROPS_AFTER], Planner(dialect="text:hermes"), max_examples=400, budget=600, seed=4,
                             plain=PLAIN_FEATURES)
    assert [f.signature for f in findings] == ["hermes-drops-after/content_differs/content-after"]
    (found,) = findings
    assert len(found.case.expected.calls) == 1 and len(found.case.reads) == 1
    assert stats.hits[found.signature] > 10
