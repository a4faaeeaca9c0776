"""Where the tests find the repository's own files, wherever in tests/ a test module sits."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Data files of the tests themselves (hostile targets, another assembler).
DATA = ROOT / "tests" / "data"
