"""A run's events and its one figures type (toolfuzz.engine.events)."""

from __future__ import annotations

import pickle

from toolfuzz.engine.events import Stats, signature_of


def test_stats_add_counts_another_searchs_figures_into_this_one():
    mine = Stats(examples=3, by_target={"a": 3}, seconds_in={"a": 0.5}, by_feature={"lf": 2},
                 flaky=["x"])
    theirs = Stats(examples=4, by_target={"a": 4, "b": 4}, seconds_in={"a": 0.25}, by_feature={"crlf": 1},
                   flaky=["y"])
    mine.add(theirs)
    assert mine.examples == 7
    assert mine.by_target == {"a": 7, "b": 4} and mine.seconds_in == {"a": 0.75}
    assert mine.by_feature == {"lf": 2, "crlf": 1} and mine.flaky == ["x", "y"]
    # The other's tables are read, never shared: adding again later must not see this one's sums.
    assert theirs.by_target == {"a": 4, "b": 4}


def test_what_each_worker_is_reducing_is_said_in_the_sum():
    total = Stats()
    for reducing in ("a: call_lost", "", "b: raised"):
        total.add(Stats(reducing=reducing))
    assert total.reducing == "a: call_lost; b: raised"


def test_stats_cross_a_pipe_whole():
    stats = Stats(examples=5, by_target={"a": 5}, stopped_by="budget")
    assert pickle.loads(pickle.dumps(stats)) == stats


def test_a_signature_is_target_kind_and_sorted_features_or_plain():
    assert signature_of("t", "call_lost", ["crlf", "interleaved", "crlf"]) == "t/call_lost/crlf+interleaved"
    assert signature_of("t", "call_lost", []) == "t/call_lost/plain"


def test_hits_add_up_the_earliest_sighting_stands_and_a_replacement_takes_both_over():
    mine = Stats(hits={"t/k/a": 2}, first_seen={"t/k/a": (10, 1.0)}, probes=5, work=100, unreduced=1)
    mine.add(Stats(hits={"t/k/a": 3, "t/k/b": 1}, first_seen={"t/k/a": (4, 2.0), "t/k/b": (7, 0.5)}, probes=2,
                   work=50, unreduced=2))
    assert mine.hits == {"t/k/a": 5, "t/k/b": 1} and mine.first_seen == {"t/k/a": (4, 2.0), "t/k/b": (7, 0.5)}
    assert (mine.probes, mine.work, mine.unreduced) == (7, 150, 3)
    # t/k/plain replaces t/k/a: a's hits, the meeting that replaced it, and a's first sighting are its own now.
    mine.carry("t/k/a", "t/k/plain", "t", "t")
    assert mine.hits == {"t/k/plain": 6, "t/k/b": 1} and mine.first_seen["t/k/plain"] == (4, 2.0)
    assert mine.affected == {}  # the same target's: not met in another


def test_a_root_cause_carried_from_a_target_named_by_a_path_is_met_in_that_target():
    # A file outside the current folder is named by its whole path: its name holds slashes.
    stats = Stats(hits={"/work/x/mine:assemble/call_lost/plain": 2})
    stats.carry("/work/x/mine:assemble/call_lost/plain", "openai-sse/event_lost/plain", "/work/x/mine:assemble",
                "openai-sse")
    assert stats.affected == {"openai-sse/event_lost/plain": {"/work/x/mine:assemble"}}
    stats.carry("/work/x/mine:assemble/id_differs/plain", "/work/x/mine:assemble/id_differs/a",
                "/work/x/mine:assemble", "/work/x/mine:assemble")
    assert "/work/x/mine:assemble/id_differs/a" not in stats.affected


def test_a_root_cause_that_replaces_others_counts_once_in_their_place():
    stats = Stats()
    stats.found("t")
    stats.found("t")
    stats.found("u")
    stats.found("t", replaced=("t", "t"))  # more general than both of t's
    assert stats.divergences == {"t": 1, "u": 1}


def test_a_raise_signature_puts_its_crash_state_beside_the_kind():
    assert signature_of("t", "raised", ["crlf"], "KeyError at m.f") == "t/raised[KeyError at m.f]/crlf"
