"""The search: cases from seeds, one report a root cause, hits counted, the share for reducing kept."""

from __future__ import annotations

import time
from dataclasses import replace
from random import Random

from toolfuzz.engine.events import Finding, Found, Progress, signature_of
from toolfuzz.engine.known import Known, Root
from toolfuzz.identity import RootKey
from toolfuzz.engine.search import FINISHING_SHARE, TIMEOUT_MARGIN, _first_new, search, search_for_kind
from toolfuzz.judge.compare import Divergence
from toolfuzz.judge.observation import Observation
from toolfuzz.judge.sandbox import observe
from toolfuzz.strategies import PLAIN_FEATURES
from toolfuzz.strategies.cases import Planner
from toolfuzz.targets.base import Target
from toolfuzz.targets.registry import REFERENCE
from toolfuzz.targets.selftest import PLAIN as PLAIN_ASSEMBLER, SELFTEST

PLAIN = Planner(profiles=["openai"])
SHARED = next(m for m in SELFTEST if m.name == "selftest-shared-buffer")
READ_AS_DELTA = next(m for m in SELFTEST if m.name == "selftest-read-as-delta")
HAND_OUT = next(m for m in SELFTEST if m.name == "selftest-hand-out-after-disconnect")
CONCAT = next(m for m in SELFTEST if m.name == "selftest-concat-names-and-ids")


def test_a_search_is_the_same_search_for_the_same_seed():
    seen = [[], []]
    for run in seen:
        search([REFERENCE], PLAIN, max_examples=40, budget=600, seed=5, on_case=lambda case, run=run: run.append(case.wire))
    assert seen[0] == seen[1] and len(set(seen[0])) > 30


def test_the_examples_bound_a_search_that_finds_nothing():
    findings, stats = search([REFERENCE], PLAIN, max_examples=90, budget=600, seed=1)
    assert (findings, stats.examples, stats.stopped_by) == ([], 90, "examples")


def test_a_case_outside_a_target_s_scope_is_never_run_on_it_and_is_counted_apart():
    from toolfuzz.targets.base import Scope

    seen = []

    def single_choice(chunks):
        seen.append({c["index"] for chunk in chunks for c in chunk.get("choices") or ()})
        return []

    one = Target("one-choice", single_choice, scope=Scope(choices=1))
    findings, stats = search([one], Planner(), max_examples=300, budget=600, seed=3)
    assert seen and all(choices <= {0} for choices in seen)
    # The rest were drawn and run on no target here: counted, so a person can see how much the scope left out.
    assert stats.out_of_scope["one-choice"] > 20
    assert stats.by_target["one-choice"] + stats.out_of_scope["one-choice"] == stats.examples


def test_one_root_cause_is_reduced_once_and_every_later_divergence_is_a_hit_of_it():
    events = []
    findings, stats = search([SHARED], Planner(), max_examples=1500, budget=600, seed=2, plain=PLAIN_FEATURES,
                             emit=events.append)
    signatures = {f.signature for f in findings}
    assert "selftest-shared-buffer/arguments_misattributed/interleaved+multi-call" in signatures
    assert stats.hits["selftest-shared-buffer/arguments_misattributed/interleaved+multi-call"] > 50
    # Every Found names a finding still standing, or one a later Found replaced.
    found = [e for e in events if isinstance(e, Found)]
    replaced = {s for e in found for s in e.replaces}
    assert {e.finding.signature for e in found} - replaced == signatures
    assert all(stats.first_seen[s][0] <= stats.examples for s in signatures)


def test_a_reduced_finding_keeps_only_the_features_its_divergence_needs():
    findings, _ = search([SHARED], Planner(), max_examples=1500, budget=600, seed=2, plain=PLAIN_FEATURES)
    (f,) = [f for f in findings if f.divergence.kind == "arguments_misattributed"]
    assert not f.unshrunk
    assert len(f.case.expected.calls) == 2 and len(f.case.reads) == 1


def test_a_search_for_one_kind_hands_back_only_that_kind():
    mine, tries = search_for_kind(READ_AS_DELTA, "call_lost", Planner(), seed=0, max_examples=3000, budget=600,
                                  plain=PLAIN_FEATURES)
    assert mine and {f.divergence.kind for f in mine} == {"call_lost"}
    assert tries[-1].stopped_by == "found"


def test_a_kind_that_never_turns_up_ends_after_the_tries_allowed():
    mine, tries = search_for_kind(REFERENCE, "call_lost", PLAIN, seed=0, attempts=2, max_examples=60, budget=600)
    assert mine == [] and len(tries) == 2 and all(t.examples == 60 for t in tries)


def test_a_target_built_on_another_counts_what_both_get_wrong_as_hits_of_the_one_below():
    from dataclasses import replace
    above = replace(SHARED, name="shared-buffer-client", builds_on=SHARED.name)
    # Listed first, it still runs after the target it builds on, so the root cause is found below.
    findings, stats = search([above, SHARED], Planner(), max_examples=600, budget=600, seed=2, plain=PLAIN_FEATURES)
    signature = "selftest-shared-buffer/arguments_misattributed/interleaved+multi-call"
    assert signature in {f.signature for f in findings}
    assert not [f for f in findings if f.target.name == above.name and f.divergence.kind == "arguments_misattributed"]
    assert stats.affected[signature] == {above.name}
    alone, _ = search([above], Planner(), max_examples=600, budget=600, seed=2, plain=PLAIN_FEATURES)
    assert "shared-buffer-client/arguments_misattributed/interleaved+multi-call" in {f.signature for f in alone}


def test_a_mistake_that_shows_as_another_kind_on_other_streams_is_one_root_cause_with_its_variants():
    from toolfuzz.targets.base import Target
    from toolfuzz.targets.selftest.plain import assemble_chunks

    def one_choice(chunks):
        # Every choice's calls handed on as choice 0's: two calls at one position when both have one.
        calls = assemble_chunks(chunks)
        for call in calls:
            call["choice"] = 0
        return calls

    findings, stats = search([Target("one-choice", one_choice)], Planner(profiles=["openai"]), max_examples=3000,
                             budget=600, seed=1, plain=PLAIN_FEATURES)
    assert [f.signature for f in findings] == ["one-choice/choices_mixed/multi-choice"]
    # Met as another kind too, and counted as hits of it rather than reported again.
    assert stats.also_as["one-choice/choices_mixed/multi-choice"] == {"arguments_misattributed"}


def test_calls_handed_on_under_every_unfinished_ending_are_one_root_cause():
    ends = {"disconnect", "error-chunk", "error-event", "no-done"}
    met = set()
    findings, stats = search([HAND_OUT], Planner(), max_examples=1500, budget=600, seed=3, plain=PLAIN_FEATURES,
                             on_case=lambda case: met.update(ends & set(case.features)))
    signature = "selftest-hand-out-after-disconnect/incomplete_handed_on/length"
    assert [f.signature for f in findings] == [signature]
    assert met == ends and stats.hits[signature] > 50


def test_one_mistake_met_under_several_profiles_is_reported_under_the_first():
    findings, _ = search([CONCAT], Planner(), max_examples=1500, budget=600, seed=3, plain=PLAIN_FEATURES)
    # Ids repeated on every fragment (id-every-fragment) or new ones on each (new-id-continuations) show one
    # mistake: ids concatenated.  Names are the other field it concatenates.
    assert sorted(f.signature for f in findings) == [
        "selftest-concat-names-and-ids/id_differs/id-every-fragment",
        "selftest-concat-names-and-ids/name_differs/name-every-fragment"]


def test_at_the_partial_level_every_rule_a_case_breaks_is_a_root_cause_of_its_own():
    from toolfuzz.targets.specs import plain_target
    from toolfuzz.targets.reference.partial import parse
    from toolfuzz.targets.selftest.partial import number_early, raw_escape

    def both(prefix):
        raw = raw_escape(prefix)
        return raw if raw != parse(prefix) else number_early(prefix)

    target = plain_target(both, "both", "partial")
    findings, stats = search([target], Planner(), max_examples=600, budget=600, seed=1, plain=PLAIN_FEATURES,
                             timeout=120)  # ended by examples: no case may run out of time on a busy machine
    assert stats.stopped_by == "examples"
    assert {f.divergence.kind for f in findings} == {"number_before_complete", "string_not_prefix"}


def test_a_case_that_ran_out_of_time_once_and_then_answered_in_time_is_flaky_not_a_finding():
    calls = []

    def pausing(assemble):
        def paused_once(*args, **kwargs):
            calls.append(1)
            while len(calls) == 1:  # the first call only, as a pause of the machine's would
                pass
            return assemble(*args, **kwargs)
        return paused_once

    paused = replace(REFERENCE.wrapped(pausing), name="paused")
    # Beside another target, under a cap of 0: a time-out that is not a known root cause never makes it sit out.
    findings, stats = search([paused, PLAIN_ASSEMBLER], PLAIN, max_examples=5, budget=600, seed=1, timeout=0.5,
                             known_timeout_cap=0.0)
    assert findings == [] and len(calls) == 6 and stats.sat_out == {}  # five cases, and the first again
    assert stats.flaky == ["paused ran out of time once on a case it then answered within 1 s: not a finding"]


def test_a_target_slow_on_a_case_but_not_stuck_is_not_a_finding_that_the_machine_s_speed_would_decide():
    def slowing(assemble):
        def slow(*args, **kwargs):
            # Past the time limit, well within twice it, by the clock rather than by work.
            until = time.monotonic() + 1.25
            while time.monotonic() < until:
                pass
            return assemble(*args, **kwargs)
        return slow

    findings, stats = search([replace(REFERENCE.wrapped(slowing), name="slow")], PLAIN, max_examples=1,
                             budget=600, seed=1, timeout=1.0)
    assert findings == [] and TIMEOUT_MARGIN == 2
    assert stats.flaky == ["slow ran out of time once on a case it then answered within 2 s: not a finding"]


def _stuck(name: str = "stuck") -> Target:
    def sticking(assemble):
        def stuck(*args, **kwargs):
            while True:
                pass
        return stuck
    return replace(REFERENCE.wrapped(sticking), name=name)


def test_a_case_that_runs_out_of_time_again_is_a_finding():
    findings, stats = search([_stuck()], PLAIN, max_examples=2,
                             budget=600, seed=1, timeout=0.3)
    assert [f.divergence.kind for f in findings] == ["timed_out"] and stats.flaky == []


def test_once_a_target_s_time_out_is_known_its_later_cases_cost_a_share_of_the_limit_each(monkeypatch):
    # Each hit of a known time-out used to pay the whole limit again (issue 40: sglang's pythonic parser).
    import toolfuzz.engine.search as searching

    limits = []

    def observing(target, case, payloads=None, timeout=5.0, prefixes=None):
        limits.append(timeout)
        return observe(target, case, payloads, timeout, prefixes)

    monkeypatch.setattr(searching, "observe", observing)
    stuck = _stuck()
    # A cap of all the time: the target never sits out here (the next two tests are about that).
    findings, stats = search([stuck, PLAIN_ASSEMBLER], PLAIN, max_examples=4, budget=600, seed=1, timeout=1.0,
                             known_timeout_cap=1.0)
    assert [f.divergence.kind for f in findings] == ["timed_out"]
    # The first case at the limit, run again at twice it (a new time-out, confirmed), then on the plain
    # assembler, and its reduced case on the plain assembler again; then each later case: the stuck target
    # under a share of the limit (a hit), and the plain assembler, which has no known time-out, under all of it.
    assert limits[:4] == [1.0, 2.0, 1.0, 1.0] and limits[4:] == [0.25, 1.0] * 3
    assert stats.hits[findings[0].signature] == 3 and set(stats.seconds_timed_out) == {"stuck"}


def test_a_target_whose_known_time_outs_took_their_share_of_the_time_sits_out_cases_the_others_run():
    # A cap of 0: once the time-out is known, the time it took is past it, whatever the machine's speed.
    findings, stats = search([_stuck(), PLAIN_ASSEMBLER], PLAIN, max_examples=5, budget=600, seed=1, timeout=1.0,
                             known_timeout_cap=0.0)
    assert [f.divergence.kind for f in findings] == ["timed_out"]
    # The first case found it, and the four after it the stuck target sat out; the plain assembler ran them all.
    assert stats.hits.get(findings[0].signature, 0) == 0
    assert stats.sat_out == {"stuck": 4} and stats.by_target == {"stuck": 1, PLAIN_ASSEMBLER.name: 5}


def test_a_target_under_its_cap_or_searched_alone_never_sits_out():
    # Its known time-outs are a part of the search's time, so a cap of all of it is never passed.
    _, under = search([_stuck(), PLAIN_ASSEMBLER], PLAIN, max_examples=3, budget=600, seed=1, timeout=0.5,
                      known_timeout_cap=1.0)
    # Alone, past the cap: sitting out would give its time to no target.
    _, alone = search([_stuck()], PLAIN, max_examples=3, budget=600, seed=1, timeout=0.5, known_timeout_cap=0.0)
    for stats in (under, alone):
        assert stats.sat_out == {} and stats.by_target["stuck"] == 3 and sum(stats.hits.values()) == 2


def test_a_search_that_replaces_a_root_cause_found_before_it_started_counts_only_its_own():
    # A worker's search starts knowing what the other workers found: the replaced root cause is theirs.
    stale = Root(SHARED.name, "arguments_misattributed", None, frozenset({"interleaved", "multi-call", "crlf"}))
    findings, stats = search([SHARED], Planner(), max_examples=1500, budget=600, seed=2, plain=PLAIN_FEATURES,
                             known=Known([stale]))
    (general,) = [f for f in findings if f.divergence.kind == "arguments_misattributed"]
    assert general.features == frozenset({"interleaved", "multi-call"})
    assert stats.divergences[SHARED.name] == len(findings)


def test_what_the_share_allows_goes_first_to_a_divergence_no_root_cause_is_known_for():
    case = PLAIN.draw(0)
    client = replace(CONCAT, name="client", builds_on=("state",))

    def met(target, kind):
        return (Finding(target, Divergence(kind, ""), case, Observation(), PLAIN_FEATURES, 0), 0, (0, 0.0))

    known = Known([Root(SHARED.name, "id_differs", None, frozenset()), Root("state", "name_differs", None, frozenset())])
    pending = [met(SHARED, "id_differs"), met(client, "name_differs"), met(SHARED, "call_lost"),
               met(CONCAT, "id_differs")]
    # A kind its own target has a root cause of, or the target below it has, waits behind one no root cause is
    # known for.
    assert _first_new(pending, known) == (2, True)
    assert _first_new(pending[:2], known) == (0, False)  # none new: the oldest first
    assert known.has(RootKey("client", "name_differs"), client.builds_on)
    assert not known.has(RootKey("client", "name_differs"))


def test_a_root_cause_s_reduced_case_is_run_on_the_other_targets_and_replaces_their_larger_root_causes():
    # Two targets with one mistake; the twin's root cause was reduced, elsewhere, from a case that led its
    # reduction to keep features it does not need: the first case of seed 2, all its features.
    twin = replace(SHARED, name="twin")
    first = Planner().draw(Random(2).getrandbits(63))
    stale = Root("twin", "arguments_misattributed", None, frozenset(first.features) - PLAIN_FEATURES)
    assert len(stale.features) > 2
    events = []
    findings, stats = search([SHARED, twin], Planner(), max_examples=1, budget=600, seed=2, plain=PLAIN_FEATURES,
                             known=Known([stale]), emit=events.append)
    # The twin meets the mistake in that case as a hit of what it knew; the shared buffer's reduced case,
    # run on it, shows the twin needs no more than the shared buffer does.
    assert stats.examples == 1
    assert sorted(f.signature for f in findings) == [
        "selftest-shared-buffer/arguments_misattributed/interleaved+multi-call",
        "twin/arguments_misattributed/interleaved+multi-call"]
    (replacing,) = [e for e in events if isinstance(e, Found) and e.finding.target.name == "twin"]
    assert replacing.replaces == (signature_of("twin", stale.kind, stale.features),)
    assert stats.hits["twin/arguments_misattributed/interleaved+multi-call"] == 2  # the stale one's hit, and its own


def _slow_and_dropping(assemble):
    def slow(*args, **kwargs):
        time.sleep(0.5)  # every probe of a reduction takes as long: a reduction of a few outlasts a budget
        return assemble(*args, **kwargs)[:-1]
    return slow


SLOW = replace(PLAIN_ASSEMBLER.wrapped(_slow_and_dropping), name="slow")


def test_a_slow_target_s_reduction_ends_with_the_budget_s_finishing_share():
    started = []
    findings, stats = search([SLOW], PLAIN, budget=1.0, seed=1, timeout=30,
                             on_case=lambda case: started.append(time.monotonic()))
    # Cases and probes alike: none begins past the budget and its share for finishing, and what the
    # reduction reached by then is kept.
    assert FINISHING_SHARE == 0.1 and stats.probes > 0
    assert max(started) < stats.started + 1.1 * 1.0, max(started) - stats.started
    assert [f.divergence.kind for f in findings] == ["call_lost"]


def test_a_long_reduction_says_how_it_goes():
    reducing = []

    def emit(event):
        if isinstance(event, Progress):
            reducing.append(event.stats.reducing)  # now: the figures are the search's own, and go on changing

    search([SLOW], PLAIN, budget=2.0, seed=1, timeout=30, emit=emit)
    # A reduction of probes of 0.5 s each, from the first case on, cut off after 2.2 s: said more than once as
    # it goes.
    assert reducing.count("slow: call_lost") >= 2, reducing


def test_a_memory_error_is_one_memory_root_cause_kept_as_met_and_never_reduced():
    def hoarding(assemble):
        def hoard(*args, **kwargs):
            raise MemoryError  # as a target does at a `ulimit -v`: each probe would blow up again
        return hoard

    findings, stats = search([replace(PLAIN_ASSEMBLER.wrapped(hoarding), name="hoard")], PLAIN, max_examples=20,
                             budget=600, seed=1, plain=PLAIN_FEATURES)
    assert [(f.divergence.kind, f.unshrunk) for f in findings] == [("memory", True)]
    assert stats.probes == 0 and sum(stats.hits.values()) == 19


def test_a_time_out_met_too_late_to_run_again_within_the_finishing_share_is_counted_not_run():
    runs = []

    def sticking(assemble):
        def stuck(*args, **kwargs):
            runs.append(1)
            while True:
                pass
        return stuck

    # The first case runs out of its 0.3 s at 0.3 s; running it again would take 0.6 s more, past the end of a
    # 0.5-s budget and its share for finishing.
    findings, stats = search([replace(REFERENCE.wrapped(sticking), name="stuck")], PLAIN, budget=0.5, seed=1,
                             timeout=0.3)
    assert findings == [] and stats.unreduced >= 1 and len(runs) == stats.examples
