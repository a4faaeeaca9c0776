"""``toolfuzz corpus merge|minimize|check|matrix``: what each prints and its exit status."""

from __future__ import annotations

import json
import shutil

from toolfuzz.cli import main
from tests.paths import ROOT

FINDINGS = ROOT / "findings"
SEED = FINDINGS / "seed"
KEY_BY_ID = FINDINGS / "selftest-key-by-id"
HAND_OUT = "selftest-hand-out-after-disconnect"


def run(capsys, *argv):
    code = main(["corpus", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_merge_reports_each_file_and_a_total(tmp_path, capsys):
    into = tmp_path / "corpus"
    code, out, err = run(capsys, "merge", KEY_BY_ID, SEED, "--into", into)
    assert (code, err) == (0, "")
    # The mutant's phantom_call fixture is a variant of its one mistake, found on the plainest stream.
    assert out.splitlines()[-1] == (f"9 added, 0 replaced, 0 kept out, 1 folded into a root cause already there, "
                                    f"0 removed for one with fewer features (in {into})")
    assert (f"folded    {KEY_BY_ID / 'phantom_call--index-from-one.json'}  into "
            f"selftest-key-by-id/arguments_misattributed/plain (a variant of it, as phantom_call)") in out
    # A folder's files keep their place under it.
    assert f"added     {into / 'arguments_misattributed--plain.json'}  from {KEY_BY_ID}" in out
    assert f"added     {into / 'cut-inside-string.json'}  from {SEED}" in out
    code, out, _ = run(capsys, "merge", KEY_BY_ID, "--into", into)
    assert code == 0 and out.splitlines()[-1].startswith("0 added, 0 replaced, 1 kept out, 1 folded")


def _with_features(source, target_dir, name, features):
    data = json.loads(source.read_text())
    data["features"] = sorted(features)
    data["found"]["signature"] = "selftest-key-by-id/arguments_misattributed/" + (
        "+".join(sorted(set(features) - {"done", "lf", "openai", "single-read"})) or "plain")
    target_dir.mkdir(exist_ok=True)
    (target_dir / name).write_text(json.dumps(data))
    return target_dir / name


def test_merge_folds_a_root_cause_seen_with_more_features_and_replaces_one_seen_with_more(tmp_path, capsys):
    plain = KEY_BY_ID / "arguments_misattributed--plain.json"
    night = tmp_path / "night"
    _with_features(plain, night, "crlf.json", ["crlf", "done", "openai", "single-read"])
    _with_features(plain, night, "crlf-bom.json", ["bom", "crlf", "done", "openai", "single-read"])
    into = tmp_path / "corpus"
    code, out, _ = run(capsys, "merge", night, "--into", into)
    # The more general first: crlf is added, crlf+bom folded into it.
    assert code == 0 and [p.name for p in into.iterdir()] == ["crlf.json"]
    assert f"folded    {night / 'crlf-bom.json'}  into selftest-key-by-id/arguments_misattributed/crlf" in out
    # Then the plain one, which needs none of them: it replaces crlf, whose file goes.
    code, out, _ = run(capsys, "merge", plain, "--into", into)
    assert code == 0 and [p.name for p in into.rglob("*.json")] == ["arguments_misattributed--plain.json"]
    assert f"removed   {into / 'crlf.json'}  (replaced by selftest-key-by-id/arguments_misattributed/plain" in out
    assert out.splitlines()[-1].startswith("1 added, 0 replaced, 0 kept out, 0 folded into a root cause already "
                                           "there, 1 removed")


def test_merge_folds_a_client_finding_into_the_same_root_cause_of_the_target_it_builds_on(tmp_path, capsys):
    below = ROOT / "findings" / "openai" / "openai-stream-state--id_differs--new-id-continuations.json"
    night = tmp_path / "night"
    night.mkdir()
    data = json.loads(below.read_text())
    data["observed"] = {"openai-client": {**data["observed"]["openai-stream-state"], "level": "bytes"}}
    data["features"] = sorted({*data["features"], "crlf"})
    data["found"]["signature"] = "openai-client/id_differs/crlf+new-id-continuations"
    # Named to sort first: the order of the files is not what puts the target below first.
    (night / "a-client.json").write_text(json.dumps(data))
    (night / "b-state.json").write_text(below.read_text())
    code, out, _ = run(capsys, "merge", night, "--into", tmp_path / "corpus")
    assert code == 0 and [p.name for p in (tmp_path / "corpus").iterdir()] == ["b-state.json"]
    assert (f"folded    {night / 'a-client.json'}  into openai-stream-state/id_differs/new-id-continuations"
            in out), out


def test_merge_of_a_bad_fixture_is_one_line_naming_file_and_field(tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.json").write_text('{"format": "toolfuzz-fixture/1", "name": "x", "wire": []}')
    code, out, err = run(capsys, "merge", bad, "--into", tmp_path / "corpus")
    assert code == 2 and out == ""
    assert err.strip() == f"toolfuzz corpus: {bad / 'x.json'}: wire: must be an object, not a list"
    assert not (tmp_path / "corpus").exists()


def test_check_passes_on_recorded_mutants_and_fails_when_one_stops_failing(tmp_path, capsys):
    code, out, _ = run(capsys, "check", KEY_BY_ID)
    assert code == 0 and "still failing: 2" in out and out.splitlines()[-1].startswith("pass: 2 fixtures")
    doc = json.loads((SEED / "two-calls-interleaved.json").read_text(encoding="utf-8"))
    doc["observed"] = {HAND_OUT: {"verdict": "diverges", "kind": "incomplete_handed_on"}}
    doc["statement"] = "A finished call is handed on."
    (tmp_path / "m.json").write_text(json.dumps(doc))
    code, out, _ = run(capsys, "check", tmp_path)
    assert code == 1 and "must fail, passes: 1" in out and "A finished call is handed on." in out
    code, out, _ = run(capsys, "check", "--json", tmp_path)
    report = json.loads(out)
    assert code == 1 and report["exit"] == 1 and len(report["classes"]["must fail, passes"]) == 1
    assert report["classes"]["must fail, passes"][0]["statement"] == "A finished call is handed on."


def test_check_lists_a_fixture_it_cannot_read_and_replays_the_others(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    shutil.copytree(KEY_BY_ID, corpus)
    (corpus / "truncated.json").write_text('{"format": "toolfuzz-fixture/1", "name": "x", "wi')
    code, out, err = run(capsys, "check", corpus)
    assert code == 2 and err == ""
    assert "still failing: 2" in out  # the two readable fixtures, replayed
    assert "unreadable: 1" in out and f"\n{corpus / 'truncated.json'} not JSON: " in out
    assert out.splitlines()[-1] == "FAIL: 2 fixtures, the reference agrees with 2; 1 could not be read"
    code, out, _ = run(capsys, "check", "--json", corpus)
    report = json.loads(out)
    assert code == 2 and report["exit"] == 2 and len(report["classes"]["still failing"]) == 2
    assert [u["fixture"] for u in report["unreadable"]] == [str(corpus / "truncated.json")]


def test_matrix_write_then_check_and_stale_after_a_change(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    shutil.copytree(KEY_BY_ID, corpus / "selftest-key-by-id")
    page = corpus / "README.md"
    code, out, _ = run(capsys, "matrix", corpus, "--write", page)
    assert code == 0 and out == f"wrote {page}\n"
    assert page.read_text().startswith(f"<!-- Generated by `toolfuzz corpus matrix {corpus} --write {page}`")
    assert run(capsys, "matrix", corpus, "--write", page, "--check")[0] == 0
    shutil.copy(SEED / "cut-inside-string.json", corpus / "new.json")
    code, _, err = run(capsys, "matrix", corpus, "--write", page, "--check")
    assert code == 1 and "not up to date" in err
    code, out, _ = run(capsys, "matrix", corpus)
    assert code == 0 and "| `selftest-key-by-id` |" in out


def test_matrix_check_without_a_file_is_a_usage_error(capsys):
    code, _, err = run(capsys, "matrix", "--check")
    assert code == 2 and "--check needs --write" in err


def test_minimize_dry_run_says_what_would_shrink_and_writes_nothing(tmp_path, capsys):
    shutil.copytree(KEY_BY_ID, tmp_path / "k")
    before = {p.name: p.read_bytes() for p in (tmp_path / "k").iterdir()}
    code, out, _ = run(capsys, "minimize", "--dry-run", "--budget", "5", tmp_path / "k")
    assert code == 0 and len(out.splitlines()) == 3
    assert all(line.split()[0] in ("would", "minimal") for line in out.splitlines()[:2])
    assert {p.name: p.read_bytes() for p in (tmp_path / "k").iterdir()} == before


def test_import_writes_a_fixture_per_captured_response_that_replays_and_names_what_it_cannot_read(capsys, tmp_path):
    broken = tmp_path / "broken.chunks.txt"
    broken.write_text('{"type":"ping"}\n{"type": "message_stop"\n')
    code, out, err = run(capsys, "import", ROOT / "findings" / "captures", broken, "--out", tmp_path / "out",
                         "--source", "vercel/ai", "--licence", "Apache-2.0")
    assert code == 2
    assert err.splitlines() == [f"unreadable  {broken}: line 2: not JSON at column 24: unexpected end of data"]
    written = sorted((tmp_path / "out").glob("*.json"))
    assert len(written) == 191 and out.splitlines()[-1].startswith("191 fixtures from 113 recordings, 1 unreadable")
    programmatic = json.loads((tmp_path / "out" / "capture--anthropic-programmatic-tool-calling.1--3.json").read_text())
    # A recording its folder's captures.toml names takes its provenance and its server from there.
    assert programmatic["found"] == {
        "by": "import", "part": 3, "repository": "vercel/ai", "licence": "Apache-2.0 (LICENSE)",
        "commit": "ed857f50f112e23930b0c2dd8d532cc8bebbc911",
        "path": "packages/anthropic/src/__fixtures__/anthropic-programmatic-tool-calling.1.chunks.txt",
        "source": str(ROOT / "findings" / "captures" / "vercel-ai" / "anthropic-programmatic-tool-calling.1.chunks.txt")}
    assert programmatic["features"] == ["anthropic", "captured-anthropic", "whole-message-start"]
    assert [c["name"] for c in programmatic["expected"]["calls"]] == ["rollDie"]
    # The reference agrees with every fixture it wrote: the expected outcome is its reading.
    assert main(["replay", str(tmp_path / "out")]) == 0


def test_import_into_a_file_or_from_nothing_is_one_usage_error(capsys, tmp_path):
    (tmp_path / "file").write_text("")
    assert run(capsys, "import", ROOT / "findings" / "captures", "--out", tmp_path / "file")[0] == 2
    assert run(capsys, "import", tmp_path / "file", "--out", tmp_path / "o")[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, "import", empty, "--out", tmp_path / "o")
    assert code == 2 and "no recording" in err and not (tmp_path / "o").exists()


def test_import_names_a_second_recording_of_one_name_by_its_folder_and_reads_a_cassette(capsys, tmp_path):
    cassette = ROOT / "findings" / "captures" / "crewai" / "test_handle_streaming_tool_calls.yaml"
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copyfile(cassette, tmp_path / folder / cassette.name)
    code, out, _ = run(capsys, "import", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "out", "--server", "openai")
    assert code == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "capture--b--test_handle_streaming_tool_calls--0.json", "capture--test_handle_streaming_tool_calls--0.json"]
    assert "(VCR cassette (YAML), interaction 1: openai-chat, 1 call)" in out
    # --server names who sent recordings no captures.toml names: the evidence their findings are graded on
    written = json.loads((tmp_path / "out" / "capture--test_handle_streaming_tool_calls--0.json").read_text())
    assert written["features"] == ["captured-openai", "openai", "usage-chunk"]
    assert run(capsys, "import", tmp_path / "a", "--out", tmp_path / "o", "--server", "nobody")[0] == 2


def test_agree_passes_on_the_captures_and_fails_on_a_manifest_that_expects_otherwise(capsys, tmp_path):
    code, out, _ = run(capsys, "agree")
    assert code == 0 and out.splitlines()[-1].startswith("pass: 191 responses from 11 sources")
    source = ROOT / "findings" / "captures" / "openai-node"
    shutil.copytree(source, tmp_path / "openai-node")
    manifest = tmp_path / "openai-node" / "captures.toml"
    manifest.write_text(manifest.read_text().replace("calls = [[]]", 'calls = [[["f", {}]]]'))
    code, out, _ = run(capsys, "agree", tmp_path)
    assert code == 1 and "differs" in out and out.splitlines()[-1].startswith("FAIL: 1 responses from 1 sources")
    manifest.write_text("[source]\n")
    code, _, err = run(capsys, "agree", tmp_path)
    assert code == 2 and err.count("\n") == 1 and "captures.toml: source.repository: missing" in err


def test_matrix_on_a_terminal_fits_it_and_wide_a_pipe_and_write_give_the_page(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where the page printed and the page written link from
    _, page, _ = run(capsys, "matrix", FINDINGS)
    assert max(len(line) for line in page.splitlines()) > 100
    monkeypatch.setenv("COLUMNS", "100")
    code, fitted, _ = run(capsys, "matrix", FINDINGS)
    assert code == 0 and max(len(line) for line in fitted.splitlines()) <= 100 and "|---|" not in fitted
    assert run(capsys, "matrix", FINDINGS, "--wide")[1] == page
    written = tmp_path / "README.md"
    assert run(capsys, "matrix", FINDINGS, "--write", "README.md")[0] == 0
    # The page written is the Markdown whatever the terminal; only its first line names the command.
    assert written.read_text().splitlines()[1:] == page.splitlines()[1:]
