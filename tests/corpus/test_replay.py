"""toolfuzz.corpus.replay: which targets run on a fixture, what each cell means, and the three reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import Fixture, dumps
from toolfuzz.vocabulary import Case, Limits
from toolfuzz.corpus.replay import MAX_LABEL, load_fixtures, replay, shorten
from toolfuzz.targets.base import Target
from toolfuzz.targets.reference import assemble
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.targets.selftest import PLAIN
from tests.streams import chunk, frag, head, sse
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"
DISCONNECT = SEED / "disconnect-mid-arguments.json"
HAND_OUT = "selftest-hand-out-after-disconnect"


def variant(tmp_path: Path, source: Path, file: str = "variant.json", **changes) -> Path:
    """A copy of a fixture file with some top-level fields replaced."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    doc.update(changes)
    path = tmp_path / file
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def diverging(kind: str) -> dict:
    return {"verdict": "diverges", "kind": kind, "detail": "as found"}


def only(report, target: str):
    (cell,) = [c for c in report.cells if c.target == target]
    return cell


def test_every_seed_fixture_is_ok_on_the_reference_and_the_plain_assembler():
    report = replay(load_fixtures([str(SEED)]), [PLAIN])
    assert len(report.fixtures) == len(list(SEED.glob("*.json"))) >= 8
    assert report.targets == ("reference", "selftest-plain")
    assert {(c.state, c.verdict) for c in report.cells} == {("ok", "ok")}
    assert len(report.cells) == 2 * len(report.fixtures)
    assert report.exit_code == 0


def test_an_unrecorded_divergence_fails_the_replay_with_its_kind():
    report = replay(load_fixtures([str(DISCONNECT)]), [builtin_targets()[HAND_OUT]])
    cell = only(report, HAND_OUT)
    assert (cell.state, cell.kind, cell.verdict) == ("diverges", "incomplete_handed_on", "unexpected")
    assert only(report, "reference").verdict == "ok"
    assert report.exit_code == 1


def test_a_recorded_divergence_that_still_fails_is_expected(tmp_path):
    path = variant(tmp_path, DISCONNECT, observed={HAND_OUT: diverging("incomplete_handed_on")})
    report = replay(load_fixtures([str(path)]))  # no --target: the recorded built-in target runs
    assert report.targets == ("reference", HAND_OUT)
    cell = only(report, HAND_OUT)
    assert (cell.verdict, cell.recorded_kind) == ("still fails", "incomplete_handed_on")
    assert cell.to_json()["recorded"] == {"kind": "incomplete_handed_on", "reproduces": True, "fixed": False}
    assert report.exit_code == 0


def test_a_recorded_divergence_of_another_kind_is_reported_as_changed(tmp_path):
    path = variant(tmp_path, DISCONNECT, observed={HAND_OUT: diverging("call_lost")})
    report = replay(load_fixtures([str(path)]))
    cell = only(report, HAND_OUT)
    assert (cell.verdict, cell.kind, cell.recorded_kind) == ("changed", "incomplete_handed_on", "call_lost")
    assert cell.to_json()["recorded"]["reproduces"] is False
    assert report.exit_code == 0


def test_a_correct_target_recorded_as_diverging_is_reported_fixed(tmp_path):
    path = variant(tmp_path, DISCONNECT, observed={"selftest-plain": diverging("complete_withheld")})
    report = replay(load_fixtures([str(path)]))
    cell = only(report, "selftest-plain")
    assert (cell.state, cell.verdict) == ("ok", "fixed")
    assert cell.to_json()["recorded"] == {"kind": "complete_withheld", "reproduces": False, "fixed": True}
    assert report.exit_code == 0


def test_a_recorded_target_that_is_not_built_in_is_skipped_not_an_error(tmp_path):
    path = variant(tmp_path, DISCONNECT, observed={"mylib.stream:assemble": diverging("phantom_call")})
    report = replay(load_fixtures([str(path)]))
    cell = only(report, "mylib.stream:assemble")
    assert (cell.state, cell.verdict) == ("skipped", "skipped")
    assert "--target" in cell.reason
    assert report.exit_code == 0


def test_given_targets_replace_the_recorded_ones(tmp_path):
    path = variant(tmp_path, DISCONNECT, observed={HAND_OUT: diverging("incomplete_handed_on")})
    report = replay(load_fixtures([str(path)]), [PLAIN])
    assert only(report, "selftest-plain").verdict == "ok"
    assert only(report, HAND_OUT).verdict == "skipped"
    assert "not in this run's --target" in only(report, HAND_OUT).reason


def test_the_reference_is_never_excused_by_a_recorded_divergence(tmp_path):
    doc = json.loads(DISCONNECT.read_text())
    doc["expected"]["calls"][0]["arguments"] = '{"path": "/etc/passwd"}'
    path = variant(tmp_path, DISCONNECT, expected=doc["expected"], observed={"reference": diverging("arguments_differ")})
    report = replay(load_fixtures([str(path)]))
    cell = only(report, "reference")
    assert (cell.kind, cell.verdict) == ("arguments_differ", "unexpected")
    assert report.exit_code == 1


def test_the_reference_is_held_to_statuses_and_the_stream_error(tmp_path):
    doc = json.loads((SEED / "completed-invalid-json.json").read_text())
    doc["expected"]["calls"][0]["status"] = "complete"
    wrong_status = variant(tmp_path, SEED / "completed-invalid-json.json", "status.json", expected=doc["expected"])
    doc = json.loads(DISCONNECT.read_text())
    doc["expected"]["error"] = {"code": "server_error", "message": "overloaded"}
    wrong_error = variant(tmp_path, DISCONNECT, "error.json", expected=doc["expected"])
    report = replay(load_fixtures([str(wrong_status), str(wrong_error)]))
    assert [c.kind for c in report.cells] == ["status_differs", "error_differs"]
    assert "server_error" in report.cells[1].detail
    assert report.exit_code == 1


def test_the_reference_runs_under_the_fixtures_bounds(tmp_path):
    wire = sse(chunk(head(0, "c", "f", '{"a":')), chunk(frag(0, " 1}")), chunk(finish="tool_calls"))
    limits = Limits(max_events=2)
    expected = assemble([wire], (), limits)
    assert expected.error is not None and expected.error.code == "too_many_events"
    path = tmp_path / "bounded.json"
    path.write_text(dumps(Fixture(Case(reads=(wire,), expected=expected, limits=limits), name="bounded")))
    report = replay(load_fixtures([str(path)]), [])
    assert [(c.target, c.verdict) for c in report.cells] == [("reference", "ok")]


def misbehaving_report():
    """Two calls the stream finished, replayed on targets that raise, loop and phone home (in that order)."""
    def raises(chunks):
        raise KeyError("index")

    def loops(chunks):
        while True:
            pass

    def phones_home(chunks):
        import socket
        socket.create_connection(("127.0.0.1", 9))

    targets = [Target(name=fn.__name__, fn=fn) for fn in (raises, loops, phones_home)]
    return replay(load_fixtures([str(SEED / "two-calls-interleaved.json")]), targets, timeout=0.5)


def test_raising_timing_out_and_blocked_targets_have_their_own_words():
    # Raising on calls the stream finished loses both (on a cut stream it would be a refusal).
    report = misbehaving_report()
    states = {c.target: (c.state, c.verdict) for c in report.cells}
    assert states == {"reference": ("ok", "ok"), "raises": ("raises", "unexpected"),
                      "loops": ("timeout", "unexpected"), "phones_home": ("blocked", "unexpected")}
    assert "KeyError" in only(report, "raises").detail


def test_bad_input_is_one_usage_error_naming_the_file_and_field(tmp_path):
    bad_cut = variant(tmp_path, DISCONNECT, "cut.json", wire={"encoding": "utf-8", "lines": ["x"], "cuts": [9]})
    with pytest.raises(UsageError, match=r"cut\.json: wire\.cuts\[0\]"):
        load_fixtures([str(bad_cut)])
    bad_schema = variant(tmp_path, DISCONNECT, "schema.json", tools=[{"name": "t", "parameters": {"type": 5}}])
    with pytest.raises(UsageError, match=r"schema\.json: tools: "):
        load_fixtures([str(bad_schema)])
    bad_verdict = variant(tmp_path, DISCONNECT, "verdict.json", observed={"x": {"verdict": 1}})
    with pytest.raises(UsageError, match=r"verdict\.json: observed\.x\.verdict: must be a string"):
        load_fixtures([str(bad_verdict)])
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no \\*.json fixture files"):
        load_fixtures([str(tmp_path / "empty")])


def test_a_file_given_twice_runs_once():
    assert len(load_fixtures([str(DISCONNECT), str(SEED), str(DISCONNECT)])) == len(list(SEED.glob("*.json")))


def test_labels_are_names_shortened_in_the_middle_and_unique(tmp_path):
    long = "selftest-shared-placeholder: id_differs on interleaved calls with late ids " * 2
    a = variant(tmp_path, DISCONNECT, "a.json", name=long)
    (tmp_path / "sub").mkdir()
    b = variant(tmp_path / "sub", DISCONNECT, "b.json", name="same")
    c = variant(tmp_path, DISCONNECT, "c.json", name="same")
    d = variant(tmp_path, DISCONNECT, "d.json", name="evil\x1b[2Jname\nsecond line")
    labels = [f.label for f in load_fixtures([str(a), str(b), str(c), str(d)])]
    assert labels[0] == shorten(" ".join(long.split()), MAX_LABEL) and len(labels[0]) == MAX_LABEL
    assert labels[0].startswith("selftest-shared") and labels[0].endswith("late ids") and "..." in labels[0]
    assert labels[1:3] == ["sub/b", "c"]  # repeated names give way to paths
    assert "\x1b" not in labels[3] and "\n" not in labels[3] and "\\x1b" in labels[3]


def test_the_json_report_holds_every_cell():
    report = replay(load_fixtures([str(DISCONNECT)]), [builtin_targets()[HAND_OUT]])
    doc = json.loads(json.dumps(report.to_json()))
    assert [t["name"] for t in doc["targets"]] == ["reference", HAND_OUT]
    assert [(c["target"], c["verdict"], c["kind"]) for c in doc["cells"]] == [
        ("reference", "ok", None), (HAND_OUT, "unexpected", "incomplete_handed_on")]
    assert doc["summary"]["exit"] == 1 and doc["summary"]["unexpected"] == 1


# -- fixed means the recorded root cause is gone ---------------------------------------------------------------

TWO = SEED / "two-calls-interleaved.json"


def _lookup(chunks):
    raise KeyError("call_9")


def _validate(chunks):
    raise KeyError("call_9")


def raises_in_lookup(chunks):
    _lookup(chunks)


def raises_in_validate(chunks):
    # The same exception, raised in another function: another root cause, as a later release's would be.
    _validate(chunks)


def _state_of(fn) -> str:
    from toolfuzz.judge.sandbox import observe
    return str(observe(Target("lib", fn), load_fixtures([str(TWO)])[0].fixture.case).crash_state)


def _raised_at(state: str) -> dict:
    return {"verdict": "diverges", "kind": "raised", "detail": "KeyError: 'call_9'",
            "observation": {"raised": "KeyError: 'call_9'", "crash_state": state}}


def test_a_raise_at_the_recorded_crash_state_still_fails_and_one_elsewhere_is_changed(tmp_path):
    recorded = _state_of(raises_in_lookup)
    assert recorded.startswith("KeyError at tests.corpus.test_replay._lookup < ")
    path = variant(tmp_path, TWO, observed={"lib": _raised_at(recorded)})
    same = only(replay(load_fixtures([str(path)]), [Target("lib", raises_in_lookup)]), "lib")
    assert (same.verdict, str(same.recorded_state)) == ("still fails", recorded)
    moved = only(replay(load_fixtures([str(path)]), [Target("lib", raises_in_validate)]), "lib")
    now = _state_of(raises_in_validate)
    assert (moved.verdict, moved.kind, str(moved.divergences[0].state)) == ("changed", "raised", now)
    # Both crash states are shown, and the JSON report carries both.
    assert moved.recorded_note() == f" (now at {now}; recorded: raised at {recorded})"
    doc = moved.to_json()
    assert doc["recorded"]["crash_state"] == recorded and doc["divergences"][0]["crash_state"] == now
    assert doc["recorded"]["reproduces"] is False


def test_a_fixture_written_before_observations_held_a_crash_state_is_held_to_the_one_found_records(tmp_path):
    recorded = _state_of(raises_in_lookup)
    found = {"by": "toolfuzz run", "signature": f"lib/raised[{recorded}]/plain", "crash_state": recorded}
    observed = {"lib": {"verdict": "diverges", "kind": "raised", "detail": "KeyError: 'call_9'"}}
    path = variant(tmp_path, TWO, observed=observed, found=found)
    assert only(replay(load_fixtures([str(path)]), [Target("lib", raises_in_lookup)]), "lib").verdict == "still fails"
    assert only(replay(load_fixtures([str(path)]), [Target("lib", raises_in_validate)]), "lib").verdict == "changed"
    # Another target's recorded raise is not held to the state found records for this one.
    other = variant(tmp_path, TWO, "other.json", observed={"lib": observed["lib"], "lib2": observed["lib"]},
                    found=found)
    assert only(replay(load_fixtures([str(other)]), [Target("lib2", raises_in_validate)]), "lib2").verdict == \
        "still fails"


def test_the_check_report_shows_both_crash_states_of_a_raise_that_moved(tmp_path):
    from toolfuzz.corpus.check import check
    from toolfuzz.outputs.check_report import render_check
    recorded, now = _state_of(raises_in_lookup), _state_of(raises_in_validate)
    path = variant(tmp_path, TWO, observed={"lib": _raised_at(recorded)})
    text = render_check(check([str(path)], [Target("lib", raises_in_validate)]))
    assert "changed: 1" in text and f"now at {now}; recorded: raised at {recorded}" in text


def test_a_root_cause_is_its_kind_and_for_a_raise_its_crash_state():
    from toolfuzz.corpus.replay import RootCause
    from toolfuzz.identity import CrashState
    from toolfuzz.judge.compare import Divergence
    at_a, at_b = CrashState("KeyError", ("lib.a",)), CrashState("KeyError", ("lib.b",))
    raised = [Divergence("raised", "KeyError: 'x'", at_a)]
    assert RootCause("raised", at_a).verdict(raised) == "fails"
    assert RootCause("raised", at_b).verdict(raised) == "changed"
    assert RootCause("raised").verdict(raised) == "fails"  # recorded with no state: the kind is the root cause
    assert RootCause("call_lost").verdict(raised) == "changed" and RootCause().verdict(raised) == "fails"
    assert RootCause("raised", at_a).verdict([]) == "passes"
