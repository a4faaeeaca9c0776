"""What every command test here reads is a command's output to a pipe (whole, never fitted to a terminal),
whatever COLUMNS the shell that runs the tests exports; a test of the fitted output sets COLUMNS itself."""

import pytest


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
