"""The conversation caps skip counting a body too small to pass them (`ConversationCaps.overlong`
with `body_bytes`): checked against the count itself on the smallest JSON such bodies can be."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from zenmux_emulator.faces.common.counts import ConversationCaps

SMALL = ConversationCaps("messages", ("content", "tool_calls"), items=20, all_parts=24)
NESTED = ConversationCaps("messages", ("content",), items=30, all_parts=20, inner="content", beside=(("system",),))
"""Caps small enough that bodies near them are a hundred bytes: the bound is the same at any size."""

ATOMS = st.sampled_from([0, 1, "", {}, []])
"""The shortest JSON values: an array of n of them is 2n + 1 bytes, the tightest the bound allows."""
PARTS = st.lists(st.one_of(ATOMS, st.fixed_dictionaries({"content": st.lists(ATOMS, max_size=12)})), max_size=26)
ITEMS = st.lists(
    st.one_of(ATOMS, st.fixed_dictionaries({}, optional={"content": PARTS, "tool_calls": PARTS})), max_size=32
)
BODIES = st.fixed_dictionaries({"messages": ITEMS}, optional={"system": PARTS})


@settings(max_examples=600, derandomize=True, database=None, deadline=None)
@given(BODIES)
def test_the_size_bound_never_lets_an_overlong_body_through(body: dict[str, Any]) -> None:
    raw = orjson.dumps(body)  # compact: the fewest bytes these items can take
    for caps in (SMALL, NESTED):
        assert caps.overlong(body, len(raw)) == caps.overlong(body)


def test_a_body_just_past_a_cap_in_the_fewest_bytes_is_counted() -> None:
    """21 items of one byte each: 2 * 21 + 1 bytes of array and 13 of the rest, past twice the cap of 20."""
    body = {"messages": [0] * 21}
    raw = orjson.dumps(body)
    assert len(raw) == 56
    found = SMALL.overlong(body, len(raw))
    assert found is not None and found.count == 21 and not found.parts
    assert SMALL.overlong(body, 40) is None  # at most 2 * 20 bytes: not counted (the core measures the size)
