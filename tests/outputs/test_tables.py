"""toolfuzz.outputs.tables: columns as wide as their widest cell."""

from toolfuzz.outputs.tables import aligned


def test_columns_are_padded_and_lines_carry_no_trailing_space():
    text = aligned([("name", "level", "what"), ("a-long-name", "bytes", "x"), ("b", "sse", "")], rule=True)
    assert text.splitlines() == ["name         level  what",
                                 "-----------  -----  ----",
                                 "a-long-name  bytes  x",
                                 "b            sse"]
