"""Every fixture under findings/ replays on the reference: the expected outcome, however it was recorded.

And every finding recorded on a library replays on that library, one test per findings/<library>/ folder:
the npm package's through node, llama-index's, sglang's and vLLM's with the python of their own environments
(TOOLFUZZ_LLAMA_PYTHON, TOOLFUZZ_SGLANG_PYTHON, TOOLFUZZ_VLLM_PYTHON). A serving engine's finding is a model's
text, not a wire: the reference has nothing to assemble there, and its batches are checked to be a text holding every call written.
A library that is not installed skips its folder, except under CI, where that fails (tests/adapter_checks.py).
"""

import functools
import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from toolfuzz.cli import main
from toolfuzz.corpus.merge import merge
from toolfuzz.corpus.findings import path_for, replayed_fixture, save_fixture
from toolfuzz.corpus.fixtures import iter_fixture_paths, load
from toolfuzz.corpus.replay import Report, divergent, fixed_in, load_fixtures, recorded_version, replay
from toolfuzz.targets.specs import resolve
from toolfuzz.targets import adapters
from toolfuzz.targets.registry import builtin_targets
from toolfuzz.targets.reference import assemble
from tests.adapter_checks import LLAMA_PYTHON, PARTIAL_EXAMPLE, SGLANG_PYTHON, VLLM_PYTHON, node_example, unavailable
from toolfuzz.vocabulary import text_format
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
PATHS = iter_fixture_paths([str(FINDINGS)])
#: The fixtures of a model's text (the producer level), and those of a wire.
TEXTS = [p for p in PATHS if text_format(load(p).case.dialect)]
WIRES = [p for p in PATHS if p not in TEXTS]
#: The environments of their own, by findings folder: the python that replays it.
ELSEWHERE = {"llama-index": (LLAMA_PYTHON, "llama_index", "TOOLFUZZ_LLAMA_PYTHON"),
             "sglang": (SGLANG_PYTHON, "sglang", "TOOLFUZZ_SGLANG_PYTHON"),
             "vllm": (VLLM_PYTHON, "vllm", "TOOLFUZZ_VLLM_PYTHON")}
#: The folders of findings recorded on real libraries (not the hand-written seeds, the self-test mutants, nor the
#: real captures of findings/captures/, which tests/targets/reference/test_captures.py replays).
LIBRARIES = sorted(p.name for p in FINDINGS.iterdir()
                   if p.is_dir() and p.name != "captures" and not p.name.startswith(("seed", "selftest-")))

#: The folders that are not a library's: the hand-written seeds and the self-test mutants'.
OTHERS = sorted(p.name for p in FINDINGS.iterdir() if p.is_dir() and p.name != "captures" and p.name not in LIBRARIES)


def test_there_are_findings_to_replay():
    assert len(PATHS) >= 7 and len([f for f in OTHERS if f.startswith("selftest-")]) >= 9


@pytest.mark.parametrize("path", TEXTS, ids=[str(p.relative_to(FINDINGS)) for p in TEXTS])
def test_a_producer_finding_is_its_format_s_text_holding_every_call_written(path):
    case = load(path).case
    text = b"".join(case.reads).decode("utf-8")
    assert case.expected.content is not None and case.events == ()
    assert case.expected.calls
    for call in case.expected.calls:
        assert call.name in text
        json.loads(call.arguments)  # what the model wrote is one JSON value


@pytest.mark.parametrize("path", WIRES, ids=[str(p.relative_to(FINDINGS)) for p in WIRES])
def test_the_reference_gives_the_expected_outcome(path):
    case = load(path).case
    assert assemble(case.reads, case.tools, case.limits, case.dialect) == case.expected
    # and the same however the wire is read
    wire = case.wire
    assert assemble([wire], case.tools, case.limits, case.dialect) == case.expected
    assert assemble([wire[i:i + 1] for i in range(len(wire))], case.tools, case.limits, case.dialect) == case.expected


@pytest.mark.parametrize("dialect", ["openai-responses", "anthropic"])
def test_every_dialect_has_its_seed_fixtures(dialect):
    seeds = [load(p).case for p in PATHS if p.parent.name == f"seed-{dialect.removeprefix('openai-')}"]
    assert len(seeds) == 5 and {c.dialect for c in seeds} == {dialect}


@functools.cache
def replayed(folder: str) -> Report:
    """One folder of findings/ replayed on what its fixtures record: each folder once, wherever its test runs
    (the tests of several folders share no replay, so that CI's workers never repeat one)."""
    return replay(load_fixtures([str(FINDINGS / folder)]))



@pytest.mark.parametrize("folder", OTHERS)
def test_every_recorded_target_still_behaves_as_recorded(folder):
    report = replayed(folder)
    unexpected = [(c.fixture.label, c.target, c.verdict) for c in report.cells if c.unexpected]
    assert report.exit_code == 0 and not unexpected, unexpected
    # The self-test mutants never change: each of their fixtures still fails, the way it was recorded.
    selftest = [c for c in report.cells if c.recorded and c.target.startswith("selftest-")]
    assert {c.verdict for c in selftest} <= {"still fails"}, [(c.fixture.label, c.verdict) for c in selftest]
    if folder.startswith("selftest-"):
        assert selftest


class Replayed(NamedTuple):
    fixture: str  # its path under findings/
    target: str
    verdict: str
    version: str  # the version it ran on
    recorded: str  # the version the fixture was recorded on
    fixed_in: str


def _under_findings(path: str | Path) -> str:
    return Path(path).resolve().relative_to(FINDINGS).as_posix()


def cells_of(report: Report) -> list[Replayed]:
    return [Replayed(_under_findings(c.fixture.path), c.target, c.verdict, c.version,
                     recorded_version(c.fixture.fixture, c.target), fixed_in(c) if c.verdict == "fixed" else "")
            for c in report.cells if c.recorded]


def on_node(library: str, names: set[str]) -> list[Replayed]:
    """The npm packages' findings, through examples/node-openai (the openai package) and examples/node-partial
    (the Vercel AI SDK): not built-in targets, so named here."""
    if library == "ai-sdk":
        program = node_example(PARTIAL_EXAMPLE, "ai") / "parse.js"
    else:
        program = node_example() / "assemble.js"
    cells = []
    for name in sorted(names):
        (target,) = resolve(f"cmd:node {program}" + (" --client" if name.endswith("-client") else ""))
        try:
            assert target.name == name
            fixtures = [f for f in load_fixtures([str(FINDINGS / library)]) if name in f.fixture.observed]
            cells += cells_of(replay(fixtures, [target]))
        finally:
            target.extra["child"].stop()
    return cells


def in_own_environment(library: str, python: str) -> list[Replayed]:
    """A library's findings replayed by the python of its own environment (llama-index needs openai<3, sglang
    pins openai 2.8, vLLM needs torch)."""
    done = subprocess.run([python, "-m", "toolfuzz", "replay", "--json", str(FINDINGS / library)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr  # 1 would be a divergence nobody recorded
    report = json.loads(done.stdout)
    versions = {t["name"]: t["version"] for t in report["targets"]}
    return [Replayed(_under_findings(c["fixture"]), c["target"], c["verdict"], versions.get(c["target"], ""),
                     c["recorded"].get("version", ""), c.get("fixed_in", ""))
            for c in report["cells"] if "recorded" in c]


def elsewhere(library: str, names: set[str]) -> list[Replayed]:
    """Replay the cells the main replay skipped, where those targets are; skip or fail (under CI) without them."""
    if library in ("openai-node", "ai-sdk"):
        return on_node(library, names)
    python, module, variable = ELSEWHERE.get(library, ("", "", ""))
    if python and importlib.util.find_spec(module) is None:
        return in_own_environment(library, python)
    why = {n: w for n, _, w in adapters.status() if n in names and w != "installed"}
    if variable:
        why = {n: f"{w}, or name the python of its environment in {variable}" for n, w in why.items()}
    unavailable("; ".join(f"{n}: {w}" for n, w in sorted(why.items())) or f"{sorted(names)} did not run")


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_findings_recorded_on_each_library_replay_as_recorded(library):
    report = replayed(library)
    # Nothing diverges that was not recorded, and the reference agrees with every fixture.
    assert not [(c.fixture.label, c.target) for c in report.cells if c.unexpected]
    cells = cells_of(report)
    skipped = {c.target for c in cells if c.verdict == "skipped"}
    if skipped:
        cells = [c for c in cells if c.target not in skipped] + elsewhere(library, skipped)
    assert cells and not [c for c in cells if c.verdict == "skipped"], cells
    for c in cells:
        # A library that fixed its bug makes its fixture pass: reported as fixed, in which version, not failed.
        # On the very version a fixture was recorded on, though, a fixed or changed cell means the adapter or
        # the harness changed (.ci/run installs the recorded versions: constraints/).
        assert c.verdict == "still fails" or (c.verdict in ("fixed", "changed") and c.version != c.recorded), c
        if c.fixed_in:
            print(f"{c.fixture}: {c.fixed_in}; bash .ci/repin re-records the pins and lists it (docs/ci.md)")



#: The library targets that read a wire in the main environment (the real captures are wires): every known
#: adapter's but the partial parsers', the serving engines' and those of an environment of their own.
WIRE_TARGETS = sorted(name for adapter in adapters.KNOWN if adapter.level in ("", "sse") and not adapter.environment
                      for name in adapter.names)


@pytest.fixture(scope="module")
def captures_imported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("captures")
    assert main(["corpus", "import", str(FINDINGS / "captures"), "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("name", WIRE_TARGETS)
def test_what_a_library_target_meets_on_the_real_captures_is_a_root_cause_recorded_in_findings(
        name, captures_imported, tmp_path):
    # Each library target replays every real capture; what it gets wrong there, written as a run writes its
    # findings and merged into findings/ as a maintainer would, adds no root cause: each is one recorded
    # (a capture's shapes hold all of its features), or one recorded from the captures themselves.
    found = tmp_path / "found"
    targets = builtin_targets([name])
    if name in targets:
        report = replay(load_fixtures([str(captures_imported)]), [targets[name]])
        assert not [c for c in report.cells if c.target == "reference" and c.unexpected]
        for loaded, finding in divergent(report, targets):
            save_fixture(path_for(found, finding), replayed_fixture(finding, loaded.fixture.found))
    elif name == "llama-index" and LLAMA_PYTHON:
        # In its own environment (it needs openai<3), writing its findings as the main one does.
        done = subprocess.run([LLAMA_PYTHON, "-m", "toolfuzz", "replay", "--target", name, str(captures_imported),
                               "--findings", str(found)], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode in (0, 1), done.stderr
    else:
        unavailable(f"{name}: {adapters.unavailable(name)}")
    if not found.exists():
        return
    corpus = tmp_path / "findings"
    shutil.copytree(FINDINGS, corpus, ignore=shutil.ignore_patterns("captures"))
    new = [(m.action, str(m.path), str(m.source)) for m in merge([str(found)], corpus)
           if m.action not in ("folded", "kept")]
    assert new == []
