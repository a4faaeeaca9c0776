"""corpus/agreement.py: a manifest's expectations, read from captures.toml, held against the reference's reading."""

from __future__ import annotations

import pytest

from toolfuzz.corpus.agreement import Expected, ManifestError, agreement, entries

START = '{"type":"message_start","message":{"content":[]}}'
TOOL = ('{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f",'
        '"input":{}}}')
DELTA = '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\": 1}"}}'
STOP = '{"type":"content_block_stop","index":0}'
FINISH = '{"type":"message_delta","delta":{"stop_reason":"tool_use"}}'
END = '{"type":"message_stop"}'


def _folder(tmp_path, manifest, lines=(START, TOOL, DELTA, STOP, FINISH, END)):
    (tmp_path / "LICENSE").write_text("MIT")
    (tmp_path / "r.chunks.txt").write_text("\n".join(lines) + "\n")
    (tmp_path / "captures.toml").write_text('[source]\nrepository = "o/r"\ncommit = "c"\nlicence = "MIT"\n\n'
                                            '[[capture]]\nfile = "r.chunks.txt"\npath = "p"\nshape = "s"\n'
                                            'expected_from = "capture"\n' + manifest)
    return tmp_path


def test_a_response_read_as_its_manifest_says_agrees_and_one_read_otherwise_does_not(tmp_path):
    [verdict] = agreement([_folder(tmp_path, 'calls = [[["f", {a = 1}]]]\n')])
    assert verdict.agrees and verdict.read == Expected((("f", {"a": 1}, "complete"),))
    [verdict] = agreement([_folder(tmp_path, 'calls = [[["f", {a = 2}]]]\n')])
    assert not verdict.agrees


def test_an_unfinished_call_is_compared_by_name_and_status_only(tmp_path):
    cut = (START, TOOL, DELTA)
    [verdict] = agreement([_folder(tmp_path, 'calls = [[["f", {partial = true}, "incomplete"]]]\n', cut)])
    assert verdict.agrees
    [verdict] = agreement([_folder(tmp_path, 'calls = [[["f", {a = 1}]]]\n', cut)])
    assert not verdict.agrees


def test_an_ambiguity_holds_the_reference_to_what_it_reads_instead(tmp_path):
    manifest = 'calls = [[["g", {}]]]\nambiguity = "why"\nreads_as = [[["f", {a = 1}]]]\n'
    [verdict] = agreement([_folder(tmp_path, manifest)])
    assert verdict.agrees and verdict.ambiguous and verdict.expected.calls[0][0] == "f"


def test_a_count_of_responses_that_differs_is_a_problem_not_a_pass(tmp_path):
    [verdict] = agreement([_folder(tmp_path, 'calls = [[["f", {a = 1}]], []]\n')])
    assert not verdict.agrees and "1 responses recorded, 2 in the manifest" in verdict.problem


@pytest.mark.parametrize("manifest, field", [
    ('calls = [[["f"]]]\n', "capture[0].calls[0][0]"),
    ('calls = [[["f", {}, "done"]]]\n', "capture[0].calls[0][0]"),
    ('calls = 3\n', "capture[0].calls"),
    ('calls = [[]]\nends = ["", ""]\n', "capture[0].ends"),
    ('calls = [[]]\nreads_as = [[]]\n', "capture[0].reads_as"),
    ('calls = [[]]\nfile = "x"\n', ""),   # a key twice: not TOML
])
def test_a_manifest_that_cannot_be_used_is_one_error_naming_the_file_and_the_field(tmp_path, manifest, field):
    folder = _folder(tmp_path, manifest)
    with pytest.raises(ManifestError) as info:
        entries([folder])
    assert info.value.source == str(folder / "captures.toml") and info.value.field == field


def test_a_source_without_its_licence_or_a_named_recording_is_an_error(tmp_path):
    folder = _folder(tmp_path, "calls = [[]]\n")
    (folder / "LICENSE").unlink()
    with pytest.raises(ManifestError, match="no LICENSE"):
        entries([folder])
    (folder / "LICENSE").write_text("MIT")
    (folder / "r.chunks.txt").unlink()
    with pytest.raises(ManifestError, match="capture.0..file: no such recording"):
        entries([folder])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ManifestError, match="no captures.toml"):
        entries([tmp_path / "empty"])
    with pytest.raises(ManifestError, match="No such file"):
        entries([tmp_path / "nowhere" / "captures.toml"])
