"""toolfuzz.outputs.excerpt: a function of toolfuzz's source and what it needs, copied for a script without toolfuzz."""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from toolfuzz.outputs import excerpt as excerpt_module
from toolfuzz.outputs.excerpt import ExcerptError, excerpt, literal


def defined(text: str) -> set[str]:
    """The top-level names a piece of source defines."""
    tree = ast.parse(text)
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_a_function_comes_with_the_helpers_and_imports_it_uses_and_nothing_of_toolfuzz():
    text = excerpt([("toolfuzz.targets.adapters.openai_chat", "assemble_with_state(CHUNKS)")], own={"CHUNKS"})
    assert {"assemble_with_state", "_calls", "_call", "COMPLETING"} <= defined(text)
    # The adapter's other targets, its warm-up and its registration are toolfuzz's, not the recipe's.
    assert not {"assemble_with_client", "_warm_up", "TARGETS", "_VERSION"} & defined(text)
    assert "from openai.lib.streaming.chat import ChatCompletionStreamState" in text
    assert "toolfuzz." not in "\n".join(line for line in text.splitlines() if not line.startswith(("#", " ")))
    # toolfuzz's table of finish reasons is written as its value.
    assert "FINISHING = {'openai-chat': ('tool_calls', 'stop')" in text
    compile(text, "excerpt", "exec")


def test_set_up_statements_come_in_their_place_before_the_import_they_prepare():
    text = excerpt([("toolfuzz.targets.adapters.litellm", "assemble_with_builder(CHUNKS)")], own={"CHUNKS"})
    # Without it litellm fetches its cost map over the network when imported.
    assert text.index('os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")') < text.index("import litellm")
    assert "litellm.telemetry = False" in text
    # The warm-up loop uses the module's own functions: it is not set-up, and stays behind.
    assert "_WARM_UP" not in text and "for _warm_up" not in text


def test_names_taken_from_another_adapter_are_copied_from_it_first():
    text = excerpt([("toolfuzz.targets.adapters.pydantic_ai_anthropic", "assemble_with_model(READS)")], own={"READS"})
    assert text.index("def _calls(") < text.index("def assemble_with_model(")
    assert text.index("def mock_client(") < text.index("def assemble_with_model(")
    compile(text, "excerpt", "exec")


def test_what_a_script_cannot_carry_is_named():
    # litellm-anthropic-client labels its calls with toolfuzz's own SSE decoder.
    with pytest.raises(ExcerptError, match="toolfuzz.targets.reference.sse.SSEDecoder"):
        excerpt([("toolfuzz.targets.adapters.litellm_anthropic", "assemble_with_client(READS)")], own={"READS"})
    with pytest.raises(ExcerptError, match="not a module a script may copy"):
        excerpt([("toolfuzz.judge.compare", "compare")])
    # A name neither the module nor the script defines is a recipe's mistake, not a name to leave alone.
    with pytest.raises(ExcerptError, match="toolfuzz.targets.adapters.openai_chat defines no assemble_with_chat"):
        excerpt([("toolfuzz.targets.adapters.openai_chat", "assemble_with_chat(READS)")], own={"READS"})
    # A lambda's parameter and a comprehension's variable are the expression's own.
    assert "def _calls(" in excerpt([("toolfuzz.targets.adapters.openai_chat",
                                      "lambda chunks: [assemble_with_state(c) for c in chunks]")])


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """Two copyable modules of the test's own, ``tfx_one`` and ``tfx_two``."""
    def write(name: str, source: str) -> None:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(excerpt_module, "COPYABLE", (*excerpt_module.COPYABLE, "tfx_one", "tfx_two"))
    yield write
    for name in ("tfx_one", "tfx_two"):
        sys.modules.pop(name, None)


def test_two_definitions_of_one_name_are_refused(modules):
    modules("tfx_one", "def helper():\n    return 1\n")
    modules("tfx_two", "def helper():\n    return 2\n")
    with pytest.raises(ExcerptError, match="two definitions of helper"):
        excerpt([("tfx_one", "helper()"), ("tfx_two", "helper()")])
    # The same statement met twice is one definition, and so is the same text in two modules.
    assert excerpt([("tfx_one", "helper()"), ("tfx_one", "helper")]).count("def helper") == 1
    modules("tfx_two", "def helper():\n    return 1\n")
    assert excerpt([("tfx_one", "helper()"), ("tfx_two", "helper()")]).count("def helper") == 1


def test_a_name_the_script_keeps_for_itself_is_refused(modules):
    modules("tfx_one", "DATA = 1\n\n\ndef helper():\n    return DATA\n")
    assert "DATA = 1" in excerpt([("tfx_one", "helper()")])
    with pytest.raises(ExcerptError, match="DATA"):
        excerpt([("tfx_one", "helper()")], own={"DATA"})


def test_an_alias_of_a_copied_name_is_bound_and_only_used_names_of_an_import_are_kept(modules):
    modules("tfx_one", """\
        import json, os
        from tfx_two import helper as renamed

        print("warming up", used())


        def used():
            return json.dumps(renamed())
        """)
    modules("tfx_two", "def helper():\n    return [1]\n")
    text = excerpt([("tfx_one", "used()")])
    namespace: dict = {}
    exec(compile(text, "excerpt", "exec"), namespace)
    assert namespace["used"]() == "[1]"
    assert "import json" in text and "import os" not in text and "warming up" not in text


def test_literal_lays_out_a_long_list_one_item_to_a_line():
    value = [{"index": i, "text": "x" * 40} for i in range(4)]
    text = literal(value)
    assert eval(text) == value and text.startswith("[\n    {") and text.count("\n") == 5
    assert literal([1, 2]) == "[1, 2]"
