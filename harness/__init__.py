"""toolfuzz's harness: the vocabulary, fixture files, and the one place that knows strategies and targets.

Importing :mod:`harness` imports neither :mod:`strategies` nor :mod:`targets`;
the modules that bring them together (the command line, the runner) do.
"""

__version__ = "0.1.0"
