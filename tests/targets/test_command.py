"""``cmd:`` targets: a program in another language over the subprocess protocol (docs/subprocess.md).

A small Python program written here speaks the protocol and misbehaves on
request, chosen by the name of the first call in the case; the node example
(examples/node-openai) runs the openai npm package's accumulator through the
same path, once node is installed and ``npm ci --prefix examples/node-openai`` has run.
Whole runs, in processes of their own, count the processes of a program
before and after, to show that none outlives the run however the run ends.
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from toolfuzz.cli import main
from toolfuzz.judge.compare import compare
from toolfuzz.errors import UsageError
from toolfuzz.corpus.fixtures import load
from toolfuzz.vocabulary import Case
from toolfuzz.judge.sandbox import observe
from toolfuzz.targets.specs import resolve
from toolfuzz.targets.command import Child, CommandError, command_targets
from toolfuzz.targets.reference import assemble
from tests.adapter_checks import node_example as installed_node_example
from tests.streams import chunk, frag, head, sse
from tests.paths import ROOT
from tests.processes import marked, survivors

ROOT = ROOT
SEED = ROOT / "findings" / "seed"
EXAMPLE = ROOT / "examples" / "node-openai"

PROGRAM = textwrap.dedent('''
    import base64, json, os, sys, time

    def say(doc):
        sys.stdout.write(json.dumps(doc) + "\\n")
        sys.stdout.flush()

    hello = {"protocol": "toolfuzz-subprocess/1", "name": "py-child", "version": "0.1",
             "level": "bytes" if "bytes" in sys.argv else "events", "claims": ["ids", "names", "completion"],
             "dialects": ["openai-chat"]}
    if "hash-seed" in sys.argv:
        hello["version"] = os.environ.get("PYTHONHASHSEED", "unset")
    if "no-hello" in sys.argv:
        time.sleep(60)
    if "exit" in sys.argv:
        sys.stderr.write("cannot find my assembler\\n")
        sys.exit(4)
    if "banner" in sys.argv:
        print("starting the assembler", flush=True)
    if "garbled-hello" in sys.argv:
        print("{hello there", flush=True)
    elif "old-protocol" in sys.argv:
        say({**hello, "protocol": "toolfuzz-subprocess/0"})
    elif "scoped" in sys.argv:
        say({**hello, "scope": {"servers": ["openai"], "choices": 1, "integer_ids": False, "surface": "x.y()",
                                "limits": [{"features": ["invalid-json"], "kinds": ["call_lost"],
                                            "cite": "README: skipped"}]}})
    elif "bad-scope" in sys.argv:
        say({**hello, "scope": {"servers": ["openia"]}})
    elif "bad-limits" in sys.argv:
        say({**hello, "scope": {"limits": [{"features": ["invalid-json"]}]}})
    elif "several-bad" in sys.argv:
        say({"protocol": hello["protocol"], "targets": [hello, {**hello, "name": "b", "level": "nope"}]})
    elif "several-twice" in sys.argv:
        say({"protocol": hello["protocol"], "targets": [hello, hello]})
    elif "several-empty" in sys.argv:
        say({"protocol": hello["protocol"], "targets": []})
    else:
        say(hello)
    if "deaf" in sys.argv:
        time.sleep(600)

    def assemble(chunks):
        calls, finished = {}, set()
        for c in chunks:
            for choice in c.get("choices", []):
                n = choice.get("index", 0)
                if choice.get("finish_reason") in ("tool_calls", "stop"):
                    finished.add(n)
                for t in (choice.get("delta") or {}).get("tool_calls") or []:
                    call = calls.setdefault((n, t["index"]), {"choice": n, "index": t["index"], "id": None,
                                                              "name": None, "arguments": ""})
                    call["id"] = call["id"] or t.get("id")
                    fn = t.get("function") or {}
                    call["name"] = call["name"] or fn.get("name")
                    call["arguments"] += fn.get("arguments") or ""
        return [{**c, "complete": c["choice"] in finished} for c in calls.values()]

    def find_call(calls):
        return {}[calls[0]["id"]]

    def answer_deep(calls):
        return find_call(calls)

    for line in sys.stdin:
        request = json.loads(line)
        if "reads" in request:
            wire = b"".join(base64.b64decode(r) for r in request["reads"])
            say({"calls": [{"index": 0, "id": request["dialect"], "name": "wire",
                            "arguments": wire.decode("utf-8", "replace")}]})
            continue
        calls = assemble(request["chunks"])
        what = calls[0]["name"] if calls else None
        if what == "raise_it":
            say({"error": {"type": "KeyError", "message": "no such call"}})
        elif what == "raise_deep":
            try:
                answer_deep(calls)
            except KeyError as e:
                from toolfuzz.judge.sandbox import crash_state
                say({"error": {"type": "KeyError", "message": str(e), "crash_state": str(crash_state(e))}})
        elif what == "untyped":
            say({"error": "TypeError: x is undefined"})
        elif what == "nameless":
            say({"error": {"message": "it broke"}})
        elif what == "garbage":
            print("{this is not json", flush=True)
        elif what == "noisy":
            print("thinking...", flush=True)
            sys.stderr.write("a warning\\n")
            sys.stderr.flush()
            sys.stdout.write(json.dumps({"calls": calls}) + "\\n" + "done thinking\\n")
            sys.stdout.flush()
        elif what == "captured":
            say({"calls": calls, "output": {"stdout": "its own capture\\n", "stderr": "its own stderr\\n"}})
        elif what == "mute":
            print("no answer from me", flush=True)
            time.sleep(600)
        elif what == "confused":
            say({"protocol_error": "request has no chunks list"})
        elif what == "crash":
            sys.stderr.write("Segmentation fault in the assembler\\n")
            sys.stderr.flush()
            sys.exit(3)
        elif what == "hang":
            time.sleep(600)
        elif what == "huge":
            say({"calls": [{**calls[0], "arguments": "x" * 100_000}]})
        elif what == "chatty":
            sys.stdout.write(json.dumps({"calls": calls}) + "\\n" + json.dumps({"calls": calls}) + "\\n")
            sys.stdout.flush()
        elif what == "late":
            say({"calls": calls})
            time.sleep(0.2)
            say({"calls": calls})
        else:
            say({"calls": calls})
''')


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("child") / "child.py"
    path.write_text(PROGRAM)
    return path


@pytest.fixture
def target(program):
    (t,) = command_targets([sys.executable, str(program)])
    yield t
    t.extra["child"].stop()


def case_named(name: str, finished: bool = True) -> Case:
    wire = sse(chunk(head(0, "call_1", name, '{"a": ')), chunk(frag(0, "1}")),
               *([chunk(finish="tool_calls")] if finished else []), done=finished)
    return Case(reads=(wire,), expected=assemble([wire]))


def kinds(target, case, timeout=5.0):
    observation = observe(target, case, timeout=timeout)
    return [d.kind for d in compare(case.expected, observation, target)], observation


def test_the_handshake_names_levels_and_versions_the_target(target):
    assert (target.name, target.version, target.level) == ("py-child", "0.1", "events")
    assert target.reports == frozenset({"ids", "names", "completion"}) and target.dialects == ("openai-chat",)


def test_normal_calls_come_back_as_the_program_assembled_them_and_agree(target):
    for name in ("get_weather", "read_file"):
        found, obs = kinds(target, case_named(name))
        assert found == [] and [(c.id, c.name, c.arguments, c.complete) for c in obs.calls] == [
            ("call_1", name, '{"a": 1}', True)]
    found, obs = kinds(target, case_named("get_weather", finished=False))
    assert found == [] and obs.calls[0].complete is False
    assert target.extra["child"].starts == 1  # one process served every case


def test_at_level_bytes_the_reads_arrive_byte_exact_with_the_dialect(program):
    (t,) = command_targets([sys.executable, str(program), "bytes"])
    try:
        wire = "data: {\"x\": \"naïve 😀\"}\n\n".encode()
        case = Case(reads=(wire[:9], wire[9:20], wire[20:]), expected=assemble([wire]))
        obs = observe(t, case)
        assert t.level == "bytes" and obs.calls[0].arguments == wire.decode() and obs.calls[0].id == "openai-chat"
    finally:
        t.extra["child"].stop()


def test_the_programs_own_exception_is_raised_under_its_type(target):
    found, obs = kinds(target, case_named("raise_it"))
    assert found == ["raised"] and obs.raised == "KeyError: no such call"
    assert kinds(target, case_named("ok"))[0] == [] and target.extra["child"].starts == 1


def test_the_crash_state_the_program_works_out_crosses_the_pipe(target):
    case = case_named("raise_deep")
    obs = observe(target, case)
    [divergence] = compare(case.expected, obs, target)
    # Frames only the program could see: its helper, then its caller (not its protocol loop, nor ours).
    assert obs.raised == "KeyError: 'call_1'"
    assert divergence.state == obs.crash_state
    assert str(obs.crash_state) == "KeyError at child.find_call < child.answer_deep"


@pytest.mark.parametrize("what,state", [("raise_it", "KeyError"), ("untyped", "TypeError"), ("nameless", "raised"),
                                        ("confused", "ProtocolError")])
def test_a_program_that_gives_no_crash_state_is_clustered_by_its_type(target, what, state):
    case = case_named(what)
    obs = observe(target, case)
    assert [str(d.state) for d in compare(case.expected, obs, target)] == [state]


def test_a_protocol_error_is_raised_as_such_not_as_the_assemblers_failure(target):
    found, obs = kinds(target, case_named("confused"))
    assert found == ["raised"] and obs.raised.startswith("ProtocolError: request has no chunks list")


def test_a_garbage_line_is_a_bad_return_and_the_next_case_is_served(target):
    found, obs = kinds(target, case_named("garbage"))
    assert found == ["bad_return"] and "not JSON" in obs.bad_return and "this is not json" in obs.bad_return
    assert kinds(target, case_named("ok"))[0] == []


def test_lines_that_are_not_the_protocols_are_the_cases_output_and_its_answer_is_judged_as_usual(target):
    found, obs = kinds(target, case_named("noisy"))
    assert found == [] and obs.calls[0].name == "noisy"
    assert obs.output.stdout == "thinking...\ndone thinking\n" and obs.output.stderr == "a warning\n"
    found, obs = kinds(target, case_named("ok"))
    assert found == [] and obs.output is None  # a case's output is its own
    assert target.extra["child"].starts == 1


def test_the_output_a_program_captured_itself_and_sent_with_its_answer_is_the_cases_too(target):
    found, obs = kinds(target, case_named("captured"))
    assert found == [] and obs.output.stdout == "its own capture\n" and obs.output.stderr == "its own stderr\n"


def test_a_program_that_writes_only_stray_lines_times_out_with_them_as_its_output(target):
    found, obs = kinds(target, case_named("mute"), timeout=1.0)
    assert found == ["timed_out"] and obs.output.stdout == "no answer from me\n"
    assert kinds(target, case_named("ok"))[0] == [] and target.extra["child"].starts == 2


def test_a_banner_before_the_handshake_is_passed_over(program):
    (t,) = command_targets([sys.executable, str(program), "banner"])
    try:
        assert t.name == "py-child" and kinds(t, case_named("ok"))[0] == []
    finally:
        t.extra["child"].stop()


def test_two_lines_for_one_case_is_a_bad_return_and_a_fresh_program(target):
    found, obs = kinds(target, case_named("chatty"))
    assert found == ["bad_return"] and "more than one line" in obs.bad_return
    assert kinds(target, case_named("ok"))[0] == [] and target.extra["child"].starts == 2


def test_output_after_the_answer_is_found_before_the_next_request_and_fails_that_case(target):
    assert kinds(target, case_named("late"))[0] == []
    # Wait for the stray line (a readiness wait, not a timing assertion).
    assert select.select([target.extra["child"]._proc.stdout], [], [], 30)[0]
    found, obs = kinds(target, case_named("ok"))
    assert found == ["bad_return"] and "output no request asked for" in obs.bad_return
    assert kinds(target, case_named("ok"))[0] == [] and target.extra["child"].starts == 2


def test_a_crash_mid_case_is_raised_with_status_and_stderr_then_it_restarts(target):
    found, obs = kinds(target, case_named("crash"))
    assert found == ["raised"]
    assert "ChildDied" in obs.raised and "status 3" in obs.raised and "Segmentation fault" in obs.raised
    assert str(obs.crash_state) == "ChildDied"  # the harness's end of the pipe is not the program's code
    assert kinds(target, case_named("ok"))[0] == [] and target.extra["child"].starts == 2


def test_a_hung_program_times_out_is_killed_and_the_next_case_gets_a_fresh_one(target):
    first = target.extra["child"]._proc
    found, obs = kinds(target, case_named("hang"), timeout=1.0)
    assert found == ["timed_out"] and obs.timed_out
    assert first.poll() is not None  # killed, not left sleeping
    assert kinds(target, case_named("ok"))[0] == [] and target.extra["child"].starts == 2


def test_a_program_left_at_a_case_that_is_over_is_killed_before_the_next_one(target):
    child = target.extra["child"]
    first = child._proc
    child.stop = lambda: None  # the way out of the timed-out case cut short before it stopped the program
    try:
        assert kinds(target, case_named("hang"), timeout=1.0)[0] == ["timed_out"]
    finally:
        del child.stop
    assert kinds(target, case_named("ok"))[0] == [] and first.poll() is not None and child.starts == 2


def test_an_oversized_answer_line_is_a_bad_return(target):
    target.extra["child"].max_answer = 10_000
    found, obs = kinds(target, case_named("huge"))
    assert found == ["bad_return"] and "longer than 10000 bytes" in obs.bad_return
    assert kinds(target, case_named("ok"))[0] == [] and target.extra["child"].starts == 2


@pytest.mark.parametrize("arg,words", [
    ("garbled-hello", "not a JSON handshake"),
    ("old-protocol", "'protocol' is 'toolfuzz-subprocess/0'"),
    ("exit", "exited with status 4; stderr ends: cannot find my assembler"),
    ("bad-scope", "handshake field 'scope': unknown servers in its scope \\['openia'\\]"),
    ("bad-limits", "handshake field 'scope.limits' must be a list of objects .* and a cite"),
    ("several-bad", "handshake field 'targets\\[1\\].level' must be one of .*, not 'nope'"),
    ("several-twice", "handshake field 'targets' names a target twice: py-child, py-child"),
    ("several-empty", "handshake field 'targets' must be a non-empty list of objects"),
])
def test_a_bad_or_missing_handshake_is_one_usage_error_naming_the_spec(program, arg, words):
    spec = f"cmd:{sys.executable} {program} {arg}"
    with pytest.raises(UsageError, match=f"--target {spec}: .*{words}"):
        resolve(spec)


def test_the_handshake_s_scope_is_what_the_program_s_findings_are_graded_against(program):
    (target,) = resolve(f"cmd:{sys.executable} {program} scoped")
    assert target.scope.servers == frozenset({"openai"}) and target.scope.choices == 1
    assert not target.scope.integer_ids and target.scope.surface == "x.y()"
    assert target.scope.limit_for("call_lost", ["invalid-json"]).cite == "README: skipped"
    assert target.scope.limit_for("arguments_differ", ["invalid-json"]) is None
    (open_scope,) = resolve(f"cmd:{sys.executable} {program}")
    assert open_scope.scope.any_server and open_scope.scope.choices is None


def test_targets_served_together_share_one_program_and_each_is_judged_as_in_process():
    from toolfuzz.targets.command import Lane
    served = command_targets([sys.executable, "-m", "toolfuzz", "serve", "selftest-plain", "selftest-shared-buffer"])
    plain, shared = served
    try:
        assert [t.name for t in served] == ["selftest-plain", "selftest-shared-buffer"]
        child = plain.extra["child"]
        assert shared.extra["child"] is child and all(isinstance(t.fn, Lane) for t in served)
        interleaved = load(SEED / "two-calls-interleaved.json").case
        assert kinds(plain, interleaved)[0] == []
        assert kinds(shared, interleaved)[0] != []
        # A case that ends the program (a time-out kills it) ends it for both: the next case of either starts it
        # again, serving both.
        child.stop()
        assert kinds(shared, interleaved)[0] != [] and child.starts == 2
        assert kinds(plain, interleaved)[0] == [] and child.starts == 2
    finally:
        plain.extra["child"].stop()


def test_a_program_runs_with_a_fixed_hash_seed_unless_the_user_chose_one(program, monkeypatch):
    # A set's order follows the hash seed: a program restarted with a random one would replay by chance.
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    (fixed,) = command_targets([sys.executable, str(program), "hash-seed"])
    fixed.extra["child"].stop()
    monkeypatch.setenv("PYTHONHASHSEED", "7")
    (chosen,) = command_targets([sys.executable, str(program), "hash-seed"])
    chosen.extra["child"].stop()
    assert (fixed.version, chosen.version) == ("0", "7")


def test_a_silent_program_fails_its_handshake_within_the_limit_and_is_stopped(program):
    child = Child([sys.executable, str(program), "no-hello"], handshake_seconds=0.5)
    with pytest.raises(CommandError, match="no handshake line within 0.5 s"):
        child.start()
    assert child._proc is None


@pytest.mark.parametrize("spec,words", [
    ("cmd:", "no command after cmd:"),
    ("cmd:no-such-program-xyz --flag", "command not found: no-such-program-xyz"),
    ('cmd:node "unclosed', "cannot split the command"),
])
def test_bad_cmd_specs_are_one_clear_error(spec, words):
    with pytest.raises(UsageError, match=words):
        resolve(spec)


# -- every program ends with the run ------------------------------------------

SPINNER = textwrap.dedent('''
    import json, sys, time
    print(json.dumps({"protocol": "toolfuzz-subprocess/1", "name": "spinner"}), flush=True)
    for line in sys.stdin:
        # Deaf to its stdin on the first case and on the one that confirms its time-out (twice as long):
        # the harness counts cases across restarts, so from the third on it answers.
        if json.loads(line)["case"] in (1, 2):
            time.sleep(3600)  # asleep, not spinning: as deaf, and no core is kept from the tests beside it
        print(json.dumps({"calls": []}), flush=True)
''')


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_whose_program_times_out_leaves_no_process_behind(tmp_path, workers):
    program = tmp_path / "spinner.py"
    program.write_text(SPINNER)
    assert marked(str(program)) == []
    # Under --workers 2 the worker is killed for a hang while the time-out is confirmed (the program spinning
    # still): a worker's death must take the program down with it.
    done = subprocess.run([sys.executable, "-m", "toolfuzz", "run", "--target", f"cmd:{sys.executable} {program}",
                           "--workers", workers, "--timeout", "2", "--max-examples", "30", "--budget", "60",
                           "--database", "none", "--findings", str(tmp_path / "found"), "--state",
                           str(tmp_path / "state"), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    summary = json.loads(done.stdout)
    assert {d["kind"] for t in summary["targets"] for d in t["divergences"]} & {"timed_out", "hang"}, done.stderr
    assert survivors(marked(str(program))) == []


STUBBORN = textwrap.dedent('''
    import json, sys, time
    print(json.dumps({"protocol": "toolfuzz-subprocess/1", "name": "stubborn"}), flush=True)
    for line in sys.stdin:
        print(json.dumps({"calls": []}), flush=True)
    time.sleep(600)  # not ending at the end of its stdin, as the protocol asks
''')


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_program_behind_a_shell_that_outstays_its_stdin_ends_with_the_run(tmp_path, workers):
    program = tmp_path / "stubborn.py"
    program.write_text(STUBBORN)
    # The shell is the child the kernel would kill with its parent; the program is the shell's child, in its
    # process group, and only a kill of the group reaches it, when the run (or a worker of it) ends.
    command = f"sh -c '{sys.executable} {program}; true'"
    done = subprocess.run([sys.executable, "-m", "toolfuzz", "run", "--target", f"cmd:{command}", "--workers",
                           workers, "--max-examples", "10", "--budget", "60", "--database", "none", "--findings",
                           str(tmp_path / "found"), "--state", str(tmp_path / "state"), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert json.loads(done.stdout)["examples"] == 10, done.stderr
    assert survivors(marked(str(program))) == []


SPINNING = textwrap.dedent('''
    import json, pathlib, sys, time
    print(json.dumps({"protocol": "toolfuzz-subprocess/1", "name": "spinning"}), flush=True)
    for line in sys.stdin:
        pathlib.Path(sys.argv[1]).touch()
        time.sleep(3600)
''')


def _as_in_a_terminal() -> None:
    # A run started from a terminal hears SIGINT and SIGTERM.  One started by a shell's `&` (CI launched in
    # the background, say) inherits SIGINT ignored, and a second ctrl-c is rightly ignored again there.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("workers,signum", [("1", signal.SIGKILL), ("2", signal.SIGKILL), ("1", signal.SIGINT),
                                            ("2", signal.SIGTERM)],
                         ids=["sigkill", "sigkill-workers", "ctrl-c-twice", "sigterm-twice-workers"])
def test_a_run_ended_by_a_signal_leaves_no_program_behind_not_even_one_deep_in_a_case(tmp_path, workers, signum):
    program, spinning = tmp_path / "spinning.py", tmp_path / "spinning"
    program.write_text(SPINNING)
    run = subprocess.Popen([sys.executable, "-m", "toolfuzz", "run", "--target",
                            f"cmd:{sys.executable} {program} {spinning}", "--workers", workers, "--timeout", "600",
                            "--max-examples", "10", "--budget", "600", "--database", "none", "--findings",
                            str(tmp_path / "found"), "--state", str(tmp_path / "state")], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_as_in_a_terminal)
    try:
        for _ in range(1200):  # a bound on the wait for the first case, which comes at once when all is well
            if spinning.exists() or run.poll() is not None:
                break
            time.sleep(0.1)
        assert spinning.exists(), "the program never got a case"
        # The first SIGINT or SIGTERM asks for a stop at the next case, which never comes (the program spins
        # under a 600-s limit); the next one ends the run at once.  Sent until it ends: two are two only once
        # the first is heard.
        for _ in range(240):
            run.send_signal(signum)
            if signum == signal.SIGKILL or run.poll() is not None:
                break
            time.sleep(0.5)
        run.wait(timeout=120)
    finally:
        run.kill()
        run.wait()
    assert survivors(marked(str(program))) == []


def _deaf(pid: int) -> bool:
    try:
        return b"\0deaf\0" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_a_program_dies_with_the_process_that_started_it_even_one_killed_with_sigkill(program):
    # Asleep, deaf to its stdin, in a session of its own: nothing but the kernel can tell it its parent died.
    starter = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f'''
        import sys, time
        from toolfuzz.targets.command import command_targets
        command_targets([sys.executable, {str(program)!r}, "deaf"])
        print("started", flush=True)
        time.sleep(600)
    ''')], stdout=subprocess.PIPE, text=True)
    try:
        assert starter.stdout.readline() == "started\n"
        # The deaf one it started: the module's other tests run the same program, and a child of theirs may
        # still be on its way out.
        running = [p for p in marked(str(program)) if p[0] != starter.pid and _deaf(p[0])]
        assert len(running) == 1
    finally:
        starter.kill()
        starter.wait()
    assert survivors(running) == []


# -- the node example: the openai npm package's accumulator -------------------

NODE = f"cmd:node {EXAMPLE / 'assemble.js'}"


@pytest.fixture(scope="session")
def node_example() -> Path:
    """The example with its locked packages installed: skipped without them, failed under CI (.ci/run installs them)."""
    return installed_node_example()


@pytest.fixture
def node_target(node_example):
    (t,) = resolve(NODE)
    yield t
    t.extra["child"].stop()


def test_the_openai_npm_accumulator_assembles_the_two_interleaved_calls(node_target, node_example):
    wanted = json.loads((node_example / "package-lock.json").read_text())["packages"]["node_modules/openai"]
    assert (node_target.name, node_target.level, node_target.version) == (
        "openai-node-stream", "events", wanted["version"])
    case = load(SEED / "two-calls-interleaved.json").case
    obs = observe(node_target, case)
    assert {(c.index, c.id, c.name, c.arguments, c.complete) for c in obs.calls} == {
        (0, "call_w1", "get_weather", '{"city": "Paris", "unit": "celsius"}', True),
        (1, "call_r1", "read_file", '{"path": "/etc/hosts"}', True)}
    assert compare(case.expected, obs, node_target) == []


def test_the_openai_npm_client_reads_the_two_interleaved_calls_off_the_network_reads(node_example):
    (t,) = resolve(f"{NODE} --client")
    try:
        case = load(SEED / "two-calls-interleaved.json").case
        obs = observe(t, case)
        assert t.level == "bytes" and compare(case.expected, obs, t) == []
    finally:
        t.extra["child"].stop()


def test_a_short_run_through_node_saves_fixtures_that_replay_as_recorded(node_target, tmp_path, capsys):
    code = main(["run", "--target", NODE, "--max-examples", "50", "--seed", "1", "--findings", str(tmp_path),
                 "--json"])
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert code in (0, 1) and summary["examples"] == 50, err
    (row,) = summary["targets"]
    assert row["name"] == "openai-node-stream" and row["level"] == "events"
    kinds_found = {d["kind"] for d in row["divergences"]}
    # Whatever the package gets wrong, the protocol itself held: no garbled, late or dead answers.
    assert not kinds_found & {"bad_return", "timed_out", "blocked_action"}, row
    assert not any(w in d["detail"] for d in row["divergences"] for w in ("ProtocolError", "ChildDied")), row
    # The package diverges on some of the shapes drawn, and the exit status says whether any is graded a bug.
    assert row["divergences"], row
    assert code == (1 if any(d["severity"] == "bug" for d in row["divergences"]) else 0), row
    # Every choice opens with a role chunk, as every captured server sends it: finalChatCompletion()'s assertion
    # of the role (which raises on a stream without one) is not met on such a stream.
    assert not any("missing role" in d["detail"] for d in row["divergences"]
                   if "no-role-chunk" not in d["grade"]["features"]), row
    fixtures = sorted(tmp_path.glob("openai-node-stream/*.json"))
    assert len(fixtures) == len(row["divergences"])
    for path in fixtures:
        # Each saved case fails the same way again through another node process.
        fixture = load(path)
        recorded = fixture.observed["openai-node-stream"]["kind"]
        observation = observe(node_target, fixture.case)
        assert recorded in {d.kind for d in compare(fixture.case.expected, observation, node_target)}, path


@pytest.mark.parametrize("path", sorted((SEED.parent / "openai-node").glob("*.json")), ids=lambda p: p.stem)
def test_the_committed_openai_npm_findings_replay_as_recorded(path, node_example):
    fixture = load(path)
    assert fixture.statement, path
    ((name, record),) = fixture.observed.items()
    (t,) = resolve(NODE + (" --client" if name.endswith("-client") else ""))
    try:
        assert t.name == name
        kinds = {d.kind for d in compare(fixture.case.expected, observe(t, fixture.case), t)}
    finally:
        t.extra["child"].stop()
    wanted = json.loads((node_example / "package-lock.json").read_text())["packages"]["node_modules/openai"]["version"]
    # Recorded on the pinned version: a new pin must re-record these (toolfuzz corpus check says which are fixed).
    assert record["version"] == wanted and record["kind"] in kinds, path


def test_a_partial_program_is_judged_on_numbers_by_value_unless_it_claims_exact_numbers():
    from toolfuzz.targets.command import _handshakes
    hello = b'{"protocol": "toolfuzz-subprocess/1", "name": "p", "level": "partial"}'
    assert _handshakes(hello, "events")[0]["claims"] == []
    claimed = b'{"protocol": "toolfuzz-subprocess/1", "name": "p", "level": "partial", "claims": ["exact-numbers"]}'
    assert _handshakes(claimed, "events")[0]["claims"] == ["exact-numbers"]


@pytest.mark.parametrize("relaxations", ['"partial-numbers"', '["partial-numbers", "all"]', '[{"a": 1}]'])
def test_a_program_says_what_its_library_was_asked_for_and_nothing_else(relaxations):
    from toolfuzz.targets.command import CommandError, _handshakes
    hello = b'{"protocol": "toolfuzz-subprocess/1", "name": "p", "level": "partial"}'
    assert _handshakes(hello, "events")[0]["relaxations"] == []
    asked = (b'{"protocol": "toolfuzz-subprocess/1", "name": "p", "level": "partial", '
             b'"relaxations": ["partial-numbers"]}')
    assert _handshakes(asked, "events")[0]["relaxations"] == ["partial-numbers"]
    bad = b'{"protocol": "toolfuzz-subprocess/1", "name": "p", "relaxations": %s}' % relaxations.encode()
    with pytest.raises(CommandError, match="'relaxations' must be a list drawn from partial-numbers"):
        _handshakes(bad, "events")


def test_a_served_partial_parser_runs_over_the_pipe_one_prefix_a_request():
    import sys
    from toolfuzz.judge.compare import compare
    from toolfuzz.judge.sandbox import observe
    from toolfuzz.targets.command import command_targets
    from toolfuzz.vocabulary import COMPLETE, Call, Case, Outcome
    (target,) = command_targets([sys.executable, "-m", "toolfuzz", "serve", "selftest-partial-number-early"])
    try:
        case = Case(reads=(), expected=Outcome((Call(0, 0, "c", "f", '{"n": 12, "s": "ab"}', COMPLETE),)))
        seen = observe(target, case, timeout=60.0)
        assert len(seen.prefixes) > 10 and target.level == "partial"
        assert [d.kind for d in compare(case.expected, seen, target)] == ["number_before_complete"]
    finally:
        target.extra["child"].stop()


def test_the_ai_sdk_partial_parser_is_judged_on_doubles_and_on_strings_as_utf16():
    from tests.adapter_checks import PARTIAL_EXAMPLE
    from toolfuzz.judge.sandbox import observe
    from toolfuzz.vocabulary import COMPLETE, Call, Case, Outcome
    example = installed_node_example(PARTIAL_EXAMPLE, "ai")
    (target,) = resolve(f"cmd:node {example / 'parse.js'}")
    try:
        wanted = json.loads((example / "package-lock.json").read_text())["packages"]["node_modules/ai"]["version"]
        assert (target.name, target.level, target.version, target.reports) == (
            "ai-sdk-parse-partial-json", "partial", wanted, frozenset({"utf16-strings"}))
        # 1.0 comes back as 1 (one number type): by value, that is the same number; 12 shown as 1 is not.
        case = Case(reads=(), expected=Outcome((Call(0, 0, "c", "f", '{"x": 1.0, "n": 12}', COMPLETE),)))
        seen = observe(target, case, timeout=60.0)
        assert [d.kind for d in compare(case.expected, seen, target)] == ["number_before_complete"]
        # 2**64 comes back as 18446744073709552000, the same double; a string cut between the halves of a
        # pair ends in the first half, a prefix in UTF-16 code units.  Judged on a number with nothing to cut.
        text = '{"s": "x\\ud83d\\ude00y", "big": 18446744073709551616}'
        case = Case(reads=(), expected=Outcome((Call(0, 0, "c", "f", text, COMPLETE),)))
        seen = observe(target, case, timeout=60.0)
        shown = {p.length: p.value for p in seen.prefixes}
        assert shown[len(text)] == {"s": "x\U0001f600y", "big": 18446744073709552000}
        assert shown[text.index("\\ude00")] == {"s": "x\ud83d"}
        assert [d.kind for d in compare(case.expected, seen, target)] == ["number_before_complete"]
    finally:
        target.extra["child"].stop()
