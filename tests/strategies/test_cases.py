"""The first differential check: generated cases against the reference assembler."""

import json
from random import Random

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis.errors import InvalidArgument

from toolfuzz.corpus.fixtures import Fixture, dumps, loads
from toolfuzz.engine.seeding import seeded_by_strategies_only
from toolfuzz.vocabulary import Tool
from toolfuzz.strategies import PROFILES, cases
from toolfuzz.strategies.cases import PLAIN_WIRE, Planner
from toolfuzz.strategies.expect import parses
from toolfuzz.targets.reference import SSEDecoder, assemble

ALL = cases()
#: The seed test_the_seed_two_call_example_is_generated searches with (see there).
SEED_EXAMPLE_SEED = 3


def _agree(case):
    got = assemble(case.reads, case.tools, case.limits)
    assert got == case.expected, f"features {case.features}"
    # Which calls the wire numbered is not part of what a call is, but both sides must know it alike.
    assert [c.indexed for c in got.calls] == [c.indexed for c in case.expected.calls], f"features {case.features}"


@settings(max_examples=1200, suppress_health_check=list(HealthCheck))
@given(ALL)
def test_reference_agrees_with_generated_cases(case):
    _agree(case)


@pytest.mark.parametrize("name", list(PROFILES))
def test_each_profile_alone_agrees_and_is_exercised(name):
    seen = []

    @settings(max_examples=25, suppress_health_check=list(HealthCheck))
    @given(cases(profiles=[name]))
    def check(case):
        _agree(case)
        seen.append(name in case.features)

    check()
    assert any(seen)


@pytest.mark.parametrize("name", ["index-missing", "index-null"])
def test_calls_sent_without_an_index_are_recorded_as_such(name):
    @settings(max_examples=25, suppress_health_check=list(HealthCheck))
    @given(cases(profiles=[name, "openai"]))
    def check(case):
        assert {c.indexed for c in case.expected.calls} <= {name not in case.features}

    check()


@settings(max_examples=100, suppress_health_check=list(HealthCheck))
@given(ALL)
def test_every_case_round_trips_through_a_fixture_file(case):
    again = loads(dumps(Fixture(case=case, name="x"))).case
    assert again == case
    assert [c.indexed for c in again.expected.calls] == [c.indexed for c in case.expected.calls]


# The case is the first that matches, not shrunk: Hypothesis warns that its repr is large.
@pytest.mark.filterwarnings("ignore:Generating overly large repr")
def test_the_seed_two_call_example_is_generated():
    """Calls 0 and 1 interleaved: part of 0, 1's start, the rest of 0, the end of 1; both ids kept."""

    def entries(case):
        events = SSEDecoder().feed(case.wire)
        out = []
        for e in events:
            if e.data.startswith(b"{"):
                for choice in json.loads(e.data).get("choices", []):
                    for entry in (choice.get("delta") or {}).get("tool_calls") or []:
                        out.append(entry["index"])
        return out

    def shaped(case):
        f = set(case.features)
        if "interleaved" not in f or "multi-choice" in f or "done" not in f:
            return False
        if [c.status for c in case.expected.calls] != ["complete", "complete"]:
            return False
        order = entries(case)
        return order[:1] == [0] and 1 in order and 0 in order[order.index(1):] and order[-1] == 1

    # One fixed seed, with no constants drawn from the modules the session happens to have loaded:
    # the same examples every run.  On this seed the shape turns up after about 230 of them; on
    # others it takes up to some thousands, half a minute and more, which is why how soon it turns
    # up, over many seeds, is measured by ``python -m bench.generation`` and not here.  The limit
    # is a margin over the 230 (reached only if the strategies stop making the shape).
    with seeded_by_strategies_only():
        case = find(cases(profiles=["openai"]), shaped, random=Random(SEED_EXAMPLE_SEED),
                    settings=settings(max_examples=2_000, database=None, phases=[Phase.generate],
                                      suppress_health_check=list(HealthCheck)))
    _agree(case)
    first, second = case.expected.calls
    assert first.id and second.id and first.id != second.id
    assert all(parses(c.arguments) for c in (first, second))  # two independent argument strings


def test_cases_shrink_to_the_plain_openai_stream():
    # Without the literals of whatever local modules are loaded: with them, an edit anywhere in the
    # harness gives the derandomised run other draws, and its shrink may stop short (at the spaced writer).
    # From one fixed start: Hypothesis's shrinker reaches the plain case from 8 of 10 (seeds 0-9; from
    # 5 and 8 it stops at after-done and at a cut read), so an unseeded run here would be flaky.  The
    # engine does not depend on it: it reduces plans (tests/strategies/test_plans.py).
    with seeded_by_strategies_only():
        case = find(ALL, lambda c: True, random=Random(0),
                    settings=settings(database=None, suppress_health_check=list(HealthCheck)))
    assert case.features == ("done", "lf", "openai", "single-read") == tuple(sorted(PLAIN_WIRE))
    assert case.wire.startswith(b'data: {"id":"chatcmpl-toolfuzz"') and case.wire.endswith(b"data: [DONE]\n\n")
    assert [c.status for c in case.expected.calls] == ["complete"]
    # As every captured server does, the plain stream opens its choice with the assistant's role.
    assert json.loads(case.events[0].data)["choices"][0]["delta"]["role"] == "assistant"


def _chunks(case):
    for event in case.events:
        try:
            yield json.loads(event.data)
        except ValueError:
            continue  # [DONE], and what a server sends after it


def test_a_stream_without_a_role_chunk_is_a_shape_of_its_own():
    planner = Planner(dialect="openai-chat", profiles=["no-role-chunk"])
    for seed in range(50):
        case = planner.draw(seed)
        assert "no-role-chunk" in case.features
        assert not any("role" in (c.get("delta") or {}) for chunk in _chunks(case) for c in chunk.get("choices") or [])
    with_role = Planner(dialect="openai-chat", profiles=["openai"]).draw(0)
    assert "no-role-chunk" not in with_role.features


def test_unknown_profiles_and_unusable_tools_are_refused():
    with pytest.raises(InvalidArgument):
        cases(profiles=["no-such-shape"])
    with pytest.raises(InvalidArgument):
        cases(tools=[Tool("bad", {"type": "object", "properties": {"x": {"type": "nope"}}})])


@pytest.mark.parametrize("servers, dialect", [(["openai"], "openai-chat"), (["vllm"], "openai-chat"),
                                              (["anthropic"], "anthropic"), (["openai"], "openai-responses")])
def test_a_planner_restricted_to_servers_draws_only_what_they_send_mostly_at_the_first_try(servers, dialect):
    from toolfuzz.strategies.features import sent_by

    planner = Planner(dialect=dialect, servers=servers)
    tries = []
    run = planner._run
    planner._run = lambda drawer: (tries.append(1), run(drawer))[1]
    drawn = [planner.draw(seed) for seed in range(300)]
    allowed = sent_by(servers, dialect)
    assert all(set(case.features) <= allowed for case in drawn)
    # The stages leave out what the servers do not send, so few cases are drawn twice: a count, not a time.
    assert len(tries) < 1.5 * len(drawn)
    assert len({case.wire for case in drawn}) > 250


def test_the_strategy_restricted_to_a_server_draws_only_what_it_sends():
    from toolfuzz.strategies.features import sent_by

    allowed = sent_by(["openai"])

    @given(cases(servers=["openai"]))
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    def check(case):
        assert set(case.features) <= allowed

    check()


def test_an_unknown_server_is_refused_in_one_line():
    with pytest.raises(InvalidArgument, match="unknown servers"):
        Planner(servers=["nosuchserver"])
