"""Environments of their own: made, listed and removed, and a built-in target run inside one side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolfuzz.cli import main
from toolfuzz.corpus.fixtures import load
from toolfuzz.errors import UsageError
from toolfuzz.targets import environments
from tests.paths import ROOT
from tests.processes import marked, survivors


def test_a_target_at_an_environment_is_a_spec_of_its_own():
    assert environments.split_spec("openai-stream-state@openai-3.13") == ("openai-stream-state", "openai-3.13")
    assert environments.split_spec("openai-stream-state") is None
    assert environments.split_spec("my_file.py:fn") is None and environments.split_spec("@x") is None


def test_a_recipe_gives_the_requirements_of_what_cannot_share_toolfuzz_s_environment():
    assert environments.requirements_for("llama-index", []) == ["llama-index-llms-openai>=0.4"]
    assert environments.requirements_for("llama-index", ["x==1"]) == ["x==1"]
    assert environments.requirements_for("plain", []) == []


@pytest.fixture
def install_steps(tmp_path, monkeypatch) -> list[list[str]]:
    """Every command an environment is made with, none of them run (the venv's folder is made)."""
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path))
    monkeypatch.setattr(environments.shutil, "which", lambda name: None)  # venv and pip, the steps compared
    steps: list[list[str]] = []

    def ran(argv, **kwargs):
        steps.append(argv)
        if "venv" in argv:
            Path(argv[-1]).mkdir(parents=True)
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(environments.subprocess, "run", ran)
    return steps


def test_what_a_recipe_lists_after_no_deps_goes_in_alone_and_ci_pins_sglang_as_its_recipe(tmp_path, install_steps):
    environments.add("sglang", [])
    *_, plain, bare = install_steps
    assert "--no-deps" not in plain and {"openai==2.8.0", "msgspec"} <= set(plain) and "sglang==0.5.23" not in plain
    assert bare[-2:] == ["--no-deps", "sglang==0.5.23"]
    assert (tmp_path / "sglang" / "toolfuzz-env.json").is_file()
    ci = (ROOT / ".ci" / "run").read_text()
    assert f'SGLANG="{environments.RECIPES["sglang"][-1]}"' in ci


def test_an_environment_is_made_without_a_pip_of_its_own_and_installed_by_this_one(tmp_path, install_steps, monkeypatch):
    folder = tmp_path / "plain"
    environments.add("plain", ["six"])
    make, install = install_steps
    # ensurepip's seconds, and the old pip it leaves, spared: this python's pip installs there (pip --python).
    assert make == [sys.executable, "-m", "venv", "--without-pip", str(folder)]
    assert install[:5] == [sys.executable, "-m", "pip", "--python", str(folder / "bin" / "python")]
    assert install[-1] == "six"
    # A pip too old to install elsewhere: the environment gets its own, as venv gives it.
    install_steps.clear()
    monkeypatch.setattr(environments, "_pip_version", lambda: (22, 2))
    environments.add("plain", ["six"])
    make, install = install_steps
    assert make == [sys.executable, "-m", "venv", str(folder)]
    assert install[:3] == [str(folder / "bin" / "python"), "-m", "pip"]


def test_the_vllm_recipe_pins_a_cpu_torch_and_puts_vllm_in_alone_as_ci_does(install_steps):
    environments.add("vllm", [])
    *_, plain, bare = install_steps
    # A bare torch requirement, or vLLM's own pin, would pull the GPU build: the recipe names the release.
    assert "torch==2.13.0" in plain and not any(r.startswith("vllm") for r in plain)
    assert bare[bare.index("--no-deps"):] == ["--no-deps", "xgrammar==0.2.8", "apache-tvm-ffi==0.1.11", "vllm==0.34.0"]
    recipe = environments.RECIPES["vllm"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert f'VLLM="{" ".join(recipe[recipe.index("--no-deps") + 1:])}"' in ci
    pinned = (ROOT / "constraints" / "vllm.txt").read_text()
    assert "\ntorch==2.13.0+cpu\n" in pinned and "\nvllm==" not in pinned


def test_an_unknown_environment_or_a_bad_name_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path))
    with pytest.raises(UsageError, match=r"no environment 'nope' \(toolfuzz env add nope REQUIREMENT\.\.\.; known: "
                                         r"none yet\)"):
        environments.find("nope")
    with pytest.raises(UsageError, match="environment name '../x'"):
        environments.add("../x", [])


def test_a_requirement_that_does_not_install_leaves_no_environment_behind(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path))
    with pytest.raises(UsageError, match=r"^environment 'broken': .* failed: "):
        environments.add("broken", ["toolfuzz-no-such-requirement===0.0.0"])
    assert not (tmp_path / "broken").exists() and environments.listed() == []


def test_an_environment_made_with_another_toolfuzz_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path))
    (tmp_path / "old").mkdir()
    record = {"requirements": ["six"], "toolfuzz": "toolfuzz==0.0.1"}
    (tmp_path / "old" / "toolfuzz-env.json").write_text(json.dumps(record))
    made = []
    monkeypatch.setattr(environments, "add", lambda name, requirements, say: made.append((name, requirements)))
    environments.ensure("old", ["six"])
    assert made == [("old", ["six"])]


def test_a_built_in_target_runs_inside_an_environment_beside_itself_in_process(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path / "envs"))
    assert main(["env", "add", "own"]) == 0
    assert capsys.readouterr().out.startswith(f"own: {tmp_path / 'envs' / 'own'} (--target TARGET@own)")
    assert main(["env", "list"]) == 0 and capsys.readouterr().out.startswith("own  -  (")
    # toolfuzz goes in editable from this checkout: the environment runs the adapters as they are here now.
    own = environments.find("own")
    where = subprocess.run([str(own.python), "-c", "import toolfuzz.targets.adapters as m; print(m.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert own.toolfuzz == f"-e {ROOT}" and Path(where) == ROOT / "targets" / "adapters" / "__init__.py"
    assert environments.ensure("own", []) == own
    # `toolfuzz targets` asks the environment for its library targets: none is installed there, and it answered
    # (a row "?@own" would say it did not).
    assert main(["targets"]) == 0
    listed = capsys.readouterr().out
    assert "selftest-plain " in listed and "@own" not in listed
    code = main(["run", "--target", "selftest-shared-buffer@own", "--target", "selftest-shared-buffer",
                 "--max-examples", "300", "--seed", "3", "--database", "none", "--findings", str(tmp_path / "found"),
                 "--json"])
    assert code == 1
    summary = json.loads(capsys.readouterr().out)
    found = {t["name"]: sorted(f["signature"].split("/", 1)[1] for f in t["divergences"]) for t in summary["targets"]}
    # The same code, served from the other environment, finds the same root causes.
    assert found["selftest-shared-buffer@own"] == found["selftest-shared-buffer"] != []
    served = next(t for t in summary["targets"] if t["name"] == "selftest-shared-buffer@own")
    assert all(d["fixture"].startswith(str(tmp_path / "found" / "selftest-shared-buffer@own")) and
               load(d["fixture"]).observed["selftest-shared-buffer@own"]["verdict"] == "diverges"
               for d in served["divergences"])
    assert main(["env", "remove", "own"]) == 0 and environments.listed() == []


def test_the_targets_of_one_environment_are_served_by_one_program(tmp_path, monkeypatch):
    from toolfuzz.targets.specs import resolve_all
    # An environment as toolfuzz env add leaves one, whose python is this one.
    folder = tmp_path / "envs" / "here"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    (folder / "bin" / "python").chmod(0o755)
    (folder / "toolfuzz-env.json").write_text(json.dumps({"name": "here", "requirements": [], "toolfuzz": ""}))
    monkeypatch.setenv("TOOLFUZZ_ENVS", str(tmp_path / "envs"))
    targets = resolve_all(["selftest-plain@here", "selftest-plain", "selftest-shared-buffer@here"])
    try:
        assert [t.name for t in targets] == ["selftest-plain@here", "selftest-plain", "selftest-shared-buffer@here"]
        first, _, second = targets
        assert first.extra["child"] is second.extra["child"] and first.extra["child"].starts == 1
        assert first.extra["child"].argv[-3:] == ["serve", "selftest-plain", "selftest-shared-buffer"]
        assert first.summary == "selftest-plain in the environment here"
    finally:
        first.extra["child"].stop()
    # A spec named twice is one program still, and one error.
    with pytest.raises(UsageError, match="a target named 'selftest-plain@here' is already in this run"):
        resolve_all(["selftest-plain@here", "selftest-plain@here"])
    # A name that is not one target's (every self-test mutant) is served as what it is, and said so.
    with pytest.raises(UsageError, match=r"--target selftest@here: it serves selftest-\S+, .*, not selftest$"):
        resolve_all(["selftest@here"])
    # An import spec (what a bisection serves) is served under its object's own name, and taken as asked.
    (imported,) = environments.find("here").served(["toolfuzz.targets.selftest.mutants:shared_buffer"])
    imported.extra["child"].stop()
    assert imported.summary.endswith(" in the environment here")


#: ``toolfuzz serve`` as an environment's python runs it, but its selftest-plain deaf to everything on the first
#: two cases its caller hands it (a case, then the confirmation of its time-out), as a parser stuck in a loop.
SPINNING_SERVE = textwrap.dedent('''
    import os, sys
    from pathlib import Path
    import toolfuzz.targets.specs as contestants

    calls = Path(sys.argv[1]) / f"calls-{os.getppid()}"  # counted for each process that starts this one

    def spinning(fn):
        def call(chunks):
            n = int(calls.read_text()) if calls.exists() else 0
            calls.write_text(str(n + 1))
            while n < 2:
                pass
            return fn(chunks)
        return call

    builtin = contestants.builtin_targets
    contestants.builtin_targets = lambda names=None: {
        name: t.wrapped(spinning) if name == "selftest-plain" else t for name, t in builtin(names).items()}
    from toolfuzz.cli import main
    sys.exit(main(sys.argv[4:]))  # what follows -m toolfuzz: serve selftest-plain
''')


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_whose_served_target_times_out_leaves_no_process_behind(tmp_path, workers):
    serve = tmp_path / "spinning_serve.py"
    serve.write_text(SPINNING_SERVE)
    # An environment as toolfuzz env add leaves one, whose python is this one running the serve above.
    folder = tmp_path / "envs" / "spin"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "python").write_text(f'#!/bin/sh\nexec {sys.executable} {serve} {tmp_path} "$@"\n')
    (folder / "bin" / "python").chmod(0o755)
    (folder / "toolfuzz-env.json").write_text(json.dumps({"name": "spin", "requirements": [], "toolfuzz": ""}))
    assert marked(str(serve)) == []
    done = subprocess.run([sys.executable, "-m", "toolfuzz", "run", "--target", "selftest-plain@spin", "--workers",
                           workers, "--timeout", "2", "--max-examples", "20", "--budget", "60", "--database", "none",
                           "--findings", str(tmp_path / "found"), "--state", str(tmp_path / "state"), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TOOLFUZZ_ENVS": str(tmp_path / "envs")})
    summary = json.loads(done.stdout)
    assert {d["kind"] for t in summary["targets"] for d in t["divergences"]} & {"timed_out", "hang"}, done.stderr
    assert survivors(marked(str(serve))) == []
