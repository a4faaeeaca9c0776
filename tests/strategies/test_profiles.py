from hypothesis import given, settings
from hypothesis import strategies as st

from toolfuzz.strategies import PROFILES, profile_sets
from toolfuzz.strategies.profiles import CONFLICTS


def test_every_profile_has_a_name_summary_and_evidence():
    assert "openai" in PROFILES
    for name, p in PROFILES.items():
        assert p.name == name and name == name.lower() and " " not in name
        assert p.summary and "\n" not in p.summary
        assert p.evidence


def test_conflicts_are_symmetric():
    for a, bs in CONFLICTS.items():
        for b in bs:
            assert a in CONFLICTS[b]


@settings(max_examples=300)
@given(st.data())
def test_drawn_profile_sets_are_compatible_and_allowed(data):
    allowed = data.draw(st.sets(st.sampled_from(list(PROFILES)), min_size=1))
    chosen = data.draw(profile_sets(allowed))
    assert chosen <= allowed
    for a in chosen:
        assert not CONFLICTS[a] & chosen


@settings(max_examples=100)
@given(st.data())
def test_without_openai_allowed_the_set_is_never_empty(data):
    # The empty set means plain openai: drawn only when openai is allowed.
    allowed = data.draw(st.sets(st.sampled_from([p for p in PROFILES if p != "openai"]), min_size=1))
    assert data.draw(profile_sets(allowed))
