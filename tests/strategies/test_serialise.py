import json

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfuzz.strategies import SERIALISERS, serialisations
from toolfuzz.strategies.serialise import serialisers_for
from toolfuzz.strategies.values import json_values


@settings(max_examples=300)
@given(st.data())
def test_every_serialisation_parses_back_to_the_value(data):
    value = data.draw(json_values())
    for serialiser in serialisers_for(value):
        assert json.loads(serialiser.write(value)) == value, serialiser.name
    assert json.loads(data.draw(serialisations(value))) == value


def test_orjson_is_not_chosen_for_integers_past_64_bits():
    names = {s.name for s in serialisers_for({"n": 2**64})}
    assert "orjson" not in names and "compact" in names
    assert "orjson" in {s.name for s in serialisers_for({"n": 2**64 - 1})}


def test_ascii_serialisations_write_astral_characters_as_surrogate_pairs():
    ascii_writers = [s for s in SERIALISERS if s.name.startswith("ascii")]
    assert ascii_writers
    for s in ascii_writers:
        text = s.write({"e": "😀"})
        assert text.isascii() and "\\ud83d\\ude00" in text


@settings(max_examples=50)
@given(st.data())
def test_ascii_only_restricts_the_choice(data):
    value = data.draw(json_values())
    assert data.draw(serialisations(value, ascii_only=True)).isascii()
