"""toolfuzz.state: the state folder, made with a .gitignore that ignores everything in it."""

from __future__ import annotations

from toolfuzz.state import IGNORE, kept


def test_the_state_folder_is_made_with_a_gitignore_of_everything_in_it(tmp_path):
    folder = kept(tmp_path / "a" / ".toolfuzz")
    assert folder == tmp_path / "a" / ".toolfuzz" and (folder / ".gitignore").read_text() == IGNORE
    assert IGNORE.splitlines()[-1] == "*"


def test_a_gitignore_already_there_is_left_as_the_user_has_it(tmp_path):
    (tmp_path / ".gitignore").write_text("db/\n")
    kept(tmp_path)
    assert (tmp_path / ".gitignore").read_text() == "db/\n"
