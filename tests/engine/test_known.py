"""toolfuzz.engine.known: hits of a known root cause, and the more general finding replacing the less."""

from __future__ import annotations

import pickle

from toolfuzz.engine.known import Known, Root, depths
from toolfuzz.identity import CrashState

S = CrashState.parse


def root(features, kind="id_differs", state=None, target="t"):
    return Root(target, kind, state, frozenset(features))


def test_a_case_with_all_the_minimal_features_of_a_known_root_cause_is_a_hit_of_it():
    known = Known([root({"crlf"})])
    assert known.explaining("t", "id_differs", None, {"crlf", "bom", "multi-call"}) == root({"crlf"})
    assert known.explaining("t", "id_differs", None, {"bom"}) is None
    # Another target, kind or crash state is another root cause, whatever the features.
    assert known.explaining("u", "id_differs", None, {"crlf"}) is None
    assert known.explaining("t", "name_differs", None, {"crlf"}) is None
    assert known.explaining("t", "id_differs", S("KeyError at m.f"), {"crlf"}) is None


def test_fewer_features_replace_more_and_unrelated_ones_stay():
    known = Known([root({"crlf", "bom"}), root({"interleaved"}), root({"crlf", "bom"}, state=S("KeyError at m.f"))])
    replaced = known._add(root({"crlf"}))
    assert replaced == [root({"crlf", "bom"})]
    assert set(known) == {root({"crlf"}), root({"interleaved"}), root({"crlf", "bom"}, state=S("KeyError at m.f"))}
    assert len(known) == 3


def test_the_signature_puts_a_crash_state_beside_its_kind_and_what_is_known_pickles():
    assert root({"crlf"}).signature == "t/id_differs/crlf"
    assert root((), kind="raised", state=S("KeyError at m.f")).signature == "t/raised[KeyError at m.f]/plain"
    known = Known([root({"crlf"})])
    assert list(pickle.loads(pickle.dumps(tuple(known)))) == [root({"crlf"})]


def test_a_raise_is_clustered_by_its_crash_state_whatever_its_features():
    known = Known([root({"crlf", "bom"}, kind="raised", state=S("KeyError at m.f"))])
    assert known.explaining("t", "raised", S("KeyError at m.f"), {"interleaved"}) is not None
    assert known.explaining("t", "raised", S("KeyError at m.g"), {"crlf", "bom"}) is None
    # Without a state (a cmd: target that said nothing of it) features tell raises apart as for any kind.
    known = Known([root({"crlf"}, kind="raised")])
    assert known.explaining("t", "raised", None, {"bom"}) is None


def test_a_target_built_on_another_shares_its_root_causes():
    below = root({"crlf"}, target="state")
    raised = root({"bom"}, kind="raised", state=S("KeyError at lib.f < lib.g < adapter.run"), target="state")
    known = Known([below, raised])
    assert known.explaining("client", "id_differs", None, {"crlf", "bom"}, builds_on="state") == below
    assert known.explaining("client", "id_differs", None, {"bom"}, builds_on="state") is None
    # Entered another way (the client's own frame further out), the innermost frames are the same place.
    assert known.explaining("client", "raised", S("KeyError at lib.f < lib.g < lib.client_loop"), set(),
                            builds_on="state") == raised
    assert known.explaining("client", "raised", S("KeyError at lib.f < lib.h < lib.client_loop"), set(),
                            builds_on="state") is None
    # Without builds_on, another target's root causes explain nothing; a target's own come first.
    assert known.explaining("client", "id_differs", None, {"crlf"}) is None
    own = root({"crlf"}, target="client")
    known._add(own)
    assert known.explaining("client", "id_differs", None, {"crlf"}, builds_on="state") == own


def test_a_raise_from_the_same_innermost_frames_is_one_root_cause_whichever_target_met_it():
    sdk = root({"error-chunk"}, kind="raised", target="openai-client",
               state=S("APIError at sdk.Stream.__stream__ < sdk.Stream.__iter__ < sdk.ChatStream.__stream__"))
    known = Known([sdk])
    # Another library iterating the same stream: the same two innermost frames, entered from its own code.
    assert known.explaining("haystack", "raised", S("APIError at sdk.Stream.__stream__ < sdk.Stream.__iter__"),
                            {"error-chunk"}) == sdk
    # Another exception type, or another frame within the two, is another root cause.
    assert known.explaining("haystack", "raised", S("KeyError at sdk.Stream.__stream__ < sdk.Stream.__iter__"),
                            set()) is None
    assert known.explaining("haystack", "raised", S("APIError at sdk.Stream.__stream__ < haystack.loop"),
                            set()) is None
    # Only raises: another kind of another target is never explained this way.
    assert known.explaining("haystack", "id_differs", None, {"error-chunk"}) is None


def test_running_out_of_time_is_one_root_cause_a_target_whatever_the_case():
    known = Known([root({"large-arguments", "one-char-fragments"}, kind="timed_out")])
    assert known.explaining("t", "timed_out", None, {"multi-call"}) is not None
    assert known.explaining("u", "timed_out", None, {"large-arguments", "one-char-fragments"}) is None
    # Other kinds still need the features.
    known = Known([root({"large-arguments"}, kind="arguments_differ")])
    assert known.explaining("t", "arguments_differ", None, {"multi-call"}) is None


def test_a_reduced_finding_of_another_kind_that_needs_a_known_root_cause_s_features_is_its_variant():
    mixed = root({"multi-choice"}, kind="choices_mixed")
    known = Known([mixed, root({"multi-choice", "bom"}, kind="id_differs"),
                   root({"bom"}, kind="raised", state=S("KeyError at m.f")), root({"crlf"}, kind="timed_out")])
    # The closest (most features) root cause of another kind is named.
    assert known.variant_of("t", "call_lost", None, {"multi-choice", "bom", "length"}).kind == "id_differs"
    assert known.variant_of("t", "call_lost", None, {"multi-choice", "length"}) == mixed
    # Not of its own kind (that is a hit or a new finding), not across targets, not from raises or timeouts,
    # and never for a raise.
    assert known.variant_of("t", "choices_mixed", None, {"multi-choice", "length"}) is None
    assert known.variant_of("u", "call_lost", None, {"multi-choice"}) is None
    assert known.variant_of("t", "call_lost", None, {"bom", "crlf"}) is None
    assert known.variant_of("t", "raised", S("KeyError at m.g"), {"multi-choice"}) is None
    # A root cause met on the plainest stream has every later finding of another kind as its variant.
    plain = root(set(), kind="choices_mixed")
    assert Known([plain]).variant_of("t", "call_lost", None, {"length"}) == plain


def test_a_variant_explains_what_it_would_have_as_a_hit_of_its_root_cause_even_once_replaced():
    known = Known([root({"multi-choice", "bom"}, kind="choices_mixed")])
    lost = Root("t", "call_lost", None, frozenset({"multi-choice", "bom", "length"}))
    known.alias(lost, known.variant_of(*lost.key, lost.features))
    assert known.explaining("t", "call_lost", None, {"multi-choice", "bom", "length", "crlf"}).kind == "choices_mixed"
    assert known.has(lost.key)
    general = root({"multi-choice"}, kind="choices_mixed")
    assert known._add(general) == [root({"multi-choice", "bom"}, kind="choices_mixed")]
    assert known.explaining("t", "call_lost", None, {"multi-choice", "bom", "length"}) == general
    # Aliases are not root causes of their own.
    assert list(known) == [general]


def test_a_root_cause_found_after_its_variants_takes_them_over():
    phantom = root({"index-null", "error-chunk"}, kind="phantom_call")
    known = Known([phantom, root({"index-null", "crlf"}, kind="raised", state=S("KeyError at m.f"))])
    general = root({"index-null"}, kind="arguments_misattributed")
    assert known._add(general) == [phantom]
    assert set(known) == {general, root({"index-null", "crlf"}, kind="raised", state=S("KeyError at m.f"))}
    assert known.explaining("t", "phantom_call", None, {"index-null", "error-chunk", "bom"}) == general
    # Without variants, kinds stay apart.
    apart = Known([phantom], variants=False)
    assert apart._add(general) == [] and len(apart) == 2
    assert apart.variant_of("t", "call_lost", None, {"index-null", "error-chunk"}) is None


def test_a_variant_may_be_of_a_root_cause_of_the_target_below():
    below = root({"interleaved", "multi-call"}, kind="id_differs", target="state")
    known = Known([below])
    assert known.variant_of("client", "name_differs", None, {"interleaved", "multi-call", "no-first-id"},
                            builds_on="state") == below
    assert known.variant_of("client", "name_differs", None, {"interleaved", "multi-call", "no-first-id"}) is None


def test_a_target_built_on_several_shares_the_root_causes_of_each():
    state = root({"crlf"}, target="state")
    decoder = root({"bom"}, kind="event_lost", target="sse")
    known = Known([state, decoder])
    both = ("state", "sse")
    assert known.explaining("client", "id_differs", None, {"crlf", "multi-call"}, builds_on=both) == state
    # The decoder losing the first event is the client losing a call: a variant, on the client's other kind.
    assert known.variant_of("client", "call_lost", None, {"bom"}, builds_on=both) == decoder
    assert known.variant_of("client", "call_lost", None, {"bom"}, builds_on=("state",)) is None
    # One name given as a string is the same as a tuple of it.
    assert known.explaining("client", "id_differs", None, {"crlf"}, builds_on="state") == state
    assert known.explaining("client", "id_differs", None, {"crlf"}, builds_on=("sse",)) is None


def test_a_root_cause_below_seen_from_above_as_a_raise_or_as_a_call_lost_is_a_variant_of_it():
    raise_below = root({"index-null"}, kind="raised", state=S("TypeError at sdk.state.f < sdk.state.g"), target="state")
    made_up = root({"comments", "sse-fields"}, kind="phantom_event", target="sse")
    known = Known([raise_below, made_up])
    both = ("state", "sse")
    # The SDK's state raising on a null index is the client that iterates it losing the call ...
    assert known.variant_of("client", "call_lost", None, {"index-null", "multi-call"}, builds_on=both) == raise_below
    # ... and the decoder making up an event is a decode error in the library that reads its data.
    decode = S("JSONDecodeError at lib.read < lib.stream")
    assert known.variant_of("client", "raised", decode, {"comments", "sse-fields", "crlf"}, builds_on=both) == made_up
    # Features it lacks, or a target it does not build on, and it is a root cause of its own.
    assert known.variant_of("client", "raised", decode, {"comments", "crlf"}, builds_on=both) is None
    assert known.variant_of("client", "call_lost", None, {"index-null"}, builds_on=("sse",)) is None
    # Running out of time, a crash or a bad return says nothing of the stream: never a variant across targets.
    for kind in ("timed_out", "crash", "bad_return"):
        assert known.variant_of("client", kind, None, {"index-null", "comments", "sse-fields"}, builds_on=both) is None
    # Nor is a partial parser's rule a variant of another rule of the parser it builds on.
    partial = Known([root({"utf16-halves"}, kind="string_not_prefix", target="jiter")])
    assert partial.variant_of("sdk-partial", "number_before_complete", None, {"utf16-halves"}, builds_on="jiter") is None
    # Found the other way round, the root cause below takes over the one above it explains, of any kind.
    above = root({"index-null", "multi-call"}, kind="call_lost", target="client")
    later = Known([above])
    later._below["client"] = both
    assert later._add(raise_below) == [above]
    assert set(later) == {raise_below}


def test_targets_below_come_first_however_deep():
    assert depths({"client": ("state", "sse"), "state": (), "sse": (), "app": ("client",)}) == {
        "client": 1, "state": 0, "sse": 0, "app": 2}
    # A target named below but not in the run still puts the one above it after the bottom.
    assert depths({"client": ("sse",)}) == {"client": 1, "sse": 0}
    # A cycle (a mistake in two adapters) still ends.
    assert set(depths({"a": "b", "b": "a"}).values()) == {0, 1}


def test_a_finding_kept_as_met_is_only_a_variant_of_a_root_cause_that_needs_no_feature():
    known = Known([root({"multi-choice"}, kind="choices_mixed")])
    assert known.variant_of("t", "call_lost", None, {"multi-choice", "bom"}, minimal=False) is None
    plain = root(set(), kind="arguments_misattributed")
    known = Known([plain])
    assert known.variant_of("t", "call_lost", None, {"multi-choice", "bom"}, minimal=False) == plain
    # What the process did rather than the calls it gave is never a variant.
    assert known.variant_of("t", "crash", None, {"bom"}) is None
    assert known.variant_of("t", "bad_return", None, {"bom"}) is None


def test_a_raise_of_the_same_type_from_other_frames_that_needs_a_known_raise_s_features_is_its_variant():
    first = root({"index-from-one"}, kind="raised", state=S("IndexError at lib.build < lib.handle"))
    known = Known([first, root({"multi-choice"}, kind="choices_mixed")])
    moved = S("IndexError at lib.accumulate < lib.handle")
    assert known.variant_of("t", "raised", moved, {"index-from-one", "role-chunk"}) == first
    # Another exception type, a stream without the known raise's features, or another kind: apart.
    assert known.variant_of("t", "raised", S("TypeError at lib.accumulate < lib.handle"),
                            {"index-from-one", "role-chunk"}) is None
    assert known.variant_of("t", "raised", moved, {"role-chunk"}) is None
    assert known.variant_of("t", "raised", moved, {"multi-choice"}) is None
    assert known.variant_of("t", "call_lost", None, {"index-from-one"}) is None
    assert Known([first], variants=False).variant_of("t", "raised", moved, {"index-from-one", "role-chunk"}) is None
    # Found after its variant, the raise that needs fewer features takes it over.
    variant = root({"index-from-one", "role-chunk"}, kind="raised", state=moved)
    later = Known([variant])
    assert later._add(first) == [variant] and list(later) == [first]
    assert later.explaining("t", "raised", moved, {"index-from-one", "role-chunk", "crlf"}) == first


def test_a_root_cause_of_the_target_below_found_later_takes_over_those_above_it_explains():
    above = root({"index-missing"}, kind="raised", state=S("TypeError at lib.f < lib.g < lib.client_loop"), target="client")
    lost = root({"bom", "crlf"}, target="client")
    other = root({"crlf"}, kind="raised", state=S("TypeError at lib.h < lib.g < lib.client_loop"), target="client")
    known = Known([above, lost, other])
    known._below["client"] = "state"
    below = root({"index-missing", "role-chunk"}, kind="raised", state=S("TypeError at lib.f < lib.g < adapter.run"),
                 target="state")
    assert known._add(below) == [above]
    assert known._add(root({"bom"}, target="state")) == [lost]
    assert set(known) == {below, other, root({"bom"}, target="state")}
    assert known.explaining("client", "raised", above.state, {"index-missing"}, builds_on="state") == below


def test_the_partial_levels_kinds_are_each_a_root_cause_never_a_variant_of_another():
    plain = root(set(), kind="number_before_complete")
    known = Known([plain])
    # A root cause on the plainest stream makes any other call-level kind its variant, but a rule of the
    # partial contract is kept or broken on its own.
    assert known.variant_of("t", "string_not_prefix", None, {"utf16-halves"}) is None
    assert known.variant_of("t", "number_before_complete", None, set()) is None  # its own kind: a hit, not a variant
    assert Known([root(set(), kind="choices_mixed")]).variant_of("t", "value_taken_back", None, set()) is None
    # A raise on a prefix clusters by its crash state, whatever the case's features.
    raised = Known([root({"crlf"}, kind="raised_on_prefix", state=S("ValueError at p.f"))])
    assert raised.explaining("t", "raised_on_prefix", S("ValueError at p.f"), {"bom"}) is not None
    assert raised.explaining("t", "raised_on_prefix", S("ValueError at p.g"), {"crlf"}) is None
