"""toolfuzz.outputs.run_results: the table ``toolfuzz run`` ends with, whole for a pipe, fitted for a terminal."""

from __future__ import annotations

from toolfuzz.corpus.fixtures import load
from toolfuzz.engine.events import Finding, Stats
from toolfuzz.judge.compare import Divergence
from toolfuzz.judge.observation import Observation
from toolfuzz.outputs.run_results import summary, table
from toolfuzz.targets.registry import builtin_targets
from tests.paths import ROOT

SEED = ROOT / "findings" / "seed"

#: What table() printed for run() before tables were fitted (captured from that version): a pipe, and --wide,
#: still get these very bytes.
WHOLE = (
    "target                              level    root causes  hits  kinds                 time in target\n"
    "----------------------------------  -------  -----------  ----  --------------------  --------------\n"
    "selftest-hand-out-after-disconnect  events   1            100   incomplete_handed_on  0.00 s\n"
    "selftest-partial-raise-in-string    partial  1            101   raised_on_prefix      1.50 s\n"
    "selftest-read-as-delta              bytes    1            102   arguments_differ      3.00 s\n"
    "\n\n"
    "severity    root cause                                                                                          "
    "                      hits  also in                                    also as                               "
    "                                first seen\n"
    "----------  ----------------------------------------------------------------------------------------------------"
    "--------------------  ----  -----------------------------------------  --------------------------------------"
    "------------------------------  -----------------\n"
    "bug         selftest-hand-out-after-disconnect/incomplete_handed_on/length                                      "
    "                      100   selftest-brace-completion, selftest-plain  -                                     "
    "                                example 1, 0.2 s\n"
    "robustness  selftest-read-as-delta/arguments_differ/bom+no-first-id+no-role-chunk (unshrunk)                    "
    "                      102   -                                          call_lost, complete_withheld, id_diffe"
    "rs, name_differs, reserialised  example 14, 6.4 s\n"
    "robustness  selftest-partial-raise-in-string/raised_on_prefix[ValueError at toolfuzz.targets.selftest.partial.ra"
    "ise_in_string]/plain  101   -                                          -                                     "
    "                                -\n"
    "\n"
    "3 root causes (1 bug, 2 robustness) in 414 examples\n")


def run_of_three():
    """Three targets, a root cause each: one long name, one with a crash state, one with a long list of kinds."""
    targets = [builtin_targets()[n] for n in ("selftest-hand-out-after-disconnect", "selftest-partial-raise-in-string",
                                              "selftest-read-as-delta")]
    case = load(SEED / "two-calls-interleaved.json").case

    def found(target, kind, features, state="", unshrunk=False):
        shaped = type(case)(reads=case.reads, expected=case.expected, tools=case.tools, features=features)
        return Finding(target, Divergence(kind, "detail", state), shaped, Observation(), frozenset({"openai"}),
                       unshrunk=unshrunk)

    findings = [found(targets[0], "incomplete_handed_on", ("openai", "length")),
                found(targets[1], "raised_on_prefix", ("openai",),
                      "ValueError at toolfuzz.targets.selftest.partial.raise_in_string"),
                found(targets[2], "arguments_differ", ("openai", "bom", "no-first-id", "no-role-chunk"), unshrunk=True)]
    saved = [(f, ROOT / "x" / f"{n}.json", "written") for n, f in enumerate(findings)]
    stats = Stats(examples=414, seconds_in={t.name: 1.5 * n for n, t in enumerate(targets)},
                  hits={f.signature: 100 + n for n, f in enumerate(findings)},
                  affected={findings[0].signature: {"selftest-brace-completion", "selftest-plain"}},
                  also_as={findings[2].signature: {"call_lost", "complete_withheld", "id_differs", "name_differs",
                                                   "reserialised"}},
                  first_seen={findings[0].signature: (1, 0.25), findings[2].signature: (14, 6.4)})
    return targets, saved, stats


def test_unfitted_the_table_is_byte_for_byte_what_it_always_was():
    assert table(*run_of_three()) == WHOLE
    assert table(*run_of_three(), width=None) == WHOLE


def test_fitted_to_100_columns_no_line_is_longer_and_every_row_is_still_recognisable():
    text = table(*run_of_three(), width=100)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100 < max(len(line) for line in WHOLE.splitlines())
    # Both tables and the totals, each with a line saying what it left out and how to get it back.
    assert "(time in target: left out to fit 100 columns; --wide shows it)" not in lines  # the first one fits
    assert "(also in, first seen: left out to fit 100 columns; --wide shows them)" in lines
    assert lines[-1] == "3 root causes (1 bug, 2 robustness) in 414 examples"
    causes = [line for line in lines if line.startswith(("bug ", "robustness "))]
    assert causes[0].split()[1] == "selftest-hand-out-after-disconnect/incomplete_handed_on/length"  # it fits whole
    assert causes[2].split()[1] == "selftest-partial-raise-in-string/raised_on_prefix[…]/plain"
    # The list of kinds goes on over continuation lines (blank under the other columns), every kind in it.
    continued = [line for line in lines if line.startswith(" ") and line.strip()]
    assert {word.rstrip(",") for line in continued for word in line.split()} == {
        "complete_withheld", "id_differs", "name_differs", "reserialised"}


def test_fitted_to_80_columns_the_time_column_goes_too():
    lines = table(*run_of_three(), width=80).splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "(time in target: left out to fit 80 columns; --wide shows it)" in lines


def test_a_target_that_sat_out_cases_is_said_before_the_totals_and_none_is_said_otherwise():
    targets, saved, stats = run_of_three()
    stats.sat_out = {"selftest-read-as-delta": 812}
    lines = table(targets, saved, stats).splitlines()
    assert lines[-2:] == ["selftest-read-as-delta sat out 812 cases: its known time-out had taken its share of the time",
                          "3 root causes (1 bug, 2 robustness) in 414 examples"]
    assert not any("sat out" in line for line in WHOLE.splitlines())


def test_the_json_summary_says_for_each_target_the_cases_it_sat_out_and_its_seconds_out_of_time():
    targets, saved, stats = run_of_three()
    stats.sat_out = {"selftest-read-as-delta": 812}
    stats.seconds_timed_out = {"selftest-read-as-delta": 2.5}
    rows = {t["name"]: t for t in summary(targets, saved, stats, 1, ())["targets"]}
    assert (rows["selftest-read-as-delta"]["sat_out"], rows["selftest-read-as-delta"]["seconds_timed_out"]) == (812, 2.5)
    assert (rows["selftest-hand-out-after-disconnect"]["sat_out"],
            rows["selftest-hand-out-after-disconnect"]["seconds_timed_out"]) == (0, 0.0)
