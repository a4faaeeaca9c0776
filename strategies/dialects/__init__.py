"""The wire dialects' cases, one module each, behind one interface.

Each module in :data:`MODULES` has ``DIALECT`` (its name in
:data:`toolfuzz.vocabulary.DIALECTS`) and ``cases(generators, allowed)``: the
strategy of complete cases for some tools' argument generators and a set of
its call-shape profiles (``toolfuzz.strategies.profiles.DIALECT_PROFILES``),
and ``draw_case(draw, generators, allowed)``: one case from Hypothesis's
``draw`` or a plan's :class:`~toolfuzz.strategies.plans.Drawer`.
:func:`toolfuzz.strategies.cases` checks what is asked for and dispatches
here; nothing else needs to know which dialect it is drawing.

* :mod:`chat`: OpenAI chat completions chunks.
* :mod:`responses` and :mod:`anthropic`: the event dialects, whose shared
  pipeline is :mod:`typed` and whose modules are its renderers.
* :mod:`text`: the producer level's dialects, a model's text in one format
  (``text:hermes``, ...), one :class:`~toolfuzz.strategies.dialects.text.TextDialect` each.
"""

from __future__ import annotations

from typing import Any

from toolfuzz.strategies.dialects import anthropic, chat, responses, text

__all__ = ["MODULES"]

MODULES: dict[str, Any] = {module.DIALECT: module for module in (chat, responses, anthropic)} | text.DIALECTS
