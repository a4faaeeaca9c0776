"""A run's events and its one figures type (toolfuzz.engine.events)."""

from __future__ import annotations

import pickle

from toolfuzz.engine.events import Stats, signature_of


def test_stats_add_counts_another_searchs_figures_into_this_one():
    mine = Stats(examples=3, rounds=1, by_target={"a": 3}, seconds_in={"a": 0.5}, by_feature={"lf": 2},
                 flaky=["x"])
    theirs = Stats(examples=4, rounds=2, by_target={"a": 4, "b": 4}, seconds_in={"a": 0.25}, by_feature={"crlf": 1},
                   flaky=["y"])
    mine.add(theirs)
    assert (mine.examples, mine.rounds) == (7, 3)
    assert mine.by_target == {"a": 7, "b": 4} and mine.seconds_in == {"a": 0.75}
    assert mine.by_feature == {"lf": 2, "crlf": 1} and mine.flaky == ["x", "y"]
    # The other's tables are read, never shared: adding again later must not see this one's sums.
    assert theirs.by_target == {"a": 4, "b": 4}


def test_stats_cross_a_pipe_whole():
    stats = Stats(examples=5, by_target={"a": 5}, stopped_by="budget")
    assert pickle.loads(pickle.dumps(stats)) == stats


def test_a_signature_is_target_kind_and_sorted_features_or_plain():
    assert signature_of("t", "call_lost", ["crlf", "interleaved", "crlf"]) == "t/call_lost/crlf+interleaved"
    assert signature_of("t", "call_lost", []) == "t/call_lost/plain"
