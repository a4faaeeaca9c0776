"""The hypothesis / hypothesis-jsonschema pair works: draw from an object schema.

hypothesis-jsonschema 0.23.1 calls ``many(...).more()``, which Hypothesis
removed in 6.170.10; after that every object schema fails when first drawn
(``'many' object has no attribute 'more'``).  from_schema() itself never
fails, so only a draw tells.
"""

import hypothesis
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis_jsonschema import from_schema

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
          "required": ["a"]}


def test_hypothesis_jsonschema_draws_an_object():
    try:
        value = find(from_schema(SCHEMA), lambda v: True,
                     settings=settings(max_examples=5, database=None, phases=[Phase.generate],
                                       suppress_health_check=list(HealthCheck)))
    except AttributeError as e:
        raise AssertionError(
            f"hypothesis {hypothesis.__version__} broke hypothesis-jsonschema ({e}); "
            "keep hypothesis<6.170.10 pinned in pyproject.toml until hypothesis-jsonschema is fixed"
        ) from None
    assert isinstance(value, dict) and isinstance(value["a"], int)
