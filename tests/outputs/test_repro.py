"""toolfuzz.outputs.repro: every bug in findings/ has a script that reproduces it with only its library installed.

Each environment's scripts run in one child process of that environment's python (this one for the libraries
of .venv-ci; TOOLFUZZ_LLAMA_PYTHON, TOOLFUZZ_SGLANG_PYTHON and TOOLFUZZ_VLLM_PYTHON for the others), with toolfuzz
made unimportable, each script in turn, as ``python SCRIPT`` would run it.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolfuzz.corpus.fixtures import iter_fixture_paths, load, loads
from toolfuzz.corpus.grades import fixture_grade
from toolfuzz.outputs.excerpt import excerpt
from toolfuzz.outputs.repro import NoRepro, Repro, issue, repros, script
from toolfuzz.severity import Severity
from toolfuzz.targets import adapters
from toolfuzz.targets.adapters.recipes import NO_RECIPE, RECIPES
from toolfuzz.hash_seed import pinned
from toolfuzz.vocabulary import version_key
from tests.adapter_checks import LLAMA_PYTHON, SGLANG_PYTHON, VLLM_PYTHON, unavailable
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
#: Runs each script named on its command line as ``python SCRIPT`` would, with toolfuzz unimportable, and prints
#: each one's exit status and output, and the installed version of each package named after ``--``, as JSON.
RUNNER = """
import contextlib, io, json, runpy, sys
from importlib import metadata
sys.modules["toolfuzz"] = None
split = sys.argv.index("--")
scripts, packages = sys.argv[1:split], sys.argv[split + 1:]
results = {}
for path in scripts:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_path(path, run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code
        except BaseException as e:
            code = f"{type(e).__name__}: {e}"
    results[path] = {"code": code, "out": out.getvalue(), "err": err.getvalue()[-3000:]}
versions = {}
for package in packages:
    try:
        versions[package] = metadata.version(package)
    except metadata.PackageNotFoundError:
        versions[package] = None
print(json.dumps({"results": results, "versions": versions}))
"""


def environment(target: str) -> str:
    name = target.partition("@")[0]
    return ("llama" if name == "llama-index" else "sglang" if name.startswith("sglang-")
            else "vllm" if name.startswith("vllm-") else "ci")


PYTHONS = {"ci": sys.executable, "llama": LLAMA_PYTHON, "sglang": SGLANG_PYTHON, "vllm": VLLM_PYTHON}
VARIABLES = {"llama": "TOOLFUZZ_LLAMA_PYTHON", "sglang": "TOOLFUZZ_SGLANG_PYTHON", "vllm": "TOOLFUZZ_VLLM_PYTHON"}


def graded_repros() -> list[Repro]:
    """The repro of each graded divergence in findings/ that has one."""
    found = []
    for path in iter_fixture_paths([str(FINDINGS)]):
        fixture = load(path)
        found.extend(r for r in repros(fixture, str(path.relative_to(ROOT)))
                     if isinstance(r, Repro) and r.grade is not None)
    return found


GRADED = graded_repros()
BUGS = [r for r in GRADED if r.grade.severity is Severity.BUG]


def python_adapter(target: str) -> bool:
    return any(target.partition("@")[0] in a.names for a in adapters.KNOWN)


def test_every_bug_of_a_python_library_has_a_repro_script():
    """A new bug fixture of a library with an adapter fails here until its target has a recipe and its kind a
    check."""
    missing = []
    for path in iter_fixture_paths([str(FINDINGS)]):
        fixture = load(path)
        for found in repros(fixture, str(path)):
            grade = fixture_grade(fixture, found.target) if found.target else None
            if grade is None or grade.severity is not Severity.BUG or not python_adapter(found.target):
                continue
            try:
                if isinstance(found, NoRepro):
                    raise found
                script(found, "repro.py")
            except NoRepro as e:
                missing.append(str(e))
    assert not missing, "\n".join(missing)


def expected_to_show(repro: Repro, installed: str | None) -> bool:
    """Whether the bug should show on the release ``installed``: not where bisect recorded a fix at or before it."""
    fixed = (repro.fixture.history.get(repro.target) or {}).get("fixed")
    return not (fixed and installed and version_key(installed) >= version_key(fixed))


def run_scripts(python: str, repros_: list[Repro], folder: Path) -> dict:
    """Write each repro's script into ``folder`` and run them all in one child of ``python``: each one's
    repro and result, in order, and the installed version of each package."""
    paths = {}
    for k, repro in enumerate(repros_):
        path = folder / f"repro_{k}.py"
        path.write_text(script(repro, path.name), encoding="utf-8")
        paths[str(path)] = repro
    runner = folder / "runner.py"
    runner.write_text(RUNNER)
    packages = sorted({r.package for r in repros_})
    # Under the hash seed already, as the scripts would run themselves again (a new process) without one.
    done = subprocess.run([python, str(runner), *paths, "--", *packages], env=pinned(),
                          capture_output=True, text=True, timeout=500, cwd=folder)  # a guard against a hang only
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    return {"by_repro": {path: (paths[path], report["results"][path]) for path in paths},
            "versions": report["versions"]}


def assert_reproduced(outcome: dict) -> set[str]:
    """Each script exits 1 saying REPRODUCED, or 0 saying NOT REPRODUCED where the installed release is past
    the fix bisect recorded; the fixtures of those."""
    fixed = set()
    problems = []
    for repro, result in outcome["by_repro"].values():
        last = result["out"].strip().splitlines()[-1] if result["out"].strip() else ""
        if expected_to_show(repro, outcome["versions"].get(repro.package)):
            ok = result["code"] == 1 and last.startswith("REPRODUCED: ")
        else:
            ok = result["code"] == 0 and last.startswith("NOT REPRODUCED: ")
            fixed.add(Path(repro.source).name)
        if not ok:
            problems.append(f"{repro.source} ({repro.target}): exit {result['code']}, {last or result['err']}")
    assert not problems, "\n".join(problems)
    return fixed


def repros_in(env: str, severity: Severity = Severity.BUG) -> list[Repro]:
    return [r for r in GRADED if environment(r.target) == env and r.grade.severity is severity]


def test_every_bug_script_of_the_main_environment_reproduces_its_bug_without_toolfuzz(tmp_path):
    fixed_here = loads(mutated_fixture(), "the haystack fixture, finished")
    (right,) = [r for r in repros(fixed_here, "finished.json") if isinstance(r, Repro)]
    outcome = run_scripts(sys.executable, [*repros_in("ci"), right], tmp_path)
    missing = [p for p, version in outcome["versions"].items() if version is None]
    if missing:
        unavailable(f"not installed here: {', '.join(missing)}")
    # The stream the library gets right says so, and exits 0.
    *_, (_, result) = outcome["by_repro"].values()
    assert result["code"] == 0
    assert result["out"] == "NOT REPRODUCED: no call the stream left unfinished is handed on as complete\n"
    outcome["by_repro"] = dict(list(outcome["by_repro"].items())[:-1])
    # A bug recorded on a release before bisect's fix: its script says NOT REPRODUCED on what is installed.
    assert assert_reproduced(outcome) >= {"httpx-sse--data_differs--plain--0.4.0.json"}


@pytest.mark.parametrize("env", ["llama", "sglang", "vllm"])
def test_every_bug_script_of_an_environment_of_its_own_reproduces_its_bug(env, tmp_path):
    if not PYTHONS[env]:
        unavailable(f"{VARIABLES[env]} names no python to run its scripts with")
    # llama-index's findings are all robustness (behaviour its docs state, shapes its OpenAI scope never reads):
    # its scripts run all the same, so that its recipe stays held to the library.
    chosen = repros_in(env) or repros_in(env, Severity.ROBUSTNESS)
    outcome = run_scripts(PYTHONS[env], chosen, tmp_path)
    assert chosen and assert_reproduced(outcome) == set()


def mutated_fixture() -> bytes:
    """haystack's finding on a call cut by finish_reason length, with the stream finishing the call instead:
    a stream haystack gets right."""
    doc = json.loads((FINDINGS / "haystack" / "haystack--incomplete_handed_on--length.json").read_text())
    finish = ('"finish_reason":"length"', '"finish_reason":"tool_calls"')
    doc["wire"]["lines"] = [line.replace(*finish) for line in doc["wire"]["lines"]]
    doc["wire"]["cuts"] = []
    for event in doc["events"]:
        event["data"] = event["data"].replace(*finish)
    assert "length" not in json.dumps(doc["wire"]) + json.dumps(doc["events"])
    for call in doc["expected"]["calls"]:
        call["status"] = "complete"
    return json.dumps(doc).encode()


def test_the_recipes_are_the_functions_the_installed_targets_run():
    checked = 0
    for target in adapters.installed():
        recipe = RECIPES.get(target.name)
        if recipe is None or "(" in recipe.run:
            continue
        fn = inspect.unwrap(target.fn)
        assert (fn.__module__, fn.__name__) == (recipe.module_name, recipe.run), target.name
        assert recipe.values == ("values" in target.reports), target.name
        checked += 1
    if checked == 0:
        unavailable("no adapter's library is installed")
    assert not set(RECIPES) & set(NO_RECIPE)
    assert all(python_adapter(name) for name in [*RECIPES, *NO_RECIPE])


def test_a_target_without_a_recipe_is_said_in_one_line():
    fixture = load(FINDINGS / "selftest-key-by-id" / "phantom_call--index-from-one.json")
    (why,) = repros(fixture, "mutant.json")
    assert isinstance(why, NoRepro) and str(why) == ("mutant.json: selftest-key-by-id: a self-test mutant of "
                                                     "toolfuzz's own, not a library")
    node = load(FINDINGS / "openai-node" / "openai-node-stream--id_differs--new-id-continuations+no-done+"
                                           "unterminated-event.json")
    assert "no repro recipe" in str(repros(node, "node.json")[0])
    hand = load(FINDINGS / "seed" / "two-calls-interleaved.json")
    assert str(repros(hand, "seed.json")[0]) == "seed.json: records no diverging target: nothing to reproduce"


OPENAI_RAISE = FINDINGS / "openai" / "openai-stream-state--raised--multi-choice.json"


def test_the_issue_says_what_was_sent_what_came_back_what_was_expected_and_why():
    # The statement and the range are set here: findings/ keeps them as people and bisect last wrote them.
    doc = json.loads(OPENAI_RAISE.read_text())
    doc["statement"] = "Choice 1 first, e.g. n=2, makes the accumulator raise IndexError. Nothing is assembled."
    doc["history"] = {"openai-stream-state": {"package": "openai", "introduced": None, "fixed": None, "tested": {
        "3.60.0": "fails", "1.56.1": "fails", "1.2.0": "error", "1.50.0": "passes"}}}
    (repro,) = repros(loads(json.dumps(doc).encode()), "findings/openai/multi-choice.json")
    body = issue(repro, "multi-choice.py")
    assert body.startswith("# openai 3.57.0: Choice 1 first, e.g. n=2, makes the accumulator raise IndexError\n")
    for part in ["**Library:** openai 3.57.0, driven through openai.OpenAI",
                 f"## What goes wrong\n\n{doc['statement']}\n",
                 '## What was sent\n\nThe response body (2243 bytes), a `text/event-stream`:\n\n```text\ndata: {"id"',
                 "## What came back\n\nIt raised `IndexError: list assignment index out of range`.",
                 "Raised at: `IndexError at openai.lib.streaming.chat._completions._convert_initial_chunk_into",
                 '## What was expected\n\nThe calls the stream makes', '"id": "call_3"',
                 "- **Severity:** `bug`: harm on shapes the target promises to read",
                 "- **Harm:** a raise on a stream it should read, a crash or a hang.",
                 "- **Rule:** a library should not raise on, or hang over, a stream it reads (source: inherent).",
                 "- **Shape `multi-choice`** (documented)",
                 "## Releases\n\nopenai 1.56.1 – 3.60.0 (toolfuzz bisect; passes on 1.50.0; fails on 1.56.1, 3.60.0; 1 "
                 "release(s) did not run).",
                 "pip install 'openai==3.57.0'\npython multi-choice.py\n```"]:
        assert part in body, part


def test_the_issue_says_what_a_script_stands_in_for_and_only_where_its_adapter_does():
    sglang = ROOT / "findings" / "sglang" / "sglang-deepseek-v3--content_differs--content-before.json"
    (repro,) = repros(load(sglang), str(sglang))
    assert "It stands in for sglang's package __init__ and sglang.utils" in issue(repro, "s.py")
    (plain,) = repros(load(OPENAI_RAISE), str(OPENAI_RAISE))
    assert "stands in" not in issue(plain, "o.py")


def test_a_long_wire_is_trimmed_in_the_issue_and_kept_whole_in_the_script():
    path = FINDINGS / "json-repair" / "json-repair--raised_on_prefix--plain.json"
    (repro,) = repros(load(path), str(path))
    body = issue(repro, "x.py")
    assert "characters left out" in body and len(body) < 12_000
    assert load(path).case.expected.calls[0].arguments in script(repro, "x.py")


def test_backticks_in_the_wire_cannot_close_its_fence():
    doc = json.loads(OPENAI_RAISE.read_text())
    doc["wire"]["lines"][0] = "data: ````\n"
    (repro,) = repros(loads(json.dumps(doc).encode()), "ticks.json")
    body = issue(repro, "x.py")
    assert "`````text\ndata: ````\n" in body


def test_a_statement_with_quotes_and_backslashes_still_makes_a_script_python_reads():
    doc = json.loads(OPENAI_RAISE.read_text())
    doc["statement"] = 'Ends in """ and a \\ backslash, a \x1b[31m escape and a lone \ud800 half.'
    (repro,) = repros(loads(json.dumps(doc).encode()), "quotes.json")
    text = script(repro, "x.py")
    docstring = compile(text, "x.py", "exec").co_consts[0]
    assert 'Ends in """ and a \\ backslash, a \\x1b[31m escape and a lone \\ud800 half.' in docstring


def test_every_built_in_python_target_has_a_recipe_or_a_reason_and_every_recipe_can_be_copied():
    names = {name for a in adapters.KNOWN for name in a.names}
    assert names == set(RECIPES) | set(NO_RECIPE)
    for name, recipe in RECIPES.items():
        run = recipe.run if "(" in recipe.run else f"{recipe.run}(DATA)"
        compile(excerpt([(recipe.module_name, run)], own={"DATA"}), name, "exec")
