from toolfuzz.vocabulary import Tool
from toolfuzz.strategies import bundled_tools, usable_tools


def test_bundled_tools_are_all_usable():
    usable, skipped = usable_tools(bundled_tools())
    assert skipped == () and len(usable) == len(bundled_tools()) >= 10
    assert bundled_tools()[0].name == "get_weather"


def test_bad_schemas_are_reported_and_skipped_not_raised():
    good = Tool("ok", {"type": "object"})
    invalid = Tool("invalid", {"type": "object", "properties": {"x": {"type": "nope"}}})
    impossible = Tool("impossible", {"type": "object", "properties": {"x": {"type": "integer", "minimum": 5,
                                                                              "maximum": 1}},
                                     "required": ["x"], "allOf": [{}]})
    usable, skipped = usable_tools([good, invalid, impossible])
    assert usable == (good,)
    reasons = dict((t.name, why) for t, why in skipped)
    assert "properties/x/type" in reasons["invalid"]
    assert "cannot generate" in reasons["impossible"]
