"""Hypothesis strategies the fuzzed face tests share."""

from __future__ import annotations

from hypothesis import strategies as st

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
"""Any small JSON value: what a hostile client puts where a field's value goes."""
