"""§4.8: an LLM that errors, unresolved votes, no candidates, and the all-failed rule."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from zenmux_emulator.faces.objectiveai import render
from zenmux_emulator.faces.objectiveai.compute import all_failed_code

from .examples import E_ERROR, ID_B, ID_E, REQUEST_B, REQUEST_E, SCRIPT_B, SCRIPT_E, llm
from .helpers import run

ALL_FAILED = {
    "kind": "query",
    "error": {"kind": "all_choices_failed", "error": "all choices failed, see choices for further details"},
}


def test_an_llm_that_errors() -> None:
    c = {x["index"]: x for x in render.unary_json(run(REQUEST_B, SCRIPT_B, ID_B))["choices"]}
    gemini = c[2]
    assert gemini["finish_reason"] == "error" and gemini["error"] == {"code": 502, "message": "Bad Gateway"}
    assert gemini["message"] == {"content": None, "refusal": None, "role": "assistant"}
    assert (gemini["generate_id"], gemini["confidence_id"], gemini["confidence"]) == (None, None, None)
    assert gemini["confidence_weight"] == 1.0 and "usage" not in gemini["completion_metadata"]
    assert list(gemini) == [
        "message",
        "finish_reason",
        "index",
        "logprobs",
        "generate_id",
        "confidence_id",
        "confidence_weight",
        "confidence",
        "error",
        "model",
        "model_index",
        "completion_metadata",
    ]


def test_error_message_defaults_to_the_reason_phrase() -> None:
    script = copy.deepcopy(SCRIPT_B)
    script["llms"][2]["output"] = {"error": {"code": 503}}
    c = render.unary_json(run(REQUEST_B, script, ID_B))["choices"]
    assert next(x for x in c if x["index"] == 2)["error"] == {"code": 503, "message": "Service Unavailable"}


def test_example_e_unary_is_the_all_failed_http_error() -> None:
    status, body = render.unary(run(REQUEST_E, SCRIPT_E, ID_E))
    assert status == 429 and orjson.loads(body) == ALL_FAILED
    choice = render.unary_json(run(REQUEST_E, SCRIPT_E, ID_E))["choices"][0]
    assert choice["message"]["content"] == "Hello" and choice["error"] == {"code": 429, "message": E_ERROR}


@pytest.mark.parametrize(
    ("codes", "expected"),
    [
        ([429, 429], 429),
        ([429, 404], 400),
        ([429, 502], 500),
        ([500], 500),
    ],
)
def test_all_failed_code(codes: list[int], expected: int) -> None:
    assert all_failed_code(codes) == expected


def test_all_failed_with_mixed_codes_in_a_model() -> None:
    body: dict[str, Any] = {
        **REQUEST_E,
        "model": {"models": [llm("a/x", "generate", 1), llm("b/y", "generate", 1)], "weight": {"type": "static"}},
    }
    script = {
        "llms": [
            {"match": {"id": "a/*"}, "output": {"error": {"code": 429}}},
            {"match": {"id": "b/*"}, "output": {"error": {"code": 404}}},
        ]
    }
    assert render.unary(run(body, script, ID_E))[0] == 400


def test_one_success_is_not_all_failed() -> None:
    assert render.unary(run(REQUEST_B, SCRIPT_B, ID_B))[0] == 200


def test_vote_for_an_errored_llm_is_a_choice_error() -> None:
    script = copy.deepcopy(SCRIPT_B)
    script["llms"][4]["output"]["vote"] = "google/*"
    outcome = run(REQUEST_B, script, ID_B)
    haiku = next(x for x in render.unary_json(outcome)["choices"] if x["index"] == 4)
    assert haiku["finish_reason"] == "error" and haiku["error"] == {
        "code": 500,
        "message": {"kind": "query", "error": {"kind": "invalid_content", "error": "expected a valid response key"}},
    }
    assert haiku["confidence"] is None and haiku["confidence_weight"] == 1.0
    assert any("google/*" in w for w in outcome.warnings)


def test_no_candidates_makes_every_select_choice_fail() -> None:
    script = copy.deepcopy(SCRIPT_B)
    for entry in script["llms"][:2]:
        entry["output"] = {"error": {"code": 502}}
    status, body = render.unary(run(REQUEST_B, script, ID_B))
    assert status == 500 and orjson.loads(body) == ALL_FAILED  # 502 + 500s → 500
    choices = render.unary_json(run(REQUEST_B, script, ID_B))["choices"]
    assert all(
        c["error"]["message"]["error"]["error"] == "no responses to select from" for c in choices if c["index"] >= 3
    )


def test_scripts_refuse_a_vote_with_json() -> None:
    from pydantic import ValidationError

    from zenmux_emulator.scenario.query import QueryScript

    with pytest.raises(ValidationError):
        QueryScript.model_validate({"llms": [{"output": {"vote": "a/*", "json": {}}}]})
    with pytest.raises(ValidationError):
        QueryScript.model_validate({"llms": [{"output": {"vote": [{"to": "a/*", "p": 0}]}}]})
    with pytest.raises(ValidationError):
        QueryScript.model_validate({"llms": [{"output": {"vote": [{"to": "a/*", "p": -1}]}}]})
