"""Running the pure core on a body and a script, and comparing JSON with a float tolerance."""

from __future__ import annotations

import math
from typing import Any

import orjson

from zenmux_emulator.faces.objectiveai.compute import Context, Outcome, compute
from zenmux_emulator.faces.objectiveai.wire import parse
from zenmux_emulator.scenario.query import QueryScript

from .examples import CREATED


def run(
    body: dict[str, Any], script: dict[str, Any] | None, response_id: str, seed: int = 7, chunk_tokens: int = 1
) -> Outcome:
    qs = QueryScript.model_validate(script) if script is not None else None
    return compute(
        parse(body), qs, Context(response_id=response_id, created=CREATED, seed=seed, chunk_tokens=chunk_tokens)
    )


def close(a: Any, b: Any, path: str = "$") -> None:
    """Assert equal JSON, key order included for objects, floats within 1e-9."""
    if isinstance(a, float) or isinstance(b, float):
        assert isinstance(a, int | float) and isinstance(b, int | float), f"{path}: {a!r} != {b!r}"
        assert math.isclose(a, b, abs_tol=1e-9), f"{path}: {a!r} != {b!r}"
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), (
            f"{path}: keys {list(a)} != {list(b) if isinstance(b, dict) else b}"
        )
        for key in a:
            close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            close(x, y, f"{path}[{i}]")
    else:
        assert a == b and type(a) is type(b), f"{path}: {a!r} != {b!r}"


def events_json(events: list[bytes]) -> list[Any]:
    """The SSE events as JSON items; checks the framing and the final `[DONE]`."""
    assert events[-1] == b"data: [DONE]\n\n"
    items = []
    for event in events[:-1]:
        assert event.startswith(b"data: ") and event.endswith(b"\n\n") and b"\n" not in event[6:-2]
        items.append(orjson.loads(event[6:-2]))
    return items
