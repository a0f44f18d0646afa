"""§4.4: votes (logprob votes, top-1 outside logprobs modes), confidence, and example B's numbers."""

from __future__ import annotations

import copy
import math
from typing import Any

from zenmux_emulator.faces.objectiveai import render

from .examples import ID_B, ID_D, PARIS, PARIS_DOT, REQUEST_B, REQUEST_D, SCRIPT_B, llm
from .helpers import run


def by_index(body: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {c["index"]: c for c in body["choices"]}


def test_example_b_logprob_vote_and_weights() -> None:
    body = render.unary_json(run(REQUEST_B, SCRIPT_B, ID_B))
    c = by_index(body)
    # model_index: gpt-4o-mini 0, mini 1, nano 2, haiku 3, gemini 4; generate first, then select
    assert [(c[i]["completion_metadata"]["model"], c[i]["model_index"]) for i in range(5)] == [
        ("openai/gpt-5-mini", 1),
        ("openai/gpt-5-nano", 2),
        ("google/gemini-2.5-flash", 4),
        ("openai/gpt-4o-mini", 0),
        ("anthropic/claude-haiku-4.5", 3),
    ]
    # W(Paris) = 1 + 2·0.75 + 1 = 3.5, W(Paris.) = 1 + 2·0.25 = 1.5, T = 5
    assert math.isclose(c[1]["confidence"], 0.7, abs_tol=1e-9)
    assert math.isclose(c[0]["confidence"], 0.3, abs_tol=1e-9)
    assert c[3]["confidence_id"] == {PARIS: 0.75, PARIS_DOT: 0.25}
    assert math.isclose(c[3]["confidence"], 0.75 * 0.7 + 0.25 * 0.3, abs_tol=1e-9)
    assert c[3]["confidence_weight"] == 2.0 and c[3]["message"]["content"] == PARIS
    assert c[4]["confidence_id"] == PARIS and math.isclose(c[4]["confidence"], 0.7, abs_tol=1e-9)
    assert c[4]["message"]["reasoning"] == "Both name Paris; the first answers in one word."
    assert c[4]["completion_metadata"]["provider"] == "Anthropic"
    # unary order: confidence descending, a generate choice before a select choice on a tie, error last
    assert [x["index"] for x in body["choices"]] == [1, 4, 3, 0, 2]
    usage = body["usage"]
    assert usage["prompt_tokens"] == 171 and usage["completion_tokens"] == 44 and usage["total_tokens"] == 215
    assert usage["completion_tokens_details"] == {"reasoning_tokens": 18}
    assert math.isclose(usage["cost"], 0.00018, abs_tol=1e-12)
    assert c[4]["completion_metadata"]["usage"] == {
        "completion_tokens": 30,
        "prompt_tokens": 75,
        "total_tokens": 105,
        "completion_tokens_details": {"reasoning_tokens": 18},
        "cost": 0.00012,
    }


def test_logprob_vote_is_truncated_to_select_top_logprobs_and_renormalised() -> None:
    body = copy.deepcopy(REQUEST_B)
    body["model"]["models"][3]["select_top_logprobs"] = 1
    script = copy.deepcopy(SCRIPT_B)
    body["model"]["models"].pop(4)
    script["llms"][3]["output"]["vote"] = [
        {"to": "openai/gpt-5-mini", "p": 0.2},
        {"to": "openai/gpt-5-nano", "p": 0.3},
        {"to": {"content": "Paris"}, "p": 0.1},
    ]
    c = by_index(render.unary_json(run(body, script, ID_B)))
    # nano's "Paris" gets 0.3 + 0.1 (merged by confidence id), ranks first, keeps p = 1 after truncation
    assert c[3]["confidence_id"] == PARIS
    assert c[3]["message"]["content"] == PARIS


def test_logprob_vote_normalises_and_drops_zero() -> None:
    body = copy.deepcopy(REQUEST_B)
    body["model"]["models"].pop(4)
    script = copy.deepcopy(SCRIPT_B)
    script["llms"][3]["output"]["vote"] = [
        {"to": {"index": 0}, "p": 3},
        {"to": {"index": 1}, "p": 1},
        {"to": {"index": 1}, "p": 0},
    ]
    c = by_index(render.unary_json(run(body, script, ID_B)))
    assert c[3]["confidence_id"] == {PARIS_DOT: 0.75, PARIS: 0.25}
    assert c[3]["message"]["content"] == PARIS_DOT  # the top candidate's generate_id


def test_non_logprobs_mode_keeps_only_the_top_entry() -> None:
    body = copy.deepcopy(REQUEST_D)
    script = {
        "llms": [
            {
                "match": {"mode": "select_non_thinking"},
                "output": {
                    "vote": [
                        {"to": {"json": {"approved": False}}, "p": 0.6},
                        {"to": {"json": {"approved": True}}, "p": 0.4},
                    ]
                },
            },
            {"match": {"index": 1}, "output": {"vote": {"index": 1}}},
        ]
    }
    outcome = run(body, script, ID_D)
    c = by_index(render.unary_json(outcome))
    assert c[2]["confidence_id"] == "27emL2kxexyY2vYDZIMWPm"  # false, with p = 1
    assert c[3]["confidence_id"] == "4Zjy6BMklNXwutCtXC5nOT"
    # W(false) = 1, W(true) = 3 → 0.25 / 0.75
    assert c[0]["confidence"] == 0.25 and c[1]["confidence"] == 0.75
    assert any("only the top of 2 vote entries" in w for w in outcome.warnings)


def test_training_table_weight_is_scripted_and_clamped() -> None:
    def tt(slug: str) -> dict[str, Any]:
        return {
            "id": slug,
            "mode": "generate",
            "weight": {"type": "training_table", "base_weight": 1, "min_weight": 0.5, "max_weight": 2},
        }

    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "model": {
            "models": [tt("a/one"), tt("b/two")],
            "weight": {"type": "training_table", "embeddings_model": "e/m", "top": 3},
        },
    }
    script = {
        "llms": [
            {"match": {"id": "a/*"}, "weight": 9, "output": {"content": "A"}},
            {"match": {"id": "b/*"}, "output": {"content": "B"}},
        ]
    }
    out = render.unary_json(run(body, script, ID_D))
    weights = {c["message"]["content"]: (c["confidence_weight"], c["confidence"]) for c in out["choices"]}
    assert weights["A"][0] == 2.0 and weights["B"][0] == 1.0
    assert math.isclose(weights["A"][1], 2 / 3, abs_tol=1e-9)
    assert out["training_table_data"]["embeddings_response"]["model"] == "e/m"
    assert list(out)[-1] == "training_table_data"


def test_unscripted_model_is_unanimous() -> None:
    body = {
        "messages": [{"role": "user", "content": "anything"}],
        "model": {
            "models": [llm("a/x", "generate", 1), llm("b/y", "generate", 2), llm("c/z", "select_thinking", 1)],
            "weight": {"type": "static"},
        },
    }
    out = render.unary_json(run(body, None, ID_D))
    generated = [c for c in out["choices"] if c["generate_id"]]
    assert len({c["message"]["content"] for c in generated}) == 1
    assert all(c["confidence"] == 1.0 for c in out["choices"])
    vote = next(c for c in out["choices"] if c["generate_id"] is None)
    assert vote["message"]["reasoning"] == "I compared the responses and chose the best one."
    assert vote["message"]["content"] == generated[0]["generate_id"]
    # a different server seed gives different prose; the same seed the same bytes
    assert (
        render.unary_json(run(body, None, ID_D, seed=8))["choices"][0]["message"]["content"]
        != (generated[0]["message"]["content"])
    )


def test_unscripted_json_schema_content_follows_the_schema() -> None:
    body = {
        "messages": [{"role": "user", "content": "x"}],
        "model": {"models": [llm("a/x", "generate", 1)], "weight": {"type": "static"}},
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "N",
                "schema": {"type": "object", "properties": {"city": {"type": "string"}, "n": {"type": "integer"}}},
            },
        },
    }
    import json

    value = json.loads(render.unary_json(run(body, None, ID_D))["choices"][0]["message"]["content"])
    assert list(value) == ["city", "n"] and isinstance(value["n"], int)


def test_select_deterministic_without_generators_uses_a_seeded_default() -> None:
    out = render.unary_json(run(REQUEST_D, None, ID_D))
    votes = [c for c in out["choices"] if c["model_index"] is not None]
    assert all(isinstance(c["confidence_id"], str) for c in votes)
    assert math.isclose(sum(c["confidence"] for c in out["choices"] if c["model_index"] is None), 1.0)
