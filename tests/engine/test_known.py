"""toolfuzz.engine.known: hits of a known root cause, and the more general finding replacing the less."""

from __future__ import annotations

import pickle

from toolfuzz.engine.known import Known, Root


def root(features, kind="id_differs", state="", target="t"):
    return Root(target, kind, state, frozenset(features))


def test_a_case_with_all_the_minimal_features_of_a_known_root_cause_is_a_hit_of_it():
    known = Known([root({"crlf"})])
    assert known.explaining("t", "id_differs", "", {"crlf", "bom", "multi-call"}) == root({"crlf"})
    assert known.explaining("t", "id_differs", "", {"bom"}) is None
    # Another target, kind or crash state is another root cause, whatever the features.
    assert known.explaining("u", "id_differs", "", {"crlf"}) is None
    assert known.explaining("t", "name_differs", "", {"crlf"}) is None
    assert known.explaining("t", "id_differs", "KeyError at m.f", {"crlf"}) is None


def test_fewer_features_replace_more_and_unrelated_ones_stay():
    known = Known([root({"crlf", "bom"}), root({"interleaved"}), root({"crlf", "bom"}, state="KeyError at m.f")])
    replaced = known._add(root({"crlf"}))
    assert replaced == [root({"crlf", "bom"})]
    assert set(known) == {root({"crlf"}), root({"interleaved"}), root({"crlf", "bom"}, state="KeyError at m.f")}
    assert len(known) == 3


def test_the_signature_puts_a_crash_state_beside_its_kind_and_what_is_known_pickles():
    assert root({"crlf"}).signature == "t/id_differs/crlf"
    assert root((), kind="raised", state="KeyError at m.f").signature == "t/raised[KeyError at m.f]/plain"
    known = Known([root({"crlf"})])
    assert list(pickle.loads(pickle.dumps(tuple(known)))) == [root({"crlf"})]


def test_a_raise_is_clustered_by_its_crash_state_whatever_its_features():
    known = Known([root({"crlf", "bom"}, kind="raised", state="KeyError at m.f")])
    assert known.explaining("t", "raised", "KeyError at m.f", {"interleaved"}) is not None
    assert known.explaining("t", "raised", "KeyError at m.g", {"crlf", "bom"}) is None
    # Without a state (a cmd: target that said nothing of it) features tell raises apart as for any kind.
    known = Known([root({"crlf"}, kind="raised")])
    assert known.explaining("t", "raised", "", {"bom"}) is None
