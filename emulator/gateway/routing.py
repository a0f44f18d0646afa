"""Which model serves a request. For now: the requested one, or for `zenmux/auto` the first of
`model_routing_config.available_models` (else the first catalogue model). Provider routing,
preferences and fallback build on this (issue 4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

AUTO = "zenmux/auto"


def served_model(model: str, body: Mapping[str, Any], catalogue: Mapping[str, object]) -> str:
    """The model id the reply reports as having served `model` (already without its `:provider`)."""
    if model != AUTO:
        return model
    config = body.get("model_routing_config") or {}
    candidates = config.get("available_models") or [m for m in catalogue if not m.startswith("zenmux/")]
    return str(candidates[0]) if candidates else AUTO
