"""toolfuzz: property-based fuzzing and differential testing of streamed LLM tool-call assemblers.

The package reads as the pipeline (docs/architecture.md): :mod:`toolfuzz.vocabulary`
at the bottom, then :mod:`toolfuzz.schemas`, :mod:`toolfuzz.strategies` and
:mod:`toolfuzz.targets`, the judge, the engine, the corpus, the outputs and the
command line on top.  Importing :mod:`toolfuzz` imports none of them.
"""

__version__ = "0.1.0"
