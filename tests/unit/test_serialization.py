"""Tagged-JSON value encoding: round trips for every supported type, no pickle."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from flink_agents_memory.memory import serialization

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
    st.binary(),
)
values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(values)
def test_round_trip(value):
    text = serialization.dumps(value)
    json.loads(text)  # always plain JSON, readable by tooling
    assert serialization.loads(text) == value


def test_unknown_model_type_is_a_clear_error():
    text = '{"$m":["no_such_module:Thing",{}]}'
    try:
        serialization.loads(text)
    except serialization.MemoryValueError as e:
        assert "no_such_module:Thing" in str(e) and "register_type" in str(e)
    else:
        raise AssertionError("expected MemoryValueError")
