"""§4.9 validation and the §7 error examples: status and exact body."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from zenmux_emulator.faces.objectiveai.errors import UNAUTHORIZED, QueryRejected
from zenmux_emulator.faces.objectiveai.registry import QueryModelRegistry, normalised
from zenmux_emulator.faces.objectiveai.wire import parse

from .examples import REQUEST_A, REQUEST_D


def reject(body: object, registry: QueryModelRegistry | None = None) -> tuple[int, dict[str, Any]]:
    with pytest.raises(QueryRejected) as caught:
        parse(body, registry or QueryModelRegistry())
    return caught.value.status, caught.value.body


def body(kind: str, text: str) -> dict[str, Any]:
    return {"kind": "query", "error": {"kind": kind, "error": text}}


def changed(base: dict[str, Any], change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    change(out)
    return out


def test_example_d_without_select_deterministic() -> None:
    assert reject(changed(REQUEST_D, lambda b: b.pop("select_deterministic"))) == (
        400,
        body("invalid_request", "select_deterministic: must be true when every LLM in the Query Model is a select LLM"),
    )


def test_unknown_model_name_and_bad_model_string() -> None:
    assert reject({**REQUEST_A, "model": "AAAAAAAAAAAAAAAAAAAAAA"}) == (
        404,
        body("model_not_found", "model: no Query Model named AAAAAAAAAAAAAAAAAAAAAA"),
    )
    assert reject({**REQUEST_A, "model": "nope"}) == (
        400,
        body("invalid_model", "model: expected a 22-character Query Model name or a Query Model object"),
    )


def test_unknown_mode_names_its_path() -> None:
    status, error = reject(changed(REQUEST_A, lambda b: b["model"]["models"][0].update(mode="vote")))
    assert status == 400 and error["error"]["kind"] == "invalid_request"
    assert error["error"]["error"].startswith("model.models[0].mode: expected one of 'generate'")


def test_weight_type_must_match_the_model() -> None:
    tt = {"type": "training_table", "base_weight": 1, "min_weight": 0, "max_weight": 2}
    assert reject(changed(REQUEST_A, lambda b: b["model"]["models"][1].update(weight=tt))) == (
        400,
        body("invalid_request", "model.models[1].weight.type: must be 'static' like the Query Model's weight"),
    )


@pytest.mark.parametrize(
    ("change", "text"),
    [
        (lambda b: b.pop("messages"), "messages: is required"),
        (lambda b: b.update(messages=[]), "messages: must not be empty"),
        (
            lambda b: b.update(messages=[{"role": "bot", "content": "x"}]),
            "messages[0].role: expected one of 'developer', 'system', 'user', 'assistant', 'tool'",
        ),
        (
            lambda b: b.update(messages=[{"role": "user", "content": 5}]),
            "messages[0].content: expected a string or an array of content parts",
        ),
        (lambda b: b.update(messages=[{"role": "tool", "content": "x"}]), "messages[0].tool_call_id: is required"),
        (lambda b: b.pop("model"), "model: is required"),
        (lambda b: b["model"].update(models=[]), "model.models: must not be empty"),
        (
            lambda b: b["model"]["models"][0].update(weight={"type": "static"}),
            "model.models[0].weight.weight: is required",
        ),
        (
            lambda b: b["model"]["models"][0].update(temperature=2.5),
            "model.models[0].temperature: expected less than or equal to 2",
        ),
        (
            lambda b: b["model"]["models"][0].update(select_top_logprobs=21),
            "model.models[0].select_top_logprobs: expected less than or equal to 20",
        ),
        (
            lambda b: b["model"].update(weight={"type": "training_table", "embeddings_model": "e", "top": 0}),
            "model.weight.top: expected greater than or equal to 1",
        ),
        (lambda b: b.update(n=0), "n: expected greater than or equal to 1"),
        (lambda b: b.update(n=17), "n: expected less than or equal to 16"),
        (lambda b: b.update(n=1.5), "n: expected a valid integer"),
        (lambda b: b.update(top_logprobs=21), "top_logprobs: expected less than or equal to 20"),
        (
            lambda b: b.update(response_format={"type": "xml"}),
            "response_format.type: expected one of 'text', 'json_object', 'json_schema'",
        ),
        (
            lambda b: b.update(response_format={"type": "json_schema", "json_schema": {}}),
            "response_format.json_schema.name: is required",
        ),
        (
            lambda b: b.update(select_deterministic=True, response_format={"type": "text"}),
            "response_format: select_deterministic needs a json_schema response format",
        ),
    ],
)
def test_invalid_requests(change: Callable[[dict[str, Any]], object], text: str) -> None:
    assert reject(changed(REQUEST_A, change)) == (400, body("invalid_request", text))


def test_training_table_bounds() -> None:
    model = {
        "models": [
            {
                "id": "a/b",
                "mode": "generate",
                "weight": {"type": "training_table", "base_weight": 1, "min_weight": 3, "max_weight": 2},
            }
        ],
        "weight": {"type": "training_table", "embeddings_model": "e/m", "top": 1},
    }
    assert reject({**REQUEST_A, "model": model}) == (
        400,
        body("invalid_request", "model.models[0].weight.min_weight: must not be greater than max_weight"),
    )


def test_select_deterministic_schema_limits() -> None:
    props = {f"p{i}": {"type": "boolean"} for i in range(9)}  # 512 values
    big = changed(REQUEST_D, lambda b: b["response_format"]["json_schema"]["schema"].update(properties=props))
    assert reject(big) == (
        400,
        body("invalid_request", "response_format.json_schema.schema: has more than 256 possible values"),
    )
    num = changed(
        REQUEST_D, lambda b: b["response_format"]["json_schema"]["schema"]["properties"].update(n={"type": "number"})
    )
    assert reject(num) == (
        400,
        body(
            "invalid_request",
            "response_format.json_schema.schema.properties.n: "
            "only objects, booleans and string enums can be enumerated",
        ),
    )


def test_body_must_be_an_object() -> None:
    assert reject([1]) == (400, body("invalid_request", "body: expected a JSON object"))


def test_unknown_fields_are_warnings() -> None:
    request = parse(
        {**REQUEST_A, "temperature": 0.2, "model": {**REQUEST_A["model"], "select_generated_reasoning": True}}
    )
    assert "temperature is not a Query request field and is ignored" in request.warnings
    assert any("select_generated_reasoning" in w for w in request.warnings)


def test_enumeration_order_and_the_seed_audio_part() -> None:
    request = parse(
        changed(
            REQUEST_D,
            lambda b: b["response_format"]["json_schema"]["schema"]["properties"].update(
                tone={"type": "string", "enum": ["calm", "angry"]}
            ),
        )
    )
    assert request.deterministic_values == (
        {"approved": False, "tone": "calm"},
        {"approved": False, "tone": "angry"},
        {"approved": True, "tone": "calm"},
        {"approved": True, "tone": "angry"},
    )
    audio = {"role": "user", "content": [{"type": "audio_url", "input_audio": {"data": "AA", "format": "wav"}}]}
    assert parse({**REQUEST_A, "messages": [audio]}).body.messages


def test_registry_names_models_and_normalises() -> None:
    registry = QueryModelRegistry()
    first = parse(REQUEST_A, registry)
    again = parse({**REQUEST_A, "model": f"objectiveai/{first.model_id}"}, registry)
    assert again.model_id == first.model_id == "2FgLFqAf8M6MTa6MtGLLwM"
    assert parse({**REQUEST_A, "model": f"someone/{first.model_id}"}, registry).model_id == first.model_id
    loaded = QueryModelRegistry()
    assert loaded.pin([parse(REQUEST_D).model]) == ["3yOw7ZxSvwCyH4DSxJOPXZ"]
    shown = normalised(first.model)
    assert shown["name"] == "2FgLFqAf8M6MTa6MtGLLwM" and shown["weight"] == {"type": "static"}
    assert [(m["name"], m["index"]) for m in shown["models"]] == [
        ("5Fr43anduAkLuCN7PL9BAK", 0),
        ("61jFz6OhuRTAKokNtby9Qn", 1),
        ("7W051ct7yeEWFZczC98xKl", 2),
    ]
    assert shown["models"][0]["id"] == "openai/gpt-5-mini"
    small = QueryModelRegistry(capacity=1)
    parse(REQUEST_A, small)
    parse(REQUEST_D, small)
    assert small.names() == ["3yOw7ZxSvwCyH4DSxJOPXZ"]


def test_unauthorized_body() -> None:
    assert body("unauthorized", "missing or invalid API key") == UNAUTHORIZED
