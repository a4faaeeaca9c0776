"""The up-front check that a folder can be written: true for root too, and nothing left behind."""

from __future__ import annotations

import pytest

from toolfuzz.errors import UsageError, need_writable


def test_a_folder_not_made_yet_under_a_writable_one_passes_and_nothing_is_made_or_left(tmp_path):
    need_writable(tmp_path / "not" / "yet", "--findings x")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["a-file/findings", "a-file"])
def test_a_folder_under_a_file_is_one_usage_error_naming_what_and_why(tmp_path, where):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(UsageError) as e:
        need_writable(tmp_path / where, "--findings F")
    assert str(e.value) == f"--findings F: cannot write there: {tmp_path / 'a-file'} is not a folder"


def test_a_folder_the_kernel_refuses_files_in_is_refused_whatever_the_permission_bits_say():
    # sysfs makes no files on request, for root as for anyone: the check tries, it does not read the mode.
    with pytest.raises(UsageError, match=r"^--state /sys/x: cannot write there: /sys: "):
        need_writable("/sys/x", "--state /sys/x")
