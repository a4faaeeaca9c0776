"""Regression ranges by bisection: the search over verdicts, and a real one over releases of a package."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import zipfile
from dataclasses import replace
from pathlib import Path

from toolfuzz.cli import main
from toolfuzz.corpus.bisect import bisect, describe
from toolfuzz.corpus.fixtures import history_text, load
from tests.paths import ROOT

INTERLEAVED = ROOT / "findings" / "seed" / "two-calls-interleaved.json"


def by(verdicts: dict[str, str], asked: list[str]):
    def probe(version: str) -> str:
        asked.append(version)
        return verdicts[version]
    return probe


def test_the_release_where_the_verdict_changes_is_found_in_few_probes():
    versions = [f"1.{i}" for i in range(16)]
    asked: list[str] = []
    found = bisect("f.json", versions, by({v: "passes" if i < 11 else "fails" for i, v in enumerate(versions)}, asked))
    assert (found.introduced, found.fixed) == ("1.11", None)
    # The ends, two between, then halves: 7 of 16.
    assert len(asked) == len(set(asked)) == 7 and list(found.tested) == sorted(asked, key=lambda v: int(v[2:]))
    assert describe(found).startswith("f.json: introduced in 1.11\n  tested: 1.0 passes, ")
    fixed = bisect("f.json", versions, by({v: "fails" if i < 3 else "passes" for i, v in enumerate(versions)}, []))
    assert (fixed.introduced, fixed.fixed) == (None, "1.3")


def test_a_bug_that_came_and_went_between_ends_that_pass_has_both_ends_of_its_range():
    versions = [f"1.{i}" for i in range(16)]
    window = {v: "fails" if 5 <= i < 10 else "passes" for i, v in enumerate(versions)}
    found = bisect("f.json", versions, by(window, []))
    assert (found.introduced, found.fixed) == ("1.5", "1.10")
    assert describe(found).startswith("f.json: introduced in 1.5, fixed in 1.10\n")
    # Without the probes between the ends, it would read as passing everywhere.
    blind = bisect("f.json", versions, by(window, []), samples=0)
    assert (blind.introduced, blind.fixed) == (None, None) and list(blind.tested) == ["1.0", "1.15"]


def test_a_release_that_does_not_load_is_stepped_over():
    versions = ["1", "2", "3", "4", "5", "6"]
    verdicts = {"1": "error", "2": "passes", "3": "error", "4": "passes", "5": "fails", "6": "error"}
    found = bisect("f.json", versions, by(verdicts, []))
    assert found.introduced == "5" and found.tested["1"] == found.tested["6"] == "error"
    same = bisect("f.json", versions, by(dict.fromkeys(versions, "fails"), []))
    assert (same.introduced, same.fixed) == (None, None) and describe(same).startswith("f.json: fails on every")


def test_a_release_that_diverges_another_way_is_where_the_recorded_root_cause_was_fixed():
    versions = [f"1.{i}" for i in range(8)]
    # The recorded raise until 1.5, then another one (an assertion removed, a check further on raising), then none.
    verdicts = {v: "fails" if i < 5 else "changed" if i < 7 else "passes" for i, v in enumerate(versions)}
    found = bisect("f.json", versions, by(verdicts, []))
    assert (found.introduced, found.fixed) == (None, "1.5")
    assert found.tested["1.5"] == "changed" and describe(found).startswith("f.json: fixed in 1.5\n")
    # Where another divergence turns into the recorded one, nothing came in: the releases before it broke on
    # the stream too (smolagents' generate_stream raised the same ValueError under the class's old name).
    back = bisect("f.json", versions, by({v: "changed" if i < 3 else "fails" for i, v in enumerate(versions)}, []))
    assert (back.introduced, back.fixed) == (None, None)
    assert describe(back).startswith("f.json: fails from 1.3; the releases before it diverge another way\n")


def _wheel(folder: Path, version: str, body: str) -> None:
    """A pure-Python wheel of tfz-bisect-demo, written by hand: the package under bisection in the test below."""
    dist = f"tfz_bisect_demo-{version}.dist-info"
    files = {"tfz_bisect_demo.py": body,
             f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: tfz-bisect-demo\nVersion: {version}\n",
             f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: toolfuzz-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    with zipfile.ZipFile(folder / f"tfz_bisect_demo-{version}-py3-none-any.whl", "w") as z:
        for name, text in files.items():
            z.writestr(name, text)


CORRECT = "from toolfuzz.targets.selftest.plain import assemble_chunks as assemble\n"
BROKEN = "from toolfuzz.targets.selftest.mutants import shared_buffer as assemble\n"


def test_a_bisection_over_real_releases_names_the_one_that_introduced_the_mistake(tmp_path, monkeypatch, capsys):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for version, body in (("1.0", CORRECT), ("1.1", CORRECT), ("1.2", BROKEN), ("1.3", BROKEN), ("1.4", BROKEN)):
        _wheel(wheels, version, body)
    # The releases come from these wheels, as an index would serve them.
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path / "envs"))
    fixture = tmp_path / "interleaved.json"
    shutil.copy(INTERLEAVED, fixture)
    assert main(["bisect", str(fixture), "--target", "tfz_bisect_demo:assemble", "--package", "tfz-bisect-demo",
                 "--json", "--record", "--samples", "1"]) == 0
    (found,) = json.loads(capsys.readouterr().out)
    assert found["introduced"] == "1.2" and found["fixed"] is None
    # The ends and one between (--samples 1), then halves: 1.3 is never needed.
    assert found["tested"] == {"1.0": "passes", "1.1": "passes", "1.2": "fails", "1.4": "fails"}
    # Recorded in the fixture, under the target's name; the rest of the fixture as it was.
    recorded = load(fixture)
    assert recorded.history == {"tfz_bisect_demo:assemble": {"package": "tfz-bisect-demo", "tested": found["tested"],
                                                             "introduced": "1.2", "fixed": None}}
    assert replace(recorded, history={}) == load(INTERLEAVED)
    assert history_text(recorded.history["tfz_bisect_demo:assemble"]) == "tfz-bisect-demo 1.2 – 1.4"
    # The environments stay, for the next bisection to reuse.
    assert sorted(p.name for p in (tmp_path / "envs").iterdir()) == [
        "bisect-tfz-bisect-demo-1.0", "bisect-tfz-bisect-demo-1.1", "bisect-tfz-bisect-demo-1.2",
        "bisect-tfz-bisect-demo-1.4"]


#: A release that asserts in one function, one where that assertion is gone and a check further on raises, and
#: one that assembles right.
ASSERTS = ("from toolfuzz.targets.selftest.plain import assemble_chunks\n"
           "def check(chunks):\n    assert not chunks, 'a check the next release removes'\n"
           "def assemble(chunks):\n    check(chunks)\n    return assemble_chunks(chunks)\n")
RAISES_FURTHER_ON = ("def lookup(chunks):\n    raise KeyError('call_9')\n"
                     "def assemble(chunks):\n    return lookup(chunks)\n")


def test_a_bisection_follows_the_recorded_crash_state_to_the_release_where_it_stops(tmp_path, monkeypatch, capsys):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    for version, body in (("1.0", ASSERTS), ("1.1", ASSERTS), ("1.2", RAISES_FURTHER_ON), ("1.3", CORRECT)):
        _wheel(wheels, version, body)
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path / "envs"))
    target = "tfz_bisect_demo:assemble"
    doc = json.loads(INTERLEAVED.read_text(encoding="utf-8"))
    state = "AssertionError at tfz_bisect_demo.check < tfz_bisect_demo.assemble"
    doc["observed"] = {target: {"verdict": "diverges", "kind": "raised", "detail": "AssertionError",
                                "observation": {"raised": "AssertionError", "crash_state": state}}}
    fixture = tmp_path / "asserts.json"
    fixture.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["bisect", str(fixture), "--target", target, "--package", "tfz-bisect-demo", "--json",
                 "--samples", "1"]) == 0
    out, err = capsys.readouterr()
    (found,) = json.loads(out)
    # 1.2 raises too, but a KeyError in another function: the recorded root cause stopped there.
    assert found["tested"] == {"1.0": "fails", "1.1": "fails", "1.2": "changed", "1.3": "passes"}
    assert (found["introduced"], found["fixed"]) == (None, "1.2")
    assert "tfz-bisect-demo 1.2: changed (raised at KeyError at tfz_bisect_demo.lookup < tfz_bisect_demo.assemble)" \
        in err


def test_a_fixture_that_cannot_be_read_or_a_package_with_no_releases_is_one_line(tmp_path, capsys):
    assert main(["bisect", str(tmp_path / "nope.json"), "--target", "x", "--package", "six"]) == 2
    assert capsys.readouterr().err == f"toolfuzz bisect: {tmp_path / 'nope.json'}: cannot read: No such file or directory\n"
    assert main(["bisect", str(INTERLEAVED), "--target", "x", "--package", "toolfuzz-no-such-package-zz"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("toolfuzz bisect: --package toolfuzz-no-such-package-zz: the index lists no releases (")
    assert err.count("\n") == 1


def test_a_release_is_probed_beside_what_else_the_target_s_adapter_needs(environments_asked):
    from toolfuzz.corpus import bisect as bisection

    said: list[str] = []
    probe = bisection.probe_in_environment(load(INTERLEAVED).case, "httpx-sse", "httpx-sse", say=said.append)
    assert probe("0.4.0") == "error"
    # httpx-sse's adapter reads through an httpx response: httpx goes in too, at whatever release fits.
    assert environments_asked == [("bisect-httpx-sse-0.4.0", ["httpx-sse==0.4.0", "httpx"])]
    assert said == ["httpx-sse 0.4.0: error: not made in this test"]


def test_a_serving_engine_s_release_is_probed_with_its_recipe_that_release_in_place_of_the_pin(environments_asked):
    from toolfuzz.corpus import bisect as bisection
    from toolfuzz.targets.environments import RECIPES

    fixture = ROOT / "findings" / "sglang" / "sglang-hermes--arguments_invalid--plain.json"
    probe = bisection.probe_in_environment(load(fixture).case, "sglang-hermes", "sglang", say=lambda text: None)
    assert probe("0.5.20") == "error"
    (asked,) = environments_asked
    # sglang goes in without its dependencies, as its recipe says, beside what its parsers import.
    assert asked == ("bisect-sglang-0.5.20", [*RECIPES["sglang"][:-1], "sglang==0.5.20"])
    assert asked[1][-2:] == ["--no-deps", "sglang==0.5.20"]
    # vLLM's torch is a package of the recipe too; a package outside it is put in beside the recipe's.
    torch = bisection.requirements_at("vllm-hermes@vllm", "torch", "2.12.0")
    assert "torch==2.12.0" in torch and "torch==2.13.0" not in torch and torch[-1] == "vllm==0.34.0"
    jiter = bisection.requirements_at("vllm-hermes", "jiter", "0.8.0")
    assert jiter == ["jiter==0.8.0", *RECIPES["vllm"]]
    assert bisection.requirements_at("httpx-sse", "httpx-sse", "0.4.0") == ["httpx-sse==0.4.0", "httpx"]


def test_the_first_release_that_loads_is_found_by_halving_past_a_run_of_old_ones_that_do_not():
    versions = [f"0.{i}" for i in range(100)] + [f"1.{i}" for i in range(20)]
    verdicts = {v: "error" if v.startswith("0.") else "passes" if int(v[2:]) < 12 else "fails" for v in versions}
    asked: list[str] = []
    found = bisect("f.json", versions, by(verdicts, asked))
    assert (found.introduced, found.fixed) == ("1.12", None)
    # 1.0 is the first that loads; stepping up from 0.0 would have probed a hundred releases.
    assert "1.0" in found.tested and found.tested["0.99"] == "error"
    assert len(asked) == len(set(asked)) <= 20, asked


def test_a_target_that_loads_on_none_of_the_newest_releases_is_not_tried_on_every_older_one():
    versions = [f"1.{i}" for i in range(50)]
    asked: list[str] = []
    found = bisect("f.json", versions, by(dict.fromkeys(versions, "error"), asked))
    assert asked == ["1.49", "1.48", "1.47"]
    assert (found.introduced, found.fixed) == (None, None) and describe(found).startswith("f.json: no release loaded")
