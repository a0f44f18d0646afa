"""§7 examples A and D, unary, value for value (the response id by its regex, as the spec says)."""

from __future__ import annotations

import re

import orjson

from zenmux_emulator.faces.objectiveai import ids, render

from .examples import (
    CREATED,
    EXPECTED_A,
    EXPECTED_D,
    ID_A,
    ID_D,
    REQUEST_A,
    REQUEST_D,
    SCRIPT_A,
    SCRIPT_D,
)
from .helpers import close, run

ID_RE = re.compile(r"^qrycpl-[0-9a-f]{32}-1767225600$")


def test_example_a() -> None:
    status, body = render.unary(run(REQUEST_A, SCRIPT_A, ID_A))
    assert status == 200
    close(orjson.loads(body), EXPECTED_A)


def test_example_d() -> None:
    status, body = render.unary(run(REQUEST_D, SCRIPT_D, ID_D))
    assert status == 200
    close(orjson.loads(body), EXPECTED_D)


def test_a_with_an_emulator_id_follows_the_id_rules() -> None:
    rid = ids.response_id(1234, "default", 3, CREATED)
    assert ID_RE.match(rid)
    body = orjson.loads(render.unary(run(REQUEST_A, SCRIPT_A, rid))[1])
    assert body["id"] == rid
    for choice in body["choices"]:
        meta = choice["completion_metadata"]["id"]
        assert meta == f"gen-{CREATED}-" + ids.hash_id(f"{rid}/{choice['index']}")[:20]
    # everything else is the same as the example
    for got, want in zip(body["choices"], EXPECTED_A["choices"], strict=True):
        got["completion_metadata"].pop("id")
        want = {**want, "completion_metadata": {k: v for k, v in want["completion_metadata"].items() if k != "id"}}
        close(got, want)


def test_choice_order_index_keeps_index_order() -> None:
    body = render.unary_json(run(REQUEST_D, {**SCRIPT_D, "choice_order": "index"}, ID_D))
    assert [c["index"] for c in body["choices"]] == [0, 1, 2, 3]


def test_unary_bytes_are_compact_json_in_the_spec_key_order() -> None:
    _, body = render.unary(run(REQUEST_A, SCRIPT_A, ID_A))
    assert body.startswith(b'{"id":"qrycpl-0123456789abcdef0123456789abcdef-1767225600","choices":[{"message":')
    assert list(orjson.loads(body)) == ["id", "choices", "created", "model", "object", "usage"]


def test_same_inputs_same_bytes() -> None:
    assert render.unary(run(REQUEST_D, None, ID_D)) == render.unary(run(REQUEST_D, None, ID_D))
