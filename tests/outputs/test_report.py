"""The morning report: new findings, fixed ones (re-judged), the matrix, examples and time, in md and html."""

from __future__ import annotations

import json
from html.parser import HTMLParser

from toolfuzz.cli import main
from toolfuzz.corpus.fixtures import load
from toolfuzz.outputs.report import render
from toolfuzz.engine.units import parse_shard, units_for
from toolfuzz.errors import UsageError

import pytest
from tests.paths import DATA, ROOT

TARGET = "selftest-hand-out-after-disconnect"


def test_a_report_names_new_findings_and_those_since_fixed(tmp_path, capsys):
    first = tmp_path / "first"
    assert main(["run", "--target", TARGET, "--profile", "openai", "--max-examples", "200", "--budget", "300",
                 "--seed", "3", "--findings", str(first)]) == 1
    capsys.readouterr()
    old = sorted(first.rglob("*.json"))[0]
    findings = tmp_path / "findings"
    # Still diverging, under a name no finding is written to: every finding of the run below is new
    # (written), and this one is neither new nor fixed.
    still = findings / TARGET / "kept-by-hand.json"
    still.parent.mkdir(parents=True)
    still.write_text(old.read_text())
    # Recorded for the plain assembler, which never diverges: a finding that has since been fixed.
    fixed = findings / "selftest-plain" / old.name
    fixed.parent.mkdir()
    fixed.write_text(old.read_text().replace(TARGET, "selftest-plain"))
    code = main(["run", "--target", TARGET, "--target", "selftest-plain", "--profile", "openai", "--max-examples",
                 "200", "--budget", "300", "--seed", "4", "--findings", str(findings), "--report",
                 str(tmp_path / "r.md"), "--json"])
    summary = json.loads(capsys.readouterr().out)
    text = (tmp_path / "r.md").read_text()
    divergences = [d for t in summary["targets"] for d in t["divergences"]]
    assert code == 1 and divergences and all(d["file"] == "written" for d in divergences), divergences
    new_section = text.split("## New findings")[1].split("##")[0]
    assert all(d["fixture"] in new_section for d in divergences), new_section
    causes = text.split("## Root causes")[1].split("##")[0]
    # Ranked: every root cause of the run, new, with its hits (the later divergences folded into it).
    for d in divergences:
        row = next(line for line in causes.splitlines() if d["signature"].split("/", 1)[1] in line)
        also = ", ".join(d["also_as"]) or "-"
        assert f"| yes | {TARGET} | {d['hits']} | {also} | example {d['first_seen']['examples']}," in row, row
    fixed_section = text.split("## Fixed findings")[1].split("##")[0]
    assert str(fixed) in fixed_section and str(still) not in fixed_section and str(still) not in new_section
    assert load(fixed).observed["selftest-plain"]["verdict"] == "diverges"
    assert summary["profiles"]["openai"] == summary["examples"]
    assert all(t["examples"] == summary["examples"] for t in summary["targets"])


def test_html_is_one_well_formed_page_with_the_same_tables():
    summary = {"seed": 1, "examples": 5, "seconds": 1.0, "stopped_by": "budget", "workers": 2, "flaky": [],
               "profiles": {"openai": 5},
               "targets": [{"name": "a<b", "level": "events", "seconds_in_target": 0.1, "examples": 5,
                            "divergences": [{"signature": "a<b/raised/plain", "kind": "raised", "detail": "x & y",
                                             "fixture": "f.json", "file": "written"}]}]}

    class Tables(HTMLParser):
        cells: list[str] = []

        def handle_data(self, data):
            self.cells.append(data)

    parser = Tables()
    page = render("r.html", summary, [])
    parser.feed(page)
    assert page.startswith("<!doctype html>") and "a&lt;b" in page and "x &amp; y" in page
    assert "a<b" in parser.cells and "x & y" in parser.cells
    assert "| a<b | raised | x & y | f.json |" in render("r.md", summary, [])


def test_shards_split_every_target_and_profile_pair_exactly_once():
    targets, profiles = ["t1", "t2", "t3"], ["p1", "p2", "p3", "p4"]
    pairs = [(t, p) for i in range(1, 4) for u in units_for(targets, profiles, (i, 3), False)
             for p in u.profiles for t in u.targets]
    assert sorted(pairs) == sorted((t, p) for t in targets for p in profiles)
    assert units_for(targets, profiles, None, False)[0].profiles is None


@pytest.mark.parametrize("text", ["0/3", "4/3", "a/b", "3"])
def test_a_bad_shard_is_one_usage_error(text):
    with pytest.raises(UsageError, match="--shard"):
        parse_shard(text)


def test_fixed_findings_replays_a_crash_fixture_in_a_child_and_names_only_what_no_longer_dies(tmp_path):

    from toolfuzz.outputs.report import fixed_findings
    from toolfuzz.targets.specs import resolve_all
    from toolfuzz.targets.selftest import PLAIN

    seed = ROOT / "findings" / "seed" / "two-calls-interleaved.json"
    [segv] = resolve_all([f"{DATA / 'hostile.py'}:segv"], "events")
    crash = {"verdict": "diverges", "kind": "crash", "detail": "the worker was killed by SIGSEGV"}
    for name in (PLAIN.name, segv.name):
        doc = json.loads(seed.read_text(encoding="utf-8"))
        doc["observed"] = {name: crash}
        (tmp_path / f"{len(name)}.json").write_text(json.dumps(doc), encoding="utf-8")
    # The plain assembler does not die on this case (as if its library had fixed the crash); segv still does.
    # Both answer or die at once: the time limit only bounds a hang, so a loaded machine cannot reach it.
    fixed = fixed_findings(tmp_path, [PLAIN, segv], timeout=60.0)
    assert [(f["target"], f["kind"]) for f in fixed] == [(PLAIN.name, "crash")]
    assert fixed_findings(tmp_path, [PLAIN, segv], timeout=60.0, skip={PLAIN.name}) == []
