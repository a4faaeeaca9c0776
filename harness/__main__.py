"""``python -m toolfuzz``: the same command line as ``toolfuzz``."""

import sys

from toolfuzz.cli import main

sys.exit(main())
