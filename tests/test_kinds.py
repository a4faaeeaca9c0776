"""The one table of kinds: every module reads it, and the docs print it as it is."""

from toolfuzz import kinds
from toolfuzz.engine import known
from toolfuzz.judge.compare import KINDS
from toolfuzz.judge.compare_events import SSE_KINDS
from toolfuzz.judge.compare_partial import PARTIAL_KINDS
from toolfuzz.judge.compare_producer import OWN_RULES, PRODUCER_KINDS
from tests.paths import ROOT


def test_docs_print_the_table_as_it_is():
    page = (ROOT / "docs" / "divergences.md").read_text(encoding="utf-8")
    assert kinds.markdown() in page


def test_each_level_s_kinds_are_the_rows_judged_there_in_check_order():
    assert list(KINDS) == [k.name for k in kinds.TABLE]
    assert list(SSE_KINDS) == ["event_lost", "phantom_event", "data_differs", "event_type_differs", "event_id_differs"]
    assert list(PARTIAL_KINDS)[0] == "final_differs" and set(PARTIAL_KINDS) <= set(KINDS)
    assert set(PRODUCER_KINDS) == {"arguments_invalid", "index_differs", "markup_leaked", "content_differs",
                                   "whole_differs"}
    assert OWN_RULES == {"markup_leaked", "content_differs", "whole_differs"}


def test_the_engine_tells_root_causes_apart_by_the_table_s_traits():
    assert known.PER_TARGET == {"timed_out", "hang", "memory"}
    # A raise is apart from every other kind, yet a root cause below may be seen from above as one.
    assert "raised" in kinds.with_trait(kinds.Trait.APART)
    assert "raised" not in kinds.with_trait(kinds.Trait.NEVER_ACROSS)
    assert kinds.with_trait(kinds.Trait.BY_STATE) == {"raised", "raised_on_prefix"}
    assert set(PARTIAL_KINDS) <= kinds.with_trait(kinds.Trait.APART) & kinds.with_trait(kinds.Trait.NEVER_ACROSS)


def test_every_kind_has_a_meaning_a_harm_and_a_cited_rule():
    assert all(k.meaning and k.rule.cite for k in kinds.TABLE)
    assert len({k.name for k in kinds.TABLE}) == len(kinds.TABLE)
