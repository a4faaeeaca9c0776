"""toolfuzz.strategies.markup: each format's rendering."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, strategies as st

from toolfuzz.strategies.markup import FORMATS, Written, python_literal
from toolfuzz.vocabulary import TEXT_FORMATS

CALL = Written("get_weather", {"city": "Paris"}, '{"city": "Paris"}')
OTHER = Written("search", {"q": "x"}, '{"q": "x"}')


def test_every_format_of_the_vocabulary_has_a_rendering_with_its_evidence():
    assert tuple(FORMATS) == TEXT_FORMATS
    assert all(f.evidence for f in FORMATS.values())


@pytest.mark.parametrize("name", TEXT_FORMATS)
def test_a_rendering_holds_each_call_and_the_content_in_order(name):
    fmt = FORMATS[name]
    text = fmt.render([CALL, OTHER], "Before.", ["Between."], "After.")
    # Text after the calls only where the model may write it there.
    assert text.startswith("Before.") and text.endswith("After.") == fmt.trailing
    assert text.index("get_weather") < text.index("search")
    # Text between two calls only where the format lets the model write it there.
    assert ("Between." in text) == fmt.between
    # Every special mark a format declares is one it writes (so that no batch is cut inside it).
    assert all(mark in text for mark in fmt.specials), [m for m in fmt.specials if m not in text]


def test_the_hermes_rendering_is_the_documented_layout():
    assert FORMATS["hermes"].render([CALL], "", [], "") == (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>')


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                    max_leaves=8))
def test_a_python_literal_reads_back_as_the_json_value(value):
    assert ast.literal_eval(python_literal(value)) == value


def test_a_pythonic_call_passes_only_keywords_python_can_write():
    fit = FORMATS["pythonic"].fit
    assert fit({"ok": 1, "not ok": 2, "class": 3, "_x": [-1]}, {}) == {"ok": 1, "_x": [-1]}
    assert FORMATS["pythonic"].render([Written("f", {"a": -1, "b": "x"}, "")], "", [], "") == "[f(a=-1, b='x')]"
    value = {"not ok": 1}
    assert FORMATS["hermes"].fit(value, {}) is value  # a JSON format writes any value


def test_the_qwen3_coder_rendering_is_its_chat_template_s_layout():
    call = Written("get_weather", {"city": "Paris", "days": 3, "tags": ["a"]}, "")
    assert FORMATS["qwen3-coder"].render([call, OTHER], "Sure.", [], "") == (
        "Sure.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n<parameter=tags>\n[\"a\"]\n</parameter>\n</function>\n</tool_call>\n"
        "<tool_call>\n<function=search>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>")


def test_an_xml_call_passes_only_what_its_text_says_one_way():
    fit = FORMATS["qwen3-coder"].fit
    schema = {"type": "object", "properties": {
        "s": {"type": "string"}, "n": {"type": "number"}, "i": {"type": "integer"}, "b": {"type": "boolean"},
        "o": {"type": "object"}, "either": {"type": ["string", "integer"]}, "any": {},
        "tag": {"type": "string"}, "in json": {"type": "array"}, "x": {"type": "integer"}}}
    value = {"s": " 5 ", "n": 2, "i": 7, "b": False, "o": {"k": None}, "either": "5", "any": 1,
             "tag": "a</parameter>b", "in json": ["<function=f>"], "x": True, "undeclared": "u"}
    # The text 5 is a string or a number as the schema says: kept where it gives one type, and the value is of it.
    assert fit(value, schema) == {"s": " 5 ", "n": 2, "i": 7, "b": False, "o": {"k": None}}
    assert fit([1], schema) == {} and fit({"s": "x"}, {"anyOf": []}) == {}


def test_the_glm47_rendering_is_its_parsers_layout_calls_back_to_back():
    call = Written("get_weather", {"city": "Paris", "days": 3, "tags": ["a"]}, "")
    assert FORMATS["glm47"].render([call, OTHER], "Sure.", [], "") == (
        "Sure.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>"
        "<arg_key>days</arg_key><arg_value>3</arg_value><arg_key>tags</arg_key><arg_value>[\"a\"]</arg_value>"
        "</tool_call><tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>")


def test_a_glm_call_passes_no_string_its_parsers_read_two_ways_nor_a_text_holding_its_marks():
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in "abcdefg"}}
    value = {"a": " 5 ", "b": '"quoted"', "c": "x</arg_value>", "d": "<tool_call>", "e": 'say "hi"', "f": '"',
             "g": "''"}
    # A string in quotes reads as the one inside too (sglang's parser strips them: models do quote strings).
    assert FORMATS["glm47"].fit(value, schema) == {"a": " 5 ", "e": 'say "hi"', "f": '"'}
    # Qwen3-Coder's template writes a string as it is: it keeps them, and GLM's own marks are no marks there.
    assert FORMATS["qwen3-coder"].fit(value, schema) == {k: v for k, v in value.items() if k != "d"}


def test_a_format_whose_calls_end_the_turn_writes_no_text_after_them():
    assert FORMATS["glm47"].render([OTHER], "Sure.", [], "Done.") == (
        "Sure.<tool_call>search<arg_key>q</arg_key><arg_value>x</arg_value></tool_call>")
    assert FORMATS["hermes"].render([OTHER], "", [], "Done.").endswith("</tool_call>\nDone.")


def test_the_minimax_m2_rendering_is_one_block_an_invoke_a_call():
    call = Written("get_weather", {"city": "Paris", "days": 3}, "")
    assert FORMATS["minimax-m2"].render([call, Written("ping", {}, "")], "Sure.", [], "") == (
        'Sure.<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
        '<parameter name="days">3</parameter>\n</invoke>\n<invoke name="ping">\n</invoke>\n</minimax:tool_call>')
    # A name goes in an attribute: one holding a quote is not passed, nor a text holding the layout's marks.
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in ('say "x"', "a", "b")}}
    assert FORMATS["minimax-m2"].fit({'say "x"': "1", "a": "x</parameter>", "b": "<tool_call>"}, schema) == {
        "b": "<tool_call>"}


def test_the_deepseek_v32_rendering_is_deepseek_s_encoding_each_parameter_saying_if_it_is_a_string():
    call = Written("get_weather", {"city": "Paris", "days": 3}, "")
    assert FORMATS["deepseek-v32"].render([call, Written("ping", {}, "")], "Sure.", [], "") == (
        'Sure.\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n'
        '<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n'
        '<｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
        '<｜DSML｜invoke name="ping">\n\n</｜DSML｜invoke>\n</｜DSML｜function_calls>')
    # Whatever the schema says, any value is one value; only a name for the attribute and no mark in a text.
    value = {"n": "5", "m": 5, "any": None, 'q"': 1, "t": "</｜DSML｜parameter>"}
    assert FORMATS["deepseek-v32"].fit(value, {}) == {"n": "5", "m": 5, "any": None}


def test_the_kimi_k3_rendering_closes_the_response_then_one_tools_channel_each_argument_typed():
    call = Written("get_weather", {"city": "Paris", "days": 3, "a&b": None}, "")
    assert FORMATS["kimi-k3"].render([call, Written("ping", {}, "")], "Sure.", [], "Done.") == (
        'Sure.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>'
        '<|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>'
        '<|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>'
        '<|open|>argument key="a&amp;b" type="null"<|sep|>null<|close|>argument<|sep|><|close|>call<|sep|>'
        '<|open|>call tool="ping" index="2"<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>')
    # Any value says its type; no name holds a quote, and neither a name nor a text one of the marks' "<|".
    value = {"n": "5", "m": [1.5, True], 'q"': 1, "t": "x<|close|>argument<|sep|>", "<|k": 1, "o": {"s": "<|"}}
    assert FORMATS["kimi-k3"].fit(value, {}) == {"n": "5", "m": [1.5, True]}


def test_the_step3_rendering_is_one_block_of_lines_a_call_typed_by_the_schema():
    call = Written("get_weather", {"city": "Paris", "days": 3}, "")
    assert FORMATS["step3"].render([call, Written("ping", {}, "")], "Sure.", [], "Done.") == (
        "Sure.\n<｜tool_calls_begin｜>\n"
        '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">\n'
        '<steptml:parameter name="city">Paris</steptml:parameter>\n'
        '<steptml:parameter name="days">3</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n'
        '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="ping">\n</steptml:invoke><｜tool_call_end｜>\n'
        "<｜tool_calls_end｜>\nDone.")
    # Typed by the schema; no mark in a text, and no string with whitespace at an end (both parsers strip it).
    schema = {"type": "object", "properties": {k: {"type": "string"} for k in "abcde"} | {"n": {"type": "integer"}}}
    value = {"a": " x", "b": "if a < b", "c": "</steptml:parameter>", "d": "<｜tool_sep｜>", "e": "ok", "n": "5"}
    assert FORMATS["step3"].fit(value, schema) == {"b": "if a < b", "e": "ok"}


def test_the_glm45_rendering_is_glm47_s_tags_each_on_a_line_of_its_own():
    call = Written("get_weather", {"city": "Paris", "days": 3}, "")
    assert FORMATS["glm45"].render([call, Written("ping", {}, "")], "Sure.", [], "Done.") == (
        "Sure.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>\n<tool_call>ping\n</tool_call>")


def test_the_minimax_m3_rendering_is_namespaced_elements_an_argument_a_line_items_as_item():
    value = {"city": "Paris", "o": {"a": 1.5}, "l": [{"sku": "b1"}, {"sku": "b2"}], "e": [], "z": None}
    m = "]<]minimax[>["
    assert FORMATS["minimax-m3"].render([Written("order", value, ""), Written("ping", {}, "")], "Sure.", [],
                                        "Done.") == (
        f"Sure.{m}<tool_call>\n{m}<invoke name=\"order\">\n{m}<city>Paris{m}</city>\n"
        f"{m}<o>\n{m}<a>1.5{m}</a>\n{m}</o>\n"
        f"{m}<l>\n{m}<item>{m}<sku>b1{m}</sku>{m}</item>\n{m}<item>{m}<sku>b2{m}</sku>{m}</item>\n{m}</l>\n"
        f"{m}<e>{m}</e>\n{m}<z>null{m}</z>\n{m}</invoke>\n{m}<invoke name=\"ping\">\n{m}</invoke>\n{m}</tool_call>")
    # Typed by the schema all the way down, keys the schema names as tags, and no namespace mark in a text.
    schema = {"type": "object", "properties": {
        "s": {"type": "string"}, "n": {"type": "integer"}, "u": {}, " pad": {"type": "string"},
        "t": {"type": "string"}, "o": {"type": "object", "properties": {"a": {"type": "number"}}},
        "p": {"type": "object", "properties": {"a": {"type": "number"}}},
        "l": {"type": "array", "items": {"type": "integer"}}, "q": {"type": "array", "items": {"type": "integer"}}}}
    value = {"s": " x <b>", "n": "5", "u": 3, " pad": "x", "t": f"a{m}b", "o": {"a": 2}, "p": {"a": 1, "b": 2},
             "l": [1, 2], "q": [1, "2"]}
    assert FORMATS["minimax-m3"].fit(value, schema) == {"s": " x <b>", "o": {"a": 2}, "l": [1, 2]}


def test_minimax_m3_s_namespace_is_one_token_that_is_text_not_special():
    fmt = FORMATS["minimax-m3"]
    assert fmt.specials == () and fmt.atoms == ("]<]minimax[>[",)
