"""The profile a situation names (``service.profiles.situations``) against a plain reference model
of RFC 7396, for random profiles and situations with nulls (which the tools cannot store: a merge
patch reads a null as "delete"); the tools' own answers are tested in tests/context."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from service.errors import InvalidArgument
from service.profiles.situations import KEY, defined, for_situation
from tests.support.merge_model import reference_merge

keys = st.sampled_from(["avoid", "core_genres", "playlist_rules", "rules", "situations", "x"])
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["metal", "jazz", ""]))
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3), max_leaves=12
)
objects = st.dictionaries(keys, values, max_size=5)


@hsettings(max_examples=500, deadline=None)
@given(base=objects, situation=objects, others=st.dictionaries(st.text(max_size=5), values, max_size=3))
def test_a_situation_is_its_fields_merged_over_the_base_profile(
    base: dict[str, Any], situation: dict[str, Any], others: dict[str, Any]
) -> None:
    profile = {**base, KEY: {**others, "gym": situation}}
    before = repr(profile)
    without = {k: v for k, v in base.items() if k != KEY}
    assert for_situation(profile, "gym") == reference_merge(without, situation)
    assert for_situation(profile, None) == without
    assert repr(profile) == before  # the stored profile is not changed by reading it
    assert defined(profile) == sorted(name for name, v in profile[KEY].items() if isinstance(v, dict))


def test_a_name_that_is_no_situation_is_refused_with_the_names_there_are() -> None:
    profile = {KEY: {"work": {}, "gym": {"avoid": None}, "broken": ["not", "an", "object"]}}
    assert for_situation(profile, "gym") == {}
    for name in ("car", "broken"):
        with pytest.raises(InvalidArgument) as refused:
            for_situation(profile, name)
        assert refused.value.details == {"field": "situation", "situations": ["gym", "work"]}
