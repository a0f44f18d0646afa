"""scenarios/agent-weather.yaml: ZenMux's multi-turn weather agent (anthropic, reasoning on).

Turn 1 reasons and calls search_city_weather; turn 2, with the assistant message passed back as
received and the tool result, answers from the result. Altered or missing signed reasoning in
turn 2 is answered 400 `invalid_params` as ZenMux does (or warned, or let through, by `reasoning_check`)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import openai
import pytest

from tests.conftest import SHIPPED
from tests.faces.chat.agent.helpers import (
    ANTHROPIC,
    GEMINI,
    GPT5,
    RULE_HEADER,
    SEARCH_CITY_WEATHER,
    TOOLU_ID,
    WARNINGS_HEADER,
    accumulate,
    deltas,
    dumps,
    last_warnings,
    message_of,
    sdk_chunks,
    shipped_text,
)
from tests.faces.chat.contract.helpers import assert_envelope, post
from tests.support.clients import sdk
from tests.support.openai_schema import assert_chat_chunk, assert_chat_completion
from tests.support.shipped import load_paths
from zenmux_emulator.foundation.signatures import Signer

FILE = SHIPPED / "agent-weather.yaml"
COVERED = {"weather-call-tool", "weather-answer"}

QUESTION = {"role": "user", "content": "今天是2025年8月15日，上海今天天气怎么样"}
TURN1_REASONING = "用户想知道2025年8月15日上海的天气情况。我需要使用search_city_weather函数来查询。"
RESULT = {
    "city": "上海市",
    "date": "2025-08-15",
    "week": "1",
    "dayweather": "多云",
    "nightweather": "多云",
    "daywind": "东南",
    "nightwind": "东南",
    "daypower": "1-3",
    "nightpower": "1-3",
    "daytemp_float": "35.0",
    "nighttemp_float": "28.0",
}
ANSWER = "上海市 2025-08-15: 多云, 35.0°C by day, 28.0°C at night."
TURN2_REASONING = "The tool returned the forecast for 上海市; summarise it."
REASONING_ON = {"reasoning": {"enabled": True}}
REFUSED = "invalid_params"
BAD_SIGNATURE = "messages.1.content.0: Invalid `signature` in `thinking` block"


def turn1_body(model: str = ANTHROPIC, **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [QUESTION], "tools": [SEARCH_CITY_WEATHER], **REASONING_ON, **extra}


def turn2_body(
    assistant: dict[str, Any], model: str = ANTHROPIC, result: dict[str, Any] = RESULT, **extra: Any
) -> dict[str, Any]:
    call_id = assistant["tool_calls"][0]["id"]
    messages = [QUESTION, assistant, {"role": "tool", "tool_call_id": call_id, "content": dumps(result)}]
    return {"model": model, "messages": messages, "tools": [SEARCH_CITY_WEATHER], **REASONING_ON, **extra}


def turn1(server, session: str, model: str = ANTHROPIC) -> dict[str, Any]:
    """The turn-1 assistant message exactly as the server sent it."""
    response = post(server, turn1_body(model), session=session)
    assert response.headers.get(RULE_HEADER) == "weather-call-tool"
    return message_of(response)


def test_every_rule_of_agent_weather_yaml_is_covered_here():
    assert {rule.name for rule in load_paths([FILE]).rules} == COVERED


# --- the happy path -----------------------------------------------------------------------------


def test_turn1_reasons_and_calls_the_tool(shipped, client: openai.OpenAI):
    raw = client.chat.completions.with_raw_response.create(
        model=ANTHROPIC, messages=[QUESTION], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON
    )
    assert raw.headers.get(RULE_HEADER) == "weather-call-tool"
    completion = raw.parse()
    assert_chat_completion(completion.model_dump(exclude_unset=True))
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    [call] = choice.message.tool_calls
    assert re.match(TOOLU_ID, call.id)
    assert call.function.name == "search_city_weather"
    assert json.loads(call.function.arguments) == {"city": "上海", "date": "2025-08-15"}
    extra = choice.message.model_extra
    assert extra["reasoning"] == TURN1_REASONING
    [block] = extra["reasoning_details"]
    assert block["type"] == "reasoning.text"
    assert block["text"] == TURN1_REASONING
    assert block["format"] == "anthropic-claude-v1"
    assert block["index"] == 0 and isinstance(block["index"], int)
    assert Signer.from_settings(shipped.state.settings.seed, None).verify(
        "anthropic", 0, TURN1_REASONING, block["signature"]
    )
    assert completion.usage.completion_tokens_details.reasoning_tokens > 0


def test_turn1_is_deterministic(shipped, session):
    assert turn1(shipped, session) == turn1(shipped, session + "-again")


def test_turn2_with_the_message_passed_back_answers_from_the_tool_result(client: openai.OpenAI):
    first = (
        client.chat.completions.create(
            model=ANTHROPIC, messages=[QUESTION], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON
        )
        .choices[0]
        .message
    )
    raw = client.chat.completions.with_raw_response.create(
        model=ANTHROPIC,
        tools=[SEARCH_CITY_WEATHER],
        extra_body=REASONING_ON,
        messages=[
            QUESTION,
            first.model_dump(),
            {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": dumps(RESULT)},
        ],
    )
    assert raw.headers.get(RULE_HEADER) == "weather-answer"
    assert raw.headers.get(WARNINGS_HEADER) is None
    completion = raw.parse()
    assert_chat_completion(completion.model_dump(exclude_unset=True))
    message = completion.choices[0].message
    assert message.content == ANSWER
    assert completion.choices[0].finish_reason == "stop"
    assert not message.tool_calls
    assert message.model_extra["reasoning"] == TURN2_REASONING
    assert message.model_extra["reasoning_details"][0]["text"] == TURN2_REASONING


def test_turn2_accepts_the_message_dumped_without_nones(client: openai.OpenAI):
    first = (
        client.chat.completions.create(
            model=ANTHROPIC, messages=[QUESTION], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON
        )
        .choices[0]
        .message
    )
    answer = client.chat.completions.create(
        model=ANTHROPIC,
        tools=[SEARCH_CITY_WEATHER],
        extra_body=REASONING_ON,
        messages=[
            QUESTION,
            first.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": dumps(RESULT)},
        ],
    )
    assert answer.choices[0].message.content == ANSWER


async def test_turn1_then_turn2_async(aclient: openai.AsyncOpenAI):
    first = (
        (
            await aclient.chat.completions.create(
                model=ANTHROPIC, messages=[QUESTION], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON
            )
        )
        .choices[0]
        .message
    )
    assert first.model_extra["reasoning_details"][0]["signature"]
    answer = await aclient.chat.completions.create(
        model=ANTHROPIC,
        tools=[SEARCH_CITY_WEATHER],
        extra_body=REASONING_ON,
        messages=[
            QUESTION,
            first.model_dump(),
            {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": dumps(RESULT)},
        ],
    )
    assert answer.choices[0].message.content == ANSWER


def test_turn2_template_reads_other_json_values(shipped, session):
    assistant = turn1(shipped, session)
    other = {**RESULT, "city": "北京市", "dayweather": "晴", "daytemp_float": "30.5"}
    message = message_of(post(shipped, turn2_body(assistant, result=other), session=session))
    assert message["content"] == "北京市 2025-08-15: 晴, 30.5°C by day, 28.0°C at night."


def test_turn2_for_another_date_is_not_answered_by_weather_answer(shipped, session):
    assistant = turn1(shipped, session)
    response = post(shipped, turn2_body(assistant, result={**RESULT, "date": "2025-08-16"}), session=session)
    assert response.status == 200
    assert response.headers.get(RULE_HEADER) != "weather-answer"


def test_turn1_needs_the_tool_offered(shipped, session):
    response = post(shipped, {"model": ANTHROPIC, "messages": [QUESTION], **REASONING_ON}, session=session)
    assert response.headers.get(RULE_HEADER) != "weather-call-tool"


# --- streamed -----------------------------------------------------------------------------------


def test_turn1_streamed_reasons_first_then_signs_then_calls(shipped, session):
    plain = turn1(shipped, session)
    response = post(shipped, {**turn1_body(), "stream": True}, session=session)
    assert response.headers.get(RULE_HEADER) == "weather-call-tool"
    chunks = response.sse().chunks
    for chunk in chunks:
        assert_chat_chunk(chunk)
    steps = deltas(chunks)
    assert steps[0]["role"] == "assistant"
    reasoning_steps = [i for i, d in enumerate(steps) if "reasoning_details" in d]
    call_steps = [i for i, d in enumerate(steps) if d.get("tool_calls")]
    assert reasoning_steps and call_steps and max(reasoning_steps) < min(call_steps)
    assert reasoning_steps == list(range(1, 1 + len(reasoning_steps)))
    *pieces, closing = [steps[i] for i in reasoning_steps]
    assert len(pieces) > 1
    for piece in pieces:
        [fragment] = piece["reasoning_details"]
        assert piece["reasoning"] and fragment["text"] == piece["reasoning"]
        assert fragment["type"] == "reasoning.text" and fragment["format"] == "anthropic-claude-v1"
        assert fragment["index"] == 0 and "signature" not in fragment
    assert closing["reasoning"] is None
    [signed] = closing["reasoning_details"]
    assert "text" not in signed and signed["signature"] == plain["reasoning_details"][0]["signature"]
    message = accumulate(chunks)
    assert message["reasoning"] == plain["reasoning"] == TURN1_REASONING
    assert message["reasoning_details"] == plain["reasoning_details"]
    assert message["tool_calls"] == plain["tool_calls"]
    assert message["content"] is None


def test_turn2_after_a_streamed_turn1_with_the_reassembled_message(client: openai.OpenAI):
    stream = client.chat.completions.create(
        model=ANTHROPIC, messages=[QUESTION], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON, stream=True
    )
    assistant = accumulate(sdk_chunks(stream))
    body = turn2_body(assistant)
    stream = client.chat.completions.create(
        model=ANTHROPIC, messages=body["messages"], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON, stream=True
    )
    answer = accumulate(sdk_chunks(stream))
    assert answer["content"] == ANSWER
    assert answer["reasoning"] == TURN2_REASONING


# --- verification of the passed-back reasoning ---------------------------------------------------


def _drop_details(m: dict[str, Any]) -> None:
    del m["reasoning_details"]


def _drop_signature(m: dict[str, Any]) -> None:
    del m["reasoning_details"][0]["signature"]


def _edit_text(m: dict[str, Any]) -> None:
    m["reasoning_details"][0]["text"] += " 另外"


def _edit_signature(m: dict[str, Any]) -> None:
    signature = m["reasoning_details"][0]["signature"]
    middle = len(signature) // 2
    m["reasoning_details"][0]["signature"] = (
        signature[:middle] + ("A" if signature[middle] != "A" else "B") + signature[middle + 1 :]
    )


def _reorder(m: dict[str, Any], signer: Signer) -> None:
    m["reasoning_details"] = list(reversed(two_blocks(signer)))


def two_blocks(signer: Signer) -> list[dict[str, Any]]:
    texts = ["First I read the question.", " Then I call search_city_weather."]
    return [
        {
            "type": "reasoning.text",
            "text": t,
            "signature": signer.sign("anthropic", i, t),
            "format": "anthropic-claude-v1",
            "index": i,
        }
        for i, t in enumerate(texts)
    ]


ALTERATIONS: dict[str, Callable[..., None]] = {
    "details removed": _drop_details,
    "signature removed": _drop_signature,
    "text edited": _edit_text,
    "signature edited": _edit_signature,
}


@pytest.mark.parametrize("alteration", list(ALTERATIONS))
def test_turn2_with_altered_reasoning_is_rejected_400(client: openai.OpenAI, alteration: str):
    first = (
        client.chat.completions.create(
            model=ANTHROPIC, messages=[QUESTION], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON
        )
        .choices[0]
        .message
    )
    assistant = first.model_dump()
    ALTERATIONS[alteration](assistant)
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(
            model=ANTHROPIC,
            messages=turn2_body(assistant)["messages"],
            tools=[SEARCH_CITY_WEATHER],
            extra_body=REASONING_ON,
        )
    assert raised.value.status_code == 400
    assert raised.value.body["type"] == REFUSED
    assert raised.value.body["code"] == "400"
    assert "messages.1" in raised.value.body["message"]


@pytest.mark.parametrize("alteration", list(ALTERATIONS))
def test_turn2_with_altered_reasoning_gets_zenmux_error_envelope(shipped, session, alteration: str):
    assistant = turn1(shipped, session)
    ALTERATIONS[alteration](assistant)
    error = assert_envelope(post(shipped, turn2_body(assistant), session=session), 400, REFUSED)
    assert error["message"].startswith("messages.1.")


@pytest.mark.parametrize("alteration", ["signature edited", "text edited"])
def test_turn2_with_a_bad_signature_gets_zenmux_own_answer(shipped, session, alteration: str):
    """ZenMux's answer, byte for byte, as users of Claude models through it report it."""
    assistant = turn1(shipped, session)
    ALTERATIONS[alteration](assistant)
    response = post(shipped, turn2_body(assistant), session=session)
    assert response.status == 400
    assert response.body == (
        b'{"error":{"code":"400","type":"invalid_params","message":'
        b'"messages.1.content.0: Invalid `signature` in `thinking` block"}}'
    )


def test_a_streamed_turn2_with_altered_reasoning_is_rejected_before_streaming(shipped, session, client):
    assistant = turn1(shipped, session)
    _edit_signature(assistant)
    response = post(shipped, {**turn2_body(assistant), "stream": True}, session=session)
    error = assert_envelope(response, 400, REFUSED)
    assert "messages.1" in error["message"]
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model=ANTHROPIC,
            messages=turn2_body(assistant)["messages"],
            tools=[SEARCH_CITY_WEATHER],
            extra_body=REASONING_ON,
            stream=True,
        )


async def test_turn2_with_altered_reasoning_is_rejected_async(aclient: openai.AsyncOpenAI):
    first = (
        (
            await aclient.chat.completions.create(
                model=ANTHROPIC, messages=[QUESTION], tools=[SEARCH_CITY_WEATHER], extra_body=REASONING_ON
            )
        )
        .choices[0]
        .message
    )
    assistant = first.model_dump()
    _drop_signature(assistant)
    with pytest.raises(openai.BadRequestError) as raised:
        await aclient.chat.completions.create(
            model=ANTHROPIC,
            messages=turn2_body(assistant)["messages"],
            tools=[SEARCH_CITY_WEATHER],
            extra_body=REASONING_ON,
        )
    assert raised.value.body["type"] == REFUSED and "messages.1" in raised.value.body["message"]


def test_turn2_with_blocks_reordered_is_rejected_and_in_order_accepted(shipped, session):
    signer = Signer.from_settings(shipped.state.settings.seed, None)
    assistant = turn1(shipped, session)
    in_order = copy.deepcopy(assistant)
    in_order["reasoning_details"] = two_blocks(signer)
    accepted = post(shipped, turn2_body(in_order), session=session)
    assert accepted.status == 200, accepted.body
    assert message_of(accepted)["content"] == ANSWER
    _reorder(assistant, signer)
    error = assert_envelope(post(shipped, turn2_body(assistant), session=session), 400, REFUSED)
    assert "messages.1" in error["message"]


def test_turn2_with_a_block_minted_for_google_is_rejected(shipped, session):
    google = turn1(shipped, session, model=GEMINI)
    [block] = google["reasoning_details"]
    assert "format" not in block and block["signature"]
    assistant = turn1(shipped, session)
    assistant["reasoning_details"] = [{**block, "format": "anthropic-claude-v1"}]
    assert assistant["reasoning_details"][0]["text"] == TURN1_REASONING  # same text, other family
    error = assert_envelope(post(shipped, turn2_body(assistant), session=session), 400, REFUSED)
    assert "messages.1" in error["message"]


def test_google_turn2_with_its_own_block_passed_back_succeeds(shipped, session):
    google = turn1(shipped, session, model=GEMINI)
    response = post(shipped, turn2_body(google, model=GEMINI), session=session)
    assert response.headers.get(RULE_HEADER) == "weather-answer"
    assert message_of(response)["content"] == ANSWER


def test_openai_turn2_verifies_the_encrypted_block(shipped, session):
    assistant = turn1(shipped, session, model=GPT5)
    summary, encrypted = assistant["reasoning_details"]
    assert summary["type"] == "reasoning.summary" and encrypted["type"] == "reasoning.encrypted"
    accepted = post(shipped, turn2_body(assistant, model=GPT5), session=session)
    assert message_of(accepted)["content"] == ANSWER
    data = encrypted["data"]
    middle = len(data) // 2
    edited = copy.deepcopy(assistant)
    edited["reasoning_details"][1]["data"] = data[:middle] + ("A" if data[middle] != "A" else "B") + data[middle + 1 :]
    error = assert_envelope(post(shipped, turn2_body(edited, model=GPT5), session=session), 400, REFUSED)
    assert "messages.1" in error["message"]
    renamed = copy.deepcopy(assistant)
    renamed["reasoning_details"][1]["id"] = "rs_" + "0" * 50
    error = assert_envelope(post(shipped, turn2_body(renamed, model=GPT5), session=session), 400, REFUSED)
    assert "messages.1" in error["message"]


def test_no_check_when_turn2_does_not_enable_reasoning(shipped, session):
    assistant = turn1(shipped, session)
    _edit_text(assistant)
    body = turn2_body(assistant)
    del body["reasoning"]
    response = post(shipped, body, session=session)
    assert response.status == 200, response.body
    assert message_of(response)["content"] == ANSWER
    assert response.headers.get(WARNINGS_HEADER) is None
    stripped = turn1(shipped, session)
    _drop_details(stripped)
    body = turn2_body(stripped, reasoning={"enabled": False})
    assert post(shipped, body, session=session).status == 200


# --- reasoning_check and the secret ---------------------------------------------------------------


def test_reasoning_check_warn_answers_with_a_warning(make_server, session):
    server = make_server(shipped_text("agent-weather.yaml"), reasoning_check="warn")
    assistant = turn1(server, session)
    _edit_text(assistant)
    response = post(server, turn2_body(assistant), session=session)
    assert response.status == 200, response.body
    assert message_of(response)["content"] == ANSWER
    warning = response.headers.get(WARNINGS_HEADER, "")
    assert "reasoning check" in warning and "messages.1" in warning
    assert any("messages.1" in w for w in last_warnings(server, session))


def test_reasoning_check_off_answers_without_a_warning(make_server, session):
    server = make_server(shipped_text("agent-weather.yaml"), reasoning_check="off")
    for alteration in (_drop_details, _edit_signature):
        assistant = turn1(server, session)
        alteration(assistant)
        response = post(server, turn2_body(assistant), session=session)
        assert response.status == 200, response.body
        assert message_of(response)["content"] == ANSWER
        assert response.headers.get(WARNINGS_HEADER) is None
        assert last_warnings(server, session) == []


def test_a_different_reasoning_secret_rejects_signatures_minted_by_another(make_server, session):
    text = shipped_text("agent-weather.yaml")
    first = make_server(text, reasoning_secret="first secret")
    second = make_server(text, reasoning_secret="second secret")
    twin = make_server(text, reasoning_secret="first secret")
    assistant = turn1(first, session)
    assert message_of(post(first, turn2_body(assistant), session=session))["content"] == ANSWER
    assert message_of(post(twin, turn2_body(assistant), session=session))["content"] == ANSWER
    error = assert_envelope(post(second, turn2_body(assistant), session=session), 400, REFUSED)
    assert "messages.1" in error["message"]
    with sdk(second, session) as client, pytest.raises(openai.BadRequestError):
        client.chat.completions.create(
            model=ANTHROPIC,
            messages=turn2_body(assistant)["messages"],
            tools=[SEARCH_CITY_WEATHER],
            extra_body=REASONING_ON,
        )


def test_the_default_secret_follows_the_seed(make_server, shipped, session):
    text = shipped_text("agent-weather.yaml")
    same_seed = make_server(text)
    other_seed = make_server(text, seed=shipped.state.settings.seed + 1)
    assistant = turn1(shipped, session)
    assert post(same_seed, turn2_body(assistant), session=session).status == 200
    assert_envelope(post(other_seed, turn2_body(assistant), session=session), 400, REFUSED)
